// `npx tsx bench/redraw-chart.ts bench/results/<time>.json`: draws a finished run's chart again
// (after a change to bench/chart.ts) without running the benchmark: next to the JSON, and to
// docs/benchmark.svg.

import { readFile, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { drawChart } from "./chart.js";
import type { Measurement } from "./report.js";
import type { ToolId } from "./tools.js";

const file = process.argv[2];
if (!file) throw new Error("usage: npx tsx bench/redraw-chart.ts bench/results/<time>.json");
const run = JSON.parse(await readFile(file, "utf8")) as { startedAt: string; rows: Measurement[]; tools: { id: ToolId; label: string }[] };
const svg = drawChart(run.rows, new Map(run.tools.map((t) => [t.id, t.label])), `kpt-ts benchmark ${run.startedAt.slice(0, 10)}: median seconds per phase against package size (log-log)`);
await writeFile(file.replace(/\.json$/, ".svg"), svg);
await writeFile(join(resolve(import.meta.dirname, ".."), "docs", "benchmark.svg"), svg);
