// Turns the samples into statistics, ratios, per-object times and the issue's targets; prints the
// tables and writes the same as JSON. Nothing here is asserted: a missed target is reported, not failed.

import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { summarize, type PeakMemory, type Stats } from "./measure.js";
import { PHASES, type Phase, type ToolId } from "./tools.js";

export interface Measurement {
  size: number;
  phase: Phase;
  tool: ToolId;
  samples: number[];
  /** Runs that exited non-zero (or timed out): how long they took and the end of their output. */
  failures: { seconds: number; output: string }[];
}

export interface Row extends Measurement {
  stats?: Stats;
  msPerObject?: number;
  /** This tool's median over kpt-ts's (client-side) median: above 1 means kpt-ts is faster. */
  vsKptTs?: number;
}

export interface MemoryResult extends PeakMemory {
  objects: number;
  phase: Phase;
}

export interface Target {
  target: string;
  holds: boolean | undefined;
  detail: string;
}

export interface Report {
  rows: Row[];
  memory: MemoryResult[];
  help?: { kptTs: Stats; nodeFloor: Stats; runs: number };
  targets: Target[];
}

export function buildReport(ms: Measurement[], memory: MemoryResult[], help: Report["help"]): Report {
  const median = (size: number, phase: Phase, tool: ToolId) =>
    summarize(ms.find((m) => m.size === size && m.phase === phase && m.tool === tool)?.samples ?? [])?.median;
  const rows = ms.map((m): Row => {
    const stats = summarize(m.samples);
    const base = median(m.size, m.phase, "kpt-ts");
    return { ...m, stats, msPerObject: stats && (stats.median * 1000) / m.size, vsKptTs: stats && base ? stats.median / base : undefined };
  });
  return { rows, memory, help, targets: checkTargets(rows, memory, help) };
}

function checkTargets(rows: Row[], memory: MemoryResult[], help: Report["help"]): Target[] {
  const at = (size: number, phase: Phase, tool: ToolId) => rows.find((r) => r.size === size && r.phase === phase && r.tool === tool)?.stats?.median;
  const sizes = [...new Set(rows.map((r) => r.size))].sort((a, b) => a - b);
  const mid = sizes.includes(500) ? 500 : sizes[Math.floor(sizes.length / 2)]!;
  const ratio = (phase: Phase, peer: ToolId, want: number): Target => {
    const ours = at(mid, phase, "kpt-ts");
    const theirs = at(mid, phase, peer);
    const target = `${phase} of ${mid}: at least ${want}x faster than ${peer}`;
    if (ours === undefined || theirs === undefined) return { target, holds: undefined, detail: "not measured" };
    return { target, holds: theirs / ours >= want, detail: `${fmtS(theirs)} / ${fmtS(ours)} = ${(theirs / ours).toFixed(2)}x` };
  };
  const targets = [ratio("apply", "kpt", 5), ratio("noop", "kpt", 10), ratio("destroy", "kpt", 5)];

  const ours = at(mid, "apply", "kpt-ts");
  const peers = (["kpt", "kubectl", "kapp"] as ToolId[]).map((p) => [p, at(mid, "apply", p)] as const).filter(([, v]) => v !== undefined);
  const slower = peers.filter(([, v]) => ours !== undefined && v! <= ours);
  targets.push({
    target: `apply of ${mid}: faster than every other peer`,
    holds: ours === undefined || peers.length === 0 ? undefined : slower.length === 0,
    detail: ours === undefined || peers.length === 0 ? "not measured" : `kpt-ts ${fmtS(ours)}; ${peers.map(([p, v]) => `${p} ${fmtS(v!)}`).join(", ")}`,
  });

  for (const tool of ["kpt-ts", "kpt-ts-ssa"] as ToolId[]) {
    const parts = sizes.flatMap((size) => {
      const t = at(size, "apply", tool);
      const b = at(size, "apply", "bare");
      return t !== undefined && b !== undefined ? [{ size, r: t / b }] : [];
    });
    targets.push({
      target: `apply within 1.3x of the bare SSA loop (${tool})`,
      holds: parts.length ? parts.every((p) => p.r <= 1.3) : undefined,
      detail: parts.length ? parts.map((p) => `${p.size}: ${p.r.toFixed(2)}x`).join(", ") : "not measured",
    });
  }

  const [small, large] = [sizes[0], sizes[sizes.length - 1]];
  if (small !== undefined && large !== undefined && small !== large) {
    const growth = PHASES.flatMap((phase) => {
      const a = rows.find((r) => r.size === small && r.phase === phase && r.tool === "kpt-ts")?.msPerObject;
      const b = rows.find((r) => r.size === large && r.phase === phase && r.tool === "kpt-ts")?.msPerObject;
      return a && b ? [{ phase, g: b / a }] : [];
    });
    targets.push({
      target: `cost per object flat from ${small} to ${large} (at most 1.2x)`,
      holds: growth.length ? growth.every((x) => x.g <= 1.2) : undefined,
      detail: growth.map((x) => `${x.phase} ${x.g.toFixed(2)}x`).join(", "),
    });
  }

  const peak = memory.length ? Math.max(...memory.map((m) => m.rssMb)) : undefined;
  targets.push({
    target: `peak memory under 250 MB for ${memory[0]?.objects ?? 5000} objects`,
    holds: peak === undefined || !memory.every((m) => m.ok) ? undefined : peak < 250,
    detail: memory.map((m) => `${m.phase} ${m.rssMb.toFixed(0)} MB${m.ok ? "" : " (failed)"}`).join(", ") || "not measured",
  });
  targets.push({
    target: "kpt-ts --help under 150 ms",
    holds: help ? help.kptTs.median < 0.15 : undefined,
    detail: help ? `median ${fmtMs(help.kptTs.median)} (node -e 0: ${fmtMs(help.nodeFloor.median)})` : "not measured",
  });
  return targets;
}

