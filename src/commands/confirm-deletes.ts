// The question before apply prunes or destroy deletes, asked by the engine once its plan is made
// and before its first write (EngineOptions.confirm), so declining changes nothing. It reads the
// plan's deletes (planChanges) and asks when a person can answer (see confirm-policy.ts).

import type { EngineOptions } from "../engine/options.js";
import type { RunPlan } from "../model/plan.js";
import { confirmMode, deletesToConfirm } from "../diff/confirm-policy.js";
import { planChanges } from "../diff/change-set.js";
import { CancelledError } from "../model/errors.js";
import type { Package } from "../model/kube-object.js";
import { askToProceed } from "../print/confirm-prompt.js";
import type { CommandIO } from "./io.js";

interface ConfirmDeletesOptions {
  yes: boolean;
  dryRun: boolean;
  output: "events" | "table" | "json" | "markdown";
  color: boolean;
}

/** The engine's confirm hook when a person can answer (see confirm-policy.ts), else undefined. */
export function confirmHook(pkg: Package, o: ConfirmDeletesOptions, io: CommandIO): EngineOptions["confirm"] {
  // Standard output first: when it is not a terminal, standard input need not be opened.
  const interactive = Boolean(io.stdout.isTTY && io.stdin.isTTY);
  if (confirmMode({ interactive, yes: o.yes, dryRun: o.dryRun, output: o.output, packageFromStdin: pkg.path === "-" }) === "proceed") return undefined;
  return async (plan: RunPlan) => {
    const deletes = planChanges(plan).filter((c) => c.operation === "delete");
    const effective = deletesToConfirm(deletes).length;
    if (effective === 0) return;
    const info = plan.inventory.info;
    const inventory = { name: info.name, namespace: info.namespace, exists: plan.inventory.stored !== undefined };
    const applies = plan.command === "apply" ? plan.applies.length : 0;
    const yes = await askToProceed({ command: plan.command, inventory, deletes, effective, applies }, { stdin: io.stdin, stdout: io.stdout, color: o.color, signal: io.signal });
    if (!yes) throw new CancelledError(`${plan.command} cancelled: nothing was changed`);
  };
}
