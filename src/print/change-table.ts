// The change set as kapp shows it: one row per object (namespace, name, kind, operation, and
// why apply will leave it alone or fail), then a line of counts. Shared by `live diff` and the
// confirmation before apply/destroy deletes anything. Pure: changes in, lines out.

import type { ChalkInstance } from "chalk";
import type { Change, ChangeSummary, HookChange } from "../diff/change-set.js";
import { formatRef } from "../model/ref.js";

const HEADERS = ["Namespace", "Name", "Kind", "Op", "Note"] as const;

function noteOf(c: Change): string {
  if (c.error) return `error: ${c.error}`;
  if (c.skip) return `skip: ${c.skip}`;
  return c.note ?? "";
}

function paintOp(c: Change, text: string, paint: ChalkInstance): string {
  if (c.error) return paint.red(text);
  if (c.skip || c.operation === "noop") return paint.dim(text);
  return c.operation === "create" ? paint.green(text) : c.operation === "delete" || c.operation === "replace" ? paint.red(text) : paint.yellow(text);
}

export function formatChangeTable(changes: readonly Change[], paint: ChalkInstance): string[] {
  const rows = changes.map((c) => [c.ref.namespace || "(cluster)", c.ref.name, c.ref.kind, c.operation, noteOf(c)] as const);
  const widths = HEADERS.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: readonly string[], render: (cell: string, i: number) => string) =>
    cells
      .map((cell, i) => render(i === cells.length - 1 ? cell : cell.padEnd(widths[i]!), i))
      .join("  ")
      .trimEnd();
  return [
    line(HEADERS, (cell) => paint.bold(cell)),
    ...rows.map((r, n) => {
      const c = changes[n]!;
      return line(r, (cell, i) => (i === 3 ? paintOp(c, cell, paint) : i === 4 && (c.error || c.skip) ? (c.error ? paint.red(cell) : paint.yellow(cell)) : cell));
    }),
  ];
}

/** `Op: 1 create, 2 update, 1 delete, 6 noop, 1 skipped, 0 errors` (only the non-zero skipped/errors). */
export function formatChangeCounts(s: ChangeSummary): string {
  const parts = [`${s.create} create`, `${s.update} update`, ...(s.replace ? [`${s.replace} replace`] : []), `${s.delete} delete`, `${s.noop} noop`];
  if (s.hooks) parts.push(`${s.hooks} ${s.hooks === 1 ? "hook" : "hooks"}`);
  if (s.skipped) parts.push(`${s.skipped} skipped`);
  if (s.errors) parts.push(`${s.errors} ${s.errors === 1 ? "error" : "errors"}`);
  return `Op: ${parts.join(", ")}`;
}

/**
 * The hooks the run would run, in their place among its steps (docs/lifecycle.md):
 * `pre-apply (before the first apply wave): job.batch/db-migrate in app, create`.
 */
export function formatHookRows(hooks: readonly HookChange[], paint: ChalkInstance): string[] {
  return hooks.map((h) => {
    const where = HOOK_PLACE[h.phase];
    const what = `${h.phase} hook ${h.wave + 1} (${where}): ${formatRef(h.ref)}${h.ref.namespace ? ` in ${h.ref.namespace}` : ""}, ${h.operation === "recreate" ? "create (the one an earlier run left is deleted first)" : "create"}`;
    return h.error ? paint.red(`${what}: error: ${h.error}`) : what;
  });
}

/** Where each phase's hooks run among the steps. */
export const HOOK_PLACE: Record<HookChange["phase"], string> = {
  "pre-apply": "before the first apply wave",
  "post-apply": "after the last apply and prune wave",
  "pre-destroy": "before the first delete wave",
  "post-destroy": "after the last delete wave",
};
