import { describe, expect, it } from "vitest";
import type { EngineEvent, WaitingEvent } from "../../src/model/events.js";
import { printRun } from "../../src/print/printer.js";
import { formatDuration, formatElapsed } from "../../src/print/waiting-line.js";
import {
  applyFailures,
  applyFirst,
  applyOkStatus,
  applyPrune,
  applyUpdate,
  BADPOD_ERROR,
  captureStream,
  cm2,
  cm3,
  dep,
  destroy,
  ns,
  POLICY_SKIP,
  ref,
  stats,
  streamOf,
  svc,
} from "./print-scenarios.js";

async function printEvents(events: EngineEvent[], opts: { showStatusEvents?: boolean; failWith?: Error } = {}) {
  const out = captureStream();
  const err = captureStream();
  const result = printRun(streamOf(events, opts.failWith), {
    output: "events",
    stdout: out.stream,
    stderr: err.stream,
    color: true,
    tty: true,
    showStatusEvents: opts.showStatusEvents ?? false,
  });
  return { result, lines: () => out.text().split("\n").slice(0, -1), stderr: () => err.text() };
}

async function linesOf(events: EngineEvent[], showStatusEvents = false): Promise<string[]> {
  const p = await printEvents(events, { showStatusEvents });
  await p.result;
  return p.lines();
}

const init = (objects: { ref: ReturnType<typeof ref>; action: "Apply" | "Prune" | "Delete" }[], dryRun: "none" | "client" | "server" = "none", command: "apply" | "destroy" = "apply"): EngineEvent => ({
  type: "init",
  command,
  dryRun,
  inventory: { name: "inv", namespace: "kptjs", id: "id" },
  objects,
});
const group = (action: "Apply" | "Prune" | "Delete" | "Wait" | "Inventory", status: "Started" | "Finished"): EngineEvent => ({ type: "group", action, status });

