// The lifecycle (docs/lifecycle.md) on the in-memory cluster: the steps a run plans and its exact
// events for hooks, Jobs that must complete, waits per object and replacements. What a Job
// controller does is scripted: a created Job completes (or fails) a moment later.

import { describe, expect, it } from "vitest";
import { refsOfResourceGroup } from "../../src/inventory/resource-group.js";
import { refOf, type ObjRef } from "../../src/model/ref.js";
import type { KubeObject } from "../../src/model/kube-object.js";
import { ApiError } from "../../src/cluster/api-error.js";
import { statsFailed } from "../../src/model/run-tally.js";
import type { EngineEvent } from "../../src/model/events.js";
import { configMap, deployment, describeEvents, INVENTORY, namespace, NS, pkg, plannedSteps, rollOutDeployments, runApply, runDestroy } from "../helpers/engine-run.js";
import { MemoryCluster } from "../helpers/memory-cluster.js";
import { changeSetOf, diffExitCode } from "../../src/diff/change-set.js";
import { changeSetJson, formatChangeSetText } from "../../src/print/diff-printer.js";
import { formatChangeSetMarkdown } from "../../src/print/markdown-printer.js";
import { createPalette } from "../../src/print/color.js";
import { printRun } from "../../src/print/printer.js";
import { createProgressState, renderProgress, updateProgress } from "../../src/print/progress-view.js";
import { captureStream, streamOf } from "./print-scenarios.js";

const INV_REF: ObjRef = { group: "kpt.dev", kind: "ResourceGroup", namespace: INVENTORY.namespace, name: INVENTORY.name };

function inventoryList(c: MemoryCluster): string[] | undefined {
  const rg = c.peek(INV_REF);
  return rg && refsOfResourceGroup(rg).map((r) => `${r.kind}/${r.name}`).sort();
}

function job(name: string, annotations: Record<string, string> = {}, image = "migrate:1"): KubeObject {
  return {
    apiVersion: "batch/v1",
    kind: "Job",
    metadata: { name, namespace: NS, ...(Object.keys(annotations).length ? { annotations } : {}) },
    spec: { backoffLimit: 0, template: { spec: { restartPolicy: "Never", containers: [{ name: "main", image }] } } },
  };
}

const complete = { startTime: "2026-01-01T00:00:00Z", succeeded: 1, conditions: [{ type: "Complete", status: "True", reason: "CompletionsReached", message: "Reached expected number of succeeded pods" }] };
const backoff = { startTime: "2026-01-01T00:00:00Z", failed: 1, conditions: [{ type: "Failed", status: "True", reason: "BackoffLimitExceeded", message: "Job has reached the specified backoff limit" }] };

/** Jobs the Job controller runs: each created Job completes (or, when named in `failing`, fails) `delayMs` later. */
function cluster(o: { failing?: string[]; delayMs?: number } = {}): MemoryCluster {
  const c = rollOutDeployments(new MemoryCluster()).seed(namespace());
  c.onWrite({ kind: "Job", verb: "create" }, (j) => c.setStatus(refOf(j), o.failing?.includes(j.metadata.name!) ? backoff : complete), { delayMs: o.delayMs ?? 5 });
  return c;
}

const stats = (events: EngineEvent[]) => {
  const s = events.at(-1);
  if (s?.type !== "summary") throw new Error(`no summary: ${describeEvents(events).join("\n")}`);
  return s.stats;
};

const migrate = job("migrate", { "kpt-ts.dev/hook": "pre-apply" });
const smoke = job("smoke", { "kpt-ts.dev/hook": "post-apply", "kpt-ts.dev/hook-delete-policy": "hook-succeeded" }, "smoke:1");
const web = deployment("web");
const config = configMap("config");

