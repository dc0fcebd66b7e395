// Issue 2: the local control plane is real. Deployments roll out, claims bind, Jobs complete,
// and `down` leaves nothing behind.
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { down, isRunning, portsFree } from "../../tools/cluster/launcher.js";
import { PRIVATE_CLUSTER_HOOK_TIMEOUT, startPrivateCluster, stopPrivateCluster } from "../helpers/private-cluster.js";
import { createNamespace, kubectl, kubectlJson, waitUntil } from "../helpers/run.js";

describe("the local control plane", () => {
  it("rolls a 3-replica Deployment out until 3 replicas are available", async () => {
    const ns = await createNamespace("e2e-deploy");
    const manifest = {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: "web", namespace: ns },
      spec: {
        replicas: 3,
        selector: { matchLabels: { app: "web" } },
        template: { metadata: { labels: { app: "web" } }, spec: { containers: [{ name: "web", image: "nginx" }] } },
      },
    };
    expect((await kubectl(["apply", "-f", "-"], { input: JSON.stringify(manifest) })).code).toBe(0);
    const available = await waitUntil("3 available replicas", async () => {
      const d = await kubectlJson(["get", "deployment", "web", "-n", ns]);
      return d.status?.availableReplicas === 3 ? d.status.availableReplicas : undefined;
    });
    expect(available).toBe(3);
  });

  it("binds a PersistentVolumeClaim to a matching PersistentVolume", async () => {
    const ns = await createNamespace("e2e-pvc");
    const pv = {
      apiVersion: "v1",
      kind: "PersistentVolume",
      metadata: { name: `${ns}-pv`, labels: { claim: ns } },
      spec: { capacity: { storage: "1Gi" }, accessModes: ["ReadWriteOnce"], storageClassName: "e2e-manual", hostPath: { path: `/tmp/${ns}` } },
    };
    const pvc = {
      apiVersion: "v1",
      kind: "PersistentVolumeClaim",
      metadata: { name: "data", namespace: ns },
      spec: {
        accessModes: ["ReadWriteOnce"],
        storageClassName: "e2e-manual",
        selector: { matchLabels: { claim: ns } },
        resources: { requests: { storage: "1Gi" } },
      },
    };
    expect((await kubectl(["apply", "-f", "-"], { input: JSON.stringify({ apiVersion: "v1", kind: "List", items: [pv, pvc] }) })).code).toBe(0);
    const phase = await waitUntil("the claim to bind", async () => {
      const c = await kubectlJson(["get", "pvc", "data", "-n", ns]);
      return c.status?.phase === "Bound" ? c.status.phase : undefined;
    });
    expect(phase).toBe("Bound");
    await kubectl(["delete", "pv", `${ns}-pv`, "--wait=false"]);
  });

  it("runs a Job to completion", async () => {
    const ns = await createNamespace("e2e-job");
    const job = {
      apiVersion: "batch/v1",
      kind: "Job",
      metadata: { name: "once", namespace: ns },
      spec: { template: { spec: { restartPolicy: "Never", containers: [{ name: "once", image: "busybox" }] } } },
    };
    expect((await kubectl(["apply", "-f", "-"], { input: JSON.stringify(job) })).code).toBe(0);
    const complete = await waitUntil("the Job to complete", async () => {
      const j = await kubectlJson(["get", "job", "once", "-n", ns]);
      return j.status?.conditions?.find((c: { type: string; status: string }) => c.type === "Complete" && c.status === "True");
    });
    expect(complete.status).toBe("True");
  });

  it("`down` stops every process it started and frees every port", async () => {
    // A second, private cluster, so the shared one keeps serving the other tests.
    const dir = join(await mkdtemp(join(tmpdir(), "kpt-ts-cluster-")), "state");
    const state = await startPrivateCluster(dir);
    try {
      expect(await isRunning(dir)).toBeTruthy();
      expect(await portsFree(state)).toBe(false);
      await down({ dir });
      for (const p of state.procs) expect(() => process.kill(p.pid, 0), `${p.name} (pid ${p.pid}) still runs`).toThrow();
      expect(await portsFree(state)).toBe(true);
      expect(await isRunning(dir)).toBeUndefined();
    } finally {
      await stopPrivateCluster(dir); // down again is harmless; lets the next private cluster start
    }
  }, PRIVATE_CLUSTER_HOOK_TIMEOUT);
});
