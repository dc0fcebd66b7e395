import { describe, expect, it } from "vitest";
import type { EngineEvent } from "../../src/model/events.js";
import { printRun } from "../../src/print/printer.js";
import {
  applyFailures,
  applyFirst,
  applyOkStatus,
  applyPrune,
  captureStream,
  cm3,
  dep,
  destroy,
  fixture,
  ns,
  stats,
  streamOf,
} from "./print-scenarios.js";

async function printJson(events: EngineEvent[], opts: { showStatusEvents?: boolean; failWith?: Error; now?: () => Date } = {}) {
  const out = captureStream();
  const err = captureStream();
  const result = printRun(streamOf(events, opts.failWith), {
    output: "json",
    stdout: out.stream,
    stderr: err.stream,
    color: true,
    tty: true,
    showStatusEvents: opts.showStatusEvents ?? false,
    now: opts.now ?? (() => new Date("2026-11-21T23:33:31.250Z")),
  });
  return { result, out, err };
}

const maskTimestamps = (text: string): string[] =>
  text
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => l.replace(/"timestamp":"[^"]*"/, '"timestamp":"T"'));

interface JsonLine {
  type: string;
  status?: string;
  error?: string;
  [k: string]: unknown;
}

/**
 * The lines compared with kpt's capture: timestamps masked; `wait` Pending lines left out (whether a
 * wait reports Pending first depends on how fast the object goes, for kpt as for the engine, as in
 * test/helpers/json-events.ts); status lines apart (kpt's status poller reports at its own moments,
 * the engine during its waits); an `error` compared by kpt's words, which kpt-ts' error starts with
 * before saying what to do.
 */
function comparable(text: string): { lines: string[]; errors: string[]; statuses: string[] } {
  const parsed = text
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l) as JsonLine);
  const kept = parsed.filter((e) => !(e.type === "wait" && e.status === "Pending") && e.type !== "status");
  return {
    lines: kept.map((e) => JSON.stringify({ ...e, timestamp: "T", ...(e.error !== undefined ? { error: "E" } : {}) })),
    errors: kept.filter((e) => e.error !== undefined).map((e) => e.error!),
    statuses: parsed.filter((e) => e.type === "status").map((e) => `${String(e.kind)}/${String(e.name)} ${e.status} ${String(e.message)}`).sort(),
  };
}

describe("json printer on engine runs: the lines of the kpt binary on the same scenario", () => {
  it.each([
    ["apply-first.json", applyFirst, false],
    ["apply-ok-status.json", applyOkStatus, true],
    ["apply-failures.json", applyFailures, false],
    ["apply-status-events.json", applyFailures, true],
    ["apply-prune.json", applyPrune, false],
    ["destroy.json", destroy, false],
  ] as const)("%s", async (name, scenario, showStatusEvents) => {
    const { result, out } = await printJson(await scenario(), { showStatusEvents });
    await result;
    const ours = comparable(out.text());
    const kpt = comparable(fixture(name));
    expect(ours.lines).toEqual(kpt.lines);
    expect(ours.errors).toHaveLength(kpt.errors.length);
    ours.errors.forEach((e, i) => expect(e.startsWith(kpt.errors[i]!), `${e}\nstarts with kpt's\n${kpt.errors[i]}`).toBe(true));
    // The engine reports statuses for the objects it waits for: the same words as kpt for those.
    if (showStatusEvents) for (const s of ours.statuses) expect(kpt.statuses).toContain(s);
  });

  it("prints status lines only with showStatusEvents", async () => {
    const quiet = await printJson(await applyOkStatus(), { showStatusEvents: false });
    await quiet.result;
    expect(quiet.out.text()).not.toContain('"type":"status"');
    const loud = await printJson(await applyOkStatus(), { showStatusEvents: true });
    await loud.result;
    expect(comparable(loud.out.text()).statuses).toEqual(comparable(fixture("apply-ok-status.json")).statuses);
  });
});

describe("json printer details", () => {
  it("stamps every line with the clock in RFC 3339 UTC seconds", async () => {
    let t = Date.parse("2026-11-21T23:33:56.900Z");
    const { result, out } = await printJson(await applyFirst(), { now: () => new Date((t += 1000)) });
    await result;
    const stamps = out.text().trim().split("\n").map((l) => (JSON.parse(l) as { timestamp: string }).timestamp);
    expect(stamps[0]).toBe("2026-11-21T23:33:57Z");
    expect(stamps[1]).toBe("2026-11-21T23:33:58Z");
    expect(stamps.every((s) => /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/.test(s))).toBe(true);
  });

  it("prints an error line, then rethrows, when the stream fails", async () => {
    const failure = new Error("polling for status failed: configmaps is forbidden");
    const { result, out } = await printJson((await applyFirst()).slice(0, 5), { failWith: failure });
    await expect(result).rejects.toBe(failure);
    const lines = out.text().trim().split("\n");
    expect(lines).toHaveLength(5);
    expect(lines.at(-1)).toBe('{"error":"polling for status failed: configmaps is forbidden","timestamp":"2026-11-21T23:33:31Z","type":"error"}');
    expect(out.text()).not.toContain('"type":"summary"');
  });

  it("escapes <, > and & the way Go's encoder does", async () => {
    const events: EngineEvent[] = [{ type: "apply", ref: ns, status: "Failed", error: 'field "a" must be <none> & not >1' }];
    const { result, out } = await printJson(events);
    await result;
    expect(out.text()).toBe(
      '{"error":"field \\"a\\" must be \\u003cnone\\u003e \\u0026 not \\u003e1","group":"","kind":"Namespace","name":"kptjs","namespace":"","status":"Failed","timestamp":"2026-11-21T23:33:31Z","type":"apply"}\n',
    );
  });

  it("prints summaries only for actions that happened, wait timeouts included", async () => {
    const events: EngineEvent[] = [
      { type: "prune", ref: cm3, status: "Skipped", error: "annotation prevents deletion" },
      { type: "wait", ref: ns, status: "Timeout" },
      { type: "wait", ref: dep, status: "Timeout" },
      { type: "summary", stats: stats({ prune: { skipped: 1 }, wait: { timeout: 2 } }) },
    ];
    const { result, out } = await printJson(events);
    await result;
    expect(maskTimestamps(out.text()).filter((l) => l.includes('"type":"summary"'))).toEqual([
      '{"action":"Prune","count":1,"failed":0,"skipped":1,"successful":0,"timestamp":"T","type":"summary"}',
      '{"action":"Wait","count":2,"failed":0,"skipped":0,"successful":0,"timeout":2,"timestamp":"T","type":"summary"}',
    ]);
  });

  it("resolves to the run's final stats", async () => {
    const { result } = await printJson(await applyFailures());
    await expect(result).resolves.toEqual(stats({ apply: { skipped: 2, failed: 1 }, wait: { skipped: 3 } }));
  });
});
