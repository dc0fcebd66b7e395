// The engine with an ApplySet inventory (KEP-3659) and the run's lock, on the in-memory cluster:
// the steps the planner chooses for an ApplySet (check-rights, applyset-add before the first
// apply with the superset, applyset-set after with the exact scope, applyset-delete at the end
// of a destroy), the exact events, and what the cluster holds afterwards: the parent's labels and
// annotations as kubectl writes them, every member labelled, the Lease gone.

import { describe, expect, it } from "vitest";
import { applySetInventory } from "../../src/inventory/applyset.js";
import { InventoryLockedError, ClusterError } from "../../src/model/errors.js";
import { APPLYSET_GROUP_KINDS_ANNOTATION, APPLYSET_ID_LABEL, APPLYSET_PART_OF_LABEL, APPLYSET_TOOLING_ANNOTATION, OWNING_INVENTORY_ANNOTATION } from "../../src/model/inventory-keys.js";
import type { KubeObject } from "../../src/model/kube-object.js";
import { refOf, type ObjRef } from "../../src/model/ref.js";
import { microTime } from "../../src/inventory/run-lock.js";
import { configMap, deployment, describeEvents, NS, namespace, packageOf, plannedSteps, rollOutDeployments, runApply, runDestroy, service } from "../helpers/engine-run.js";
import { MemoryCluster } from "../helpers/memory-cluster.js";

const SET = applySetInventory({ name: "web", namespace: NS, kind: "Secret", origin: "applyset", source: { file: "applyset.yaml", line: 1 } });
const PARENT: ObjRef = { group: "", kind: "Secret", namespace: NS, name: "web" };
const LEASE: ObjRef = { group: "coordination.k8s.io", kind: "Lease", namespace: NS, name: "kpt-ts-lock.applyset-secret.web" };
const cm = configMap("config");
const web = deployment("web", { dependsOn: [cm] });
const svc = service("web");
const set = (...objects: KubeObject[]) => packageOf(SET, objects);

function cluster(): MemoryCluster {
  return rollOutDeployments(new MemoryCluster()).seed(namespace());
}

const parentOf = (c: MemoryCluster) => c.peek(PARENT);
const labelOf = (c: MemoryCluster, o: KubeObject) => c.peek(refOf(o))?.metadata.labels?.[APPLYSET_PART_OF_LABEL];

