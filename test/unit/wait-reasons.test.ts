// Why a wait is slow, from plain objects: a Pod's phase and reason, a Deployment's current
// ReplicaSet and its not-ready Pods, a StatefulSet's and a Job's Pods, a claim without a
// matching volume; and the one label selector that lists several owners' Pods at once. Also
// how printers show the reasons: only what changed, and again in the timeout summary.
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import type { EngineEvent, WaitingEvent } from "../../src/model/events.js";
import type { KubeObject } from "../../src/model/kube-object.js";
import { createPalette } from "../../src/print/color.js";
import { printRun } from "../../src/print/printer.js";
import { createProgressState, renderProgress, updateProgress } from "../../src/print/progress-view.js";
import { combinedSelector, currentReplicaSet, describeClaimNeeds, explainWait, parseQuantity, podReason, volumeMatches } from "../../src/status/wait-reasons.js";
import { WaitExplainer } from "../../src/status/wait-explainer.js";
import type { Cluster } from "../../src/cluster/types.js";
import { captureStream, ref, streamOf } from "./print-scenarios.js";

const obj = (yaml: string): KubeObject => parse(yaml) as KubeObject;

const pod = (name: string, owner: string, status: string): KubeObject =>
  obj(`apiVersion: v1
kind: Pod
metadata: {name: ${name}, namespace: app, ownerReferences: [{uid: ${owner}}]}
status: ${status}`);

const UNSCHEDULABLE = `{phase: Pending, conditions: [{type: PodScheduled, status: "False", reason: Unschedulable, message: "0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector."}]}`;
const CREATING = `{phase: Pending, conditions: [{type: PodScheduled, status: "True"}], containerStatuses: [{name: c, state: {waiting: {reason: ContainerCreating}}}]}`;
const CRASHING = `{phase: Running, conditions: [{type: Ready, status: "False", reason: ContainersNotReady}], containerStatuses: [{name: c, state: {waiting: {reason: CrashLoopBackOff, message: "back-off 10s restarting failed container"}}}]}`;
const READY = `{phase: Running, conditions: [{type: Ready, status: "True"}]}`;

describe("podReason", () => {
  it.each<[string, string, string | undefined, string?]>([
    ["not schedulable", UNSCHEDULABLE, "Pending: Unschedulable", "0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector."],
    ["its containers being created", CREATING, "Pending: ContainerCreating"],
    ["an image that cannot be pulled", `{phase: Pending, containerStatuses: [{name: c, state: {waiting: {reason: ImagePullBackOff, message: "Back-off pulling image"}}}]}`, "Pending: ImagePullBackOff", "Back-off pulling image"],
    ["an init container still waiting comes first", `{phase: Pending, initContainerStatuses: [{name: i, state: {waiting: {reason: PodInitializing}}}], containerStatuses: [{name: c, state: {waiting: {reason: ContainerCreating}}}]}`, "Pending: PodInitializing"],
    ["crash looping", CRASHING, "Running: CrashLoopBackOff", "back-off 10s restarting failed container"],
    ["running, not ready, for no stated reason", `{phase: Running, conditions: [{type: Ready, status: "False", reason: ContainersNotReady, message: "containers with unready status: [c]"}]}`, "Running: ContainersNotReady", "containers with unready status: [c]"],
    ["failed", `{phase: Failed, reason: Evicted, message: "low on memory"}`, "Failed: Evicted", "low on memory"],
    ["no status yet", `{}`, "Unknown"],
    ["ready: nothing to say", READY, undefined],
    ["succeeded: nothing to say", `{phase: Succeeded}`, undefined],
  ])("a Pod %s", (_name, status, message, detail) => {
    const r = podReason(pod("p", "u", status));
    if (message === undefined) return expect(r).toBeUndefined();
    expect(r).toEqual({ ref: ref("", "Pod", "app", "p"), message, ...(detail ? { detail } : {}) });
  });

  it("says Terminating for a Pod being deleted", () => {
    const p = pod("p", "u", READY);
    p.metadata.deletionTimestamp = "2026-01-01T00:00:00Z";
    expect(podReason(p)?.message).toBe("Running: Terminating");
  });
});

const deployment = obj(`apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: app, uid: d1, annotations: {deployment.kubernetes.io/revision: "2"}}
spec: {replicas: 2, selector: {matchLabels: {app: web}}}`);
const rs = (name: string, uid: string, revision: string, ready = 0): KubeObject =>
  obj(`apiVersion: apps/v1
kind: ReplicaSet
metadata: {name: ${name}, namespace: app, uid: ${uid}, ownerReferences: [{uid: d1}], annotations: {deployment.kubernetes.io/revision: "${revision}"}}
spec: {replicas: 2}
status: {replicas: 2, fullyLabeledReplicas: 2, readyReplicas: ${ready}, availableReplicas: ${ready}}`);

