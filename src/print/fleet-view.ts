// The live view of a fleet run in a terminal: one row per cluster (queued, what it is doing and
// how far it got, or how it ended), drawn on stderr under the clusters' event lines and redrawn
// in place; lines are written above it, and it is erased when the run ends, so the terminal
// keeps only the lines and the final table. Folding events and rendering are pure.

import type { ChalkInstance } from "chalk";
import type { FleetEvent } from "../model/fleet.js";
import { countFor, RunTally } from "../model/run-tally.js";
import { createProgressState, pendingObjects, updateProgress, type ProgressState } from "./progress-view.js";
import { createRedrawnLines, PROGRESS_DELAY_MS, SPINNER, type RedrawnLines, type ViewOptions } from "./redrawn-lines.js";
import { formatElapsed, GOAL_WORDS } from "./waiting-line.js";
import { escapeTerminal } from "./terminal-text.js";

type RowState = "queued" | "running" | "succeeded" | "failed" | "not-run";

interface ClusterRow {
  cluster: string;
  wave: number;
  state: RowState;
  /** What it is doing: planning, applying, waiting, pruning, deleting, saving the inventory. */
  phase: string;
  /** Objects the run will apply, and delete or prune. */
  planned: { apply: number; delete: number };
  tally: RunTally;
  progress: ProgressState;
  startedMs?: number;
  tookMs?: number;
  exitCode?: number;
  message?: string;
}

interface FleetViewState {
  command: "apply" | "destroy";
  waves: number;
  rows: Map<string, ClusterRow>;
}

/** How long a cluster's run took: `4.2s`, `2m05s`. */
export function formatTook(ms: number): string {
  const s = ms / 1000;
  if (s < 60) return `${s.toFixed(1)}s`;
  return `${Math.floor(s / 60)}m${String(Math.floor(s % 60)).padStart(2, "0")}s`;
}

export function createFleetViewState(): FleetViewState {
  return { command: "apply", waves: 1, rows: new Map() };
}

const PHASES: Record<string, string> = { Apply: "applying", Prune: "pruning", Delete: "deleting", Wait: "waiting", Inventory: "saving the inventory" };

/** Folds one event of the fleet run into the view's state. */
export function updateFleetView(s: FleetViewState, e: FleetEvent, nowMs: number): void {
  switch (e.type) {
    case "fleet":
      s.command = e.command;
      s.waves = e.waves.length;
      e.waves.forEach((clusters, i) => {
        for (const cluster of clusters) s.rows.set(cluster, { cluster, wave: i + 1, state: "queued", phase: "", planned: { apply: 0, delete: 0 }, tally: new RunTally(), progress: createProgressState() });
      });
      return;
    case "cluster-started": {
      const row = s.rows.get(e.cluster);
      if (row) Object.assign(row, { state: "running", phase: "planning", startedMs: nowMs });
      return;
    }
    case "cluster-finished": {
      const row = s.rows.get(e.cluster);
      if (!row) return;
      row.state = e.result.outcome;
      row.tookMs = e.result.tookMs;
      row.exitCode = e.result.exitCode;
      row.message = e.result.message;
      return;
    }
    case "fleet-summary":
      return;
    default: {
      const row = s.rows.get(e.cluster);
      if (!row) return;
      row.tally.add(e);
      updateProgress(row.progress, e, nowMs);
      if (e.type === "init") {
        for (const o of e.objects) o.action === "Apply" ? row.planned.apply++ : row.planned.delete++;
      }
      if (e.type === "group" && e.status === "Started") row.phase = PHASES[e.action] ?? row.phase;
    }
  }
}

interface FleetRenderOptions {
  nowMs: number;
  columns: number;
  /** Rows drawn at most: past it, the running clusters first and a line counting the rest. */
  maxRows: number;
  frame: number;
  paint: ChalkInstance;
}

const ORDER: Record<RowState, number> = { running: 0, failed: 1, queued: 2, succeeded: 3, "not-run": 4 };