describe("events printer: the legacy lines of kpt's book", () => {
  it("prints an apply with dependency waves like the book, the apply summary after the last apply group", async () => {
    expect(await linesOf(await applyFirst())).toEqual([
      "namespace/kptjs created",
      "namespace/kptjs reconciled",
      "configmap/cm2 created",
      "service/web created",
      "deployment.apps/web created",
      "4 resource(s) applied. 4 created, 0 unchanged, 0 configured, 0 failed",
      "configmap/cm2 reconciled",
      "service/web reconciled",
      "deployment.apps/web reconcile pending",
      "deployment.apps/web reconciled",
      "0 resource(s) pruned, 0 skipped, 0 failed",
      "4 resource(s) reconciled, 0 skipped, 0 failed to reconcile, 0 timed out",
    ]);
  });

  it("names what each apply did on a re-apply", async () => {
    const lines = await linesOf(await applyUpdate());
    expect(lines.slice(0, 6)).toEqual([
      "namespace/kptjs unchanged",
      "namespace/kptjs reconciled",
      "configmap/cm2 configured",
      "service/web unchanged",
      "deployment.apps/web unchanged",
      "4 resource(s) applied. 0 created, 3 unchanged, 1 configured, 0 failed",
    ]);
  });

  it("prints status changes, where the engine reports them (in its waits), only with showStatusEvents", async () => {
    const shown = await linesOf(await applyOkStatus(), true);
    expect(shown.slice(0, 9)).toEqual([
      "namespace/kptjs unchanged",
      "namespace/kptjs is Current: Resource is current",
      "namespace/kptjs reconciled",
      "configmap/cm2 unchanged",
      "service/web unchanged",
      "deployment.apps/web unchanged",
      "4 resource(s) applied. 0 created, 4 unchanged, 0 configured, 0 failed",
      "configmap/cm2 is Current: Resource is always ready",
      "configmap/cm2 reconciled",
    ]);
    expect(shown.filter((l) => l.includes(" is Current"))).toEqual([
      "namespace/kptjs is Current: Resource is current",
      "configmap/cm2 is Current: Resource is always ready",
      "service/web is Current: Service is ready",
      "deployment.apps/web is Current: Deployment is available. Replicas: 2",
    ]);
    expect((await linesOf(await applyOkStatus(), false)).some((l) => l.includes(" is Current"))).toBe(false);
  });

  it("prints skipped and failed applies with their reasons, and counts skips apart from failures", async () => {
    expect(await linesOf(await applyFailures())).toEqual([
      `configmap/preexisting apply skipped: ${POLICY_SKIP}: it already exists and no inventory owns it; take it over with --inventory-policy=adopt`,
      `pod/badpod apply failed: ${BADPOD_ERROR}`,
      "configmap/preexisting reconcile skipped",
      "pod/badpod reconcile skipped",
      "deployment.apps/dep apply skipped: dependency apply actuation failed: default_badpod__Pod",
      "3 resource(s) applied. 0 created, 0 unchanged, 0 configured, 1 failed, 2 skipped",
      "deployment.apps/dep reconcile skipped",
      "0 resource(s) pruned, 0 skipped, 0 failed",
      "0 resource(s) reconciled, 3 skipped, 0 failed to reconcile, 0 timed out",
    ]);
  });

  it("prints the prune summary after the prune group, before its wait", async () => {
    // cm3 is gone as soon as it is deleted: no `reconcile pending` before `reconciled`.
    expect((await linesOf(await applyPrune())).slice(-5)).toEqual([
      "deployment.apps/web reconciled",
      "configmap/cm3 pruned",
      "1 resource(s) pruned, 0 skipped, 0 failed",
      "configmap/cm3 reconciled",
      "5 resource(s) reconciled, 0 skipped, 0 failed to reconcile, 0 timed out",
    ]);
  });

  it("prints a destroy like the book: deletes in order, delete summary after the last delete group", async () => {
    expect(await linesOf(await destroy())).toEqual([
      "deployment.apps/web deleted",
      "service/web deleted",
      "configmap/cm2 deleted",
      "deployment.apps/web reconciled",
      "service/web reconciled",
      "configmap/cm2 reconciled",
      "namespace/kptjs deleted",
      "4 resource(s) deleted, 0 skipped, 0 failed to delete",
      "namespace/kptjs reconcile pending",
      "namespace/kptjs reconciled",
      "4 resource(s) reconciled, 0 skipped, 0 failed to reconcile, 0 timed out",
    ]);
  });

  it("prints a client dry-run like the book: strategy line first, no reconcile lines, an empty prune summary", async () => {
    const events: EngineEvent[] = [
      init([{ ref: svc, action: "Apply" }, { ref: dep, action: "Apply" }], "client"),
      group("Inventory", "Started"),
      group("Inventory", "Finished"),
      group("Apply", "Started"),
      { type: "apply", ref: svc, status: "Successful", operation: "created" },
      { type: "apply", ref: dep, status: "Successful", operation: "created" },
      group("Apply", "Finished"),
      group("Prune", "Started"),
      group("Prune", "Finished"),
      { type: "summary", stats: stats({ apply: { successful: 2, created: 2 } }) },
    ];
    expect(await linesOf(events)).toEqual([
      "Dry-run strategy: client",
      "service/web created",
      "deployment.apps/web created",
      "2 resource(s) applied. 2 created, 0 unchanged, 0 configured, 0 failed",
      "0 resource(s) pruned, 0 skipped, 0 failed",
    ]);
  });

  it("prints prune skips and delete failures with their reasons, and what a failed or timed-out wait was waiting for", async () => {
    const events: EngineEvent[] = [
      init([{ ref: cm3, action: "Prune" }, { ref: ns, action: "Prune" }]),
      group("Prune", "Started"),
      { type: "prune", ref: cm3, status: "Skipped", error: "object has the on-remove: keep annotation" },
      { type: "delete", ref: ns, status: "Failed", error: "namespaces \"kptjs\" is forbidden" },
      { type: "prune", ref: ns, status: "Failed", error: "the server is unavailable" },
      group("Prune", "Finished"),
      group("Wait", "Started"),
      { type: "wait", ref: dep, status: "Timeout", message: "Available: 1/3" },
      { type: "wait", ref: svc, status: "Failed", message: "Progress deadline exceeded" },
      { type: "wait", ref: cm2, status: "Timeout" },
      group("Wait", "Finished"),
      { type: "summary", stats: stats({ prune: { skipped: 1, failed: 1 }, delete: { failed: 1 }, wait: { timeout: 2, failed: 1 } }) },
    ];
    expect(await linesOf(events)).toEqual([
      "configmap/cm3 prune skipped: object has the on-remove: keep annotation",
      'namespace/kptjs deletion failed: namespaces "kptjs" is forbidden',
      "namespace/kptjs prune failed: the server is unavailable",
      "0 resource(s) pruned, 1 skipped, 1 failed",
      "deployment.apps/web reconcile timeout: Available: 1/3",
      "service/web reconcile failed: Progress deadline exceeded",
      "configmap/cm2 reconcile timeout",
      "0 resource(s) reconciled, 0 skipped, 1 failed to reconcile, 2 timed out",
    ]);
  });

  it("stops without summary lines, and rethrows, when the stream fails", async () => {
    const failure = new Error("task failed");
    const p = await printEvents((await applyFirst()).slice(0, 9), { failWith: failure });
    await expect(p.result).rejects.toBe(failure);
    expect(p.lines()).toEqual(["namespace/kptjs created", "namespace/kptjs reconciled"]);
  });

  it("resolves to the run's final stats", async () => {
    const p = await printEvents(await applyPrune());
    await expect(p.result).resolves.toEqual(stats({ apply: { successful: 4, unchanged: 4 }, prune: { successful: 1 }, wait: { successful: 5 } }));
  });
});

