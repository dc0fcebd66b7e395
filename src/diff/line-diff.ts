// A line diff (Myers' O(ND) algorithm) and its unified-diff hunks. Pure. Small enough to keep
// here rather than take a dependency: objects are a few hundred lines, and the common prefix and
// suffix are trimmed first, so D (the number of changed lines) is what costs.

type LineOp = { kind: "equal" | "delete" | "insert"; line: string };

export function diffLines(a: readonly string[], b: readonly string[]): LineOp[] {
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  const head = a.slice(0, start).map((line): LineOp => ({ kind: "equal", line }));
  const tail = a.slice(endA).map((line): LineOp => ({ kind: "equal", line }));
  return [...head, ...myers(a.slice(start, endA), b.slice(start, endB)), ...tail];
}

function myers(a: readonly string[], b: readonly string[]): LineOp[] {
  const n = a.length;
  const m = b.length;
  if (n === 0) return b.map((line) => ({ kind: "insert", line }));
  if (m === 0) return a.map((line) => ({ kind: "delete", line }));
  // v[k] = the furthest x reached on diagonal k; trace[d] = v before round d (only k in -d-1..d+1).
  const max = n + m;
  const v = new Map<number, number>([[1, 0]]);
  const at = (map: Map<number, number>, k: number): number => map.get(k) ?? -1;
  const trace: Map<number, number>[] = [];
  search: for (let d = 0; d <= max; d++) {
    const snapshot = new Map<number, number>();
    for (let k = -d - 1; k <= d + 1; k++) if (v.has(k)) snapshot.set(k, v.get(k)!);
    trace.push(snapshot);
    for (let k = -d; k <= d; k += 2) {
      let x = k === -d || (k !== d && at(v, k - 1) < at(v, k + 1)) ? at(v, k + 1) : at(v, k - 1) + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      v.set(k, x);
      if (x >= n && y >= m) break search;
    }
  }
  const ops: LineOp[] = [];
  let x = n;
  let y = m;
  for (let d = trace.length - 1; d >= 0; d--) {
    const vd = trace[d]!;
    const k = x - y;
    const prevK = k === -d || (k !== d && at(vd, k - 1) < at(vd, k + 1)) ? k + 1 : k - 1;
    const prevX = Math.max(0, at(vd, prevK));
    const prevY = prevX - prevK;
    while (x > prevX && y > prevY) {
      ops.push({ kind: "equal", line: a[x - 1]! });
      x--;
      y--;
    }
    if (d === 0) break;
    if (x === prevX) {
      ops.push({ kind: "insert", line: b[y - 1]! });
      y--;
    } else {
      ops.push({ kind: "delete", line: a[x - 1]! });
      x--;
    }
  }
  return ops.reverse();
}

interface Hunk {
  /** 1-based first line in the old and new text (0 when that side has no lines), as in `@@ -a,b +c,d @@`. */
  oldStart: number;
  oldLines: number;
  newStart: number;
  newLines: number;
  ops: LineOp[];
}

/** Groups a diff into hunks with `context` unchanged lines around each change. */
export function unifiedHunks(ops: readonly LineOp[], context = 3): Hunk[] {
  const hunks: Hunk[] = [];
  // Old/new line numbers (0-based) before each op.
  const pos: { old: number; new: number }[] = [];
  let o = 0;
  let n = 0;
  for (const op of ops) {
    pos.push({ old: o, new: n });
    if (op.kind !== "insert") o++;
    if (op.kind !== "delete") n++;
  }
  let i = 0;
  while (i < ops.length) {
    if (ops[i]!.kind === "equal") {
      i++;
      continue;
    }
    const from = Math.max(0, i - context);
    let end = i;
    // Extend while the next change is within 2*context equal lines.
    for (;;) {
      while (end < ops.length && ops[end]!.kind !== "equal") end++;
      let next = end;
      while (next < ops.length && ops[next]!.kind === "equal") next++;
      if (next < ops.length && next - end <= 2 * context) end = next;
      else break;
    }
    const to = Math.min(ops.length, end + context);
    const slice = ops.slice(from, to);
    const oldLines = slice.filter((op) => op.kind !== "insert").length;
    const newLines = slice.filter((op) => op.kind !== "delete").length;
    const p = pos[from]!;
    hunks.push({ oldStart: oldLines ? p.old + 1 : p.old, oldLines, newStart: newLines ? p.new + 1 : p.new, newLines, ops: slice });
    i = to;
  }
  return hunks;
}

/** The hunks as unified-diff text lines (no headers): `@@ -1,3 +1,4 @@`, then ` `, `-`, `+` lines. */
export function formatHunks(hunks: readonly Hunk[]): string[] {
  const range = (start: number, count: number) => (count === 1 ? `${start}` : `${start},${count}`);
  const lines: string[] = [];
  for (const h of hunks) {
    lines.push(`@@ -${range(h.oldStart, h.oldLines)} +${range(h.newStart, h.newLines)} @@`);
    for (const op of h.ops) lines.push(`${op.kind === "equal" ? " " : op.kind === "delete" ? "-" : "+"}${op.line}`);
  }
  return lines;
}
