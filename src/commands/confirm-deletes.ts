// The question before apply prunes or destroy deletes: read what the run would delete, and ask
// when a person can answer (see confirm-policy.ts). Declining ends the command before the engine
// starts, so nothing was changed.

import type { Cluster } from "../cluster/types.js";
import { confirmMode, deletesToConfirm } from "../confirm/confirm-policy.js";
import { computeChangeSet } from "../diff/change-set.js";
import { planDeletes } from "../diff/plan-deletes.js";
import { CancelledError } from "../errors.js";
import type { InventoryPolicy } from "../inventory/policy.js";
import type { Package } from "../object/types.js";
import { askToProceed } from "../print/confirm-prompt.js";
import type { CommandIO } from "./io.js";

export interface ConfirmDeletesOptions {
  command: "apply" | "destroy";
  yes: boolean;
  dryRun: boolean;
  output: "events" | "table" | "json";
  inventoryPolicy: InventoryPolicy;
  color: boolean;
}

export async function confirmDeletes(pkg: Package, cluster: Cluster, o: ConfirmDeletesOptions, io: CommandIO): Promise<void> {
  const interactive = Boolean(io.stdin.isTTY && io.stdout.isTTY);
  if (confirmMode({ interactive, yes: o.yes, dryRun: o.dryRun, output: o.output, packageFromStdin: pkg.path === "-" }) === "proceed") return;
  const plan = await planDeletes(pkg, cluster, { command: o.command, inventoryPolicy: o.inventoryPolicy, signal: io.signal });
  const deletes = computeChangeSet({ inventory: plan.inventory, applies: [], deletes: plan.deletes }).changes;
  const effective = deletesToConfirm(deletes).length;
  if (effective === 0) return;
  const yes = await askToProceed({ command: o.command, inventory: plan.inventory, deletes, effective, applies: plan.applies }, { stdin: io.stdin, stdout: io.stdout, color: o.color, signal: io.signal });
  if (!yes) throw new CancelledError(`${o.command} cancelled: nothing was changed`);
}
