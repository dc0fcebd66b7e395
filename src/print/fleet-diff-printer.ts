// A preview on many clusters (`live diff --contexts`, `live apply --dry-run --contexts --output
// markdown`): one summary on top (a row per cluster), then one section per cluster, the very
// preview a one-cluster run prints. In Markdown each section is collapsible, open where the
// cluster would change or failed, collapsed where nothing changes. Pure but for the write.

import { isEffective, summarizeChanges, type ChangeSet } from "../diff/change-set.js";
import type { ExitCode } from "../model/errors.js";
import { formatChangeSetText, changeSetJson, type DiffPrintOptions } from "./diff-printer.js";
import { createPalette } from "./color.js";
import { cell, escapeHtml, formatChangeSetMarkdown } from "./markdown-printer.js";
import { escapeDeep, escapeTerminal, escapeTerminalLines } from "./terminal-text.js";

/** One cluster's preview: its change set, or what stopped it. */
export interface ClusterPreview {
  cluster: string;
  changes?: ChangeSet;
  error?: string;
  exitCode: ExitCode;
}

export function printFleetPreview(raw: readonly ClusterPreview[], opts: Required<DiffPrintOptions>): void {
  const previews = escapeDeep(raw);
  if (opts.output === "markdown") opts.stdout.write(formatFleetMarkdown(previews, opts.title));
  else if (opts.output === "json") opts.stdout.write(`${JSON.stringify(fleetPreviewJson(previews), null, 2)}\n`);
  else opts.stdout.write(formatFleetPreviewText(previews, opts.color).map((l) => `${l}\n`).join(""));
}

function effective(p: ClusterPreview): number {
  return p.changes ? p.changes.changes.filter(isEffective).length : 0;
}

/** A cluster's result in a word or three: `2 changes`, `no changes`, `error: ...`. */
function previewVerdict(p: ClusterPreview): string {
  if (p.error) return `error: ${p.error.split("\n")[0]}`;
  const n = effective(p);
  const errors = p.changes?.changes.filter((c) => c.error).length ?? 0;
  const changes = n === 0 ? "no changes" : `${n} ${n === 1 ? "change" : "changes"}`;
  return errors ? `${changes}, ${errors} ${errors === 1 ? "object fails" : "objects fail"}` : changes;
}

export function formatFleetMarkdown(raw: readonly ClusterPreview[], title: string): string {
  const previews = escapeDeep(raw);
  const changed = previews.filter((p) => effective(p) > 0).length;
  const failed = previews.filter((p) => p.error || p.exitCode === 2 || p.exitCode === 3).length;
  const head = `${previews.length} ${previews.length === 1 ? "cluster" : "clusters"}: ${changed} with changes${failed ? `, ${failed} with errors` : ""}`;
  const out = [`### ${title}: ${head}`, "", "| Cluster | Result | Create | Update | Delete | Noop |", "|---|---|--:|--:|--:|--:|"];
  for (const p of previews) {
    const s = p.changes ? summarizeChanges(p.changes) : undefined;
    const n = (v: number | undefined) => (v === undefined ? "" : String(v));
    out.push(`| ${cell(p.cluster)} | ${cell(previewVerdict(p))} | ${n(s?.create)} | ${n(s?.update)} | ${n(s?.delete)} | ${n(s?.noop)} |`);
  }
  out.push("");
  for (const p of previews) {
    const open = p.error || effective(p) > 0 || p.changes?.changes.some((c) => c.error);
    out.push(`<details${open ? " open" : ""}>`, `<summary><b>${escapeHtml(p.cluster)}</b>: ${escapeHtml(previewVerdict(p))}</summary>`, "");
    if (p.changes) out.push(formatChangeSetMarkdown(p.changes, `${title} on ${p.cluster}`).trimEnd());
    else out.push("```", ...(p.error ?? "").split("\n"), "```");
    out.push("", "</details>", "");
  }
  return out.join("\n");
}

function formatFleetPreviewText(previews: readonly ClusterPreview[], color: boolean): string[] {
  const paint = createPalette(color);
  const width = Math.max(7, ...previews.map((p) => escapeTerminal(p.cluster).length));
  const lines = [paint.bold(`${"CLUSTER".padEnd(width)}  RESULT`), ...previews.map((p) => `${escapeTerminal(p.cluster).padEnd(width)}  ${escapeTerminalLines(previewVerdict(p)).replace(/\n/g, " ")}`)];
  for (const p of previews) {
    lines.push("", paint.bold(`=== ${escapeTerminal(p.cluster)} ===`));
    if (p.changes) lines.push(...formatChangeSetText(p.changes, paint));
    else lines.push(paint.red(`error: ${escapeTerminalLines(p.error ?? "")}`));
  }
  return lines;
}

/** The JSON document: each cluster's exit code and change set (as one cluster's `live diff --output json`), or its error. */
function fleetPreviewJson(previews: readonly ClusterPreview[]): unknown {
  return {
    clusters: previews.map((p) => ({ cluster: p.cluster, exitCode: p.exitCode, ...(p.changes ? (changeSetJson(p.changes) as object) : { error: p.error }) })),
  };
}
