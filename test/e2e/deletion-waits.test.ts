// Issue 22: why a deletion waits, and waits that do not hang on one watch.
//   - a destroy whose watch stalls (the connection stays open, nothing arrives) or is cut still
//     ends within seconds of the deletion: quiet objects are read again directly;
//   - every wait line, the timeout summary and `live status` name what holds an object being
//     deleted: a finalizer, a claim's kubernetes.io/pvc-protection, a CRD's Terminating condition;
//   - a CRD's finalizer does not meet a watch cache still being built (issue 30).
import { spawn } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startKptTs } from "../helpers/background.js";
import { startFaultProxy, type FaultProxy } from "../helpers/fault-proxy.js";
import { writePackage } from "../helpers/fixtures.js";
import { createNamespace, kptTs, kubeconfig, kubectl, waitUntil } from "../helpers/run.js";
import { getObject, printed, uniqueName, widgetCrd } from "../helpers/scenario.js";
import { DELETION_QUIET_REREAD_MS } from "../../src/cluster/live-cache.js";

const HOLD = "kpt-ts.dev/e2e-hold";

const heldConfigMap = (name: string, ns: string) => JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace: ns, finalizers: [HOLD] }, data: { v: "1" } }) + "\n";

async function release(kind: string, name: string, ns?: string): Promise<void> {
  const r = await kubectl(["patch", kind, name, ...(ns ? ["-n", ns] : []), "--type=json", "-p", '[{"op":"remove","path":"/metadata/finalizers"}]']);
  if (r.code !== 0 && !/not found/i.test(r.stderr)) throw new Error(`removing the finalizer of ${kind}/${name}: ${r.stderr}`);
}

async function appliedPackage(ns: string, files: Record<string, string>): Promise<string> {
  const dir = await writePackage(files);
  expect((await kptTs(["live", "init", "--namespace", ns, dir])).code).toBe(0);
  const r = await kptTs(["live", "apply", "--reconcile-timeout=1m", dir]);
  expect(r.code, printed(r)).toBe(0);
  return dir;
}

describe("a destroy does not hang on one watch", () => {
  let proxy: FaultProxy & { seed: number };
  beforeAll(async () => {
    proxy = await startFaultProxy(kubeconfig());
  });
  afterAll(async () => {
    await proxy?.close();
  });

  const configMapWatch = (req: { method: string; path: string }) => req.method === "GET" && /\/configmaps\b/.test(req.path) && /[?&]watch=(true|1)\b/.test(req.path);

  for (const fault of ["stall", "cut"] as const) {
    it(`ends within seconds of the deletion when every watch of the kind ${fault === "stall" ? "stalls (open, silent)" : "is cut after a second"}`, async () => {
      const ns = await createNamespace(`e2e-watch-${fault}`);
      const dir = await appliedPackage(ns, { "cm.yaml": heldConfigMap("held", ns) });
      // From now on, every watch of ConfigMaps through the proxy gets the fault.
      proxy.setFaults({ rate: 1, kinds: [fault], match: configMapWatch });
      const injectedBefore = proxy.stats.injected[fault];
      const run = startKptTs(["live", "destroy", dir], { env: { KUBECONFIG: proxy.kubeconfig } });
      try {
        // The wait names what holds it, right away.
        await run.waitForOutput(/configmap\/held waiting: finalizer kpt-ts\.dev\/e2e-hold/, { stream: "stderr", timeoutMs: 30_000 });
        await new Promise((r) => setTimeout(r, 2_000));
        const released = Date.now();
        await release("configmap", "held", ns);
        const done = await run.done;
        const after = Date.now() - released;
        expect(done.code, printed(done)).toBe(0);
        expect(done.stdout).toContain("configmap/held reconciled");
        // One quiet interval of a deletion's wait to notice, a tick to look: well within seconds, never a watch timeout.
        expect(after).toBeLessThan(DELETION_QUIET_REREAD_MS + 4_000);
        console.log(`destroy with every ConfigMap watch ${fault === "stall" ? "stalled" : "cut"}: ended ${after} ms after the finalizer was removed`);
      } finally {
        run.kill();
        proxy.setFaults(undefined);
        await release("configmap", "held", ns);
      }
      expect(await getObject("configmap", "held", ns)).toBeUndefined();
      expect(proxy.stats.injected[fault]).toBeGreaterThan(injectedBefore);
    });
  }
});

