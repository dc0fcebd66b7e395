// A fleet run's output (docs/fleet.md): each cluster's events through the printer a one-cluster
// run uses (events, table, json), its lines marked with the cluster; a live view with a row per
// cluster in a terminal; the rollout's waves noted on stderr; and at the end a table with a row
// per cluster (or, in JSON, a `cluster` line each) naming how each ended.

import type { ChalkInstance } from "chalk";
import type { EngineEvent } from "../model/events.js";
import type { ClusterResult, FleetEvent, FleetSummaryEvent } from "../model/fleet.js";
import { countFor } from "../model/run-tally.js";
import { EventChannel } from "../util/event-channel.js";
import { clusterStream, type LineMark } from "./cluster-lines.js";
import { createPalette, resolveColor } from "./color.js";
import { createFleetView, formatTook, type FleetView } from "./fleet-view.js";
import { formatEventLine, type JsonRecord } from "./go-json.js";
import { printRun } from "./printer.js";
import type { PrintOptions } from "./print-options.js";
import { escapeTerminal, escapeTerminalLines } from "./terminal-text.js";

interface FleetPrintOptions extends Omit<PrintOptions, "tty" | "progress"> {
  /** Set when stderr is a terminal that may show the live view: its size. */
  view?: { columns: number; rows: number; signal?: AbortSignal };
  /** Hands the view to the command (to pause it for a question), once made. */
  onView?: (view: FleetView) => void;
}

/** The view is for people: only in a terminal, for the text outputs (events, table), never with NO_COLOR / --no-color. */
export function wantsFleetView(o: { output: string; stderrIsTTY: boolean; env: Record<string, string | undefined>; colorFlag?: boolean }): boolean {
  return (o.output === "events" || o.output === "table") && o.stderrIsTTY && resolveColor({ flag: o.colorFlag, env: o.env, isTTY: o.stderrIsTTY });
}

interface ClusterPrinter {
  events: EventChannel<EngineEvent>;
  done: Promise<unknown>;
  streams: NodeJS.WritableStream[];
}

/** Prints the run; resolves to its summary (every cluster's result and the worst exit code). */
export async function printFleetRun(events: AsyncIterable<FleetEvent>, opts: FleetPrintOptions): Promise<FleetSummaryEvent> {
  const now = opts.now ?? (() => new Date());
  const view = opts.view ? createFleetView({ out: opts.stderr, ...opts.view, paint: createPalette(true) }) : undefined;
  if (view) opts.onView?.(view);
  const write = (stream: NodeJS.WritableStream) => (text: string) => (view ? view.above(() => stream.write(text)) : stream.write(text));
  const out = write(opts.stdout);
  const note = write(opts.stderr);
  const printers = new Map<string, ClusterPrinter>();
  let waves: string[][] = [];
  let command: "apply" | "destroy" = "apply";
  let summary: FleetSummaryEvent | undefined;

  const start = (cluster: string): ClusterPrinter => {
    const mark: LineMark = opts.output === "json" ? "json" : "prefix";
    const stdout = clusterStream(cluster, mark, out);
    const stderr = clusterStream(cluster, "prefix", note);
    const channel = new EventChannel<EngineEvent>();
    // A failed cluster's stream ends with its error: the JSON printer writes its `error` line,
    // and the summary names it; nothing is thrown here.
    const done = printRun(channel, { ...opts, stdout, stderr, tty: false }).catch(() => undefined);
    const p = { events: channel, done, streams: [stdout, stderr] };
    printers.set(cluster, p);
    return p;
  };

  try {
    for await (const e of events) {
      view?.update(e);
      switch (e.type) {
        case "fleet":
          waves = e.waves;
          command = e.command;
          if (waves.length > 1) note(`rollout: ${waves.length} waves: ${waves.map((w, i) => `${i + 1}) ${w.map(escapeTerminal).join(", ")}`).join("  ")}\n`);
          break;
        case "cluster-started":
          if (waves.length > 1 && waves[e.wave - 1]?.[0] === e.cluster) note(`rollout: wave ${e.wave} of ${waves.length} starts: ${waves[e.wave - 1]!.map(escapeTerminal).join(", ")}\n`);
          start(e.cluster);
          break;
        case "cluster-finished": {
          const p = printers.get(e.cluster);
          if (!p) break;
          if (e.result.error !== undefined) p.events.fail(e.result.error);
          else p.events.close();
          await p.done;
          await Promise.all(p.streams.map(endStream));
          break;
        }
        case "fleet-summary":
          summary = e;
          break;
        default:
          (printers.get(e.cluster) ?? start(e.cluster)).events.push(withoutCluster(e));
      }
    }
  } finally {
    view?.close();
  }
  if (!summary) throw new Error("the fleet run ended without a summary");
  if (opts.output === "json") {
    for (const r of summary.results) opts.stdout.write(formatEventLine("cluster", clusterJson(r, command), now()));
  } else {
    opts.stdout.write(["", ...formatFleetTable(summary.results, command, waves.length > 1, createPalette(opts.color))].map((l) => `${l}\n`).join(""));
  }
  const stopped = formatRolloutStop(summary.results);
  if (stopped) opts.stderr.write(`${stopped}\n`);
  return summary;
}

