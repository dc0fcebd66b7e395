// Reads the Markdown preview (`--output markdown`, the step summary) back into its parts, so
// tests check its structure: the summary line, the table's rows, the <details> sections with
// their fenced diff, and the Mermaid flowchart.

export interface MarkdownRow {
  operation: string;
  kind: string;
  namespace: string;
  name: string;
  reason: string;
}

export interface MarkdownSection {
  summary: string;
  /** The fenced block's language and its lines. */
  lang: string;
  lines: string[];
}

export interface MarkdownPreview {
  heading: string;
  summary: string;
  notes: string[];
  header: string[];
  rows: MarkdownRow[];
  sections: MarkdownSection[];
  mermaid: string[];
}

/** Splits a table row on unescaped pipes. */
function cells(line: string): string[] {
  return line
    .trim()
    .replace(/^\|/, "")
    .replace(/\|$/, "")
    .split(/(?<!\\)\|/)
    .map((c) => c.trim().replace(/\\\|/g, "|"));
}

/** One preview (from its `### ` heading up to the next one or the end). */
export function parseMarkdownPreview(text: string): MarkdownPreview {
  const lines = text.split("\n");
  const out: MarkdownPreview = { heading: "", summary: "", notes: [], header: [], rows: [], sections: [], mermaid: [] };
  let i = 0;
  while (i < lines.length) {
    const l = lines[i]!;
    if (l.startsWith("### ")) {
      if (out.heading) break;
      out.heading = l.slice(4);
    } else if (l.startsWith("**") && !out.summary) out.summary = l;
    else if (l.startsWith("> ")) out.notes.push(l.slice(2));
    else if (l.startsWith("|")) {
      const row = cells(l);
      if (out.header.length === 0) out.header = row;
      else if (!row.every((c) => /^-+$/.test(c))) {
        const [operation, kind, namespace, name, reason] = row as [string, string, string, string, string];
        out.rows.push({ operation, kind, namespace, name, reason });
      }
    } else if (l === "<details>") {
      const summary = /^<summary>(.*)<\/summary>$/.exec(lines[++i] ?? "")?.[1] ?? "";
      while (i < lines.length && !/^`{3,}/.test(lines[i]!)) i++;
      const open = /^(`{3,})(.*)$/.exec(lines[i] ?? "")!;
      const body: string[] = [];
      for (i++; i < lines.length && lines[i] !== open[1]; i++) body.push(lines[i]!);
      while (i < lines.length && lines[i] !== "</details>") i++;
      out.sections.push({ summary, lang: open[2]!, lines: body });
    } else if (l === "```mermaid") {
      for (i++; i < lines.length && lines[i] !== "```"; i++) out.mermaid.push(lines[i]!);
    }
    i++;
  }
  return out;
}
