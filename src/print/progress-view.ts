// The live view of a wait in a terminal: a spinner, how many objects are still pending and for
// how long (against the timeout), counts per status, and the pending objects with what they wait
// for. Drawn on stderr under the event lines and redrawn in place; event lines are written above
// it (the view is erased, the line written, the view drawn again), and it is erased when the
// wait ends, so the terminal keeps exactly kpt's lines. Folding events and rendering are pure.

import type { ChalkInstance } from "chalk";
import type { EngineEvent, KStatus, WaitReason, WaitStatus } from "../model/events.js";
import { formatRef, refKey, type ObjRef } from "../model/ref.js";
import { resolveColor } from "./color.js";
import { createRedrawnLines, PROGRESS_DELAY_MS, SPINNER, type RedrawnLines, type ViewOptions } from "./redrawn-lines.js";
import { formatReason, formatTiming, GOAL_WORDS } from "./waiting-line.js";

/** Reason lines shown under one pending object at most. */
const MAX_REASONS_PER_OBJECT = 3;

/** The view is for people: only in a terminal, only for the events output, never with NO_COLOR / --no-color. */
export function wantsProgressView(o: { output: string; stderrIsTTY: boolean; env: Record<string, string | undefined>; colorFlag?: boolean }): boolean {
  return o.output === "events" && o.stderrIsTTY && resolveColor({ flag: o.colorFlag, env: o.env, isTTY: o.stderrIsTTY });
}

interface TrackedObject {
  ref: ObjRef;
  status?: KStatus;
  message: string;
  outcome: WaitStatus;
  /** What it waits on (its Pods, ...), when kpt-ts could tell. */
  reasons?: WaitReason[];
}

export interface ProgressState {
  active: boolean;
  goal: "reconcile" | "delete";
  /** When the wait started, on the printer's clock. */
  startedMs: number;
  /** The engine's own count of the wait's objects, once a `waiting` event said it. */
  total: number;
  timeoutMs?: number;
  objects: Map<string, TrackedObject>;
}

export function createProgressState(): ProgressState {
  return { active: false, goal: "reconcile", startedMs: 0, total: 0, objects: new Map() };
}

/** Folds one engine event into the view's state. */
export function updateProgress(s: ProgressState, e: EngineEvent, nowMs: number): void {
  switch (e.type) {
    case "group":
      if (e.status === "Started" && (e.action === "Apply" || e.action === "Prune" || e.action === "Delete")) s.goal = e.action === "Apply" ? "reconcile" : "delete";
      if (e.action === "Wait") {
        s.active = e.status === "Started";
        s.objects.clear();
        s.total = 0;
        s.timeoutMs = undefined;
        s.startedMs = nowMs;
      }
      return;
    case "wait": {
      if (!s.active) return;
      const prev = s.objects.get(refKey(e.ref));
      s.objects.set(refKey(e.ref), { ref: e.ref, status: prev?.status, message: e.message ?? prev?.message ?? "", outcome: e.status });
      return;
    }
    case "status": {
      const o = s.objects.get(refKey(e.ref));
      if (s.active && o && o.outcome === "Pending") {
        o.status = e.status;
        if (e.message) o.message = e.message;
      }
      return;
    }
    case "hook": {
      // A hook's wait has no kpt group: creating a hook starts a wait in the view, its outcome ends that hook's.
      if (e.action === "create" && e.status === "Successful" && !s.active) {
        Object.assign(s, { active: true, goal: "reconcile", total: 0, timeoutMs: undefined, startedMs: nowMs });
        s.objects.clear();
      }
      const o = s.objects.get(refKey(e.ref));
      if (e.action === "wait" && o) o.outcome = e.status;
      return;
    }
    case "waiting":
      if (!s.active) return;
      s.total = e.total;
      s.startedMs = nowMs - e.elapsedMs;
      s.timeoutMs = e.timeoutMs;
      for (const p of e.pending) {
        const o = s.objects.get(refKey(p.ref));
        if (!o || o.outcome === "Pending") s.objects.set(refKey(p.ref), { ref: p.ref, status: p.status, message: p.message, outcome: "Pending", ...(p.reasons ? { reasons: p.reasons } : {}) });
      }
      return;
    default:
      return;
  }
}

export function pendingObjects(s: ProgressState): TrackedObject[] {
  return [...s.objects.values()].filter((o) => o.outcome === "Pending");
}

