// The pure parts of the lifecycle (docs/lifecycle.md): reading the annotations, a Job that must
// complete, ordering a phase's hooks, and where their steps go among a run's.

import { describe, expect, it } from "vitest";
import { readLifecycle } from "../../src/object/lifecycle-annotations.js";
import { parsePackage } from "../../src/object/parse-package.js";
import { computeStatus } from "../../src/status/compute-status.js";
import { jobCompletionStatus } from "../../src/status/rules/job.js";
import { planHooks } from "../../src/plan/plan-hooks.js";
import { applySteps, destroySteps, withReplaceSteps } from "../../src/plan/plan-steps.js";
import { immutableRefusal } from "../../src/apply/immutable-fields.js";
import { ApiError } from "../../src/cluster/api-error.js";
import type { KubeObject, PackageObject } from "../../src/model/kube-object.js";
import type { ObjRef } from "../../src/model/ref.js";
import type { PlannedHook, RunStep } from "../../src/model/plan.js";

const job = (annotations: Record<string, string> = {}, name = "j"): KubeObject => ({ apiVersion: "batch/v1", kind: "Job", metadata: { name, namespace: "app", annotations }, spec: {} });
const cm = (annotations: Record<string, string> = {}): KubeObject => ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c", namespace: "app", annotations } });

describe("reading the lifecycle annotations", () => {
  it.each([
    ["wait: complete on a Job", job({ "kpt-ts.dev/wait": "complete" }), { wait: "complete" }, []],
    ["wait: none on anything", cm({ "kpt-ts.dev/wait": "none" }), { wait: "none" }, []],
    ["wait: complete on a ConfigMap", cm({ "kpt-ts.dev/wait": "complete" }), {}, ["kpt-ts.dev/wait: complete is for Jobs (batch/v1), which complete; a ConfigMap is waited for until it is reconciled: remove the annotation"]],
    ["an unknown wait mode", cm({ "kpt-ts.dev/wait": "forever" }), {}, ['kpt-ts.dev/wait: "forever" is not a wait mode: use complete (a Job, until it completes) or none (never waited for)']],
    ["a timeout", cm({ "kpt-ts.dev/reconcile-timeout": "1m30s" }), { reconcileTimeout: { ms: 90_000, text: "1m30s" } }, []],
    ["a timeout without a unit", cm({ "kpt-ts.dev/reconcile-timeout": "90" }), {}, ['kpt-ts.dev/reconcile-timeout: "90" is not a duration: use a number with a unit, like 90s, 5m or 1h30m']],
    ["a zero timeout", cm({ "kpt-ts.dev/reconcile-timeout": "0s" }), {}, ['kpt-ts.dev/reconcile-timeout: "0s" is not a duration: use a number with a unit, like 90s, 5m or 1h30m']],
    ["a timeout on an object never waited for", cm({ "kpt-ts.dev/wait": "none", "kpt-ts.dev/reconcile-timeout": "5m" }), { wait: "none" }, ["kpt-ts.dev/reconcile-timeout: the object is never waited for (kpt-ts.dev/wait: none), so a timeout has no effect: remove one of the two"]],
    ["a hook in two phases, with policies and a weight", job({ "kpt-ts.dev/hook": "pre-apply, post-apply", "kpt-ts.dev/hook-delete-policy": "hook-succeeded,hook-failed", "kpt-ts.dev/hook-weight": "-3" }), { hook: { phases: ["pre-apply", "post-apply"], deletePolicy: ["hook-succeeded", "hook-failed"], weight: -3 } }, []],
    ["an unknown phase", job({ "kpt-ts.dev/hook": "pre-sync" }), {}, ['kpt-ts.dev/hook: "pre-sync" is not a hook phase: use pre-apply, post-apply, pre-destroy, post-destroy (a comma-separated list)']],
    ["a phase twice", job({ "kpt-ts.dev/hook": "pre-apply,pre-apply" }), {}, ['kpt-ts.dev/hook: names "pre-apply" twice']],
    ["an empty hook", job({ "kpt-ts.dev/hook": "" }), {}, ["kpt-ts.dev/hook: is empty: give one or more of pre-apply, post-apply, pre-destroy, post-destroy"]],
    ["a weight that is not a number", job({ "kpt-ts.dev/hook": "pre-apply", "kpt-ts.dev/hook-weight": "high" }), {}, ['kpt-ts.dev/hook-weight: "high" is not a whole number: hooks of a phase run by weight, lowest first (e.g. "-5", "0", "10")']],
    ["a delete policy without a hook", job({ "kpt-ts.dev/hook-delete-policy": "hook-succeeded" }), {}, ["kpt-ts.dev/hook-delete-policy: only hooks are deleted by policy: add kpt-ts.dev/hook or remove it"]],
    ["a hook never waited for", job({ "kpt-ts.dev/hook": "pre-apply", "kpt-ts.dev/wait": "none" }), { wait: "none", hook: { phases: ["pre-apply"], deletePolicy: [], weight: 0 } }, ["kpt-ts.dev/wait: a hook is always waited for until it completes (or is reconciled): remove kpt-ts.dev/wait: none"]],
    ["replace-on-immutable", job({ "kpt-ts.dev/update-strategy": "replace-on-immutable" }), { replaceOnImmutable: true }, []],
    ["another update strategy", job({ "kpt-ts.dev/update-strategy": "recreate" }), {}, ['kpt-ts.dev/update-strategy: "recreate" is not an update strategy: use replace-on-immutable']],
  ])("%s", (_name, obj, rules, problems) => {
    const r = readLifecycle(obj);
    expect(r.rules).toEqual(rules);
    expect(r.problems.map((p) => p.message)).toEqual(problems);
  });

  it("a bad value stops the package being read, at the annotation's line", () => {
    const content = "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: migrate\n  namespace: app\n  annotations:\n    kpt-ts.dev/hook: before-apply\nspec: {}\n";
    const rg = "apiVersion: kpt.dev/v1alpha1\nkind: ResourceGroup\nmetadata:\n  name: inv\n  namespace: app\n  labels:\n    cli-utils.sigs.k8s.io/inventory-id: x\n";
    expect(() => parsePackage({ path: "pkg", fromStdin: false, files: [{ path: "job.yaml", content }, { path: "resourcegroup.yaml", content: rg }] }, { requireInventory: true })).toThrow(
      /pkg\/job\.yaml:7: Job\/migrate: kpt-ts\.dev\/hook: "before-apply" is not a hook phase/,
    );
  });
});