function withoutCluster(e: EngineEvent & { cluster: string }): EngineEvent {
  const { cluster: _cluster, ...event } = e;
  return event as EngineEvent;
}

function endStream(s: NodeJS.WritableStream): Promise<void> {
  return new Promise((resolve) => s.end(resolve));
}

/** What a cluster's row counts: applied, pruned (or deleted), failed, reconciled. */
function resultCounts(r: ClusterResult): { applied: number; pruned: number; deleted: number; failed: number; reconciled: number } | undefined {
  const s = r.stats;
  if (!s) return undefined;
  return {
    applied: s.apply.successful,
    pruned: s.prune.successful,
    deleted: s.delete.successful,
    failed: s.apply.failed + s.prune.failed + s.delete.failed + s.wait.failed + s.wait.timeout + s.hook.failed + s.hook.timeout + s.replace.failed,
    reconciled: countFor(s, "Wait") > 0 ? s.wait.successful : 0,
  };
}

const RESULT_WORDS: Record<ClusterResult["outcome"], string> = { succeeded: "succeeded", failed: "failed", "not-run": "not run" };

/** The RESULT cell: a run stopped by Ctrl-C, SIGTERM or a question answered no is `cancelled`, not `failed`. */
function resultWord(r: ClusterResult): string {
  return r.outcome === "failed" && (r.exitCode === 130 || r.exitCode === 143) ? "cancelled" : RESULT_WORDS[r.outcome];
}

/** The final table, a row per cluster in rollout order, then a line per cluster that failed or did not run, saying why. */
export function formatFleetTable(results: readonly ClusterResult[], command: "apply" | "destroy", showWaves: boolean, paint: ChalkInstance): string[] {
  const counts = command === "apply" ? (["APPLIED", "PRUNED"] as const) : (["DELETED"] as const);
  const header = ["CLUSTER", ...(showWaves ? ["WAVE"] : []), "RESULT", ...counts, "FAILED", "RECONCILED", "TOOK", "EXIT"];
  const rows = results.map((r) => {
    const c = resultCounts(r);
    const n = (v: number | undefined) => (v === undefined ? "-" : String(v));
    const countCells = command === "apply" ? [n(c?.applied), n(c?.pruned)] : [n(c?.deleted)];
    return [escapeTerminal(r.cluster), ...(showWaves ? [String(r.wave)] : []), resultWord(r), ...countCells, n(c?.failed), n(c?.reconciled), r.tookMs === undefined ? "-" : formatTook(r.tookMs), r.exitCode === undefined ? "-" : String(r.exitCode)];
  });
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!))).join("  ");
  const lines = [paint.bold(line(header))];
  results.forEach((r, i) => {
    const text = line(rows[i]!);
    lines.push(r.outcome === "failed" ? paint.red(text) : r.outcome === "not-run" ? paint.dim(text) : text);
  });
  const why = results.filter((r) => r.outcome !== "succeeded" && r.message);
  if (why.length) lines.push("", ...why.map((r) => `${escapeTerminal(r.cluster)}: ${r.outcome === "not-run" ? "not run: " : ""}${escapeTerminalLines(r.message!).replace(/\n/g, "\n  ")}`));
  return lines;
}

/** When a failed wave stopped the rollout: the clusters it left untouched, on one line. */
export function formatRolloutStop(results: readonly ClusterResult[]): string | undefined {
  const notRun = results.filter((r) => r.outcome === "not-run");
  if (notRun.length === 0) return undefined;
  const reason = notRun[0]!.message ?? "";
  return `rollout stopped: ${reason}; not touched: ${notRun.map((r) => escapeTerminal(r.cluster)).join(", ")}`;
}

/** A cluster's line in --output json, after its events: how it ended, with the table's counts. */
function clusterJson(r: ClusterResult, command: "apply" | "destroy"): JsonRecord {
  const c = resultCounts(r);
  return {
    cluster: r.cluster,
    wave: r.wave,
    result: r.outcome,
    ...(r.exitCode !== undefined ? { exitCode: r.exitCode } : {}),
    ...(c ? (command === "apply" ? { applied: c.applied, pruned: c.pruned } : { deleted: c.deleted }) : {}),
    ...(c ? { failed: c.failed, reconciled: c.reconciled } : {}),
    ...(r.tookMs !== undefined ? { tookSeconds: Math.round(r.tookMs / 10) / 100 } : {}),
    ...(r.message ? { [r.outcome === "not-run" ? "reason" : "error"]: r.message } : {}),
  };
}
