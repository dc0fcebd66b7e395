// The short end-to-end run .ci/run repeats under each supported Node line (20, 22, 24): the built
// kpt-ts, run by the Node that runs the tests, applies a package (waiting for a Deployment's
// rollout), reports its status, and destroys it; the library does the same in-process. The
// Kubernetes matrix (scripts/k8s-matrix.sh) runs it first on each version, so it also checks that
// the cluster is the version K8S_VERSION asked for.
import { afterAll, describe, expect, it } from "vitest";
import { apply, status } from "kpt-ts";
import { writePackage } from "../helpers/fixtures.js";
import { createNamespace, kptTs, kubeconfig, kubectl } from "../helpers/run.js";
import { configMap, deployment, docs, getObject, printed, readInventoryFile } from "../helpers/scenario.js";

const namespaces: string[] = [];
afterAll(async () => {
  for (const ns of namespaces) await kubectl(["delete", "namespace", ns, "--wait=false"]);
});

describe(`kpt-ts on Node ${process.version}`, () => {
  it.skipIf(!process.env.K8S_VERSION)(`runs against Kubernetes ${process.env.K8S_VERSION}, as K8S_VERSION asks`, async () => {
    const v = await kubectl(["version", "-o", "json"]);
    expect(JSON.parse(v.stdout).serverVersion.gitVersion).toBe(process.env.K8S_VERSION);
  });

  it("applies a package and waits for it, reports its status, and destroys it", async () => {
    const ns = await createNamespace("e2e-smoke");
    namespaces.push(ns);
    const dir = await writePackage({ "app.yaml": docs(configMap("settings", ns), deployment("web", ns)) });
    expect((await kptTs(["live", "init", dir, "--namespace", ns])).code).toBe(0);

    const applied = await kptTs(["live", "apply", "--reconcile-timeout=2m", dir]);
    expect(applied.code, printed(applied)).toBe(0);
    expect(applied.stdout).toMatch(/^2 resource\(s\) applied\. 2 created, 0 unchanged, 0 configured, 0 failed$/m);
    expect(applied.stdout).toMatch(/^deployment\.apps\/web reconciled$/m);

    const st = await kptTs(["live", "status", dir]);
    expect(st.code, printed(st)).toBe(0);
    expect(st.stdout).toMatch(/^configmap\/settings is Current/m);
    expect(st.stdout).toMatch(/^deployment\.apps\/web is Current/m);

    // The library, in this process (so on this Node too).
    const events = [];
    for await (const e of status({ path: dir, kubeconfig: kubeconfig() })) events.push(`${e.ref.kind}/${e.ref.name} ${e.status}`);
    expect(events.sort()).toEqual(["ConfigMap/settings Current", "Deployment/web Current"]);
    const again = [];
    for await (const e of apply({ path: dir, kubeconfig: kubeconfig(), reconcileTimeoutMs: 60_000 })) if (e.type === "apply") again.push(e.operation);
    expect(again).toEqual(["unchanged", "unchanged"]);

    const destroyed = await kptTs(["live", "destroy", dir]);
    expect(destroyed.code, printed(destroyed)).toBe(0);
    expect(destroyed.stdout).toMatch(/^2 resource\(s\) deleted, 0 skipped, 0 failed to delete$/m);
    expect(await getObject("deployments.apps", "web", ns)).toBeUndefined();
    expect(await getObject("resourcegroups.kpt.dev", (await readInventoryFile(dir)).name, ns)).toBeUndefined();
  });
});
