// Issue 22: an aggregated API registered without a working backend (metrics-server's APIService on
// a cluster whose Pods are not real: the usual state of a broken metrics-server). Discovery of
// metrics.k8s.io fails; everything else must go on. Apply and status of unrelated packages succeed
// with one warning naming the APIService; a namespace's deletion blocks on the failing group, and
// destroy says so when its delete timeout runs out.
//
// A broken APIService stalls every namespace deletion in its cluster, so this runs on a private
// control plane, never on the one the other test files share.
import { cp, mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writePackage } from "../helpers/fixtures.js";
import { PRIVATE_CLUSTER_HOOK_TIMEOUT, startPrivateCluster, stopPrivateCluster } from "../helpers/private-cluster.js";
import { kptTs, kubectl, REPO, waitUntil, type RunResult } from "../helpers/run.js";
import { configMap, docs, namespaceObject, printed, uniqueName } from "../helpers/scenario.js";

const WARNING = /^\[WARN\] API group metrics\.k8s\.io\/v1beta1 is unavailable: APIService v1beta1\.metrics\.k8s\.io is not available \(([^)]*)\)/m;
const HELD = "held by NamespaceDeletionDiscoveryFailure: cannot discover API group metrics.k8s.io/v1beta1 (APIService v1beta1.metrics.k8s.io)";