describe("an ApplySet's runs", () => {
  it("a first apply: rights checked, the parent created with the package's scope before the first apply, every member labelled, the lock released", async () => {
    const c = cluster();
    const r = await runApply(c, set(cm, svc, web));
    if (r.error) throw r.error;
    expect(plannedSteps(r.events)).toEqual([
      "check-rights create ConfigMap, create Service, create Deployment, create Secret, update Secret",
      "applyset-add ConfigMap,Deployment.apps,Service",
      "apply 0: ConfigMap/config, Service/web",
      "wait 0 Current: ConfigMap/config, Service/web",
      "apply 1: Deployment/web",
      "wait 1 Current: Deployment/web",
      "applyset-set",
    ]);
    expect(describeEvents(r.events).filter((e) => !e.startsWith("status ") && !e.startsWith("wait "))).toEqual([
      "init apply: Apply ConfigMap/config, Apply Service/web, Apply Deployment/web",
      "Inventory Started",
      "Inventory Finished",
      "Apply Started 0",
      "apply Successful created ConfigMap/config",
      "apply Successful created Service/web",
      "Apply Finished 0",
      "Wait Started 0",
      "Wait Finished 0",
      "Apply Started 1",
      "apply Successful created Deployment/web",
      "Apply Finished 1",
      "Wait Started 1",
      "Wait Finished 1",
      "Inventory Started",
      "Inventory Finished",
      "summary apply 3ok 0skip 0fail (3 created, 0 configured, 0 unchanged), prune 0/0/0, delete 0/0/0, wait 3ok 0skip 0fail 0timeout",
    ]);
    const parent = parentOf(c)!;
    expect(parent.metadata.labels).toEqual({ [APPLYSET_ID_LABEL]: SET.id });
    expect(parent.metadata.annotations?.[APPLYSET_GROUP_KINDS_ANNOTATION]).toBe("ConfigMap,Deployment.apps,Service");
    expect(parent.metadata.annotations?.[APPLYSET_TOOLING_ANNOTATION]).toMatch(/^kpt-ts\/v\d+\.\d+\.\d+/);
    for (const o of [cm, svc, web]) {
      expect(labelOf(c, o)).toBe(SET.id);
      expect(c.peek(refOf(o))?.metadata.annotations?.[OWNING_INVENTORY_ANNOTATION]).toBe(SET.id);
    }
    // The parent was written before the first object, and the ResourceGroup CRD never installed.
    const writes = c.writes().map((w) => `${w.verb} ${w.ref.kind}/${w.ref.name}`);
    expect(writes.indexOf("create Secret/web")).toBeLessThan(writes.indexOf("create ConfigMap/config"));
    expect(writes.some((w) => w.includes("CustomResourceDefinition") || w.includes("ResourceGroup"))).toBe(false);
    // Taken for the run, released at its end (kept without a holder: the next run can tell a run came and went).
    expect(writes).toContain(`create Lease/${LEASE.name}`);
    expect((c.peek(LEASE)?.spec as { holderIdentity?: string }).holderIdentity).toBe("");
    // First whether it may read its namespace (nothing found there yet), then the rights the package needs.
    expect(c.reviews).toEqual(["get namespaces  app", "create configmaps app", "create services app", "create deployments app", "create secrets app", "update secrets app"]);
  });

  it("a re-apply of the unchanged package writes nothing: no parent, no member, no Lease", async () => {
    const c = cluster();
    await runApply(c, set(cm, svc, web));
    const before = c.writes().length;
    const r = await runApply(c, set(cm, svc, web));
    if (r.error) throw r.error;
    expect(plannedSteps(r.events)).toEqual(["applyset-add", "apply 0: ConfigMap/config, Service/web", "wait 0 Current: ConfigMap/config, Service/web", "apply 1: Deployment/web", "wait 1 Current: Deployment/web", "applyset-set"]);
    expect(c.writes().slice(before)).toEqual([]);
  });

  it("an object that left the package is found by its label and pruned; the parent then names exactly what is left", async () => {
    const c = cluster();
    await runApply(c, set(cm, svc, web));
    const r = await runApply(c, set(cm));
    if (r.error) throw r.error;
    expect(plannedSteps(r.events)).toEqual([
      "check-rights delete Deployment, delete Service, update Secret",
      "applyset-add",
      "apply 0: ConfigMap/config",
      "wait 0 Current: ConfigMap/config",
      "prune 1: Deployment/web, Service/web",
      "wait 1 NotFound: Deployment/web, Service/web",
      "applyset-set",
    ]);
    expect(describeEvents(r.events).filter((e) => /^(prune|apply) /.test(e))).toEqual(["apply Successful unchanged ConfigMap/config", "prune Successful Deployment/web", "prune Successful Service/web"]);
    expect(c.peek(refOf(web))).toBeUndefined();
    expect(c.peek(refOf(svc))).toBeUndefined();
    expect(parentOf(c)!.metadata.annotations?.[APPLYSET_GROUP_KINDS_ANNOTATION]).toBe("ConfigMap");
  });

  it("an object let go (on-remove: keep) loses its label, so the next run does not find it", async () => {
    const kept = configMap("kept", { annotations: { "cli-utils.sigs.k8s.io/on-remove": "keep" } });
    const c = cluster();
    await runApply(c, set(cm, kept));
    expect(labelOf(c, kept)).toBe(SET.id);
    const r = await runApply(c, set(cm));
    expect(describeEvents(r.events).filter((e) => e.startsWith("prune "))).toEqual([expect.stringMatching(/^prune Skipped ConfigMap\/kept: /)]);
    expect(labelOf(c, kept)).toBeUndefined();
    expect(c.peek(refOf(kept))?.metadata.annotations?.[OWNING_INVENTORY_ANNOTATION]).toBeUndefined();
    const again = await runApply(c, set(cm));
    expect(plannedSteps(again.events).filter((s) => s.startsWith("prune"))).toEqual([]);
  });

  it("destroy deletes every member, dependents first, then the parent", async () => {
    const c = cluster();
    await runApply(c, set(cm, svc, web));
    const r = await runDestroy(c, set(cm, svc, web));
    if (r.error) throw r.error;
    expect(plannedSteps(r.events)).toEqual([
      "check-rights delete Deployment, delete Service, delete ConfigMap, update Secret, delete Secret",
      "delete 0: Deployment/web",
      "wait 0 NotFound: Deployment/web",
      "delete 1: Service/web, ConfigMap/config",
      "wait 1 NotFound: Service/web, ConfigMap/config",
      "applyset-delete",
    ]);
    expect(parentOf(c)).toBeUndefined();
    for (const o of [cm, svc, web]) expect(c.peek(refOf(o))).toBeUndefined();
  });

  it("a right the run lacks stops it before the first write, naming every missing right", async () => {
    const c = cluster().forbid({ verb: "create", kind: "Service" }).forbid({ verb: "create", kind: "Secret" });
    const r = await runApply(c, set(cm, svc));
    expect(r.error).toBeInstanceOf(ClusterError);
    expect((r.error as Error).message).toBe(
      'user "test" lacks 2 rights this run needs, so nothing was changed: "create" on services in namespace app; "create" on secrets in namespace app',
    );
    expect((r.error as ClusterError).detail).toBe("ask a cluster administrator to grant them, or use a context that has them (--context)");
    expect(c.writes().filter((w) => w.ref.kind !== "Lease")).toEqual([]);
  });

  it("another tool's parent is refused under the strict policy, and taken over with adopt: its members keep their label", async () => {
    const kubectlParent: KubeObject = {
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: "web", namespace: NS, labels: { [APPLYSET_ID_LABEL]: SET.id }, annotations: { [APPLYSET_TOOLING_ANNOTATION]: "kubectl/v1.32.4", [APPLYSET_GROUP_KINDS_ANNOTATION]: "ConfigMap", "applyset.kubernetes.io/additional-namespaces": "" } },
      type: "Opaque",
    };
    const member = { ...configMap("config"), metadata: { ...configMap("config").metadata, labels: { [APPLYSET_PART_OF_LABEL]: SET.id } } };
    const stray = { ...configMap("stray"), metadata: { ...configMap("stray").metadata, labels: { [APPLYSET_PART_OF_LABEL]: SET.id } } };
    const c = cluster().seed(kubectlParent, member, stray);
    const refused = await runApply(c, set(cm));
    expect((refused.error as Error).message).toBe(
      'ApplySet parent app/secrets/web already exists and is managed by tooling "kubectl" instead of "kpt-ts": take it over with --inventory-policy=adopt (its members keep their label; kubectl will then refuse it)',
    );
    expect(c.writes()).toEqual([]);
    const adopted = await runApply(c, set(cm), { inventoryPolicy: "adopt" });
    if (adopted.error) throw adopted.error;
    // kubectl's member is the package's (same label): configured; the one the package dropped is pruned.
    expect(describeEvents(adopted.events).filter((e) => /^(prune|apply) /.test(e))).toEqual(["apply Successful configured ConfigMap/config", "prune Successful ConfigMap/stray"]);
    expect(parentOf(c)!.metadata.annotations?.[APPLYSET_TOOLING_ANNOTATION]).toMatch(/^kpt-ts\//);
  });

  it("a package that sets the part-of label itself is refused before anything is written", async () => {
    const labelled = { ...configMap("mine"), metadata: { ...configMap("mine").metadata, labels: { [APPLYSET_PART_OF_LABEL]: "applyset-other-v1" } } };
    const c = cluster();
    const r = await runApply(c, set(labelled));
    expect((r.error as Error).message).toContain("the label applyset.kubernetes.io/part-of is set by kpt-ts on every member of the package's ApplySet: remove it from the package");
    expect(c.writes()).toEqual([]);
  });
});