describe("a Job that must complete", () => {
  const j = (status: Record<string, unknown>, annotations: Record<string, string> = {}): KubeObject => ({ ...job(annotations), spec: { completions: 1 }, status });
  it.each([
    ["not started", {}, "InProgress", "Job not started"],
    ["running", { startTime: "t", active: 1 }, "InProgress", "Job not complete yet. succeeded: 0/1, active: 1, failed: 0"],
    ["complete", { startTime: "t", succeeded: 1, conditions: [{ type: "Complete", status: "True" }] }, "Current", "Job completed. succeeded: 1/1"],
    ["past its backoff limit", { failed: 2, conditions: [{ type: "Failed", status: "True", reason: "BackoffLimitExceeded", message: "Job has reached the specified backoff limit" }] }, "Failed", "Job failed: BackoffLimitExceeded: Job has reached the specified backoff limit (failed pods: 2)"],
    ["past its deadline, about to fail", { failed: 1, conditions: [{ type: "FailureTarget", status: "True", reason: "DeadlineExceeded", message: "Job was active longer than specified deadline" }] }, "Failed", "Job failed: DeadlineExceeded: Job was active longer than specified deadline (failed pods: 1)"],
    ["suspended", { conditions: [{ type: "Suspended", status: "True" }] }, "InProgress", "Job is suspended: it cannot complete until it is resumed"],
  ])("%s", (_name, status, want, message) => {
    const r = jobCompletionStatus(j(status));
    expect([r.status, r.message]).toEqual([want, message]);
    // The annotation is how `live status` (and every wait) knows: without it kstatus' rule stands.
    expect(computeStatus(j(status, { "kpt-ts.dev/wait": "complete" })).status).toBe(want);
    expect(computeStatus(j(status), { jobsMustComplete: true }).status).toBe(want);
  });

  it("without the annotation, a running Job is Current, as in kstatus (and kpt)", () => {
    expect(computeStatus(j({ startTime: "t", active: 1 })).status).toBe("Current");
  });
});