describe("what holds an object being deleted is named", () => {
  it("a finalizer: the wait line, the timeout summary and live status", async () => {
    const ns = await createNamespace("e2e-held-finalizer");
    const dir = await appliedPackage(ns, { "cm.yaml": heldConfigMap("held", ns) });
    try {
      const r = await kptTs(["live", "destroy", "--delete-timeout=6s", dir]);
      expect(r.code, printed(r)).toBe(3);
      expect(r.stdout).toContain("configmap/held reconcile timeout: not yet deleted (Terminating: held by finalizer kpt-ts.dev/e2e-hold)");
      expect(r.stderr).toContain("configmap/held waiting: finalizer kpt-ts.dev/e2e-hold");
      expect(r.stderr).toMatch(/timed out waiting for 1 resource\(s\) to be deleted; last known state:\n  configmap\/held: not yet deleted \(Terminating: held by finalizer kpt-ts\.dev\/e2e-hold\)\n    finalizer kpt-ts\.dev\/e2e-hold/);
      const status = await kptTs(["live", "status", dir]);
      expect(status.stdout).toContain("configmap/held is Terminating: Resource scheduled for deletion; held by finalizer kpt-ts.dev/e2e-hold");
      // --output json stays kpt's: kstatus' message only.
      const json = await kptTs(["live", "status", "--output", "json", dir]);
      expect(JSON.parse(json.stdout.trim().split("\n")[0]!).message).toBe("Resource scheduled for deletion");
    } finally {
      await release("configmap", "held", ns);
    }
  });

  it("a claim a running Pod uses: kubernetes.io/pvc-protection", async () => {
    const ns = await createNamespace("e2e-held-pvc");
    const pv = uniqueName("e2e-held-pv");
    const volume = JSON.stringify({ apiVersion: "v1", kind: "PersistentVolume", metadata: { name: pv }, spec: { capacity: { storage: "1Gi" }, accessModes: ["ReadWriteOnce"], storageClassName: pv, hostPath: { path: `/tmp/${pv}` } } });
    const pod = JSON.stringify({ apiVersion: "v1", kind: "Pod", metadata: { name: "user", namespace: ns }, spec: { containers: [{ name: "c", image: "pause" }], volumes: [{ name: "d", persistentVolumeClaim: { claimName: "data" } }] } });
    const claim = JSON.stringify({ apiVersion: "v1", kind: "PersistentVolumeClaim", metadata: { name: "data", namespace: ns }, spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } }, storageClassName: pv } }) + "\n";
    try {
      expect((await kubectl(["apply", "-f", "-"], { input: volume })).code).toBe(0);
      const dir = await appliedPackage(ns, { "pvc.yaml": claim });
      // The Pod is not the package's: it keeps using the claim while the package is destroyed.
      expect((await kubectl(["apply", "-f", "-"], { input: pod })).code).toBe(0);
      await waitUntil("the Pod to run", async () => (await getObject("pod", "user", ns))?.status?.phase === "Running");
      const r = await kptTs(["live", "destroy", "--delete-timeout=8s", dir]);
      expect(r.code, printed(r)).toBe(3);
      expect(r.stdout).toContain("persistentvolumeclaim/data reconcile timeout: not yet deleted (Terminating: held by finalizer kubernetes.io/pvc-protection (the claim is still used by a Pod))");
      const status = await kptTs(["live", "status", dir]);
      expect(status.stdout).toContain("persistentvolumeclaim/data is Terminating: Resource scheduled for deletion; held by finalizer kubernetes.io/pvc-protection (the claim is still used by a Pod)");
    } finally {
      await kubectl(["delete", "pod", "user", "-n", ns, "--grace-period=0", "--force", "--ignore-not-found"]);
      await kubectl(["delete", "pv", pv, "--ignore-not-found", "--wait=false"]);
    }
  });

  it("a CRD whose custom resources are still being deleted: its Terminating condition", async () => {
    const ns = await createNamespace("e2e-held-crd");
    const group = `${uniqueName("held")}.kpt-ts.dev`;
    const dir = await appliedPackage(ns, { "crd.yaml": widgetCrd(group) });
    // A Widget the package does not own, with a finalizer nobody removes.
    const widget = JSON.stringify({ apiVersion: `${group}/v1`, kind: "Widget", metadata: { name: "w", namespace: ns, finalizers: [HOLD] }, spec: {} });
    expect((await kubectl(["apply", "-f", "-"], { input: widget })).code).toBe(0);
    try {
      const r = await kptTs(["live", "destroy", "--delete-timeout=8s", dir]);
      expect(r.code, printed(r)).toBe(3);
      expect(r.stdout).toContain(`customresourcedefinition.apiextensions.k8s.io/widgets.${group} reconcile timeout: not yet deleted (Terminating: held by Terminating: InstanceDeletionInProgress; finalizer customresourcecleanup.apiextensions.k8s.io (its custom resources are deleted first))`);
      expect(r.stderr).toContain("CustomResource deletion is in progress");
    } finally {
      await release(`widgets.${group}`, "w", ns);
    }
    await waitUntil("the CRD to go", async () => (await getObject("crd", `widgets.${group}`)) === undefined);
  });
});

