// `--output json`: the lines kpt's cli-utils JSON formatter prints, and nothing else. kpt-ts'
// extras (the apply operation, `waiting` progress, the init event) are left out so that scripts
// written against kpt's keys and types keep working; only packages with kpt-ts' lifecycle
// annotations (docs/lifecycle.md) add lines of their own types, `hook` and `replace`.

import type { EngineEvent, GroupEvent, RunStats } from "../model/events.js";
import type { ObjRef } from "../model/ref.js";
import { formatEventLine, type JsonRecord } from "./go-json.js";
import type { PrintOptions } from "./print-options.js";
import { hookFailure } from "./lifecycle-lines.js";
import { countFor, RunTally } from "../model/run-tally.js";

export async function printJson(events: AsyncIterable<EngineEvent>, opts: PrintOptions): Promise<RunStats> {
  const now = opts.now ?? (() => new Date());
  const tally = new RunTally();
  const emit = (type: string, content: JsonRecord): void => {
    opts.stdout.write(formatEventLine(type, content, now()));
  };
  try {
    for await (const e of events) {
      tally.add(e);
      switch (e.type) {
        case "group":
          emit("group", groupContent(e, tally));
          break;
        case "apply":
        case "prune":
        case "delete":
          emit(e.type, { ...refContent(e.ref), ...(e.error !== undefined ? { error: e.error } : {}), status: e.status });
          break;
        case "wait":
          emit("wait", { ...refContent(e.ref), status: e.status });
          break;
        case "status":
          if (opts.showStatusEvents) emit("status", { ...refContent(e.ref), status: e.status, message: e.message });
          break;
        case "summary":
          for (const content of summaryContents(tally.stats)) emit("summary", content);
          break;
        case "warning":
          // kpt's JSON has no warning event: scripts reading stdout see only kpt's lines.
          opts.stderr.write(`[WARN] ${e.message}\n`);
          break;
        // kpt-ts' own lines (docs/lifecycle.md): kpt has neither hooks nor replacements.
        case "hook":
          emit("hook", { ...refContent(e.ref), phase: e.phase, action: e.action, status: e.status, ...(e.status === "Failed" || e.status === "Timeout" || e.status === "Skipped" ? { error: hookFailure(e) } : {}) });
          break;
        case "replace":
          emit("replace", { ...refContent(e.ref), status: e.status, reason: e.reason, ...(e.error !== undefined ? { error: e.error } : {}) });
          break;
        case "init":
        case "waiting":
          break;
      }
    }
  } catch (err) {
    emit("error", { error: err instanceof Error ? err.message : String(err) });
    throw err;
  }
  return tally.stats;
}

/** group/kind/name/namespace as cli-utils' baseResourceEvent: "" for the core group and cluster scope. */
export function refContent(ref: ObjRef): JsonRecord {
  return { group: ref.group, kind: ref.kind, name: ref.name, namespace: ref.namespace };
}

/** Started carries action and status only; Finished adds the counts so far (cumulative, not per group). */
function groupContent(e: GroupEvent, tally: RunTally): JsonRecord {
  if (e.status !== "Finished" || e.action === "Inventory") return { action: e.action, status: e.status };
  return { ...actionCounts(tally.stats, e.action), status: e.status };
}

/** An action's counts: count, successful, skipped, failed, and for Wait the timeouts. */
function actionCounts(s: RunStats, action: "Apply" | "Prune" | "Delete" | "Wait"): JsonRecord {
  const c = action === "Apply" ? s.apply : action === "Prune" ? s.prune : action === "Delete" ? s.delete : s.wait;
  return { action, count: countFor(s, action), successful: c.successful, skipped: c.skipped, failed: c.failed, ...(action === "Wait" ? { timeout: s.wait.timeout } : {}) };
}

/** One summary line per action whose counts are not all zero, in kpt's order. */
function summaryContents(s: RunStats): JsonRecord[] {
  return (["Apply", "Prune", "Delete", "Wait"] as const).filter((action) => countFor(s, action) > 0).map((action) => actionCounts(s, action));
}