describe("an ApplySet's hooks (docs/lifecycle.md)", () => {
  const job = (name: string, hook: string, policy?: string): KubeObject => ({
    apiVersion: "batch/v1",
    kind: "Job",
    metadata: { name, namespace: NS, annotations: { "kpt-ts.dev/hook": hook, ...(policy ? { "kpt-ts.dev/hook-delete-policy": policy } : {}) } },
    spec: { backoffLimit: 0, template: { spec: { restartPolicy: "Never", containers: [{ name: "main", image: `${name}:1` }] } } },
  });
  const complete = { succeeded: 1, conditions: [{ type: "Complete", status: "True", reason: "CompletionsReached", message: "done" }] };
  /** Each created Job completes a moment later, as the Job controller would. */
  const jobs = (c: MemoryCluster) => c.onWrite({ kind: "Job", verb: "create" }, (j) => c.setStatus(refOf(j), complete), { delayMs: 5 });
  const migrate = job("migrate", "pre-apply");
  const smoke = job("smoke", "post-apply", "hook-succeeded");
  const backup = job("backup", "pre-destroy");

  it("the parent names the hooks' kinds before the first is created; a hook left behind is a member (labelled), one deleted is not", async () => {
    const c = cluster();
    jobs(c);
    const r = await runApply(c, set(cm, migrate, smoke));
    if (r.error) throw r.error;
    expect(plannedSteps(r.events)).toEqual([
      "check-rights create ConfigMap, create Job, delete Job, create Secret, update Secret",
      "applyset-add ConfigMap,Job.batch",
      "hook-apply pre-apply 0: Job/migrate",
      "hook-wait pre-apply 0: Job/migrate",
      "apply 0: ConfigMap/config",
      "wait 0 Current: ConfigMap/config",
      "hook-apply post-apply 0: Job/smoke",
      "hook-wait post-apply 0: Job/smoke",
      "applyset-set",
    ]);
    const writes = c.writes().map((w) => `${w.verb} ${w.ref.kind}/${w.ref.name}`);
    expect(writes.indexOf("create Secret/web")).toBeLessThan(writes.indexOf("create Job/migrate"));
    expect(labelOf(c, migrate)).toBe(SET.id);
    expect(c.peek(refOf(smoke))).toBeUndefined();
    expect(parentOf(c)!.metadata.annotations?.[APPLYSET_GROUP_KINDS_ANNOTATION]).toBe("ConfigMap,Job.batch");
  });

  it("a destroy's hook of a kind the parent does not name: the parent names it before the hook is created, and the destroy leaves neither", async () => {
    const c = cluster();
    jobs(c);
    await runApply(c, set(cm, backup));
    expect(parentOf(c)!.metadata.annotations?.[APPLYSET_GROUP_KINDS_ANNOTATION]).toBe("ConfigMap");
    const created: (string | undefined)[] = [];
    c.onWrite({ kind: "Job", verb: "create" }, (j) => void created.push(j.metadata.labels?.[APPLYSET_PART_OF_LABEL]));
    const r = await runDestroy(c, set(cm, backup));
    if (r.error) throw r.error;
    expect(plannedSteps(r.events)).toEqual([
      "check-rights delete ConfigMap, create Job, delete Job, update Secret, delete Secret",
      "applyset-add ConfigMap,Job.batch",
      "hook-apply pre-destroy 0: Job/backup",
      "hook-wait pre-destroy 0: Job/backup",
      "delete 0: ConfigMap/config",
      "wait 0 NotFound: ConfigMap/config",
      "applyset-delete",
    ]);
    expect(c.peek(refOf(cm))).toBeUndefined();
    expect(describeEvents(r.events).filter((e) => e.startsWith("hook "))).toEqual([
      "hook pre-destroy create Successful Job/backup",
      "hook pre-destroy wait Successful Job/backup",
      "hook pre-destroy delete Successful Job/backup: the destroy leaves nothing behind",
    ]);
    // The hook carried the label while it existed (an interrupted destroy finds it); the destroy leaves nothing, parent included.
    expect(created).toEqual([SET.id]);
    expect(c.peek(refOf(backup))).toBeUndefined();
    expect(parentOf(c)).toBeUndefined();
  });
});