describe("explainWait", () => {
  it("descends from a Deployment into its current ReplicaSet and that one's not-ready Pods only", () => {
    const related = {
      replicaSets: [rs("web-old", "r1", "1", 2), rs("web-new", "r2", "2"), { ...rs("other", "r3", "2"), metadata: { name: "other", namespace: "app", uid: "r3" } }],
      pods: [pod("web-old-a", "r1", READY), pod("web-new-b", "r2", CREATING), pod("web-new-a", "r2", UNSCHEDULABLE), pod("web-new-c", "r2", READY), pod("stranger", "zz", UNSCHEDULABLE)],
      volumes: [],
    };
    expect(explainWait(deployment, related)).toEqual([
      { ref: ref("apps", "ReplicaSet", "app", "web-new"), message: "Available: 0/2" },
      { ref: ref("", "Pod", "app", "web-new-a"), message: "Pending: Unschedulable", detail: "0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector." },
      { ref: ref("", "Pod", "app", "web-new-b"), message: "Pending: ContainerCreating" },
    ]);
  });

  it.each<[string, KubeObject[], string | undefined]>([
    ["the ReplicaSet of the Deployment's revision", [rs("a", "r1", "1"), rs("b", "r2", "2"), rs("c", "r3", "3")], "b"],
    ["the newest one while the revision is unknown", [rs("a", "r1", "1"), rs("c", "r3", "3")], "c"],
    ["none when the Deployment owns none", [], undefined],
  ])("currentReplicaSet picks %s", (_name, sets, want) => {
    const d = want === "c" ? { ...deployment, metadata: { ...deployment.metadata, annotations: {} } } : deployment;
    expect(currentReplicaSet(d, sets)?.metadata.name).toBe(want);
  });

  it("says so when a Deployment has no ReplicaSet yet", () => {
    expect(explainWait(deployment, { pods: [], replicaSets: [], volumes: [] })).toEqual([{ message: "no ReplicaSet for its current template yet" }]);
  });

  it("lists a StatefulSet's not-ready Pods, at most three, and counts the rest", () => {
    const sts = obj(`{apiVersion: apps/v1, kind: StatefulSet, metadata: {name: db, namespace: app, uid: s1}}`);
    const pods = ["db-0", "db-1", "db-2", "db-3", "db-4"].map((n, i) => pod(n, "s1", i === 0 ? READY : CRASHING));
    expect(explainWait(sts, { pods, replicaSets: [], volumes: [] }).map((r) => r.ref?.name ?? r.message)).toEqual(["db-1", "db-2", "db-3", "and 1 more pod(s) not ready"]);
  });

  it("lists a Job's Pods that have not succeeded, running ones included", () => {
    const job = obj(`{apiVersion: batch/v1, kind: Job, metadata: {name: migrate, namespace: app, uid: j1}}`);
    const pods = [pod("migrate-a", "j1", `{phase: Succeeded}`), pod("migrate-b", "j1", READY), pod("migrate-c", "j1", `{phase: Failed, reason: DeadlineExceeded}`)];
    expect(explainWait(job, { pods, replicaSets: [], volumes: [] }).map((r) => `${r.ref?.name} ${r.message}`)).toEqual(["migrate-b Running", "migrate-c Failed: DeadlineExceeded"]);
  });
});

const claim = obj(`apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: data, namespace: app}
spec: {storageClassName: "", accessModes: [ReadWriteOnce], resources: {requests: {storage: 10Gi}}, selector: {matchLabels: {volume: data}}}
status: {phase: Pending}`);
const pv = (name: string, patch: string): KubeObject =>
  obj(`apiVersion: v1
kind: PersistentVolume
metadata: {name: ${name}, labels: {volume: data}}
spec: {storageClassName: "", accessModes: [ReadWriteOnce, ReadOnlyMany], capacity: {storage: 20Gi}}
status: {phase: Available}
${patch}`);

