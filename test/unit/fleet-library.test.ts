// The library's fleet runs (`apply` / `destroy` with `clusters`), on in-memory clusters: each
// cluster converges with its own inventory; one failing leaves the others applied and names it;
// a failed canary wave leaves the next untouched; the guard refuses a cluster the package does
// not pin before any write; destroy removes the package everywhere. (The same on real control
// planes: test/e2e/fleet.test.ts.)
import { describe, expect, it } from "vitest";
import { apply, destroy, type ClusterEngineEvent, type FleetEvent } from "../../src/index.js";
import { refOf } from "../../src/model/ref.js";
import type { KubeObject } from "../../src/model/kube-object.js";
import { configMap, deployment, INVENTORY, namespace, packageOf, QUICK, rollOutDeployments } from "../helpers/engine-run.js";
import { invalid, MemoryCluster } from "../helpers/memory-cluster.js";

const INV_REF = { group: "kpt.dev", kind: "ResourceGroup", namespace: INVENTORY.namespace, name: INVENTORY.name };
const UID_A = "6f0d8f6e-0b0e-4b6a-9d7a-1c2b3d4e5f60";
const UID_B = "0a1b2c3d-4e5f-6071-8293-a4b5c6d7e8f9";

function cluster(uid?: string): MemoryCluster {
  const c = rollOutDeployments(new MemoryCluster()).seed(namespace());
  return uid ? c.seed({ apiVersion: "v1", kind: "Namespace", metadata: { name: "kube-system", uid } }) : c;
}

const objects: KubeObject[] = [configMap("settings"), deployment("web")];
const pkg = (annotations: Record<string, string> = {}) => packageOf({ ...INVENTORY, annotations }, objects);
const has = (c: MemoryCluster, o: KubeObject) => c.peek(refOf(o)) !== undefined;

async function drain(run: AsyncIterable<FleetEvent>): Promise<FleetEvent[]> {
  const out: FleetEvent[] = [];
  for await (const e of run) out.push(e);
  return out;
}

describe("apply and destroy on several clusters", () => {
  it("both converge, each with its own inventory; every engine event names its cluster", async () => {
    const a = cluster();
    const b = cluster();
    const run = apply({ package: pkg(), clusters: [{ context: "a", cluster: a }, { context: "b", cluster: b }], ...QUICK });
    const events = await drain(run);
    const { clusters, exitCode } = await run.results();
    expect(exitCode).toBe(0);
    expect(clusters.map((r) => [r.cluster, r.outcome, r.exitCode, r.stats?.apply.successful, r.stats?.wait.successful])).toEqual([
      ["a", "succeeded", 0, 2, 2],
      ["b", "succeeded", 0, 2, 2],
    ]);
    for (const c of [a, b]) {
      expect(objects.every((o) => has(c, o))).toBe(true);
      expect(c.peek(INV_REF)).toBeDefined();
    }
    expect(events[0]).toEqual({ type: "fleet", command: "apply", dryRun: false, waves: [["a", "b"]] });
    expect(events.at(-1)).toMatchObject({ type: "fleet-summary", exitCode: 0 });
    const engine = events.filter((e): e is ClusterEngineEvent => !["fleet", "cluster-started", "cluster-finished", "fleet-summary"].includes(e.type));
    expect(new Set(engine.map((e) => e.cluster))).toEqual(new Set(["a", "b"]));
    expect(engine.filter((e) => e.type === "apply" && e.cluster === "b")).toHaveLength(2);

    const gone = await destroy({ package: pkg(), clusters: [{ context: "a", cluster: a }, { context: "b", cluster: b }], ...QUICK }).results();
    expect(gone.exitCode).toBe(0);
    expect(gone.clusters.map((r) => r.stats?.delete.successful)).toEqual([2, 2]);
    for (const c of [a, b]) expect(objects.some((o) => has(c, o)) || c.peek(INV_REF) !== undefined).toBe(false);
  });

  it("one cluster failing leaves the other applied; the run's exit code is the failing one's", async () => {
    const a = cluster();
    const b = cluster().failOn({ verb: "create", kind: "ConfigMap" }, () => invalid("ConfigMap", "settings", "data", "refused"));
    const { clusters, exitCode } = await apply({ package: pkg(), clusters: [{ context: "a", cluster: a }, { context: "b", cluster: b }], ...QUICK }).results();
    expect(exitCode).toBe(3);
    expect(clusters.map((r) => [r.cluster, r.outcome, r.exitCode])).toEqual([
      ["a", "succeeded", 0],
      ["b", "failed", 3],
    ]);
    expect(objects.every((o) => has(a, o))).toBe(true);
  });

  it("a failed canary wave leaves the next wave untouched: not one call to its cluster", async () => {
    const canary = cluster().failOn({ verb: "create", kind: "Deployment" }, () => invalid("Deployment", "web", "spec", "refused"));
    const rest = cluster();
    const run = apply({ package: pkg(), clusters: [{ context: "canary", cluster: canary }, { context: "prod", cluster: rest }], rollout: [["canary"], ["*"]], ...QUICK });
    const { clusters, exitCode } = await run.results();
    expect(exitCode).toBe(3);
    expect(clusters.map((r) => [r.cluster, r.wave, r.outcome, r.message])).toEqual([
      ["canary", 1, "failed", undefined],
      ["prod", 2, "not-run", "wave 1 did not succeed (canary)"],
    ]);
    expect(rest.calls).toEqual([]);
  });

  it("the guard refuses a cluster the package does not pin, before any write; the pinned one is applied", async () => {
    const a = cluster(UID_A);
    const b = cluster(UID_B);
    const pinned = pkg({ "kpt-ts.dev/clusters": `uid:${UID_A}` });
    const { clusters, exitCode } = await apply({ package: pinned, clusters: [{ context: "a", cluster: a }, { context: "b", cluster: b }], ...QUICK }).results();
    expect(exitCode).toBe(2);
    expect(clusters[0]).toMatchObject({ cluster: "a", outcome: "succeeded" });
    expect(clusters[1]).toMatchObject({ cluster: "b", outcome: "failed", exitCode: 2 });
    expect(clusters[1]!.message).toContain(`the package may not be deployed to context "b" (https://memory.invalid, uid:${UID_B}): its identity uid:${UID_B} is none of uid:${UID_A}`);
    expect(b.writes()).toEqual([]);
    // Asked explicitly, it goes.
    const anyway = await apply({ package: pinned, clusters: [{ context: "b", cluster: b }], allowAnyCluster: true, ...QUICK }).results();
    expect(anyway.exitCode).toBe(0);
  });

  it("a malformed pin is the package's error, before any cluster is touched", async () => {
    const a = cluster(UID_A);
    const run = apply({ package: pkg({ "kpt-ts.dev/clusters": "uid:not-a-uid" }), clusters: [{ context: "a", cluster: a }], ...QUICK });
    await expect(run.results()).rejects.toThrow('resourcegroup.yaml:1: ResourceGroup/inv: annotation kpt-ts.dev/clusters: "uid:not-a-uid" is not a cluster identity');
    expect(a.calls).toEqual([]);
  });

  it("one cluster: the guard holds for a plain apply too", async () => {
    const b = cluster(UID_B);
    const events = apply({ package: pkg({ "kpt-ts.dev/clusters": `uid:${UID_A}` }), cluster: b, ...QUICK });
    await expect(drain(events as AsyncIterable<FleetEvent>)).rejects.toThrow("the package may not be deployed to this connection");
    expect(b.writes()).toEqual([]);
  });
});
