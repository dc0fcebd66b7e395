// Issue 8: a flaky API server. Through a fault proxy that drops connections, loses answers,
// delays, and answers 429/500/503, kpt-ts retries what is safe to retry and converges; where the
// server keeps failing it stops with a clear message and a run after it converges. An API server
// restarted in the middle of an apply (a private control plane) is survived or failed cleanly.
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApiserver, stopApiserver } from "../../tools/cluster/launcher.js";
import { PRIVATE_CLUSTER_HOOK_TIMEOUT, startPrivateCluster, stopPrivateCluster } from "../helpers/private-cluster.js";
import { startKptTs } from "../helpers/background.js";
import { FAULT_KINDS, startFaultProxy, totalInjected, type FaultKind, type FaultProxy } from "../helpers/fault-proxy.js";
import { writePackage } from "../helpers/fixtures.js";
import { ownership } from "../helpers/ownership.js";
import { createNamespace, kptTs, kubeconfig, kubectl } from "../helpers/run.js";
import { configMap, deployment, docs, lines, printed, readInventoryFile, service, uniqueName } from "../helpers/scenario.js";

const KINDS = "configmaps,services,deployments.apps";
/** Every fault but `delay`, which only slows things down. */
const FAILURES: FaultKind[] = FAULT_KINDS.filter((k) => k !== "delay");

function inventoryFile(ns: string): string {
  return `apiVersion: kpt.dev/v1alpha1\nkind: ResourceGroup\nmetadata:\n  name: inv-${ns}\n  namespace: ${ns}\n  labels: {cli-utils.sigs.k8s.io/inventory-id: id-${ns}}\n`;
}

/** 170 ConfigMaps, 20 Services and 10 Deployments: 200 objects in three kinds. */
function twoHundred(ns: string): Record<string, string> {
  const files: Record<string, string> = { "resourcegroup.yaml": inventoryFile(ns) };
  files["configmaps.yaml"] = docs(...Array.from({ length: 170 }, (_, i) => configMap(`cm-${i}`, ns, { index: String(i) })));
  files["services.yaml"] = docs(...Array.from({ length: 20 }, (_, i) => service(`svc-${i}`, ns)));
  files["deployments.yaml"] = docs(...Array.from({ length: 10 }, (_, i) => deployment(`web-${i}`, ns)));
  return files;
}

/** Figures for the report at the end of the file. */
const figures: string[] = [];
afterAll(() => console.log(`fault figures:\n${figures.join("\n")}`));