describe("ordering a phase's hooks", () => {
  const po = (obj: KubeObject): PackageObject => ({ object: obj, source: { file: `${obj.metadata.name}.yaml`, line: 1 } });
  const hook = (name: string, phases: string, extra: Record<string, string> = {}) => po(job({ "kpt-ts.dev/hook": phases, ...extra }, name));
  const dep = (name: string) => ({ "config.kubernetes.io/depends-on": `batch/namespaces/app/Job/${name}` });
  const options = { serverSide: false, fieldManager: "kubectl", inventoryId: "inv", inventoryPolicy: "strict" as const, live: new Map() };
  const waves = (hooks: PlannedHook[]) => hooks.map((h) => `${h.phase} ${h.wave} ${h.ref.name}`);

  it("by weight, then depends-on within a weight; one hook per phase it names", () => {
    const hooks = [hook("c", "pre-apply", dep("b")), hook("b", "pre-apply"), hook("a", "pre-apply,post-apply", { "kpt-ts.dev/hook-weight": "-1" }), hook("z", "post-apply", { "kpt-ts.dev/hook-weight": "5" })];
    expect(waves(planHooks(hooks, ["pre-apply", "post-apply"], options))).toEqual(["pre-apply 0 a", "pre-apply 1 b", "pre-apply 2 c", "post-apply 0 a", "post-apply 1 z"]);
  });

  it.each([
    ["a cycle", [hook("a", "pre-apply", dep("b")), hook("b", "pre-apply", dep("a"))], /depend on each other in a cycle/],
    ["a dependency of higher weight", [hook("a", "pre-apply", dep("b")), hook("b", "pre-apply", { "kpt-ts.dev/hook-weight": "1" })], /a pre-apply hook of weight 1, which runs after this one \(weight 0\)/],
    ["a dependency on a hook of another phase", [hook("a", "pre-apply", dep("b")), hook("b", "post-apply")], /a hook that does not run in pre-apply/],
    ["a pre-apply hook depending on a package object", [hook("a", "pre-apply", { "config.kubernetes.io/depends-on": "/namespaces/app/ConfigMap/c" })], /does not exist while pre-apply hooks run/],
  ])("refused: %s, at the depends-on line", (_name, hooks, message) => {
    expect(() => planHooks(hooks, ["pre-apply", "post-apply"], options)).toThrow(message);
  });

  it("a post-apply hook may depend on a package object (it exists by then)", () => {
    expect(waves(planHooks([hook("a", "post-apply", { "config.kubernetes.io/depends-on": "/namespaces/app/ConfigMap/c" })], ["post-apply"], options))).toEqual(["post-apply 0 a"]);
  });
});