describe("an unavailable aggregated API (metrics-server without its backend)", () => {
  let env: Record<string, string>;
  let stateDir: string;
  let metricsServer: string;

  const ours = (args: string[], opts: { timeoutMs?: number } = {}): Promise<RunResult> => kptTs(args, { env, ...opts });
  const kc = (args: string[]) => kubectl(args, { env });
  const warnings = (r: RunResult) => r.stderr.split("\n").filter((l) => l.startsWith("[WARN] API group"));

  beforeAll(async () => {
    stateDir = join(await mkdtemp(join(tmpdir(), "kpt-ts-unavailable-api-")), "state");
    env = { KUBECONFIG: (await startPrivateCluster(stateDir)).kubeconfig };
    metricsServer = join(await mkdtemp(join(tmpdir(), "kpt-ts-field-")), "metrics-server");
    await cp(join(REPO, "fixtures/field/metrics-server"), metricsServer, { recursive: true });
    expect((await ours(["live", "init", "--namespace", "kube-system", "--name", "metrics-server", metricsServer])).code).toBe(0);
  }, PRIVATE_CLUSTER_HOOK_TIMEOUT);
  afterAll(async () => {
    await stopPrivateCluster(stateDir);
  });

  it("metrics-server's package applies; its APIService stays unavailable", async () => {
    const r = await ours(["live", "apply", "--reconcile-timeout=2m", metricsServer]);
    expect(r.code, printed(r)).toBe(0);
    const available = await waitUntil("the APIService to report its availability", async () => {
      const s = await kc(["get", "apiservice", "v1beta1.metrics.k8s.io", "-o", "jsonpath={.status.conditions[?(@.type=='Available')].status}"]);
      return s.stdout.trim() || undefined;
    });
    expect(available).toBe("False");
  });

  it("apply and status of an unrelated package succeed, with one warning naming the APIService", async () => {
    const ns = uniqueName("e2e-unrelated");
    expect((await kc(["create", "namespace", ns])).code).toBe(0);
    const dir = await writePackage({ "cm.yaml": configMap("settings", ns, { mode: "fast" }) });
    expect((await ours(["live", "init", "--namespace", ns, dir])).code).toBe(0);

    const apply = await ours(["live", "apply", "--reconcile-timeout=1m", dir]);
    expect(apply.code, printed(apply)).toBe(0);
    expect(apply.stdout).toContain("configmap/settings created");
    expect(warnings(apply)).toHaveLength(1);
    // The APIService's own words on why: its Service has no working endpoints, or is not answering.
    expect(apply.stderr).toMatch(WARNING);
    console.log(`the warning: ${warnings(apply)[0]}`);

    const status = await ours(["live", "status", dir]);
    expect(status.code, printed(status)).toBe(0);
    expect(status.stdout).toContain("configmap/settings is Current");
    expect(warnings(status)).toHaveLength(1);

    const again = await ours(["live", "apply", dir]);
    expect(again.code, printed(again)).toBe(0);
    expect(again.stdout).toContain("configmap/settings unchanged");

    // Only what needs the group fails: an inventory that also lists an object of metrics.k8s.io.
    const rg = JSON.parse((await kc(["get", "resourcegroups.kpt.dev", "-n", ns, "-o", "json"])).stdout).items[0];
    const patch = JSON.stringify([{ op: "add", path: "/spec/resources/-", value: { group: "metrics.k8s.io", kind: "NodeMetrics", name: "kwok-node-0", namespace: "" } }]);
    expect((await kc(["patch", "resourcegroups.kpt.dev", rg.metadata.name, "-n", ns, "--type=json", "-p", patch])).code).toBe(0);
    const mixed = await ours(["live", "status", dir], { timeoutMs: 30_000 });
    expect(mixed.code, printed(mixed)).toBe(0);
    expect(mixed.stdout).toContain("configmap/settings is Current");
    expect(mixed.stdout).toMatch(/nodemetrics\.metrics\.k8s\.io\/kwok-node-0 is Unknown: .*API group metrics\.k8s\.io\/v1beta1 is unavailable \(APIService v1beta1\.metrics\.k8s\.io is not available\)/);
  });

  it("a package with an object of that group: only that object fails, naming the APIService; the rest applies", async () => {
    const ns = uniqueName("e2e-mixed");
    expect((await kc(["create", "namespace", ns])).code).toBe(0);
    const podMetrics = JSON.stringify({ apiVersion: "metrics.k8s.io/v1beta1", kind: "PodMetrics", metadata: { name: "x", namespace: ns } }) + "\n";
    const dir = await writePackage({ "objects.yaml": docs(podMetrics, configMap("settings", ns)) });
    expect((await ours(["live", "init", "--namespace", ns, dir])).code).toBe(0);
    const r = await ours(["live", "apply", "--reconcile-timeout=1m", dir]);
    expect(r.code, printed(r)).toBe(3);
    expect(r.stdout).toContain("configmap/settings created");
    expect(r.stdout).toContain(
      'podmetrics.metrics.k8s.io/x apply failed: error when creating "objects.yaml": cannot use PodMetrics.metrics.k8s.io: API group metrics.k8s.io/v1beta1 is unavailable (APIService v1beta1.metrics.k8s.io is not available); fix or remove the APIService',
    );
    expect(warnings(r)).toHaveLength(1);
  });

  it("destroy of a namespace package fails at its delete timeout, naming the API group; live status names it too", async () => {
    const ns = uniqueName("e2e-stuck-ns");
    const dir = await writePackage({ "ns.yaml": docs(namespaceObject(ns), configMap("inside", ns)) });
    expect((await ours(["live", "init", "--namespace", "default", dir])).code).toBe(0);
    const apply = await ours(["live", "apply", "--reconcile-timeout=1m", dir]);
    expect(apply.code, printed(apply)).toBe(0);

    const started = Date.now();
    const destroy = await ours(["live", "destroy", "--delete-timeout=20s", dir]);
    const elapsed = Date.now() - started;
    expect(destroy.code, printed(destroy)).toBe(3);
    expect(destroy.stdout).toContain("configmap/inside deleted");
    expect(destroy.stdout).toContain(`namespace/${ns} reconcile timeout: not yet deleted (Terminating: ${HELD})`);
    expect(destroy.stderr).toContain(`namespace/${ns}: not yet deleted (Terminating: ${HELD})`);
    expect(destroy.stderr).toContain("stale GroupVersion discovery: metrics.k8s.io/v1beta1");
    expect(warnings(destroy)).toHaveLength(1);
    expect(elapsed).toBeLessThan(40_000);

    const status = await ours(["live", "status", dir]);
    expect(status.stdout).toContain(`namespace/${ns} is Terminating: Resource scheduled for deletion; ${HELD}`);

    // Once the APIService goes, the namespace goes too, and a second destroy finishes the job.
    const removed = await ours(["live", "destroy", metricsServer]);
    expect(removed.code, printed(removed)).toBe(0);
    const finish = await ours(["live", "destroy", "--delete-timeout=2m", dir]);
    expect(finish.code, printed(finish)).toBe(0);
    expect(warnings(finish)).toHaveLength(0);
    expect((await kc(["get", "namespace", ns, "--ignore-not-found", "-o", "name"])).stdout.trim()).toBe("");
  });
});