/** Resolves once the run has printed `count` lines ending in ` created`. */
async function createdLines(run: { stdout: string; running: boolean }, count: number): Promise<number> {
  for (;;) {
    const n = run.stdout.split("\n").filter((l) => l.endsWith(" created")).length;
    if (n >= count || !run.running) return n;
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe("kpt-ts through a flaky network (fault proxy)", () => {
  let proxy: FaultProxy & { seed: number };
  const viaProxy = () => ({ env: { KUBECONFIG: proxy.kubeconfig } });

  beforeAll(async () => {
    proxy = await startFaultProxy(kubeconfig());
  });
  afterAll(async () => {
    if (!proxy) return;
    figures.push(`fault proxy in all: ${proxy.report()}`);
    await proxy.close();
  });

  /** Runs `body` with faults on, and notes how many were injected. */
  async function withFaults<T>(label: string, plan: Parameters<FaultProxy["setFaults"]>[0], body: () => Promise<T>): Promise<T> {
    const before = structuredClone(proxy.stats);
    proxy.setFaults(plan);
    try {
      return await body();
    } finally {
      proxy.setFaults(undefined);
      const injected = FAULT_KINDS.map((k) => `${k} ${proxy.stats.injected[k] - before.injected[k]}`).join(", ");
      figures.push(`${label}: ${proxy.stats.requests - before.requests} requests, faults: ${injected}`);
    }
  }

  it("an apply of 200 objects with 10% of requests failing converges; the next apply finds all unchanged; destroy removes all", async () => {
    const ns = await createNamespace("e2e-flaky");
    const dir = await writePackage(twoHundred(ns));
    const inv = await readInventoryFile(dir);
    const plan = { rate: 0.1, kinds: FAILURES };

    const first = await withFaults("apply of 200 objects", plan, () => kptTs(["live", "apply", "--reconcile-timeout=3m", dir], viaProxy()));
    expect(first.code, printed(first)).toBe(0);
    // A create whose answer was lost and which then found its object is still reported as created.
    expect(lines(first)).toContain("200 resource(s) applied. 200 created, 0 unchanged, 0 configured, 0 failed");
    expect(lines(first)).toContain("200 resource(s) reconciled, 0 skipped, 0 failed to reconcile, 0 timed out");

    const seen = await ownership(inv, ns, KINDS);
    expect(seen.owned).toHaveLength(200);
    expect(seen.listed).toEqual(seen.owned);

    const again = await withFaults("re-apply of 200 unchanged objects", plan, () => kptTs(["live", "apply", dir], viaProxy()));
    expect(again.code, printed(again)).toBe(0);
    expect(lines(again)).toContain("200 resource(s) applied. 0 created, 200 unchanged, 0 configured, 0 failed");
    expect((await ownership(inv, ns, KINDS)).listed).toEqual(seen.owned);

    const destroy = await withFaults("destroy of 200 objects", plan, () => kptTs(["live", "destroy", dir], viaProxy()));
    expect(destroy.code, printed(destroy)).toBe(0);
    expect(lines(destroy)).toContain("200 resource(s) deleted, 0 skipped, 0 failed to delete");
    const after = await ownership(inv, ns, KINDS);
    expect(after.owned).toEqual([]);
    expect(after.inventoryExists).toBe(false);
    expect(totalInjected(proxy.stats)).toBeGreaterThan(20);
  });

  it("server-side apply with prunes converges through failing requests and lost answers", async () => {
    const ns = await createNamespace("e2e-flaky-ssa");
    const v1 = Array.from({ length: 40 }, (_, i) => configMap(`a-${i}`, ns));
    const dir = await writePackage({ "resourcegroup.yaml": inventoryFile(ns), "cms.yaml": docs(...v1) });
    const inv = await readInventoryFile(dir);
    const first = await kptTs(["live", "apply", "--server-side", dir]);
    expect(first.code, printed(first)).toBe(0);

    // Half the objects change, half leave the package (pruned), 20 new ones come.
    const v2 = [...Array.from({ length: 20 }, (_, i) => configMap(`a-${i}`, ns, { changed: "yes" })), ...Array.from({ length: 20 }, (_, i) => configMap(`b-${i}`, ns))];
    const dir2 = await writePackage({ "resourcegroup.yaml": inventoryFile(ns), "cms.yaml": docs(...v2) });
    const second = await withFaults("server-side apply with 20 prunes", { rate: 0.15, kinds: FAULT_KINDS }, () => kptTs(["live", "apply", "--server-side", dir2], viaProxy()));
    expect(second.code, printed(second)).toBe(0);
    expect(lines(second)).toContain("40 resource(s) applied. 20 created, 0 unchanged, 20 configured, 0 failed");
    expect(lines(second)).toContain("20 resource(s) pruned, 0 skipped, 0 failed");
    const seen = await ownership(inv, ns, "configmaps");
    expect(seen.owned).toEqual([...Array.from({ length: 20 }, (_, i) => `/ConfigMap/${ns}/a-${i}`), ...Array.from({ length: 20 }, (_, i) => `/ConfigMap/${ns}/b-${i}`)].sort());
    expect(seen.listed).toEqual(seen.owned);
    const cm = await kubectl(["get", "configmap", "a-3", "-n", ns, "-o", "jsonpath={.data.changed}"]);
    expect(cm.stdout).toBe("yes");
  });

  it("stops with a clear message when the API server keeps failing, and has written nothing", async () => {
    const ns = await createNamespace("e2e-flaky-down");
    const dir = await writePackage({ "resourcegroup.yaml": inventoryFile(ns), "cm.yaml": configMap("one", ns) });
    const inv = await readInventoryFile(dir);
    const r = await withFaults("a server that always answers 503", { rate: 1, kinds: ["503"] }, () => kptTs(["live", "apply", dir], viaProxy()));
    expect(r.code, printed(r)).toBe(1);
    expect(r.stderr).toContain(`error: cannot discover the API of ${proxy.server}`);
    expect(r.stderr).toMatch(/overloaded or failing: try again/);
    const seen = await ownership(inv, ns, "configmaps");
    expect(seen.owned).toEqual([]);
    expect(seen.inventoryExists).toBe(false);
  });

  it("reports each object whose writes keep failing, keeps the inventory true, and the next apply converges", async () => {
    const ns = await createNamespace("e2e-flaky-writes");
    const dir = await writePackage({
      "resourcegroup.yaml": inventoryFile(ns),
      "cms.yaml": docs(configMap("ok-1", ns), configMap("ok-2", ns)),
      "svc.yaml": service("broken", ns),
    });
    const inv = await readInventoryFile(dir);
    // Every write of a Service fails: half the time before the server sees it, half after it did it.
    const serviceWrites = ({ method, path }: { method: string; path: string }) => method !== "GET" && /\/services/.test(path);
    const r = await withFaults("every Service write fails", { rate: 1, kinds: ["500", "500-after"], match: serviceWrites }, () => kptTs(["live", "apply", dir], viaProxy()));
    expect(r.code, printed(r)).toBe(3);
    expect(r.stdout).toMatch(/^service\/broken apply failed: error when (creating|patching) ".*svc\.yaml": .*fault proxy/m);
    expect(lines(r)).toContain("3 resource(s) applied. 2 created, 0 unchanged, 0 configured, 1 failed");
    // Whether or not the server made the Service, the inventory knows everything that exists.
    const seen = await ownership(inv, ns, KINDS);
    expect(seen.orphans).toEqual([]);
    expect(seen.owned).toEqual(expect.arrayContaining([`/ConfigMap/${ns}/ok-1`, `/ConfigMap/${ns}/ok-2`]));

    const next = await kptTs(["live", "apply", dir]);
    expect(next.code, printed(next)).toBe(0);
    const after = await ownership(inv, ns, KINDS);
    expect(after.owned).toEqual([`/ConfigMap/${ns}/ok-1`, `/ConfigMap/${ns}/ok-2`, `/Service/${ns}/broken`].sort());
    expect(after.listed).toEqual(after.owned);
  });
});

describe("an API server restarted in the middle of a run (a private control plane)", () => {
  let stateDir: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    stateDir = join(await mkdtemp(join(tmpdir(), "kpt-ts-restart-")), "state");
    const state = await startPrivateCluster(stateDir);
    env = { KUBECONFIG: state.kubeconfig };
  }, PRIVATE_CLUSTER_HOOK_TIMEOUT);
  afterAll(async () => {
    await stopPrivateCluster(stateDir);
  });

  it.each<["SIGKILL" | "SIGTERM"]>([["SIGKILL"], ["SIGTERM"]])("an apply survives or fails cleanly when the API server stops (%s) and comes back; the next apply converges", async (signal) => {
    const ns = uniqueName("restart");
    expect((await kubectl(["create", "namespace", ns], { env })).code).toBe(0);
    const files = { "resourcegroup.yaml": inventoryFile(ns), "cms.yaml": docs(...Array.from({ length: 200 }, (_, i) => configMap(`cm-${i}`, ns))), "web.yaml": deployment("web", ns) };
    const dir = await writePackage(files);
    const inv = await readInventoryFile(dir);

    // One object at a time keeps the apply going long enough to stop the server half way.
    const run = startKptTs(["live", "apply", "--concurrency=1", "--reconcile-timeout=3m", dir], { env });
    const stoppedAt = await createdLines(run, 20);
    const t0 = Date.now();
    await stopApiserver({ dir: stateDir, signal });
    const t1 = Date.now();
    await new Promise((r) => setTimeout(r, 2000));
    await startApiserver({ dir: stateDir });
    const outage = `stopping took ${((t1 - t0) / 1000).toFixed(1)}s, ready again after ${((Date.now() - t0) / 1000).toFixed(1)}s`;
    const result = await run.done;

    if (result.code === 0) {
      figures.push(`apiserver ${signal} after ${stoppedAt} of 201 objects (${outage}): survived (exit 0)`);
      expect(lines(result)).toContain("201 resource(s) applied. 201 created, 0 unchanged, 0 configured, 0 failed");
    } else {
      const failures = lines(result).filter((l) => / failed: /.test(l));
      figures.push(`apiserver ${signal} after ${stoppedAt} of 201 objects (${outage}): failed cleanly (exit ${result.code}), ${failures.length} failed, e.g. ${failures[0] ?? result.stderr.split("\n")[0]}`);
      // Failed cleanly: per-object failures (3) or the cluster out of reach (1), said in words.
      expect([1, 3], printed(result)).toContain(result.code);
      expect(result.stdout + result.stderr).toMatch(/apply failed: .*cannot reach the cluster|error: cannot reach the cluster/);
      expect(result.stderr).not.toMatch(/at .*\.js:\d+/); // no stack trace
    }
    const seen = await ownership(inv, ns, KINDS, env);
    expect(seen.orphans, printed(result)).toEqual([]);

    // A run that ended while the server was away could not release its lock: it expires (issue 33).
    const next = await kptTs(["live", "apply", "--reconcile-timeout=3m", "--lock-timeout=1m", dir], { env });
    expect(next.code, printed(next)).toBe(0);
    const after = await ownership(inv, ns, KINDS, env);
    expect(after.owned).toHaveLength(201);
    expect(after.listed).toEqual(after.owned);
  });
});