describe("where the lifecycle's steps go", () => {
  const r = (name: string, kind = "ConfigMap"): ObjRef => ({ group: kind === "Job" ? "batch" : "", kind, namespace: "app", name });
  const h = (name: string, phase: PlannedHook["phase"], wave = 0): PlannedHook => ({ ref: r(name, "Job"), phase, wave } as PlannedHook);
  const describe = (steps: RunStep[]) => steps.map((s) => `${s.type}${"phase" in s ? ` ${s.phase}` : ""}${"wave" in s ? ` ${s.wave}` : ""}${"refs" in s && s.refs ? `: ${s.refs.map((x) => x.name).join(",")}` : ""}`);
  const parts = { installCrd: false, applyWaves: [[r("a")], [r("b")]], deleteWaves: [[r("old")]] };

  it("apply: pre-apply hooks before the first wave, post-apply after the last prune; objects never waited for in no wait step", () => {
    const steps = applySteps({ ...parts, hooks: [h("m", "pre-apply"), h("n", "pre-apply", 1), h("s", "post-apply")], hookInventory: [r("a"), r("b"), r("m", "Job")], unwaited: new Set([`/ConfigMap/app/b`]) }, { reconcileTimeoutMs: 60_000 });
    expect(describe(steps)).toEqual([
      "inventory-add: a,b,m",
      "hook-apply pre-apply 0: m",
      "hook-wait pre-apply 0: m",
      "hook-apply pre-apply 1: n",
      "hook-wait pre-apply 1: n",
      "apply 0: a",
      "wait 0: a",
      "apply 1: b",
      "delete 2: old",
      "wait 2: old",
      "hook-apply post-apply 0: s",
      "hook-wait post-apply 0: s",
      "inventory-set",
    ]);
    expect(steps.find((s) => s.type === "hook-wait")).toMatchObject({ timeoutMs: 60_000 });
  });

  it("a dry run creates hooks and waits for none", () => {
    expect(describe(applySteps({ ...parts, hooks: [h("m", "pre-apply")] }, { dryRun: true }))).toEqual(["inventory-add", "hook-apply pre-apply 0: m", "apply 0: a", "apply 1: b", "delete 2: old", "inventory-set"]);
  });

  it("destroy: the hooks recorded first, pre-destroy before the deletes, post-destroy after", () => {
    expect(describe(destroySteps([[r("a")]], {}, [h("backup", "pre-destroy"), h("notify", "post-destroy")], [r("a"), r("backup", "Job"), r("notify", "Job")]))).toEqual([
      "inventory-add: a,backup,notify",
      "hook-apply pre-destroy 0: backup",
      "hook-wait pre-destroy 0: backup",
      "delete 0: a",
      "wait 0: a",
      "hook-apply post-destroy 0: notify",
      "hook-wait post-destroy 0: notify",
      "inventory-delete",
    ]);
  });

  it("a replacement is deleted by its wave's replace step, before the wave's apply", () => {
    const steps = applySteps(parts, {});
    expect(describe(withReplaceSteps(steps, [{ ref: r("b"), wave: 1 }], 5000)).slice(3, 6)).toEqual(["replace 1: b", "apply 1: b", "wait 1: b"]);
  });
});

describe("the server's refusal of an immutable field", () => {
  it.each([
    ["a Job's template", new ApiError(422, "Invalid", 'Job.batch "j" is invalid: spec.template: Invalid value: core.PodTemplateSpec{ObjectMeta:...}: field is immutable', [{ reason: "FieldValueInvalid", field: "spec.template", message: "Invalid value: core.PodTemplateSpec{...}: field is immutable" }]), "spec.template: field is immutable"],
    ["a Deployment's selector", new ApiError(422, "Invalid", "...", [{ reason: "FieldValueInvalid", field: "spec.selector", message: "Invalid value: v1.LabelSelector{...}: field is immutable" }]), "spec.selector: field is immutable"],
    ["a StatefulSet's spec", new ApiError(422, "Invalid", "...", [{ reason: "FieldValueForbidden", field: "spec", message: "Forbidden: updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden" }]), "spec: field is immutable"],
    ["another 422", new ApiError(422, "Invalid", "...", [{ reason: "FieldValueRequired", field: "spec.x", message: "Required value" }]), undefined],
    ["a 409", new ApiError(409, "Conflict", "field is immutable"), undefined],
  ])("%s", (_name, err, want) => {
    expect(immutableRefusal(err)).toBe(want);
  });
});


