// `live diff`'s output. Text: the inventory line, kapp's change table, the counts, then a
// coloured unified diff per change. JSON: the same change set as one document, for CI.
// Secret values are already masked in the change set; nothing here can reveal them.

import { escapeDeep } from "./terminal-text.js";
import type { ChalkInstance } from "chalk";
import { summarizeChanges, type Change, type ChangeSet } from "../diff/change-set.js";
import { formatChangeDiff, mayShowDiff } from "../diff/object-diff.js";
import { createPalette } from "./color.js";
import { formatChangeCounts, formatChangeTable, formatHookRows, kappOperation } from "./change-table.js";
import { formatChangeSetMarkdown } from "./markdown-printer.js";
import { formatStepLines } from "./step-lines.js";
import { githubAnnotation } from "./error-report.js";
import { formatRef } from "../model/ref.js";

export type DiffOutput = "text" | "json" | "markdown";

export interface DiffPrintOptions {
  output: DiffOutput;
  stdout: NodeJS.WritableStream;
  color: boolean;
  /** The Markdown heading's title (the command). */
  title?: string;
}

export function printChangeSet(raw: ChangeSet, opts: DiffPrintOptions): void {
  // Names, the server's messages and the objects' own text, escaped for the terminal once; the
  // objects only where a diff can show them (a noop CRD's megabytes are never printed).
  const cs = escapeDeep({ ...raw, changes: raw.changes.map((c) => (mayShowDiff(c) ? c : withoutObjects(c))) });
  if (opts.output === "markdown") opts.stdout.write(formatChangeSetMarkdown(cs, opts.title));
  else opts.stdout.write(opts.output === "json" ? `${JSON.stringify(changeSetJson(cs), null, 2)}\n` : formatChangeSetText(cs, createPalette(opts.color)).map((l) => `${l}\n`).join(""));
}

/** Under GitHub Actions: an annotation for each object whose dry run failed, at its file and line. */
export function printDiffAnnotations(raw: ChangeSet, stderr: NodeJS.WritableStream, cwd: string): void {
  const cs = escapeDeep({ ...raw, changes: raw.changes.map(withoutObjects) });
  for (const c of cs.changes) if (c.error && c.source) stderr.write(`${githubAnnotation(c.source.file, c.source.line, `${formatRef(c.ref)}: ${c.error}`, cwd)}\n`);
}

function withoutObjects(c: Change): Change {
  const { before: _before, after: _after, ...rest } = c;
  return rest;
}

export function formatChangeSetText(cs: ChangeSet, paint: ChalkInstance): string[] {
  const inv = `${cs.inventory.namespace}/${cs.inventory.name}`;
  const lines = [`Inventory: ${cs.inventory.kind ?? "ResourceGroup"} ${inv} (${cs.inventory.exists ? "in the cluster" : "not in the cluster yet: apply creates it"})`, ...(cs.local ? [paint.yellow(cs.local)] : []), ""];
  if (cs.changes.length === 0) return [...lines, "No objects in the package or its inventory."];
  lines.push(...formatChangeTable(cs.changes, paint), "", formatChangeCounts(summarizeChanges(cs)));
  if (cs.hooks?.length) lines.push("", "Hooks, in the order they run:", ...formatHookRows(cs.hooks, paint).map((l) => `  ${l}`));
  if (cs.steps?.length) lines.push("", "Steps, in order:", ...formatStepLines(cs.steps, inv));
  for (const c of cs.changes) {
    const diff = formatChangeDiff(c);
    if (diff.length) lines.push("", ...diff.map((l) => colourDiffLine(l, paint)));
  }
  return lines;
}

function colourDiffLine(line: string, paint: ChalkInstance): string {
  if (line.startsWith("--- ") || line.startsWith("+++ ")) return paint.bold(line);
  if (line.startsWith("@@")) return paint.cyan(line);
  if (line.startsWith("-")) return paint.red(line);
  if (line.startsWith("+")) return paint.green(line);
  return line;
}

/** The JSON document: counts, then each object with its operation and its diff as unified-diff text. */
export function changeSetJson(cs: ChangeSet): unknown {
  return {
    inventory: cs.inventory,
    ...(cs.local ? { local: cs.local } : {}),
    summary: summarizeChanges(cs),
    changes: cs.changes.map((c) => {
      const diff = formatChangeDiff(c);
      return {
        group: c.ref.group,
        kind: c.ref.kind,
        namespace: c.ref.namespace,
        name: c.ref.name,
        operation: kappOperation(c),
        ...(c.skip ? { skip: c.skip } : {}),
        ...(c.error ? { error: c.error } : {}),
        ...(c.note ? { note: c.note } : {}),
        ...(diff.length ? { diff: diff.join("\n") + "\n" } : {}),
      };
    }),
    ...(cs.hooks?.length ? { hooks: cs.hooks.map((h) => ({ phase: h.phase, wave: h.wave, group: h.ref.group, kind: h.ref.kind, namespace: h.ref.namespace, name: h.ref.name, operation: h.operation, ...(h.error ? { error: h.error } : {}) })) } : {}),
  };
}
