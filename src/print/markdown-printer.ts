// The preview as GitHub-flavoured Markdown, for a pull request or a job's step summary: a
// summary line, a table of the changes (operation, kind, namespace, name, why apply will leave
// it), one collapsible section per change with its unified diff, and a Mermaid flowchart of the
// apply and prune waves. Secret values are already masked in the change set. Pure but for
// appendStepSummary.

import { escapeDeep } from "./terminal-text.js";
import { appendFile } from "node:fs/promises";
import { isEffective, summarizeChanges, type Change, type ChangeSet } from "../diff/change-set.js";
import { diffPath, formatChangeDiff } from "../diff/object-diff.js";
import { refKey, type ObjRef } from "../model/ref.js";
import { formatChangeCounts, HOOK_PLACE } from "./change-table.js";
import { formatStepLines } from "./step-lines.js";

/** A table cell: one line, pipes escaped. */
export function cell(text: string): string {
  return text.replace(/\r?\n/g, " ").replace(/\|/g, "\\|");
}

/** A fence longer than any run of backticks in the text, so the text cannot close it. */
function fence(lines: readonly string[]): string {
  const longest = Math.max(0, ...lines.map((l) => Math.max(0, ...(l.match(/`+/g) ?? []).map((m) => m.length))));
  return "`".repeat(Math.max(3, longest + 1));
}

function whyNot(c: Change): string {
  return c.error ? `error: ${c.error}` : (c.skip ?? "");
}

export function formatChangeSetMarkdown(raw: ChangeSet, title = "kpt-ts live diff"): string {
  const cs = escapeDeep(raw);
  const inv = `${cs.inventory.namespace}/${cs.inventory.name}`;
  const out = [`### ${title}: ${cs.inventory.kind ?? "ResourceGroup"} ${inv}`, ""];
  const counts = formatChangeCounts(summarizeChanges(cs)).replace(/^Op: /, "");
  const effective = cs.changes.filter(isEffective).length;
  out.push(`**${effective === 0 ? "No changes" : `${effective} ${effective === 1 ? "change" : "changes"}`}**: ${counts}${cs.inventory.exists ? "" : " (the inventory is not in the cluster yet: apply creates it)"}`, "");
  if (cs.local) out.push(`> ${cs.local}`, "");
  const rows = cs.changes.filter((c) => c.operation !== "unchanged");
  if (rows.length) {
    out.push("| Operation | Kind | Namespace | Name | Skipped because |", "|---|---|---|---|---|");
    for (const c of rows) out.push(`| ${c.error ? `${c.operation} (fails)` : c.skip ? `${c.operation} (skipped)` : c.operation} | ${cell(c.ref.kind)} | ${cell(c.ref.namespace || "(cluster)")} | ${cell(c.ref.name)} | ${cell(whyNot(c))} |`);
    out.push("");
  }
  if (cs.hooks?.length) {
    out.push("| Hook | Kind | Namespace | Name | Runs | Error |", "|---|---|---|---|---|---|");
    for (const h of cs.hooks) out.push(`| ${h.phase} ${h.wave + 1}${h.operation === "recreate" ? " (recreate)" : ""} | ${cell(h.ref.kind)} | ${cell(h.ref.namespace || "(cluster)")} | ${cell(h.ref.name)} | ${HOOK_PLACE[h.phase]} | ${cell(h.error ?? "")} |`);
    out.push("");
  }
  if (cs.steps?.length) out.push("Steps, in order:", "", ...formatStepLines(cs.steps, inv).map(escapeHtml), "");
  for (const c of rows.filter(isEffective)) {
    const diff = formatChangeDiff(c);
    if (!diff.length) continue;
    const f = fence(diff);
    out.push("<details>", `<summary>${c.operation} ${escapeHtml(diffPath(c.ref))}</summary>`, "", `${f}diff`, ...diff, f, "", "</details>", "");
  }
  const chart = wavesFlowchart(cs);
  if (chart.length) out.push("```mermaid", ...chart, "```", "");
  return out.join("\n");
}

export function escapeHtml(s: string): string {
  return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/** A Mermaid label: quotes and angle brackets as entities. */
function label(s: string): string {
  return `"${s.replace(/"/g, "#quot;").replace(/</g, "#lt;").replace(/>/g, "#gt;")}"`;
}

/** The run's order: one box per apply wave, then per prune wave, each object in it with what happens to it. */
export function wavesFlowchart(cs: ChangeSet): string[] {
  if (!cs.waves) return [];
  const byRef = new Map(cs.changes.map((c) => [refKey(c.ref), c]));
  const what = (r: ObjRef) => {
    const c = byRef.get(refKey(r));
    const op = !c ? "" : c.error ? "fails: " : c.skip ? "skipped: " : `${c.operation}: `;
    return `${op}${r.kind} ${r.namespace ? `${r.namespace}/` : ""}${r.name}`;
  };
  // Hooks in their place: pre-apply before the first apply wave, post-apply after the last prune wave.
  const hookWaves = (phase: "pre-apply" | "post-apply") => {
    const mine = (cs.hooks ?? []).filter((h) => h.phase === phase);
    const numbers = [...new Set(mine.map((h) => h.wave))].sort((a, b) => a - b);
    return numbers.map((n) => ({ id: `${phase.replace("-", "")}${n + 1}`, title: `${phase} hooks ${n + 1}`, refs: mine.filter((h) => h.wave === n).map((h) => h.ref), hook: true }));
  };
  const hookLabel = (r: ObjRef) => {
    const h = cs.hooks?.find((x) => refKey(x.ref) === refKey(r));
    return `${h?.error ? "fails: " : "run: "}${r.kind} ${r.namespace ? `${r.namespace}/` : ""}${r.name}`;
  };
  const waves = [
    ...hookWaves("pre-apply"),
    ...cs.waves.apply.map((w, i) => ({ id: `apply${i + 1}`, title: `apply wave ${i + 1}`, refs: w, hook: false })),
    ...cs.waves.delete.map((w, i) => ({ id: `prune${i + 1}`, title: `prune wave ${i + 1}`, refs: w, hook: false })),
    ...hookWaves("post-apply"),
  ].filter((w) => w.refs.length > 0);
  if (!waves.length) return [];
  const lines = ["flowchart TD"];
  for (const w of waves) {
    lines.push(`  subgraph ${w.id} [${label(w.title)}]`);
    w.refs.forEach((r, j) => lines.push(`    ${w.id}_${j}[${label(w.hook ? hookLabel(r) : what(r))}]`));
    lines.push("  end");
  }
  for (let i = 1; i < waves.length; i++) lines.push(`  ${waves[i - 1]!.id} --> ${waves[i]!.id}`);
  return lines;
}

/** GitHub Actions' job summary: the Markdown is appended to the file GITHUB_STEP_SUMMARY names. */
export async function appendStepSummary(path: string, markdown: string): Promise<void> {
  await appendFile(path, markdown.endsWith("\n") ? markdown : `${markdown}\n`);
}