describe("hooks", () => {
  it("a pre-apply hook runs before the package's first wave and a post-apply hook after its last; the inventory lists them before they exist", async () => {
    const c = cluster();
    const r = await runApply(c, pkg(config, web, migrate, smoke));
    expect(r.error).toBeUndefined();
    expect(plannedSteps(r.events)).toEqual([
      "install-crd",
      "inventory-add 4 objects",
      "hook-apply pre-apply 0: Job/migrate",
      "hook-wait pre-apply 0: Job/migrate",
      "apply 0: ConfigMap/config, Deployment/web",
      "wait 0 Current: ConfigMap/config, Deployment/web",
      "hook-apply post-apply 0: Job/smoke",
      "hook-wait post-apply 0: Job/smoke",
      "inventory-set",
    ]);
    const lines = describeEvents(r.events).filter((l) => l.startsWith("hook") || l.startsWith("apply ") || l.startsWith("Inventory"));
    expect(lines).toEqual([
      "Inventory Started",
      "Inventory Finished",
      "hook pre-apply create Successful Job/migrate",
      "hook pre-apply wait Successful Job/migrate",
      "apply Successful created ConfigMap/config",
      "apply Successful created Deployment/web",
      "hook post-apply create Successful Job/smoke",
      "hook post-apply wait Successful Job/smoke",
      "hook post-apply delete Successful Job/smoke: hook-succeeded",
      "Inventory Started",
      "Inventory Finished",
    ]);
    expect(stats(r.events).hook).toEqual({ successful: 2, skipped: 0, failed: 0, timeout: 0 });
    // The migration (before-hook-creation, the default) stays until it runs again; the smoke test went.
    expect(inventoryList(c)).toEqual(["ConfigMap/config", "Deployment/web", "Job/migrate"]);
    expect(c.peek(refOf(smoke))).toBeUndefined();
    // No kpt wait event is about a hook: `--output json` for the package's objects stays kpt's.
    expect(r.events.filter((e) => (e.type === "wait" || e.type === "apply") && e.ref.kind === "Job")).toEqual([]);
  });

  it("a pre-apply hook in the inventory's namespace, which the package brings: the namespace is created first", async () => {
    const c = new MemoryCluster();
    c.onWrite({ kind: "Job", verb: "create" }, (j) => c.setStatus(refOf(j), complete), { delayMs: 5 });
    const r = await runApply(c, pkg(namespace(), config, migrate));
    expect(plannedSteps(r.events).slice(0, 4)).toEqual(["install-crd", "inventory-add 3 objects after Namespace/app", "hook-apply pre-apply 0: Job/migrate", "hook-wait pre-apply 0: Job/migrate"]);
    expect(statsFailed(stats(r.events))).toBe(false);
    expect(describeEvents(r.events)).toContain("apply Successful created Namespace/app");
  });

  it("a hook that could not be created where its phase runs is refused before anything is written", async () => {
    const other = namespace("tools");
    const early = { ...job("early", { "kpt-ts.dev/hook": "pre-apply" }), metadata: { name: "early", namespace: "tools", annotations: { "kpt-ts.dev/hook": "pre-apply" } } };
    const c = cluster();
    const r = await runApply(c, pkg(other, config, early));
    expect(String(r.error)).toMatch(/Job\/early: a pre-apply hook in namespace "tools", which this apply creates only after its pre-apply hooks ran/);
    expect(c.writes().filter((w) => !w.dryRun)).toEqual([]);

    const late = { ...job("late"), metadata: { name: "late", namespace: "tools", annotations: { "kpt-ts.dev/hook": "post-destroy" } } };
    const c2 = cluster();
    await runApply(c2, pkg(other, config, late));
    const d = await runDestroy(c2, pkg(other, config, late));
    expect(String(d.error)).toMatch(/Job\/late: a post-destroy hook in namespace "tools", which this destroy deletes before its post-destroy hooks run/);
    expect(c2.peek(refOf(config))).toBeDefined();
  });

  it("a failed pre-apply hook stops the run before any package object is written; the inventory keeps listing the hook", async () => {
    const c = cluster({ failing: ["migrate"] });
    const r = await runApply(c, pkg(config, web, migrate, smoke));
    expect(r.error).toBeUndefined();
    expect(describeEvents(r.events).slice(1)).toEqual([
      "Inventory Started",
      "Inventory Finished",
      "hook pre-apply create Successful Job/migrate",
      "status InProgress Job/migrate",
      "status Failed Job/migrate",
      "hook pre-apply wait Failed Job/migrate: Job failed: BackoffLimitExceeded: Job has reached the specified backoff limit (failed pods: 1)",
      "Inventory Started",
      "Inventory Finished",
      "summary apply 0ok 0skip 0fail (0 created, 0 configured, 0 unchanged), prune 0/0/0, delete 0/0/0, wait 0ok 0skip 0fail 0timeout",
    ]);
    expect(statsFailed(stats(r.events))).toBe(true);
    expect(c.peek(refOf(config))).toBeUndefined();
    expect(c.peek(refOf(web))).toBeUndefined();
    expect(c.writes().filter((w) => !w.dryRun && w.ref.kind !== "ResourceGroup" && w.ref.kind !== "CustomResourceDefinition" && w.ref.kind !== "ConfigMap" && w.ref.kind !== "Lease").map((w) => `${w.verb} ${w.ref.kind}/${w.ref.name}`)).toEqual(["create Job/migrate"]);
    expect(inventoryList(c)).toEqual(["Job/migrate"]);
  });

  it("a pre-apply hook the server refuses to create stops the run too", async () => {
    const c = cluster().failOn({ verb: "create", kind: "Job", name: "migrate" }, () => new ApiError(422, "Invalid", 'Job.batch "migrate" is invalid: spec.template.spec.restartPolicy: Unsupported value: "Always"'));
    const r = await runApply(c, pkg(config, migrate));
    expect(describeEvents(r.events).filter((l) => l.startsWith("hook"))).toEqual([
      'hook pre-apply create Failed Job/migrate: error when creating "migrate.yaml": Job.batch "migrate" is invalid: spec.template.spec.restartPolicy: Unsupported value: "Always"',
    ]);
    expect(statsFailed(stats(r.events))).toBe(true);
    expect(c.peek(refOf(config))).toBeUndefined();
  });

  it("a pre-apply hook that times out (its own timeout) stops the run too, saying which timeout", async () => {
    const slow = job("slow", { "kpt-ts.dev/hook": "pre-apply", "kpt-ts.dev/reconcile-timeout": "150ms", "kpt-ts.dev/hook-delete-policy": "hook-failed" });
    const c = rollOutDeployments(new MemoryCluster()).seed(namespace()); // no Job controller: it never completes
    const r = await runApply(c, pkg(config, slow));
    expect(describeEvents(r.events).filter((l) => l.startsWith("hook"))).toEqual([
      "hook pre-apply create Successful Job/slow",
      "hook pre-apply wait Timeout Job/slow: Job not started; timed out after its own kpt-ts.dev/reconcile-timeout: 150ms",
      "hook pre-apply delete Successful Job/slow: hook-failed",
    ]);
    expect(stats(r.events).hook).toEqual({ successful: 0, skipped: 0, failed: 0, timeout: 1 });
    expect(c.peek(refOf(config))).toBeUndefined();
    // Deleted by its policy: the inventory no longer lists it.
    expect(inventoryList(c)).toEqual([]);
  });

  it("a no-op apply runs no hook and writes nothing; a change runs them again, deleting the hook the last run left first", async () => {
    const c = cluster();
    const p = pkg(config, web, migrate);
    expect(statsFailed(stats((await runApply(c, p)).events))).toBe(false);
    const before = c.writes().length;
    const noop = await runApply(c, p);
    expect(plannedSteps(noop.events)).not.toContain("hook-apply pre-apply 0: Job/migrate");
    expect(noop.events.filter((e) => e.type === "hook")).toEqual([]);
    expect(c.writes().slice(before)).toEqual([]);

    const firstUid = c.peek(refOf(migrate))!.metadata.uid;
    const changed = await runApply(c, pkg(configMap("config", { data: { key: "2" } }), web, migrate));
    expect(describeEvents(changed.events).filter((l) => l.startsWith("hook"))).toEqual([
      "hook pre-apply delete-previous Successful Job/migrate",
      "hook pre-apply create Successful Job/migrate",
      "hook pre-apply wait Successful Job/migrate",
    ]);
    expect(c.peek(refOf(migrate))!.metadata.uid).not.toBe(firstUid);
  });

  it("hooks of one phase run by weight, then by depends-on among them; a cycle is refused before anything is written", async () => {
    const first = job("first", { "kpt-ts.dev/hook": "pre-apply", "kpt-ts.dev/hook-weight": "-5" });
    const second = job("second", { "kpt-ts.dev/hook": "pre-apply" });
    const third = job("third", { "kpt-ts.dev/hook": "pre-apply", "config.kubernetes.io/depends-on": `batch/namespaces/${NS}/Job/second` });
    const c = cluster();
    const r = await runApply(c, pkg(config, third, second, first));
    expect(plannedSteps(r.events).filter((s) => s.startsWith("hook"))).toEqual([
      "hook-apply pre-apply 0: Job/first",
      "hook-wait pre-apply 0: Job/first",
      "hook-apply pre-apply 1: Job/second",
      "hook-wait pre-apply 1: Job/second",
      "hook-apply pre-apply 2: Job/third",
      "hook-wait pre-apply 2: Job/third",
    ]);

    const loop = job("second", { "kpt-ts.dev/hook": "pre-apply", "config.kubernetes.io/depends-on": `batch/namespaces/${NS}/Job/third` });
    const c2 = cluster();
    const bad = await runApply(c2, pkg(config, third, loop));
    expect(String(bad.error)).toMatch(/cycle/);
    expect(c2.writes().filter((w) => !w.dryRun)).toEqual([]);
  });

  it("a package object may depend on a pre-apply hook (met before it is applied), never on a post-apply one", async () => {
    const dependent = configMap("after-migrate", { annotations: { "config.kubernetes.io/depends-on": `batch/namespaces/${NS}/Job/migrate` } });
    const ok = await runApply(cluster(), pkg(dependent, migrate));
    expect(statsFailed(stats(ok.events))).toBe(false);
    const onPost = configMap("after-smoke", { annotations: { "config.kubernetes.io/depends-on": `batch/namespaces/${NS}/Job/smoke` } });
    const bad = await runApply(cluster(), pkg(onPost, smoke));
    expect(String(bad.error)).toMatch(/depends on batch\/namespaces\/app\/Job\/smoke, a hook that does not run before the package is applied/);
  });

  it("a failed post-apply hook fails the run (the package stays applied); post-apply hooks do not run after a failed apply", async () => {
    const c = cluster({ failing: ["smoke"] });
    const r = await runApply(c, pkg(config, smoke));
    expect(describeEvents(r.events).filter((l) => l.startsWith("hook"))).toEqual([
      "hook post-apply create Successful Job/smoke",
      "hook post-apply wait Failed Job/smoke: Job failed: BackoffLimitExceeded: Job has reached the specified backoff limit (failed pods: 1)",
    ]);
    expect(statsFailed(stats(r.events))).toBe(true);
    // hook-succeeded only: the failed one stays, and the inventory lists it.
    expect(inventoryList(c)).toEqual(["ConfigMap/config", "Job/smoke"]);

    const broken = cluster().failOn({ verb: "create", kind: "ConfigMap" }, () => new ApiError(500, "InternalError", "etcd is down"));
    const r2 = await runApply(broken, pkg(config, smoke));
    expect(describeEvents(r2.events).filter((l) => l.startsWith("hook"))).toEqual(["hook post-apply wait Skipped Job/smoke: the apply failed: post-apply hooks run only after one that succeeded"]);
    expect(broken.peek(refOf(smoke))).toBeUndefined();
  });

  it("a dry run lists the hooks it would run and writes nothing", async () => {
    const c = cluster();
    const r = await runApply(c, pkg(config, migrate, smoke), { dryRun: "client" });
    expect(plannedSteps(r.events)).toEqual(["inventory-add", "hook-apply pre-apply 0: Job/migrate", "apply 0: ConfigMap/config", "hook-apply post-apply 0: Job/smoke", "inventory-set"]);
    expect(describeEvents(r.events).filter((l) => l.startsWith("hook"))).toEqual(["hook pre-apply create Successful Job/migrate", "hook post-apply create Successful Job/smoke"]);
    expect(c.writes().filter((w) => !w.dryRun)).toEqual([]);
  });

  it("destroy: a pre-destroy hook runs before anything is deleted, and the destroy leaves no hook behind", async () => {
    const backup = job("backup", { "kpt-ts.dev/hook": "pre-destroy" }, "backup:1");
    const c = cluster();
    const p = pkg(config, web, migrate, backup);
    expect(statsFailed(stats((await runApply(c, p)).events))).toBe(false);
    expect(c.peek(refOf(backup))).toBeUndefined();
    const r = await runDestroy(c, p);
    expect(plannedSteps(r.events)).toEqual([
      "inventory-add 4 objects",
      "hook-apply pre-destroy 0: Job/backup",
      "hook-wait pre-destroy 0: Job/backup",
      "delete 0: Job/migrate, Deployment/web, ConfigMap/config",
      "wait 0 NotFound: Job/migrate, Deployment/web, ConfigMap/config",
      "inventory-delete",
    ]);
    const order = describeEvents(r.events).filter((l) => l.startsWith("hook") || l.startsWith("delete "));
    expect(order).toEqual([
      "hook pre-destroy create Successful Job/backup",
      "hook pre-destroy wait Successful Job/backup",
      "hook pre-destroy delete Successful Job/backup: the destroy leaves nothing behind",
      "delete Successful Job/migrate",
      "delete Successful Deployment/web",
      "delete Successful ConfigMap/config",
    ]);
    expect(c.peek(INV_REF)).toBeUndefined();
    expect(c.contents().filter((k) => /^(Job|Deployment)\/|^ConfigMap\/app\/config@/.test(k))).toEqual([]);
  });

  it("a failed pre-destroy hook stops the destroy before anything is deleted; the inventory lists the hook too", async () => {
    const backup = job("backup", { "kpt-ts.dev/hook": "pre-destroy" }, "backup:1");
    const c = cluster({ failing: ["backup"] });
    const p = pkg(config, backup);
    await runApply(c, p);
    const r = await runDestroy(c, p);
    expect(statsFailed(stats(r.events))).toBe(true);
    expect(c.peek(refOf(config))).toBeDefined();
    expect(inventoryList(c)).toEqual(["ConfigMap/config", "Job/backup"]);
  });

  it("interrupted while a hook runs: the inventory lists the hook, and the next destroy deletes it", async () => {
    const slow = job("slow", { "kpt-ts.dev/hook": "pre-apply" });
    const c = rollOutDeployments(new MemoryCluster()).seed(namespace()); // no Job controller: it never completes
    const abort = new AbortController();
    c.onWrite({ kind: "Job", verb: "create" }, () => setTimeout(() => abort.abort(), 20));
    const r = await runApply(c, pkg(config, slow), { signal: abort.signal });
    expect(String(r.error)).toMatch(/interrupted/);
    expect(c.peek(refOf(slow))).toBeDefined();
    // The ConfigMap was never applied, so it leaves the list again; the hook, which exists, stays.
    expect(inventoryList(c)).toEqual(["Job/slow"]);
    await runDestroy(c, pkg(config, slow));
    expect(c.peek(refOf(slow))).toBeUndefined();
  });
});

