// When apply and destroy ask before deleting anything. Pure.
//
// They ask only when a person can answer: standard input and output are terminals, the output is
// not JSON, the package is not read from standard input, it is not a dry run, and --yes was not
// given. Everywhere else they proceed without asking, as kpt does, so scripts written for kpt keep
// working unchanged. And they ask only when something would really be deleted: an apply that
// only creates and updates, or whose prune candidates are all kept (protection annotation,
// inventory policy, namespace in use), goes ahead.

import { isEffective, type Change } from "./change-set.js";

export interface ConfirmContext {
  /** Standard input and standard output are both terminals. */
  interactive: boolean;
  yes: boolean;
  dryRun: boolean;
  output: "events" | "table" | "json" | "markdown";
  /** The package is read from standard input (`-`), which then cannot answer. */
  packageFromStdin: boolean;
}

type ConfirmMode = "ask" | "proceed";

/** Whether the run may ask at all (decided before the cluster is read). */
export function confirmMode(ctx: ConfirmContext): ConfirmMode {
  if (ctx.yes || ctx.dryRun || !ctx.interactive || ctx.output === "json" || ctx.packageFromStdin) return "proceed";
  return "ask";
}

/** The deletes worth a question: those apply/destroy will really make. */
export function deletesToConfirm(changes: readonly Change[]): Change[] {
  return changes.filter((c) => c.operation === "delete" && isEffective(c));
}

/** `y` or `yes`, in any case; anything else (an empty line included) is no. */
export function isYes(answer: string): boolean {
  return /^\s*(y|yes)\s*$/i.test(answer);
}
