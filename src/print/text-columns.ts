// Plain aligned columns, as kapp's tables: a bold header row, cells padded to the widest, two
// spaces between columns, the last column unpadded. Cells may be painted after measuring.

import type { ChalkInstance } from "chalk";

interface TextColumn<Row> {
  header: string;
  cell: (row: Row) => string;
  /** Colour for the cell's text (measured before painting). */
  paint?: (row: Row, text: string) => string;
}

export function formatColumns<Row>(columns: readonly TextColumn<Row>[], rows: readonly Row[], paint: ChalkInstance): string[] {
  const cells = rows.map((r) => columns.map((c) => c.cell(r)));
  const widths = columns.map((c, i) => Math.max(c.header.length, ...cells.map((row) => row[i]!.length)));
  const line = (texts: readonly string[], render: (text: string, i: number) => string) =>
    texts
      .map((t, i) => render(t, i) + (i === texts.length - 1 ? "" : " ".repeat(widths[i]! - t.length)))
      .join("  ")
      .trimEnd();
  return [
    line(columns.map((c) => c.header), (t) => paint.bold(t)),
    ...cells.map((texts, n) => line(texts, (t, i) => columns[i]!.paint?.(rows[n]!, t) ?? t)),
  ];
}