/** The view's lines: a heading and a row per cluster; none once no cluster runs or waits. */
export function renderFleetView(s: FleetViewState, o: FleetRenderOptions): string[] {
  const rows = [...s.rows.values()];
  if (!rows.some((r) => r.state === "running" || r.state === "queued")) return [];
  const cut = (text: string) => (text.length >= o.columns ? `${text.slice(0, Math.max(0, o.columns - 2))}…` : text);
  const count = (st: RowState) => rows.filter((r) => r.state === st).length;
  const heading = `${s.command} on ${rows.length} cluster(s): ${count("succeeded")} succeeded, ${count("failed")} failed, ${count("running")} running, ${count("queued")} queued`;
  const lines = [o.paint.cyan(cut(heading))];
  const shown = rows.length <= o.maxRows ? rows : [...rows].sort((a, b) => ORDER[a.state] - ORDER[b.state]).slice(0, Math.max(1, o.maxRows - 1));
  const nameWidth = Math.max(...shown.map((r) => escapeTerminal(r.cluster).length));
  for (const r of shown) {
    const name = escapeTerminal(r.cluster).padEnd(nameWidth);
    const wave = s.waves > 1 ? `  wave ${r.wave}` : "";
    const text = `${mark(r, o.frame)} ${name}${wave}  ${describe(r, s.command, o.nowMs)}`;
    lines.push(r.state === "succeeded" || r.state === "not-run" ? o.paint.dim(cut(text)) : r.state === "failed" ? o.paint.red(cut(text)) : cut(text));
  }
  if (shown.length < rows.length) lines.push(o.paint.dim(cut(`  ... and ${rows.length - shown.length} more`)));
  return lines;
}

const MARKS: Record<Exclude<RowState, "running">, string> = { succeeded: "✓", failed: "✗", queued: "·", "not-run": "-" };

function mark(r: ClusterRow, frame: number): string {
  return r.state === "running" ? SPINNER[frame % SPINNER.length]! : MARKS[r.state];
}

function describe(r: ClusterRow, command: FleetViewState["command"], nowMs: number): string {
  const took = r.tookMs !== undefined ? ` (${formatTook(r.tookMs)})` : "";
  const s = r.tally.stats;
  switch (r.state) {
    case "queued":
      return "queued";
    case "not-run":
      return `not run: ${r.message ?? ""}`;
    case "succeeded":
      return `succeeded: ${done(r, command)}${took}`;
    case "failed":
      return `failed (exit ${r.exitCode ?? "?"})${r.message ? `: ${r.message.split("\n")[0]}` : `: ${done(r, command)}`}${took}`;
    case "running": {
      const elapsed = r.startedMs !== undefined ? ` ${formatElapsed(nowMs - r.startedMs)}` : "";
      if (r.phase === "waiting") {
        const pending = pendingObjects(r.progress).length;
        const total = Math.max(r.progress.total, r.progress.objects.size);
        if (pending === 0) return `waiting${elapsed}`;
        return `waiting for ${pending} of ${total} ${GOAL_WORDS[r.progress.goal]}${elapsed}`;
      }
      if (r.phase === "applying") return `applying ${countFor(s, "Apply")}/${r.planned.apply}${elapsed}`;
      if (r.phase === "pruning" || r.phase === "deleting") return `${r.phase} ${countFor(s, command === "apply" ? "Prune" : "Delete")}/${r.planned.delete}${elapsed}`;
      return `${r.phase}${elapsed}`;
    }
  }
}

function done(r: ClusterRow, command: FleetViewState["command"]): string {
  const s = r.tally.stats;
  const failed = s.apply.failed + s.prune.failed + s.delete.failed + s.wait.failed + s.wait.timeout;
  const parts = command === "apply" ? [`${s.apply.successful} applied`, `${s.prune.successful} pruned`, `${s.wait.successful} reconciled`] : [`${s.delete.successful} deleted`];
  if (failed) parts.push(`${failed} failed`);
  return parts.join(", ");
}

export interface FleetView extends Pick<RedrawnLines, "above" | "close"> {
  update(e: FleetEvent): void;
  /** Erases the view and stops drawing until resume() (a question to the user). */
  pause(): void;
  resume(): void;
}

export function createFleetView(opts: ViewOptions): FleetView {
  const now = opts.now ?? Date.now;
  const state = createFleetViewState();
  const since = now();
  let paused = false;
  const view = createRedrawnLines(opts, (frame) => {
    if (paused || now() - since < PROGRESS_DELAY_MS) return undefined;
    return renderFleetView(state, { nowMs: now(), columns: Math.max(20, opts.columns), maxRows: Math.max(2, Math.min(20, opts.rows - 4)), frame, paint: opts.paint });
  });
  view.startTimer();
  return {
    above: view.above,
    update(e) {
      if (view.closed) return;
      updateFleetView(state, e, now());
      view.updated();
    },
    pause() {
      view.erase();
      paused = true;
    },
    resume() {
      paused = false;
      view.draw();
    },
    close: view.close,
  };
}