describe("claims and volumes", () => {
  it.each<[string, string, boolean]>([
    ["an Available volume of the class, size, modes and labels", "", true],
    ["a volume too small", "spec: {storageClassName: '', accessModes: [ReadWriteOnce], capacity: {storage: 5Gi}}", false],
    ["a volume of another class", "spec: {storageClassName: fast, accessModes: [ReadWriteOnce], capacity: {storage: 20Gi}}", false],
    ["a volume without the access mode", "spec: {storageClassName: '', accessModes: [ReadOnlyMany], capacity: {storage: 20Gi}}", false],
    ["a volume bound elsewhere", "status: {phase: Bound}\nspec: {storageClassName: '', accessModes: [ReadWriteOnce], capacity: {storage: 20Gi}, claimRef: {name: other, namespace: app}}", false],
    ["a volume reserved for this claim", "status: {phase: Available}\nspec: {storageClassName: '', accessModes: [ReadWriteOnce], capacity: {storage: 20Gi}, claimRef: {name: data, namespace: app}}", true],
    ["a volume without the selected label", "metadata: {name: x, labels: {volume: logs}}", false],
  ])("%s: %s", (_name, patch, want) => {
    const v = pv("v", "");
    const p = parse(patch || "{}") as Partial<KubeObject>;
    expect(volumeMatches({ ...v, ...p } as KubeObject, claim)).toBe(want);
  });

  it("says what a pending claim needs when no volume matches, and names one that does", () => {
    expect(explainWait(claim, { pods: [], replicaSets: [], volumes: [pv("small", "")].map((v) => ({ ...v, spec: { ...(v.spec as object), capacity: { storage: "1Gi" } } })) })).toEqual([
      { message: "no PersistentVolume matches", detail: 'storageClassName "", 10Gi, ReadWriteOnce, selector volume=data' },
    ]);
    expect(explainWait(claim, { pods: [], replicaSets: [], volumes: [pv("big", "")] })).toEqual([{ ref: ref("", "PersistentVolume", "", "big"), message: "Available: matches, not bound yet" }]);
    expect(describeClaimNeeds(obj(`{apiVersion: v1, kind: PersistentVolumeClaim, metadata: {name: x}, spec: {storageClassName: fast, selector: {matchExpressions: [{key: tier, operator: In, values: [a, b]}]}}}`))).toBe(
      'storageClassName "fast", selector tier in (a,b)',
    );
  });

  it.each<[string, number | undefined]>([
    ["10Gi", 10 * 2 ** 30],
    ["500M", 5e8],
    ["1.5Ki", 1536],
    ["1e3", 1000],
    ["100m", 0.1],
    ["ten", undefined],
  ])("parseQuantity(%s)", (q, want) => {
    expect(parseQuantity(q)).toBe(want);
  });
});

const owner = (kind: string, labels?: Record<string, string>): KubeObject => ({ apiVersion: "apps/v1", kind, metadata: { name: "x" }, spec: labels ? { selector: { matchLabels: labels } } : {} });

describe("combinedSelector", () => {
  it.each<[string, KubeObject[], string | undefined]>([
    ["one owner: its own labels", [owner("Deployment", { app: "web", tier: "fe" })], "app=web,tier=fe"],
    ["several owners: the keys they share, as sets", [owner("Deployment", { app: "web", tier: "fe" }), owner("StatefulSet", { app: "db" })], "app in (db,web)"],
    ["nothing shared: no selector (list the namespace)", [owner("Deployment", { app: "web" }), owner("Job", { "batch.kubernetes.io/controller-uid": "u" })], undefined],
    ["an owner without matchLabels: no selector", [owner("Deployment", { app: "web" }), owner("StatefulSet")], undefined],
    ["a key with more than 50 values is left out", [...Array.from({ length: 51 }, (_, i) => owner("Deployment", { app: `a${i}`, team: "x" }))], "team in (x)"],
  ])("%s", (_name, owners, want) => {
    expect(combinedSelector(owners)).toBe(want);
  });
});

describe("WaitExplainer", () => {
  it("lists Pods and ReplicaSets once per namespace under one selector, and reuses the read within its interval", async () => {
    const calls: string[] = [];
    const cluster = {
      async list(group: string, kind: string, ns?: string, q: { labelSelector?: string } = {}) {
        calls.push(`${group}/${kind} ${ns ?? "*"} ${q.labelSelector ?? ""}`);
        const items = kind === "ReplicaSet" ? [rs("web-new", "r2", "2")] : kind === "Pod" ? [pod("web-new-a", "r2", UNSCHEDULABLE)] : [];
        return { items, resourceVersion: "1" };
      },
    } as unknown as Cluster;
    let now = 0;
    const explainer = new WaitExplainer(cluster, { minIntervalMs: 3000, now: () => now });
    const sts = obj(`{apiVersion: apps/v1, kind: StatefulSet, metadata: {name: db, namespace: app, uid: s1}, spec: {selector: {matchLabels: {app: db}}}}`);
    const cm = obj(`{apiVersion: v1, kind: ConfigMap, metadata: {name: c, namespace: app}}`);
    const first = await explainer.explain([deployment, sts, cm]);
    expect(calls.sort()).toEqual(["/Pod app app in (db,web)", "apps/ReplicaSet app app=web"]);
    expect(first?.get("apps/Deployment/app/web")?.map((r) => r.message)).toEqual(["Available: 0/2", "Pending: Unschedulable"]);
    expect(first?.has("/ConfigMap/app/c")).toBe(false);
    now = 2000;
    await explainer.explain([deployment, sts]);
    expect(calls).toHaveLength(2);
    now = 3500;
    await explainer.explain([deployment, sts]);
    expect(calls).toHaveLength(4);
  });
});