describe("the run's lock", () => {
  const lease = (holder: string, renewedAgoMs: number): KubeObject => {
    const t = microTime(new Date(Date.now() - renewedAgoMs));
    return { apiVersion: "coordination.k8s.io/v1", kind: "Lease", metadata: { name: LEASE.name, namespace: NS }, spec: { holderIdentity: holder, leaseDurationSeconds: 20, acquireTime: t, renewTime: t } };
  };

  it("held by another run: an apply fails at once, naming the holder, and writes nothing; a dry run goes ahead", async () => {
    const c = cluster().seed(lease("bob@ci-7 pid 42 (kpt-ts live apply)", 2_000));
    const started = Date.now();
    const r = await runApply(c, set(cm));
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(r.error).toBeInstanceOf(InventoryLockedError);
    expect((r.error as Error).message).toMatch(
      /^the inventory ApplySet app\/secrets\/web is locked by another run: bob@ci-7 pid 42 \(kpt-ts live apply\) since \S+Z \(2s ago\); the lock \(Lease app\/kpt-ts-lock\.applyset-secret\.web\) is released when that run ends, or expires 1[78]s from now if it stopped renewing it$/,
    );
    expect(c.writes()).toEqual([]);
    const dry = await runApply(c, set(cm), { dryRun: "client" });
    expect(dry.error).toBeUndefined();
  });

  it("waits for it with a timeout, and plans once the holder has gone", async () => {
    const c = cluster().seed(lease("bob@ci-7 pid 42 (kpt-ts live apply)", 0));
    setTimeout(() => void c.delete(LEASE), 300);
    const r = await runApply(c, set(cm), { lockTimeoutMs: 5_000 });
    if (r.error) throw r.error;
    expect(describeEvents(r.events).filter((e) => e.startsWith("apply "))).toEqual(["apply Successful created ConfigMap/config"]);
  });

  it("a holder that stopped renewing (killed) no longer holds it once the lease's duration has passed", async () => {
    const c = cluster().seed(lease("bob@ci-7 pid 42 (kpt-ts live apply)", 21_000));
    const r = await runApply(c, set(cm));
    if (r.error) throw r.error;
    expect((c.peek(LEASE)?.spec as { holderIdentity?: string }).holderIdentity).toBe("");
  });

  it("a run that planned, then found that another run came and went meanwhile, reads the cluster again before it writes", async () => {
    const c = cluster();
    const extra = configMap("extra");
    // Just as this run is about to take the lock, another run applies the package with one more object, and ends.
    const create = c.create.bind(c);
    let raced = false;
    c.create = async (obj, opts) => {
      if (obj.kind === "Lease" && !raced) {
        raced = true;
        const other = await runApply(c, set(cm, extra));
        if (other.error) throw other.error;
      }
      return create(obj, opts);
    };
    const r = await runApply(c, set(cm));
    if (r.error) throw r.error;
    expect(raced).toBe(true);
    // Its first plan knew nothing of `extra`; the plan it ran found it by its label, and pruned it.
    expect(describeEvents(r.events).filter((e) => /^(apply|prune) /.test(e))).toEqual(["apply Successful unchanged ConfigMap/config", "prune Successful ConfigMap/extra"]);
    expect(c.peek(refOf(extra))).toBeUndefined();
  });

  it("a run interrupted while it takes the lock leaves it free: the next run does not wait for it", async () => {
    const c = cluster();
    const stop = new AbortController();
    // Ctrl-C arrives while the Lease's create is on the wire: the server stores it either way.
    const create = c.create.bind(c);
    c.create = async (obj, opts) => {
      if (obj.kind !== "Lease") return create(obj, opts);
      const stored = await create(obj, { ...opts, signal: undefined });
      stop.abort();
      if (opts?.signal?.aborted) throw Object.assign(new Error("This operation was aborted"), { name: "AbortError" });
      return stored;
    };
    const r = await runApply(c, set(cm), { signal: stop.signal });
    expect((r.error as Error | undefined)?.name).toBe("CancelledError");
    expect((c.peek(LEASE)?.spec as { holderIdentity?: string }).holderIdentity).toBe("");
    const next = await runApply(c, set(cm));
    expect(next.error).toBeUndefined();
  });

  it("a ResourceGroup's runs take a Lease of their own name", async () => {
    const c = cluster().seed({ ...lease("bob", 0), metadata: { name: "kpt-ts-lock.resourcegroup.inv", namespace: NS } });
    const r = await runApply(c, packageOf({ name: "inv", namespace: NS, id: "inv-id", labels: {}, annotations: {}, origin: "resourcegroup", source: { file: "rg.yaml", line: 1 } }, [cm]));
    expect(r.error).toBeInstanceOf(InventoryLockedError);
    expect((r.error as Error).message).toMatch(/^the inventory ResourceGroup app\/inv is locked by another run: bob /);
  });
});
