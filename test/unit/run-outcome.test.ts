// Issue 36: a library caller learns how a run ended without reading its events: runOutcome()
// drains `apply()` / `destroy()` (here on the in-memory API server) into the CLI's exit code, the
// summary's counts, each failed object, and the error that stopped the run early.
import { describe, expect, it } from "vitest";
import { apply, destroy, runOutcome, PackageError, CancelledError, type EngineEvent } from "../../src/index.js";
import { configMap, namespace, pkg, QUICK } from "../helpers/engine-run.js";
import { invalid, MemoryCluster } from "../helpers/memory-cluster.js";

const fresh = () => new MemoryCluster().seed(namespace());

describe("runOutcome", () => {
  it("a run that did everything: exit 0, the summary's counts, no failures, no error", async () => {
    const cluster = fresh();
    const seen: string[] = [];
    const out = await runOutcome(apply({ package: pkg(configMap("a"), configMap("b")), cluster, ...QUICK }), { onEvent: (e) => seen.push(e.type) });
    expect(out).toEqual({
      exitCode: 0,
      stats: {
        apply: { successful: 2, skipped: 0, failed: 0, created: 2, configured: 0, unchanged: 0 },
        prune: { successful: 0, skipped: 0, failed: 0 },
        delete: { successful: 0, skipped: 0, failed: 0 },
        wait: { successful: 2, skipped: 0, failed: 0, timeout: 0 },
        hook: { successful: 0, skipped: 0, failed: 0, timeout: 0 },
        replace: { successful: 0, skipped: 0, failed: 0 },
      },
      failures: [],
    });
    // onEvent saw the run go by, to its summary.
    expect(seen[0]).toBe("init");
    expect(seen.at(-1)).toBe("summary");

    const gone = await runOutcome(destroy({ package: pkg(configMap("a"), configMap("b")), cluster, ...QUICK }));
    expect([gone.exitCode, gone.stats.delete.successful]).toEqual([0, 2]);
  });

  it("an object the server refused: exit 3 (kpt's result code), the object and why", async () => {
    const cluster = fresh().failOn({ verb: "create", kind: "ConfigMap", name: "bad" }, () => invalid("ConfigMap", "bad", "data", "Invalid value"));
    const out = await runOutcome(apply({ package: pkg(configMap("good"), configMap("bad")), cluster, ...QUICK }));
    expect(out.exitCode).toBe(3);
    expect(out.error).toBeUndefined();
    expect(out.stats.apply).toMatchObject({ successful: 1, failed: 1 });
    expect(out.failures).toEqual([{ ref: { group: "", kind: "ConfigMap", namespace: "app", name: "bad" }, action: "apply", error: expect.stringMatching(/^error when creating "bad\.yaml": .*Invalid value/) }]);
  });

  it("an object that does not reconcile in time: exit 3, a reconcile failure", async () => {
    const cluster = fresh();
    const job = { apiVersion: "batch/v1", kind: "Job", metadata: { name: "slow", namespace: "app" }, spec: { template: { spec: { containers: [{ name: "c", image: "busybox" }], restartPolicy: "Never" } } } };
    const out = await runOutcome(apply({ package: pkg(job), cluster, ...QUICK, reconcileTimeoutMs: 300 }));
    expect(out.exitCode).toBe(3);
    expect(out.failures).toEqual([{ ref: { group: "batch", kind: "Job", namespace: "app", name: "slow" }, action: "reconcile", error: expect.stringMatching(/^timeout/) }]);
  });

  it("bad input stops the run before its first write: exit 2, the PackageError, nothing thrown", async () => {
    const cluster = new MemoryCluster();
    const out = await runOutcome(apply({ package: pkg(configMap("a")), cluster, ...QUICK }));
    expect(out.exitCode).toBe(2);
    expect(out.error).toBeInstanceOf(PackageError);
    expect(out.error?.message).toMatch(/namespace "app" does not exist in the cluster/);
    expect(cluster.writes()).toEqual([]);
  });

  it("a run whose signal was aborted before it started: exit 130, a CancelledError", async () => {
    const ac = new AbortController();
    ac.abort();
    const out = await runOutcome(apply({ package: pkg(configMap("a")), cluster: fresh(), ...QUICK, signal: ac.signal }));
    expect(out.exitCode).toBe(130);
    expect(out.error).toBeInstanceOf(CancelledError);
  });

  it("an error thrown by the caller's own onEvent is the caller's: it rejects", async () => {
    const boom = new Error("my printer broke");
    await expect(
      runOutcome(apply({ package: pkg(configMap("a")), cluster: fresh(), ...QUICK }), {
        onEvent: (e: EngineEvent) => {
          if (e.type === "apply") throw boom;
        },
      }),
    ).rejects.toBe(boom);
  });
});