const fmtS = (s: number) => (s >= 100 ? `${s.toFixed(0)}s` : s >= 10 ? `${s.toFixed(1)}s` : `${s.toFixed(2)}s`);
const fmtMs = (s: number) => `${(s * 1000).toFixed(0)} ms`;

function table(header: string[], body: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((r) => (r[i] ?? "").length)));
  const line = (cells: string[]) => cells.map((c, i) => (i < 2 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join("  ").trimEnd();
  return [line(header), line(widths.map((w) => "-".repeat(w))), ...body.map((r) => (r.length ? line(r) : ""))].join("\n");
}

export function formatReport(report: Report, labels: Map<ToolId, string>): string {
  const tools = [...new Set(report.rows.map((r) => r.tool))];
  const sizes = [...new Set(report.rows.map((r) => r.size))].sort((a, b) => a - b);
  const find = (size: number, phase: Phase, tool: ToolId) => report.rows.find((r) => r.size === size && r.phase === phase && r.tool === tool);
  const cell = (r: Row | undefined) =>
    !r?.stats ? (r?.failures.length ? "FAILED" : "-") : `${fmtS(r.stats.median)}${r.tool === "kpt-ts" || r.vsKptTs === undefined ? "" : ` x${r.vsKptTs.toFixed(1)}`}${r.failures.length ? "!" : ""}`;
  const out: string[] = [];

  out.push("Medians (x = that tool's time / kpt-ts's time; above 1 means kpt-ts is faster; ! = some repetitions failed)\n");
  const matrix = sizes.flatMap((size, i) => [...(i ? [[]] : []), ...PHASES.map((phase) => [String(size), phase, ...tools.map((t) => cell(find(size, phase, t)))])]);
  out.push(table(["objects", "phase", ...tools.map((t) => labels.get(t) ?? t)], matrix));

  out.push("\nAll measurements (seconds; ms/obj = median / package size)\n");
  const long = sizes.flatMap((size, i) => [
    ...(i ? [[]] : []),
    ...PHASES.flatMap((phase) =>
      tools.map((t) => {
        const r = find(size, phase, t);
        const s = r?.stats;
        return [
          `${size} ${phase}`,
          labels.get(t) ?? t,
          s ? s.median.toFixed(3) : "-",
          s ? s.min.toFixed(3) : "-",
          s ? s.max.toFixed(3) : "-",
          r?.msPerObject !== undefined ? r.msPerObject.toFixed(2) : "-",
          r?.vsKptTs !== undefined ? r.vsKptTs.toFixed(2) : "-",
          `${s?.n ?? 0}${r?.failures.length ? ` (+${r.failures.length} failed)` : ""}`,
        ];
      }),
    ),
  ]);
  out.push(table(["measurement", "tool", "median", "min", "max", "ms/obj", "x kpt-ts", "runs"], long));

  if (report.memory.length) {
    out.push("\nkpt-ts peak memory");
    for (const m of report.memory) out.push(`  ${m.phase} of ${m.objects} objects: ${m.rssMb.toFixed(1)} MB in ${fmtS(m.seconds)}${m.ok ? "" : " (FAILED)"} [${m.method}]`);
  }
  if (report.help) {
    const { kptTs, nodeFloor, runs } = report.help;
    out.push(`\nkpt-ts --help (${runs} runs): median ${fmtMs(kptTs.median)}, min ${fmtMs(kptTs.min)}, max ${fmtMs(kptTs.max)}; node -e 0: median ${fmtMs(nodeFloor.median)}`);
  }
  out.push("\nTargets (issue 6)");
  for (const t of report.targets) out.push(`  ${t.holds === undefined ? "n/a " : t.holds ? "HOLDS" : "MISS "}  ${t.target}: ${t.detail}`);
  return out.join("\n");
}

export async function writeJson(dir: string, data: unknown): Promise<string> {
  await mkdir(dir, { recursive: true });
  const file = join(dir, `${new Date().toISOString().replace(/[:.]/g, "-")}.json`);
  await writeFile(file, JSON.stringify(data, null, 2) + "\n");
  return file;
}
