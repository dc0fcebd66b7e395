// `--output events`, the default: one line per event in the legacy format of kpt's book, each
// action's summary line after its last group, and (beyond kpt) a periodic note on stderr saying
// what a long wait is still waiting for.

import type { EngineEvent, GroupEvent, RunStats, WaitEvent, WaitingEvent } from "../model/events.js";
import {
  formatApplyLine,
  formatApplySummary,
  formatDeleteSummary,
  formatPruneLine,
  formatPruneSummary,
  formatStatusLine,
  formatWaitLine,
  formatWaitSummary,
} from "./legacy-lines.js";
import { createPalette } from "./color.js";
import { formatHookLine, formatHookSummary, formatReplaceLine } from "./lifecycle-lines.js";
import type { PrintOptions } from "./print-options.js";
import { createProgressView } from "./progress-view.js";
import { countFor, RunTally } from "../model/run-tally.js";
import { formatReasonLine, formatTimeoutSummary, formatWaitingLine, reasonKey, shouldReportWaiting } from "./waiting-line.js";

type Actuation = "Apply" | "Prune" | "Delete";

const SUMMARY_LINES: Record<Actuation | "Wait", (s: RunStats) => string> = {
  Apply: formatApplySummary,
  Prune: formatPruneSummary,
  Delete: formatDeleteSummary,
  Wait: formatWaitSummary,
};

export async function printEvents(events: AsyncIterable<EngineEvent>, opts: PrintOptions): Promise<RunStats> {
  // In a terminal, waits show a live view on stderr; kpt's lines are written above it.
  const view = opts.progress && createProgressView({ out: opts.stderr, ...opts.progress, paint: createPalette(true) });
  const writeLine = (stream: NodeJS.WritableStream) => (line: string): void => {
    if (view) view.above(() => stream.write(line + "\n"));
    else stream.write(line + "\n");
  };
  const out = writeLine(opts.stdout);
  const note = writeLine(opts.stderr);
  const tally = new RunTally();
  const planned: Record<Actuation, number> = { Apply: 0, Prune: 0, Delete: 0 };
  const groupsSeen = new Set<GroupEvent["action"]>();
  const summarized = new Set<Actuation | "Wait">();
  let waitGoal: "reconcile" | "delete" = "reconcile";
  let waiting: { wave: number; lastReportedMs?: number } | undefined;
  let ended = false;
  let command: "apply" | "destroy" | undefined;
  /** Reason lines already printed (beyond kpt, on stderr): each is printed again only when it changes. */
  const reasonsPrinted = new Map<string, string>();
  let timedOut: WaitEvent[] = [];

  const summarize = (action: Actuation | "Wait"): void => {
    if (summarized.has(action) || !groupsSeen.has(action)) return;
    summarized.add(action);
    out(SUMMARY_LINES[action](tally.stats));
  };

  const reportWaiting = (e: WaitingEvent): void => {
    if (view) return; // the live view shows it
    for (const p of e.pending) {
      for (const r of p.reasons ?? []) {
        const key = reasonKey(p.ref, r);
        const line = formatReasonLine(p.ref, r);
        if (reasonsPrinted.get(key) === line) continue;
        reasonsPrinted.set(key, line);
        opts.stderr.write(line + "\n");
      }
    }
    if (waiting?.wave !== e.wave) waiting = { wave: e.wave };
    if (e.pending.length === 0 || !shouldReportWaiting(waiting.lastReportedMs, e.elapsedMs)) return;
    waiting.lastReportedMs = e.elapsedMs;
    opts.stderr.write(formatWaitingLine(e, waitGoal) + "\n");
  };

  try {
    for await (const e of events) {
      tally.add(e);
      handle(e);
      view?.update(e);
    }
  } finally {
    view?.close();
  }

  function handle(e: EngineEvent): void {
    switch (e.type) {
      case "init":
        command = e.command;
        for (const o of e.objects) planned[o.action]++;
        if (e.dryRun !== "none") out(`Dry-run strategy: ${e.dryRun}`);
        break;
      case "group":
        groupsSeen.add(e.action);
        if (e.status === "Started" && e.action !== "Wait" && e.action !== "Inventory") {
          waitGoal = e.action === "Apply" ? "reconcile" : "delete";
        }
        if (e.status === "Started" && e.action === "Wait") waiting = undefined;
        if (e.status === "Finished" && e.action === "Wait") {
          for (const line of formatTimeoutSummary(timedOut, waitGoal)) note(line);
          timedOut = [];
        }
        // The legacy formatter printed a summary after the *last* group of each action; an action's
        // last group is the one that brings its results up to the number of objects planned for it.
        if (e.status === "Finished" && (e.action === "Apply" || e.action === "Prune" || e.action === "Delete")) {
          if (countFor(tally.stats, e.action) >= planned[e.action]) summarize(e.action);
        }
        break;
      case "apply":
        out(formatApplyLine(e));
        break;
      case "prune":
      case "delete":
        out(formatPruneLine(e));
        break;
      case "wait":
        out(formatWaitLine(e));
        if (e.status === "Timeout") timedOut.push(e);
        break;
      case "status":
        if (opts.showStatusEvents) out(formatStatusLine(e));
        break;
      case "waiting":
        reportWaiting(e);
        break;
      case "warning":
        note(`[WARN] ${e.message}`);
        break;
      case "hook":
        out(formatHookLine(e));
        break;
      case "replace":
        out(formatReplaceLine(e));
        break;
      case "summary":
        ended = true;
        break;
    }
  }
  // Whatever was not summarized yet (the reconcile line always lands here, after the last wait).
  // An apply always says how much it pruned, as in the book, even when nothing was.
  if (command === "apply" && ended) groupsSeen.add("Prune");
  for (const action of ["Apply", "Prune", "Delete", "Wait"] as const) summarize(action);
  const hooks = formatHookSummary(tally.stats);
  if (hooks) out(hooks);
  return tally.stats;
}