/** The label an object is counted under: its status while pending, else how its wait ended. */
function countLabel(o: TrackedObject, goal: ProgressState["goal"]): string {
  if (o.outcome === "Pending") return o.status ?? "Unknown";
  if (o.outcome === "Successful") return goal === "reconcile" ? "Current" : "Deleted";
  return o.outcome;
}

const LABEL_ORDER = ["Current", "Deleted", "InProgress", "Terminating", "Unknown", "NotFound", "Failed", "Timeout", "Skipped"];

interface RenderOptions {
  nowMs: number;
  /** Terminal width: lines are cut to it, so the view never wraps (and erases cleanly). */
  columns: number;
  /** Pending objects listed at most. */
  maxObjects: number;
  /** Lines drawn at most (reasons under the objects fill what the objects leave); unlimited when absent. */
  maxLines?: number;
  frame: number;
  paint: ChalkInstance;
}

/** The view's lines; none when nothing is pending. */
export function renderProgress(s: ProgressState, o: RenderOptions): string[] {
  const pending = pendingObjects(s);
  if (!s.active || pending.length === 0) return [];
  const total = Math.max(s.total, s.objects.size);
  const timing = formatTiming(o.nowMs - s.startedMs, s.timeoutMs);
  const spinner = SPINNER[o.frame % SPINNER.length]!;
  const counts = new Map<string, number>();
  for (const obj of s.objects.values()) counts.set(countLabel(obj, s.goal), (counts.get(countLabel(obj, s.goal)) ?? 0) + 1);
  const labels = [...counts.keys()].sort((a, b) => rank(a) - rank(b));
  const cut = (text: string) => (text.length >= o.columns ? `${text.slice(0, Math.max(0, o.columns - 2))}…` : text);
  const lines = [
    o.paint.cyan(cut(`${spinner} waiting for ${pending.length} of ${total} resource(s) ${GOAL_WORDS[s.goal]} (${timing})`)),
    o.paint.dim(cut(`  ${labels.map((l) => `${l}: ${counts.get(l)}`).join("  ")}`)),
  ];
  const shown = pending.slice(0, o.maxObjects);
  const idWidth = Math.max(...shown.map((p) => formatRef(p.ref).length));
  const statusWidth = Math.max(...shown.map((p) => (p.status ?? "Unknown").length));
  const more = pending.length > shown.length ? 1 : 0;
  let spare = (o.maxLines ?? Number.POSITIVE_INFINITY) - lines.length - shown.length - more;
  for (const p of shown) {
    lines.push(cut(`  ${formatRef(p.ref).padEnd(idWidth)}  ${(p.status ?? "Unknown").padEnd(statusWidth)}  ${p.message}`.trimEnd()));
    for (const r of (p.reasons ?? []).slice(0, MAX_REASONS_PER_OBJECT)) {
      if (spare-- <= 0) break;
      lines.push(o.paint.dim(cut(`    └ ${formatReason(r)}`)));
    }
  }
  if (more) lines.push(cut(`  ... and ${pending.length - shown.length} more`));
  return lines;
}

function rank(label: string): number {
  const i = LABEL_ORDER.indexOf(label);
  return i < 0 ? LABEL_ORDER.length : i;
}

export function createProgressView(opts: ViewOptions): Pick<RedrawnLines, "above" | "close"> & { update(e: EngineEvent): void } {
  const now = opts.now ?? Date.now;
  const state = createProgressState();
  let shownSince: number | undefined;
  const view = createRedrawnLines(opts, (frame) => {
    if (shownSince === undefined || now() - shownSince < PROGRESS_DELAY_MS) return undefined;
    return renderProgress(state, { nowMs: now(), columns: Math.max(20, opts.columns), maxObjects: Math.max(1, Math.min(8, opts.rows - 6)), maxLines: Math.max(3, opts.rows - 3), frame, paint: opts.paint });
  });
  return {
    above: view.above,
    update(e) {
      if (view.closed) return;
      updateProgress(state, e, now());
      const waiting = state.active && pendingObjects(state).length > 0;
      if (waiting && shownSince === undefined) {
        shownSince = now();
        view.startTimer();
      } else if (!waiting && shownSince !== undefined) {
        shownSince = undefined;
        view.stopTimer();
        view.erase();
      }
      view.updated();
    },
    close: view.close,
  };
}
