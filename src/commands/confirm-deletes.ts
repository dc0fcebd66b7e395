// The question before apply prunes or destroy deletes: read what the run would delete, and ask
// when a person can answer (see confirm-policy.ts). Declining ends the command before the engine
// starts, so nothing was changed.
//
// askBeforeDeleting takes the plan in the shape an engine hook would hand it (delete candidates
// with kpt's decision), so the same question can later be asked from inside the engine, on the
// engine's own plan, instead of after this separate read.

import type { EngineOptions } from "../engine/options.js";
import type { RunPlan } from "../model/plan.js";
import { confirmMode, deletesToConfirm } from "../confirm/confirm-policy.js";
import { computeChangeSet, type ChangeSet, type DeleteCandidate } from "../diff/change-set.js";
import { CancelledError } from "../model/errors.js";
import type { Package } from "../model/kube-object.js";
import { askToProceed } from "../print/confirm-prompt.js";
import type { CommandIO } from "./io.js";

export interface ConfirmDeletesOptions {
  command: "apply" | "destroy";
  yes: boolean;
  dryRun: boolean;
  output: "events" | "table" | "json";
  color: boolean;
}

/**
 * The engine's confirm hook when a person can answer (see confirm-policy.ts), else undefined.
 * The engine calls it with its own plan, after reading the cluster and before its first write,
 * so declining changes nothing.
 */
export function confirmHook(pkg: Package, o: ConfirmDeletesOptions, io: CommandIO): EngineOptions["confirm"] {
  const interactive = Boolean(io.stdin.isTTY && io.stdout.isTTY);
  if (confirmMode({ interactive, yes: o.yes, dryRun: o.dryRun, output: o.output, packageFromStdin: pkg.path === "-" }) === "proceed") return undefined;
  return (plan: RunPlan) =>
    askBeforeDeleting(
      {
        command: plan.command,
        inventory: { name: pkg.inventory.name, namespace: pkg.inventory.namespace, exists: plan.inventory.stored !== undefined },
        deletes: plan.deletes,
        applies: plan.command === "apply" ? plan.applies.length : 0,
      },
      o.color,
      io,
    );
}

export interface DeletePlan {
  command: "apply" | "destroy";
  inventory: ChangeSet["inventory"];
  deletes: readonly DeleteCandidate[];
  /** Package objects the apply applies (0 for destroy). */
  applies: number;
}

/** Asks when something would really be deleted; throws CancelledError unless the answer is yes. */
export async function askBeforeDeleting(plan: DeletePlan, color: boolean, io: CommandIO): Promise<void> {
  const deletes = computeChangeSet({ inventory: plan.inventory, applies: [], deletes: plan.deletes }).changes;
  const effective = deletesToConfirm(deletes).length;
  if (effective === 0) return;
  const yes = await askToProceed({ command: plan.command, inventory: plan.inventory, deletes, effective, applies: plan.applies }, { stdin: io.stdin, stdout: io.stdout, color, signal: io.signal });
  if (!yes) throw new CancelledError(`${plan.command} cancelled: nothing was changed`);
}