// Issue 30: a CRD whose custom resources nobody had read was deleted, and the API server's
// finalizer, listing them as the first request for their kind, was refused while it built their
// watch cache (429 "storage is (re)initializing", Kubernetes 1.34+) and backed off: seconds, once
// three minutes. kpt-ts reads them before it deletes the CRD, so the finalizer never meets it.
describe("a CRD's deletion does not meet a watch cache still being built", () => {
  it("destroy: the CRD's Terminating condition never says InstanceDeletionFailed", async () => {
    const ns = await createNamespace("e2e-crd-warm");
    const group = `${uniqueName("warm")}.kpt-ts.dev`;
    const dir = await appliedPackage(ns, { "crd.yaml": widgetCrd(group) });
    // Every change of the CRD, as the API server makes them while it finalizes it.
    const watch = spawn("kubectl", ["get", "--raw", `/apis/apiextensions.k8s.io/v1/customresourcedefinitions?watch=1&fieldSelector=metadata.name%3Dwidgets.${group}`], { env: { ...process.env, KUBECONFIG: kubeconfig() } });
    let seen = "";
    watch.stdout.on("data", (d: Buffer) => (seen += d.toString()));
    try {
      await waitUntil("the watch to open", async () => seen.includes('"ADDED"'));
      const r = await kptTs(["live", "destroy", dir]);
      expect(r.code, printed(r)).toBe(0);
      await waitUntil("the watch to tell of the deletion", async () => seen.includes('"DELETED"'));
    } finally {
      watch.kill();
    }
    const reasons = seen
      .split("\n")
      .filter((l) => l.trim())
      .flatMap((l) => ((JSON.parse(l) as { object: { status?: { conditions?: { type: string; reason?: string; message?: string }[] } } }).object.status?.conditions ?? []).filter((c) => c.type === "Terminating").map((c) => `${c.reason}: ${c.message}`));
    expect(reasons.length).toBeGreaterThan(0);
    expect(reasons.filter((x) => x.startsWith("InstanceDeletionFailed"))).toEqual([]);
  });
});
