// The live wait view: folding engine events into its state, rendering it, and drawing it under
// the event lines on a terminal (erased before each line and when the wait ends).
import { describe, expect, it } from "vitest";
import type { EngineEvent } from "../../src/model/events.js";
import { createPalette } from "../../src/print/color.js";
import { printRun } from "../../src/print/printer.js";
import { createProgressState, createProgressView, renderProgress, updateProgress, wantsProgressView } from "../../src/print/progress-view.js";
import { PROGRESS_DELAY_MS } from "../../src/print/redrawn-lines.js";
import { captureStream, ref, streamOf } from "./print-scenarios.js";

const web = ref("apps", "Deployment", "app", "web");
const db = ref("apps", "StatefulSet", "app", "db");
const cfg = ref("", "ConfigMap", "app", "cfg");
const plain = createPalette(false);

const waitPhase: EngineEvent[] = [
  { type: "group", action: "Apply", status: "Started", wave: 0 },
  { type: "group", action: "Wait", status: "Started", wave: 0 },
  { type: "wait", ref: cfg, status: "Successful" },
  { type: "wait", ref: web, status: "Pending", message: "Available: 0/3" },
  { type: "wait", ref: db, status: "Pending", message: "Ready: 0/1" },
  { type: "status", ref: web, status: "InProgress", message: "Available: 1/3" },
];

describe("renderProgress", () => {
  it("shows a spinner, the pending count against the total, elapsed time and timeout, counts per status and the pending objects", () => {
    const s = createProgressState();
    for (const e of waitPhase) updateProgress(s, e, 1_000);
    updateProgress(s, { type: "waiting", wave: 0, pending: [{ ref: web, status: "InProgress", message: "Available: 1/3" }, { ref: db, status: "InProgress", message: "Ready: 0/1" }], total: 3, elapsedMs: 2_000, timeoutMs: 120_000 }, 3_000);
    expect(renderProgress(s, { nowMs: 13_000, columns: 100, maxObjects: 8, frame: 2, paint: plain })).toEqual([
      "⠹ waiting for 2 of 3 resource(s) to reconcile (0:12 elapsed, timeout 2m)",
      "  Current: 1  InProgress: 2",
      "  deployment.apps/web  InProgress  Available: 1/3",
      "  statefulset.apps/db  InProgress  Ready: 0/1",
    ]);
  });

  it("cuts lines to the terminal's width and lists at most maxObjects", () => {
    const s = createProgressState();
    for (const e of waitPhase) updateProgress(s, e, 0);
    const lines = renderProgress(s, { nowMs: 1_000, columns: 30, maxObjects: 1, frame: 0, paint: plain });
    expect(lines.every((l) => l.length < 30)).toBe(true);
    expect(lines.at(-1)).toBe("  ... and 1 more");
  });

  it("is empty once nothing is pending, and counts deletions for prune waits", () => {
    const s = createProgressState();
    updateProgress(s, { type: "group", action: "Prune", status: "Started", wave: 1 }, 0);
    updateProgress(s, { type: "group", action: "Wait", status: "Started", wave: 1 }, 0);
    updateProgress(s, { type: "wait", ref: cfg, status: "Successful" }, 0);
    updateProgress(s, { type: "wait", ref: web, status: "Pending", message: "" }, 0);
    updateProgress(s, { type: "status", ref: web, status: "Terminating", message: "deletion in progress" }, 0);
    expect(renderProgress(s, { nowMs: 5_000, columns: 100, maxObjects: 8, frame: 0, paint: plain }).slice(0, 2)).toEqual([
      "⠋ waiting for 1 of 2 resource(s) to be deleted (0:05 elapsed)",
      "  Deleted: 1  Terminating: 1",
    ]);
    updateProgress(s, { type: "wait", ref: web, status: "Successful" }, 0);
    expect(renderProgress(s, { nowMs: 6_000, columns: 100, maxObjects: 8, frame: 0, paint: plain })).toEqual([]);
  });
});

