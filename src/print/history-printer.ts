// `live history` and `live list`: text tables in kapp's style, or one JSON document. Pure
// formatting (records and rows in, lines out) plus the one function that writes them.

import { escapeDeep } from "./terminal-text.js";
import type { ChalkInstance } from "chalk";
import { formatFailed, formatHookRun, formatOp, formatReplacement, shownResult, type ChangeRecord, type ShownResult } from "../history/change-record.js";
import type { InventoryRow } from "../history/inventory-list.js";
import { formatAge } from "./table-layout.js";
import { formatColumns } from "./text-columns.js";
import { formatDuration } from "./waiting-line.js";

const RESULT_COLOURS: Record<ShownResult, "green" | "red" | "yellow" | "cyan"> = { succeeded: "green", failed: "red", interrupted: "yellow", unknown: "yellow", running: "cyan" };

function paintResult(result: ShownResult | undefined, text: string, paint: ChalkInstance): string {
  const colour = result && RESULT_COLOURS[result];
  return colour ? paint[colour](text) : text;
}

/** `2026-01-02T03:04:05Z`: UTC to the second. */
function formatTime(iso: string): string {
  return iso.replace(/\.\d+Z$/, "Z");
}

function took(r: ChangeRecord): string {
  if (!r.finishedAt) return "-";
  const ms = Math.max(0, Date.parse(r.finishedAt) - Date.parse(r.startedAt));
  return ms < 1000 ? "<1s" : formatDuration(Math.round(ms / 1000) * 1000);
}

export function formatHistory(inventory: { name: string; namespace: string; id: string; kind?: string }, stored: readonly ChangeRecord[], paint: ChalkInstance): string[] {
  // What the cluster stores, anyone with write access to it may have written: escaped.
  const records = escapeDeep(stored);
  const head = `Inventory: ${inventory.kind ?? "ResourceGroup"} ${inventory.namespace}/${inventory.name} (inventory id ${inventory.id})`;
  if (records.length === 0) return [head, "", "No changes recorded: kpt-ts records each live apply and live destroy (not dry runs) here."];
  const lines = [head, ""];
  const table = formatColumns(
    [
      { header: "Started", cell: (r: ChangeRecord) => formatTime(r.startedAt) },
      { header: "Took", cell: took },
      { header: "Command", cell: (r) => r.command },
      { header: "User", cell: (r) => r.user || "-" },
      { header: "Result", cell: (r) => shownResult(r, records), paint: (r, t) => paintResult(shownResult(r, records), t, paint) },
      { header: "Changes", cell: (r) => formatOp(r.counts) + (r.skipped ? `, ${r.skipped} skipped` : "") },
    ],
    records,
    paint,
  );
  lines.push(table[0]!);
  records.forEach((r, i) => {
    lines.push(table[i + 1]!);
    for (const h of r.hooks ?? []) lines.push(`  hook: ${formatHookRun(h)}`);
    for (const x of r.replaced ?? []) lines.push(`  replaced: ${formatReplacement(x)}`);
    for (const f of r.failed) lines.push(paint.red(`  failed: ${formatFailed(f)}`));
    if (r.moreFailed) lines.push(paint.red(`  failed: ${r.moreFailed} more object(s)`));
    if (r.error) lines.push(paint.yellow(`  stopped: ${r.error}`));
    if (shownResult(r, records) === "unknown") lines.push(paint.yellow("  never finished: its process was killed or lost the cluster"));
  });
  lines.push("", `${records.length} change(s), newest first`);
  return lines;
}

export function historyJson(inventory: { name: string; namespace: string; id: string }, stored: readonly ChangeRecord[]): unknown {
  const records = escapeDeep(stored);
  return {
    inventory,
    changes: records.map((r) => ({
      name: r.name ?? "",
      command: r.command,
      user: r.user,
      startedAt: r.startedAt,
      ...(r.finishedAt ? { finishedAt: r.finishedAt } : {}),
      result: shownResult(r, records),
      description: formatOp(r.counts),
      counts: r.counts,
      skipped: r.skipped,
      failed: r.failed,
      ...(r.moreFailed ? { moreFailed: r.moreFailed } : {}),
      ...(r.error ? { error: r.error } : {}),
      ...(r.hooks ? { hooks: r.hooks } : {}),
      ...(r.replaced ? { replaced: r.replaced } : {}),
    })),
  };
}

export function formatInventoryList(stored: readonly InventoryRow[], paint: ChalkInstance): string[] {
  const rows = escapeDeep(stored);
  if (rows.length === 0) return ["No inventories (ResourceGroups or ApplySets) found."];
  const spans = (r: InventoryRow) => [...r.namespaces, ...(r.clusterScoped ? ["(cluster)"] : [])].join(",") || "-";
  return [
    ...formatColumns(
      [
        { header: "Namespace", cell: (r: InventoryRow) => r.namespace },
        { header: "Name", cell: (r) => r.name },
        { header: "Kind", cell: inventoryKind },
        { header: "Objects", cell: (r) => String(r.objects) },
        { header: "Namespaces", cell: spans },
        { header: "Last change", cell: (r) => (r.lastChange ? `${r.lastChange.command} ${r.lastChange.result}` : "-"), paint: (r, t) => paintResult(r.lastChange?.result, t, paint) },
        { header: "Age", cell: (r) => (r.lastChange ? formatAge(r.lastChange.ageMs) : "-") },
      ],
      rows,
      paint,
    ),
    "",
    `${rows.length} inventor${rows.length === 1 ? "y" : "ies"}`,
  ];
}

/** `ResourceGroup`, `ApplySet` (a Secret parent, kpt-ts's), `ApplySet configmap`, `ApplySet kubectl` (another tool's). */
function inventoryKind(r: InventoryRow): string {
  if (r.kind !== "ApplySet") return r.kind;
  const tool = r.tooling ? r.tooling.split("/").slice(0, -1).join("/") || r.tooling : "";
  return ["ApplySet", r.parentKind === "ConfigMap" ? "configmap" : "", tool && tool !== "kpt-ts" ? tool : ""].filter(Boolean).join(" ");
}

export function inventoryListJson(rows: readonly InventoryRow[]): unknown {
  return { inventories: escapeDeep(rows) };
}

export function printDocument(lines: () => string[], json: () => unknown, opts: { output: "table" | "json"; stdout: NodeJS.WritableStream }): void {
  opts.stdout.write(opts.output === "json" ? `${JSON.stringify(json(), null, 2)}\n` : lines().map((l) => `${l}\n`).join(""));
}