describe("waits per object", () => {
  it("kpt-ts.dev/wait: complete holds a Job's dependents until it completes, and skips them when it fails", async () => {
    const db = job("db-migrate", { "kpt-ts.dev/wait": "complete" });
    const app = deployment("app", { dependsOn: [db] });
    const ok = await runApply(cluster({ delayMs: 30 }), pkg(db, app));
    const lines = describeEvents(ok.events);
    expect(lines.indexOf("wait Successful Job/db-migrate")).toBeLessThan(lines.indexOf("apply Successful created Deployment/app"));
    expect(lines).toContain("status InProgress Job/db-migrate");

    const failing = cluster({ failing: ["db-migrate"] });
    const bad = await runApply(failing, pkg(db, app));
    expect(describeEvents(bad.events)).toEqual(
      expect.arrayContaining([
        "wait Failed Job/db-migrate: Job failed: BackoffLimitExceeded: Job has reached the specified backoff limit (failed pods: 1)",
        "apply Skipped Deployment/app: dependency apply reconcile failed: app_db-migrate_batch_Job",
      ]),
    );
    expect(failing.peek(refOf(app))).toBeUndefined();
  });

  it("without the annotation a started Job is Current (kstatus), and --wait-for-jobs makes every Job wait for completion", async () => {
    const plain = job("plain");
    const c = rollOutDeployments(new MemoryCluster()).seed(namespace());
    c.onWrite({ kind: "Job", verb: "create" }, (j) => c.setStatus(refOf(j), { startTime: "2026-01-01T00:00:00Z", active: 1 }));
    const r = await runApply(c, pkg(plain));
    expect(describeEvents(r.events)).toContain("wait Successful Job/plain");

    const c2 = rollOutDeployments(new MemoryCluster()).seed(namespace());
    c2.onWrite({ kind: "Job", verb: "create" }, (j) => c2.setStatus(refOf(j), { startTime: "2026-01-01T00:00:00Z", active: 1 }));
    const r2 = await runApply(c2, pkg(plain), { waitForJobs: true, reconcileTimeoutMs: 300 });
    expect(describeEvents(r2.events)).toContain("wait Timeout Job/plain: Job not complete yet. succeeded: 0/1, active: 1, failed: 0");
  });

  it("kpt-ts.dev/wait: none is applied, never waited for, and holds no dependent", async () => {
    const slow = deployment("never-ready", { annotations: { "kpt-ts.dev/wait": "none" } });
    const after = configMap("after", { dependsOn: [slow] });
    const c = new MemoryCluster().seed(namespace()); // no Deployment controller: never Available
    const r = await runApply(c, pkg(slow, after));
    expect(plannedSteps(r.events)).toEqual(["install-crd", "inventory-add 2 objects", "apply 0: Deployment/never-ready", "apply 1: ConfigMap/after", "wait 1 Current: ConfigMap/after", "inventory-set"]);
    expect(statsFailed(stats(r.events))).toBe(false);
    expect(c.peek(refOf(after))).toBeDefined();
  });

  it("kpt-ts.dev/reconcile-timeout ends only its own object's wait, and says so; the rest of the wave is waited for as usual", async () => {
    const slow = deployment("slow", { annotations: { "kpt-ts.dev/reconcile-timeout": "200ms" } });
    const fast = deployment("fast");
    const c = new MemoryCluster().seed(namespace());
    c.onWrite({ kind: "Deployment", name: "fast", verb: "create" }, (d) => c.setStatus(refOf(d), { observedGeneration: 1, replicas: 1, updatedReplicas: 1, readyReplicas: 1, availableReplicas: 1, conditions: [{ type: "Available", status: "True" }] }), { delayMs: 400 });
    const r = await runApply(c, pkg(slow, fast));
    const lines = describeEvents(r.events);
    const timeout = lines.find((l) => l.startsWith("wait Timeout Deployment/slow"));
    expect(timeout).toMatch(/timed out after its own kpt-ts.dev\/reconcile-timeout: 200ms/);
    expect(lines.indexOf(timeout!)).toBeLessThan(lines.indexOf("wait Successful Deployment/fast"));
    expect(stats(r.events).wait).toEqual({ successful: 1, skipped: 0, failed: 0, timeout: 1 });
  });
});