describe("the view on a terminal", () => {
  it("draws under the lines, erases itself before each new line, and is gone when the wait ends", () => {
    const err = captureStream();
    let now = 0;
    const view = createProgressView({ out: err.stream, columns: 80, rows: 24, paint: plain, now: () => now, intervalMs: 0 });
    for (const e of waitPhase) view.update(e);
    expect(err.text()).toBe(""); // not before PROGRESS_DELAY_MS
    now = PROGRESS_DELAY_MS + 1_000;
    view.update({ type: "status", ref: db, status: "InProgress", message: "Ready: 0/1" });
    const drawn = err.text();
    expect(drawn).toContain("waiting for 2 of 3 resource(s) to reconcile");
    const lines = drawn.split("\n").length - 1;
    view.above(() => err.stream.write("deployment.apps/web reconciled\n"));
    expect(err.text().slice(drawn.length)).toMatch(new RegExp(`^(\\x1b\\[1A\\x1b\\[2K){${lines}}\\rdeployment.apps/web reconciled\\n`));
    view.update({ type: "group", action: "Wait", status: "Finished", wave: 0 });
    expect(err.text().endsWith("\r")).toBe(true); // the last thing written erased the view
    view.close();
  });

  it("erases itself for good on Ctrl-C, before the interrupt note is written", () => {
    const err = captureStream();
    const abort = new AbortController();
    let now = 0;
    const view = createProgressView({ out: err.stream, columns: 80, rows: 24, paint: plain, now: () => now, intervalMs: 0, signal: abort.signal });
    for (const e of waitPhase) view.update(e);
    now = PROGRESS_DELAY_MS + 1;
    view.update({ type: "status", ref: db, status: "InProgress", message: "Ready: 0/1" });
    abort.abort();
    const afterAbort = err.text();
    expect(afterAbort.endsWith("\r")).toBe(true);
    view.update({ type: "status", ref: db, status: "InProgress", message: "still" });
    view.above(() => err.stream.write("line\n"));
    expect(err.text()).toBe(afterAbort + "line\n");
  });

  it("is only for terminals, the events output, and colour", () => {
    expect(wantsProgressView({ output: "events", stderrIsTTY: true, env: {} })).toBe(true);
    expect(wantsProgressView({ output: "events", stderrIsTTY: false, env: {} })).toBe(false);
    expect(wantsProgressView({ output: "table", stderrIsTTY: true, env: {} })).toBe(false);
    expect(wantsProgressView({ output: "events", stderrIsTTY: true, env: { NO_COLOR: "1" } })).toBe(false);
    expect(wantsProgressView({ output: "events", stderrIsTTY: true, env: {}, colorFlag: false })).toBe(false);
  });

  it("leaves kpt's lines on stdout exactly as without it, and takes the place of the stderr waiting notes", async () => {
    const events: EngineEvent[] = [...waitPhase, { type: "waiting", wave: 0, pending: [{ ref: web, status: "InProgress", message: "x" }], total: 3, elapsedMs: 60_000 }, { type: "wait", ref: web, status: "Successful" }, { type: "wait", ref: db, status: "Successful" }, { type: "group", action: "Wait", status: "Finished", wave: 0 }];
    const run = async (progress: boolean) => {
      const out = captureStream();
      const err = captureStream();
      await printRun(streamOf(events), { output: "events", stdout: out.stream, stderr: err.stream, color: false, tty: true, showStatusEvents: false, ...(progress ? { progress: { columns: 80, rows: 24 } } : {}) });
      return { out: out.text(), err: err.text() };
    };
    const withView = await run(true);
    const without = await run(false);
    expect(withView.out).toBe(without.out);
    expect(without.err).toMatch(/^waiting for 1 resource\(s\) to reconcile/);
    expect(withView.err).not.toMatch(/^waiting for/m);
  });
});