const web = ref("apps", "Deployment", "app", "web");
const unschedulable = { ref: ref("", "Pod", "app", "web-1"), message: "Pending: Unschedulable", detail: "0/3 nodes are available" };
const waiting = (reasons: WaitingEvent["pending"][number]["reasons"], elapsedMs: number): EngineEvent => ({
  type: "waiting",
  wave: 0,
  pending: [{ ref: web, status: "InProgress", message: "Ready: 0/1", ...(reasons ? { reasons } : {}) }],
  total: 1,
  elapsedMs,
  timeoutMs: 20_000,
});

describe("printing the reasons", () => {
  const run: EngineEvent[] = [
    { type: "group", action: "Apply", status: "Started", wave: 0 },
    { type: "apply", ref: web, status: "Successful", operation: "created" },
    { type: "group", action: "Apply", status: "Finished", wave: 0 },
    { type: "group", action: "Wait", status: "Started", wave: 0 },
    { type: "wait", ref: web, status: "Pending", message: "Ready: 0/1" },
    waiting(undefined, 1000),
    waiting([{ ref: ref("apps", "ReplicaSet", "app", "web-1"), message: "Ready: 0/1" }, { ...unschedulable, message: "Pending: ContainerCreating", detail: undefined } as never], 2000),
    waiting([{ ref: ref("apps", "ReplicaSet", "app", "web-1"), message: "Ready: 0/1" }, { ...unschedulable, message: "Pending: ContainerCreating", detail: undefined } as never], 4000),
    waiting([{ ref: ref("apps", "ReplicaSet", "app", "web-1"), message: "Ready: 0/1" }, unschedulable], 6000),
    { type: "wait", ref: web, status: "Timeout", message: "Ready: 0/1", reasons: [unschedulable] },
    { type: "group", action: "Wait", status: "Finished", wave: 0 },
  ];

  it("events output: each reason line on stderr when it changes, and the last ones again in the timeout summary; stdout keeps kpt's lines", async () => {
    const out = captureStream();
    const err = captureStream();
    await printRun(streamOf(run), { output: "events", stdout: out.stream, stderr: err.stream, color: false, tty: false, showStatusEvents: false });
    expect(out.text()).toBe(["deployment.apps/web created", "1 resource(s) applied. 1 created, 0 unchanged, 0 configured, 0 failed", "deployment.apps/web reconcile pending", "deployment.apps/web reconcile timeout: Ready: 0/1", "0 resource(s) reconciled, 0 skipped, 0 failed to reconcile, 1 timed out", ""].join("\n"));
    expect(err.text().split("\n").filter((l) => !l.startsWith("waiting for"))).toEqual([
      "deployment.apps/web waiting on replicaset.apps/web-1: Ready: 0/1",
      "deployment.apps/web waiting on pod/web-1: Pending: ContainerCreating",
      "deployment.apps/web waiting on pod/web-1: Pending: Unschedulable (0/3 nodes are available)",
      "timed out waiting for 1 resource(s) to reconcile; last known state:",
      "  deployment.apps/web: Ready: 0/1",
      "    waiting on pod/web-1: Pending: Unschedulable (0/3 nodes are available)",
      "",
    ]);
  });

  it("json output: not a byte more than kpt prints", async () => {
    const out = captureStream();
    const err = captureStream();
    await printRun(streamOf(run), { output: "json", stdout: out.stream, stderr: err.stream, color: false, tty: false, showStatusEvents: false, now: () => new Date(0) });
    expect(out.text()).not.toMatch(/Unschedulable|reasons|waiting/);
    expect(err.text()).toBe("");
  });

  it("the live view: the reasons under their object", () => {
    const s = createProgressState();
    for (const e of run.slice(0, 9)) updateProgress(s, e, 0);
    expect(renderProgress(s, { nowMs: 6000, columns: 120, maxObjects: 8, frame: 0, paint: createPalette(false) }).slice(2)).toEqual([
      "  deployment.apps/web  InProgress  Ready: 0/1",
      "    └ replicaset.apps/web-1: Ready: 0/1",
      "    └ pod/web-1: Pending: Unschedulable (0/3 nodes are available)",
    ]);
    expect(renderProgress(s, { nowMs: 6000, columns: 120, maxObjects: 8, maxLines: 4, frame: 0, paint: createPalette(false) })).toHaveLength(4);
  });
});
