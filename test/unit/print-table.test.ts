import { afterEach, describe, expect, it, vi } from "vitest";
import type { EngineEvent } from "../../src/model/events.js";
import { printRun } from "../../src/print/printer.js";
import { formatAge } from "../../src/print/table-layout.js";
import {
  applyFailures,
  applyFirst,
  BADPOD_ERROR,
  captureStream,
  channel,
  cm2,
  dep,
  destroy,
  fixture,
  liveObject,
  ns,
  preexisting,
  ref,
  streamOf,
  svc,
} from "./print-scenarios.js";

const NOW = new Date("2026-11-21T23:33:33Z");
const ONE_SECOND_AGO = "2026-11-21T23:33:32Z";
const ERASE = "\x1b[1A\x1b[2K\r";

function printTable(events: AsyncIterable<EngineEvent>, opts: { tty?: boolean; color?: boolean } = {}) {
  const out = captureStream();
  const result = printRun(events, {
    output: "table",
    stdout: out.stream,
    stderr: captureStream().stream,
    color: opts.color ?? false,
    tty: opts.tty ?? false,
    showStatusEvents: false,
    now: () => NOW,
  });
  return { result, text: out.text };
}

/** chalk closes a colour with ESC[39m where cli-utils resets with ESC[0m; the screen looks the same. */
const asKptResets = (s: string): string => s.replace(/\x1b\[39m/g, "\x1b[0m");

/** Splits a colour-free table line into its eight columns (fixed widths, two-space gutters). */
function cells(line: string): string[] {
  const widths = [10, 40, 12, 10, 10, 40, 6, 40];
  let at = 0;
  return widths.map((w) => {
    const cell = line.slice(at, at + w).trimEnd();
    at += w + 2;
    return cell;
  });
}

afterEach(() => {
  vi.useRealTimers();
});

describe("table printer: kpt's layout", () => {
  it("draws the same first table as kpt: header, objects sorted by namespace/group/kind/name, all Pending", async () => {
    const events = (await applyFirst()).slice(0, 1);
    const p = printTable(streamOf(events));
    await p.result;
    expect(p.text()).toBe(fixture("apply-ok-table.txt").split("\n").slice(0, 5).join("\n") + "\n\n");
  });

  it("renders statuses, coloured conditions and ages cell for cell as kpt does", async () => {
    const events: EngineEvent[] = [
      (await applyFirst())[0] as EngineEvent,
      ...[ns, cm2, svc, dep].map((r): EngineEvent => ({ type: "apply", ref: r, status: "Successful", operation: "unchanged" })),
      { type: "status", ref: ns, status: "Current", message: "Resource is current", object: liveObject(ns, ONE_SECOND_AGO) },
      { type: "status", ref: cm2, status: "Current", message: "Resource is always ready", object: liveObject(cm2, ONE_SECOND_AGO) },
      { type: "status", ref: svc, status: "Current", message: "Service is ready", object: liveObject(svc, ONE_SECOND_AGO) },
      {
        type: "status",
        ref: dep,
        status: "Current",
        message: "Deployment is available. Replicas: 2",
        object: liveObject(dep, ONE_SECOND_AGO, [
          { type: "Available", status: "True" },
          { type: "Progressing", status: "True" },
        ]),
      },
    ];
    const p = printTable(streamOf(events), { color: true });
    await p.result;
    const kptFinal = fixture("apply-ok-table.txt").split("\n").slice(5, 10);
    kptFinal[0] = (kptFinal[0] ?? "").split("\r").at(-1) ?? "";
    expect(asKptResets(p.text()).split("\n").slice(0, 5)).toEqual(kptFinal);
  });

  it("cuts a long condition list at the column's width the way kpt does", async () => {
    const pod = ref("", "Pod", "kptjs", "web-555697c6d7-4wp5s");
    const conditions = ["Initialized", "Ready", "ContainersReady", "PodScheduled"].map((type) => ({ type, status: "True" }));
    const events: EngineEvent[] = [
      { type: "init", command: "apply", dryRun: "none", inventory: { name: "i", namespace: "kptjs", id: "i" }, objects: [{ ref: pod, action: "Apply" }] },
      { type: "status", ref: pod, status: "Current", message: "Pod is Ready", object: liveObject(pod, ONE_SECOND_AGO, conditions) },
    ];
    const p = printTable(streamOf(events), { color: true });
    await p.result;
    const kptCell = "\x1b[32mInitialized\x1b[0m,\x1b[32mReady\x1b[0m,\x1b[32mContainersReady\x1b[0m,\x1b[32mPodSch\x1b[0m  1s      Pod is Ready";
    expect(fixture("apply-ok-table.txt")).toContain(kptCell);
    expect(asKptResets(p.text())).toContain(kptCell);
  });

  it("colours failed conditions red and unknown ones yellow, and InProgress/Failed statuses likewise", async () => {
    const events: EngineEvent[] = [
      (await applyFirst())[0] as EngineEvent,
      {
        type: "status",
        ref: dep,
        status: "InProgress",
        message: "Available: 0/2",
        object: liveObject(dep, ONE_SECOND_AGO, [
          { type: "Available", status: "False" },
          { type: "Progressing", status: "Unknown" },
        ]),
      },
      { type: "status", ref: svc, status: "Failed", message: "boom", object: liveObject(svc, ONE_SECOND_AGO) },
    ];
    const p = printTable(streamOf(events), { color: true });
    await p.result;
    expect(p.text()).toContain("\x1b[33mInProgress\x1b[39m  ");
    expect(p.text()).toContain("\x1b[31mAvailable\x1b[39m,\x1b[33mProgressing\x1b[39m");
    expect(p.text()).toContain("\x1b[31mFailed\x1b[39m");
  });

  it("writes ages as kpt does: seconds up to 90s, minutes up to 90m, then hours", () => {
    expect([1_000, 90_000, 91_000, 90 * 60_000, 91 * 60_000, 30 * 3_600_000].map(formatAge)).toEqual(["1s", "90s", "2m", "90m", "2h", "30h"]);
  });
});

describe("table printer: what kpt-ts shows where kpt's cells stay blank", () => {
  it("shows a failed apply as Failed with its error, and each object's reconcile result", async () => {
    const events = await applyFailures();
    events.splice(1, 0, { type: "status", ref: preexisting, status: "Current", message: "Resource is always ready", object: liveObject(preexisting, "2026-11-21T23:33:28Z") });
    const p = printTable(streamOf(events));
    await p.result;
    const rows = p.text().split("\n").slice(1, 4).map(cells);
    expect(rows).toEqual([
      ["default", "ConfigMap/preexisting", "Skipped", "Current", "Skipped", "<None>", "5s", "Resource is always ready"],
      ["default", "Pod/badpod", "Failed", "Unknown", "Skipped", "-", "-", BADPOD_ERROR.slice(0, 40)],
      ["default", "Deployment/dep", "Skipped", "Unknown", "Skipped", "-", "-", ""],
    ]);
  });

  it("shows delete results and deletion progress in a destroy, long statuses cut to the column", async () => {
    // The destroy's events until its Namespace is gone: the Namespace still terminating.
    const events = await destroy();
    const gone = events.findIndex((e) => e.type === "status" && e.ref.kind === "Namespace" && e.status === "NotFound");
    const p = printTable(streamOf(events.slice(0, gone)));
    await p.result;
    expect(p.text().split("\n").slice(1, 5).map(cells)).toEqual([
      ["", "Namespace/kptjs", "Successful", "Terminatin", "Pending", "<None>", "1s", "Resource scheduled for deletion"],
      ["kptjs", "ConfigMap/cm2", "Successful", "NotFound", "Successful", "-", "-", "Resource not found"],
      ["kptjs", "Service/web", "Successful", "NotFound", "Successful", "-", "-", "Resource not found"],
      ["kptjs", "Deployment/web", "Successful", "NotFound", "Successful", "-", "-", "Resource not found"],
    ]);
  });
});

describe("table printer: terminal and pipe", () => {
  it("prints only the final table, without escape codes, when stdout is not a terminal", async () => {
    const p = printTable(streamOf(await applyFirst()));
    await p.result;
    const text = p.text();
    expect(text).not.toContain("\x1b");
    expect(text.match(/^NAMESPACE/gm)).toHaveLength(1);
    expect(text.endsWith("Deployment is available. Replicas: 2".padEnd(40) + "\n\n")).toBe(true);
  });

  it("redraws in place every 500 ms on a terminal, then draws the final table and an empty line", async () => {
    // The engine's run first: it needs real timers.
    const [initEvent, ...rest] = await applyFirst();
    vi.useFakeTimers();
    const ch = channel<EngineEvent>();
    const p = printTable(ch.iterable, { tty: true });
    ch.push(initEvent as EngineEvent);
    await vi.advanceTimersByTimeAsync(0);
    const first = fixture("apply-ok-table.txt").split("\n").slice(0, 5).join("\n") + "\n";
    expect(p.text()).toBe(first);

    ch.push({ type: "apply", ref: ns, status: "Successful", operation: "created" });
    await vi.advanceTimersByTimeAsync(499);
    expect(p.text()).toBe(first);
    await vi.advanceTimersByTimeAsync(1);
    const second = p.text().slice(first.length);
    expect(second.startsWith(ERASE.repeat(5) + "NAMESPACE")).toBe(true);
    expect(second.split("\n")[1]).toContain("Namespace/kptjs                           Successful");

    for (const e of rest) ch.push(e);
    ch.close();
    await vi.advanceTimersByTimeAsync(0);
    await p.result;
    const last = p.text().slice(p.text().lastIndexOf(ERASE) + ERASE.length);
    expect(last.split("\n")).toHaveLength(7);
    expect(last.endsWith("\n\n")).toBe(true);
    const drawn = p.text().length;
    await vi.advanceTimersByTimeAsync(2_000);
    expect(p.text().length).toBe(drawn);
  });

  it("prints the dry-run strategy above the table", async () => {
    const [initEvent] = await applyFirst();
    const p = printTable(streamOf([{ ...(initEvent as Extract<EngineEvent, { type: "init" }>), dryRun: "server" }]));
    await p.result;
    expect(p.text().split("\n").slice(0, 2)).toEqual(["Dry-run strategy: server", expect.stringMatching(/^NAMESPACE/)]);
  });

  it("still prints the final table when the stream fails, then rethrows", async () => {
    const failure = new Error("task failed");
    const p = printTable(streamOf((await applyFirst()).slice(0, 5), failure));
    await expect(p.result).rejects.toBe(failure);
    expect(p.text().split("\n")[1]).toContain("Namespace/kptjs                           Successful");
  });
});