describe("replace-on-immutable", () => {
  const immutable = () => new ApiError(422, "Invalid", 'Job.batch "report" is invalid: spec.template: Invalid value: core.PodTemplateSpec{...}: field is immutable', [{ reason: "FieldValueInvalid", message: "Invalid value: core.PodTemplateSpec{...}: field is immutable", field: "spec.template" }]);

  it("a changed Job template is replaced in one apply: deleted in the foreground, then created again", async () => {
    const v1 = job("report", { "kpt-ts.dev/update-strategy": "replace-on-immutable" }, "report:1");
    const v2 = job("report", { "kpt-ts.dev/update-strategy": "replace-on-immutable" }, "report:2");
    const c = cluster();
    await runApply(c, pkg(v1));
    const uid = c.peek(refOf(v1))!.metadata.uid;
    c.failOn({ verb: "patch", kind: "Job", name: "report" }, immutable);
    const r = await runApply(c, pkg(v2));
    expect(plannedSteps(r.events)).toEqual(["inventory-add", "replace 0: Job/report", "apply 0: Job/report", "wait 0 Current: Job/report", "inventory-set"]);
    expect(describeEvents(r.events).filter((l) => l.startsWith("replace") || l.startsWith("apply "))).toEqual(["replace Successful Job/report: spec.template: field is immutable", "apply Successful created Job/report"]);
    const live = c.peek(refOf(v2))!;
    expect(live.metadata.uid).not.toBe(uid);
    expect((live.spec as any).template.spec.containers[0].image).toBe("report:2");
    expect(c.calls.find((x) => x.verb === "delete" && x.ref.name === "report")?.propagationPolicy).toBe("Foreground");
  });

  // The plan's dry run foresaw the refusal, but the Job controller wrote its status before the
  // replace step (a running Job's status moves all the time): the replace step leaves it to the
  // apply, whose update the server refuses. It is replaced all the same, in that same apply.
  it("a Job whose status moved after the plan read it is still replaced in that apply", async () => {
    const v1 = job("report", { "kpt-ts.dev/update-strategy": "replace-on-immutable" }, "report:1");
    const c = cluster();
    await runApply(c, pkg(v1));
    const uid = c.peek(refOf(v1))!.metadata.uid;
    let calls = 0;
    c.failOn({ verb: "patch", kind: "Job", name: "report" }, () => {
      // The plan's dry run: the controller's status write lands right after it.
      if (calls++ === 0) c.setStatus(refOf(v1), { ...complete, ready: 0 });
      return immutable();
    });
    const r = await runApply(c, pkg(job("report", { "kpt-ts.dev/update-strategy": "replace-on-immutable" }, "report:2")));
    expect(plannedSteps(r.events)).toContain("replace 0: Job/report");
    expect(describeEvents(r.events).filter((l) => l.startsWith("replace") || l.startsWith("apply "))).toEqual(["replace Successful Job/report: spec.template: field is immutable", "apply Successful created Job/report"]);
    expect(statsFailed(stats(r.events))).toBe(false);
    const live = c.peek(refOf(v1))!;
    expect(live.metadata.uid).not.toBe(uid);
    expect((live.spec as any).template.spec.containers[0].image).toBe("report:2");
    expect(c.calls.filter((x) => x.verb === "delete" && x.ref.name === "report").map((x) => x.propagationPolicy)).toEqual(["Foreground"]);
  });

  // The plan's dry run could not tell (the server timed out on it, as under load): the plan says
  // update, the write is refused for the immutable field, and the object is replaced there and then.
  it("an update the plan did not foresee as refused is replaced when the write is refused", async () => {
    const v1 = job("report", { "kpt-ts.dev/update-strategy": "replace-on-immutable" }, "report:1");
    const c = cluster();
    await runApply(c, pkg(v1));
    const uid = c.peek(refOf(v1))!.metadata.uid;
    let calls = 0;
    c.failOn({ verb: "patch", kind: "Job", name: "report" }, () => (calls++ === 0 ? new ApiError(504, "Timeout", "the server was unable to return a response in the time allotted") : immutable()));
    const r = await runApply(c, pkg(job("report", { "kpt-ts.dev/update-strategy": "replace-on-immutable" }, "report:2")));
    expect(plannedSteps(r.events)).not.toContain("replace 0: Job/report");
    expect(describeEvents(r.events).filter((l) => l.startsWith("replace") || l.startsWith("apply "))).toEqual(["replace Successful Job/report: spec.template: field is immutable", "apply Successful created Job/report"]);
    expect(statsFailed(stats(r.events))).toBe(false);
    expect(c.peek(refOf(v1))!.metadata.uid).not.toBe(uid);
    expect(c.calls.filter((x) => x.verb === "delete" && x.ref.name === "report").map((x) => x.propagationPolicy)).toEqual(["Foreground"]);
    // The change record says so, as for a foreseen replacement.
    expect(r.events.filter((e) => e.type === "replace")).toHaveLength(1);
  });

  it("without the annotation the apply fails, naming the field and the annotation that would replace it", async () => {
    const c = cluster();
    await runApply(c, pkg(job("report", {}, "report:1")));
    c.failOn({ verb: "patch", kind: "Job", name: "report" }, immutable);
    const r = await runApply(c, pkg(job("report", {}, "report:2")));
    const failed = describeEvents(r.events).find((l) => l.startsWith("apply Failed"));
    expect(failed).toMatch(/spec\.template: field is immutable, so the object cannot be updated in place: .*kpt-ts\.dev\/update-strategy: replace-on-immutable/);
    expect(failed).not.toMatch(/PodTemplateSpec/);
  });
});