describe("events printer: what a long wait is waiting for", () => {
  const web = ref("apps", "Deployment", "kptjs", "web");
  const db = ref("apps", "StatefulSet", "kptjs", "db");
  const waiting = (elapsedMs: number, extra: Partial<WaitingEvent> = {}): WaitingEvent => ({
    type: "waiting",
    wave: 0,
    pending: [
      { ref: web, status: "InProgress", message: "Available: 1/3" },
      { ref: db, status: "InProgress", message: "Ready: 0/1" },
    ],
    total: 3,
    elapsedMs,
    ...extra,
  });
  const applyWave = (...ws: EngineEvent[]): EngineEvent[] => [group("Apply", "Started"), group("Apply", "Finished"), group("Wait", "Started"), ...ws];

  it("says so on stderr after 5s, then every 30s, with the timeout when one was given", async () => {
    const p = await printEvents(applyWave(...[1_000, 4_900, 5_000, 20_000, 34_999, 35_000, 64_000, 65_500].map((ms) => waiting(ms, { timeoutMs: 120_000 }))));
    await p.result;
    expect(p.stderr().split("\n").slice(0, -1)).toEqual([
      "waiting for 2 resource(s) to reconcile (0:05 elapsed, timeout 2m): deployment.apps/web (Available: 1/3), statefulset.apps/db (Ready: 0/1)",
      "waiting for 2 resource(s) to reconcile (0:35 elapsed, timeout 2m): deployment.apps/web (Available: 1/3), statefulset.apps/db (Ready: 0/1)",
      "waiting for 2 resource(s) to reconcile (1:05 elapsed, timeout 2m): deployment.apps/web (Available: 1/3), statefulset.apps/db (Ready: 0/1)",
    ]);
    expect(p.lines().filter((l) => l.startsWith("waiting"))).toEqual([]);
  });

  it("also reports when no timeout was given, and starts over in each wait phase", async () => {
    const p = await printEvents([
      ...applyWave(waiting(6_000)),
      group("Wait", "Finished"),
      ...applyWave(waiting(2_000, { wave: 1 }), waiting(7_000, { wave: 1, pending: [{ ref: db, status: "InProgress", message: "" }] })),
    ]);
    await p.result;
    expect(p.stderr().split("\n").slice(0, -1)).toEqual([
      "waiting for 2 resource(s) to reconcile (0:06 elapsed): deployment.apps/web (Available: 1/3), statefulset.apps/db (Ready: 0/1)",
      "waiting for 1 resource(s) to reconcile (0:07 elapsed): statefulset.apps/db (InProgress)",
    ]);
  });

  it("says `to be deleted` during prune and destroy waits and names at most five objects", async () => {
    const pending = Array.from({ length: 7 }, (_, i) => ({ ref: ref("", "ConfigMap", "kptjs", `cm${i}`), status: "Terminating" as const, message: "Resource scheduled for deletion" }));
    const p = await printEvents([group("Delete", "Started"), group("Delete", "Finished"), group("Wait", "Started"), waiting(5_000, { pending, total: 7 })]);
    await p.result;
    expect(p.stderr()).toBe(
      "waiting for 7 resource(s) to be deleted (0:05 elapsed): " +
        ["cm0", "cm1", "cm2", "cm3", "cm4"].map((n) => `configmap/${n} (Resource scheduled for deletion)`).join(", ") +
        ", and 2 more\n",
    );
  });

  it("writes stopwatch and duration formats people can read", () => {
    expect([formatElapsed(0), formatElapsed(59_999), formatElapsed(754_000), formatElapsed(3_723_000)]).toEqual(["0:00", "0:59", "12:34", "1:02:03"]);
    expect([formatDuration(120_000), formatDuration(90_000), formatDuration(3_600_000), formatDuration(500), formatDuration(1_500)]).toEqual(["2m", "1m30s", "1h", "500ms", "1.5s"]);
  });
});