describe("what the output says (previews and printers, from real runs on the in-memory cluster)", () => {
  const immutable = () => new ApiError(422, "Invalid", 'Job.batch "report" is invalid: spec.template: Invalid value: core.PodTemplateSpec{...}: field is immutable', [{ reason: "FieldValueInvalid", message: "Invalid value: ...: field is immutable", field: "spec.template" }]);
  const replaced = (image: string) => job("report", { "kpt-ts.dev/update-strategy": "replace-on-immutable" }, image);

  async function changedCluster() {
    const c = cluster();
    await runApply(c, pkg(config, replaced("report:1"), migrate, smoke));
    c.failOn({ verb: "patch", kind: "Job", name: "report" }, immutable);
    return { c, next: pkg(configMap("config", { data: { key: "2" } }), replaced("report:2"), migrate, smoke) };
  }

  it("live diff's change set: the replacement with its reason, the hooks in their place; text, Markdown and JSON", async () => {
    const { c, next } = await changedCluster();
    const before = c.writes().filter((w) => !w.dryRun).length;
    const r = await runApply(c, next, { dryRun: "server" });
    expect(c.writes().filter((w) => !w.dryRun).length).toBe(before);
    const cs = changeSetOf(r.events);
    expect(cs.changes.find((x) => x.ref.name === "report")).toMatchObject({ operation: "replace", note: "spec.template: field is immutable: deleted, then created again (kpt-ts.dev/update-strategy: replace-on-immutable)" });
    expect(cs.hooks?.map((h) => `${h.phase} ${h.wave} ${h.ref.name} ${h.operation}`)).toEqual(["pre-apply 0 migrate recreate", "post-apply 0 smoke create"]);
    expect(diffExitCode(cs)).toBe(1);

    const text = formatChangeSetText(cs, createPalette(false)).join("\n");
    expect(text).toContain("Op: 0 create, 1 update, 1 replace, 0 delete, 0 noop, 2 hooks");
    expect(text).toContain("Hooks, in the order they run:\n  pre-apply hook 1 (before the first apply wave): job.batch/migrate in app, create (the one an earlier run left is deleted first)\n  post-apply hook 1 (after the last apply and prune wave): job.batch/smoke in app, create");

    const md = formatChangeSetMarkdown(cs);
    expect(md).toContain("| pre-apply 1 (recreate) | Job | app | migrate | before the first apply wave |  |");
    const chart = md.slice(md.indexOf("```mermaid"));
    expect(chart.indexOf('preapply1 ["pre-apply hooks 1"]')).toBeGreaterThan(0);
    expect(chart.indexOf("preapply1 --> apply1")).toBeGreaterThan(0);
    expect(chart).toContain('apply1_1["replace: Job app/report"]');
    expect(chart.indexOf("apply1 --> postapply1")).toBeGreaterThan(0);

    const json = changeSetJson(cs) as { summary: Record<string, number>; changes: { name: string; operation: string }[]; hooks: unknown[] };
    expect(json.summary).toMatchObject({ update: 1, replace: 1, hooks: 2 });
    expect(json.changes.find((x) => x.name === "report")?.operation).toBe("replace");
    expect(json.hooks).toEqual([
      { phase: "pre-apply", wave: 0, group: "batch", kind: "Job", namespace: "app", name: "migrate", operation: "recreate" },
      { phase: "post-apply", wave: 0, group: "batch", kind: "Job", namespace: "app", name: "smoke", operation: "create" },
    ]);
  });

  it("--output events and json: kpt's lines for the package's objects, kpt-ts' own for hooks and replacements", async () => {
    const { c, next } = await changedCluster();
    const r = await runApply(c, next);
    const print = async (output: "events" | "json") => {
      const out = captureStream();
      const err = captureStream();
      await printRun(streamOf(r.events), { output, stdout: out.stream, stderr: err.stream, color: false, tty: false, showStatusEvents: false, now: () => new Date("2026-11-27T00:00:00Z") });
      return out.text().split("\n").filter(Boolean);
    };
    const events = await print("events");
    expect(events.filter((l) => /hook|replace|report|summary|applied/.test(l))).toEqual([
      "job.batch/migrate pre-apply hook deleted (left by an earlier run)",
      "job.batch/migrate pre-apply hook created",
      "job.batch/migrate pre-apply hook completed",
      "job.batch/report deleted to be replaced: spec.template: field is immutable",
      "job.batch/report created",
      "2 resource(s) applied. 1 created, 0 unchanged, 1 configured, 0 failed",
      "job.batch/report reconcile pending",
      "job.batch/report reconciled",
      "job.batch/smoke post-apply hook created",
      "job.batch/smoke post-apply hook completed",
      "job.batch/smoke post-apply hook deleted (hook-succeeded)",
      "2 hook(s) run: 2 completed, 0 failed, 0 timed out",
    ]);
    const json = (await print("json")).map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(json.filter((l) => l.type === "hook" || l.type === "replace").map(({ timestamp: _t, ...rest }) => rest)).toEqual([
      { action: "delete-previous", group: "batch", kind: "Job", name: "migrate", namespace: "app", phase: "pre-apply", status: "Successful", type: "hook" },
      { action: "create", group: "batch", kind: "Job", name: "migrate", namespace: "app", phase: "pre-apply", status: "Successful", type: "hook" },
      { action: "wait", group: "batch", kind: "Job", name: "migrate", namespace: "app", phase: "pre-apply", status: "Successful", type: "hook" },
      { group: "batch", kind: "Job", name: "report", namespace: "app", reason: "spec.template: field is immutable", status: "Successful", type: "replace" },
      { action: "create", group: "batch", kind: "Job", name: "smoke", namespace: "app", phase: "post-apply", status: "Successful", type: "hook" },
      { action: "wait", group: "batch", kind: "Job", name: "smoke", namespace: "app", phase: "post-apply", status: "Successful", type: "hook" },
      { action: "delete", group: "batch", kind: "Job", name: "smoke", namespace: "app", phase: "post-apply", status: "Successful", type: "hook" },
    ]);
    // The table has rows for the package's objects only; hooks and replacements are lines on stderr.
    const tableOut = captureStream();
    const tableErr = captureStream();
    await printRun(streamOf(r.events), { output: "table", stdout: tableOut.stream, stderr: tableErr.stream, color: false, tty: false, showStatusEvents: false });
    expect(tableOut.text()).not.toMatch(/migrate|smoke/);
    expect(tableOut.text()).toMatch(/Job\/report /);
    expect(tableErr.text().split("\n").filter(Boolean)).toEqual(events.filter((l) => / hook |deleted to be replaced/.test(l)));
    // kpt's own lines name only the package's objects: the hooks are in none of them.
    expect(json.filter((l) => l.type !== "hook" && l.type !== "replace" && (l.name === "migrate" || l.name === "smoke"))).toEqual([]);
  });

  it("the change record lists the hooks run and the replacement", async () => {
    const { c, next } = await changedCluster();
    await runApply(c, next);
    const records = c.contents().filter((k) => k.startsWith("ConfigMap/app/inv-change-"));
    const last = c.peek({ group: "", kind: "ConfigMap", namespace: NS, name: records.at(-1)!.split("/")[2]!.split("@")[0]! })!;
    const record = JSON.parse((last.data as { change: string }).change);
    expect(record.hooks).toEqual([
      { phase: "pre-apply", group: "batch", kind: "Job", namespace: "app", name: "migrate", result: "completed" },
      { phase: "post-apply", group: "batch", kind: "Job", namespace: "app", name: "smoke", result: "completed" },
    ]);
    expect(record.replaced).toEqual([{ group: "batch", kind: "Job", namespace: "app", name: "report", reason: "spec.template: field is immutable" }]);
  });

  it("the live view in a terminal shows a hook's wait", () => {
    const s = createProgressState();
    const ref = refOf(migrate);
    updateProgress(s, { type: "hook", phase: "pre-apply", ref, action: "create", status: "Successful" }, 0);
    updateProgress(s, { type: "waiting", wave: 0, pending: [{ ref, status: "InProgress", message: "Job not complete yet. succeeded: 0/1, active: 1, failed: 0" }], total: 1, elapsedMs: 3000 }, 3000);
    expect(renderProgress(s, { nowMs: 3000, columns: 200, maxObjects: 5, frame: 0, paint: createPalette(false) })).toEqual([
      "⠋ waiting for 1 of 1 resource(s) to reconcile (0:03 elapsed)",
      "  InProgress: 1",
      "  job.batch/migrate  InProgress  Job not complete yet. succeeded: 0/1, active: 1, failed: 0",
    ]);
    updateProgress(s, { type: "hook", phase: "pre-apply", ref, action: "wait", status: "Successful" }, 4000);
    expect(renderProgress(s, { nowMs: 4000, columns: 200, maxObjects: 5, frame: 0, paint: createPalette(false) })).toEqual([]);
  });
});
