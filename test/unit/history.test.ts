// The change history: records made from the run's tally, the one fold of its events (counts in
// kapp's form, failures, outcome), their ConfigMap form, retention, how superseded `running`
// records are shown, the rows of `live list`, and the engine's observer that writes them, against
// an in-memory cluster.
import { describe, expect, it } from "vitest";
import { ApiError } from "../../src/cluster/api-error.js";
import type { Cluster, ListResult } from "../../src/cluster/types.js";
import { CancelledError, ClusterError } from "../../src/model/errors.js";
import { type EngineEvent } from "../../src/model/events.js";
import {
  CHANGE_INVENTORY_LABEL,
  changeFromConfigMap,
  changeToConfigMap,
  finishChange,
  formatOp,
  selectExpired,
  shownResult,
  startChange,
  withOutcome,
  type ChangeRecord,
} from "../../src/history/change-record.js";
import { RunTally } from "../../src/model/run-tally.js";
import { inventoryRows } from "../../src/history/inventory-list.js";
import { listedInventories } from "../../src/inventory/status-selection.js";
import { ChangeRecorder } from "../../src/history/record-changes.js";
import type { ObjRef } from "../../src/model/ref.js";
import type { KubeObject } from "../../src/model/kube-object.js";
import { createPalette } from "../../src/print/color.js";
import { formatHistory, formatInventoryList, historyJson } from "../../src/print/history-printer.js";
import { ref, stats } from "./print-scenarios.js";

const inventory = { name: "inv", namespace: "app", id: "id-1" };
const cm = (name: string) => ref("", "ConfigMap", "app", name);
const web = ref("apps", "Deployment", "app", "web");
const T0 = new Date("2026-01-02T03:04:05.000Z");
const plain = createPalette(false);

const fresh = () => startChange({ command: "apply", inventory, user: "alice", startedAt: T0 });
const tallyOf = (events: EngineEvent[]) => {
  const t = new RunTally();
  for (const e of events) t.add(e);
  return t;
};
const fold = (events: EngineEvent[], r = fresh()) => withOutcome(r, tallyOf(events));

describe("withOutcome: a record's counts and failures from the run's tally", () => {
  it.each<[string, EngineEvent[], Partial<ChangeRecord>]>([
    ["created, configured and unchanged objects", [
      { type: "apply", ref: cm("a"), status: "Successful", operation: "created" },
      { type: "apply", ref: cm("b"), status: "Successful", operation: "created" },
      { type: "apply", ref: cm("c"), status: "Successful", operation: "configured" },
      { type: "apply", ref: cm("d"), status: "Successful", operation: "configured" },
      { type: "apply", ref: cm("e"), status: "Successful", operation: "unchanged" },
    ], { counts: { create: 2, delete: 0, update: 2, noop: 1 }, skipped: 0, failed: [] }],
    ["pruned and deleted objects count as deletes; skips are counted apart", [
      { type: "prune", ref: cm("a"), status: "Successful" },
      { type: "delete", ref: cm("b"), status: "Successful" },
      { type: "prune", ref: cm("c"), status: "Skipped", error: "annotated keep" },
      { type: "apply", ref: cm("d"), status: "Skipped", error: "policy" },
    ], { counts: { create: 0, delete: 2, update: 0, noop: 0 }, skipped: 2, failed: [] }],
    ["failed writes and failed or timed-out waits are listed with what failed", [
      { type: "apply", ref: cm("a"), status: "Failed", error: "invalid" },
      { type: "wait", ref: web, status: "Timeout", message: "Ready: 0/1" },
      { type: "wait", ref: cm("b"), status: "Failed", message: "crashed" },
      { type: "wait", ref: cm("c"), status: "Successful" },
      { type: "delete", ref: cm("d"), status: "Failed", error: "forbidden" },
    ], {
      counts: { create: 0, delete: 0, update: 0, noop: 0 },
      failed: [
        { group: "", kind: "ConfigMap", namespace: "app", name: "a", action: "apply", error: "invalid" },
        { group: "apps", kind: "Deployment", namespace: "app", name: "web", action: "reconcile", error: "timeout: Ready: 0/1" },
        { group: "", kind: "ConfigMap", namespace: "app", name: "b", action: "reconcile", error: "crashed" },
        { group: "", kind: "ConfigMap", namespace: "app", name: "d", action: "delete", error: "forbidden" },
      ],
    }],
  ])("%s", (_name, events, want) => {
    expect(fold(events)).toMatchObject(want);
  });

  it("keeps at most 50 failed objects and counts the rest", () => {
    const events: EngineEvent[] = Array.from({ length: 53 }, (_, i) => ({ type: "apply", ref: cm(`c${i}`), status: "Failed", error: "x" }));
    const r = fold(events);
    expect(r.failed).toHaveLength(50);
    expect(r.moreFailed).toBe(3);
  });

  it("leaves the record it starts from unchanged", () => {
    const r = fresh();
    withOutcome(r, tallyOf([{ type: "apply", ref: cm("a"), status: "Successful", operation: "created" }]));
    expect(r.counts.create).toBe(0);
  });
});

describe("finishChange and formatOp", () => {
  it.each<[string, EngineEvent[], "succeeded" | "failed" | "interrupted", string]>([
    ["a clean run succeeds", [{ type: "apply", ref: cm("a"), status: "Successful", operation: "created" }], "succeeded", "succeeded"],
    ["a run with a failed object failed, whatever the caller said", [{ type: "apply", ref: cm("a"), status: "Failed", error: "x" }], "succeeded", "failed"],
    ["an interrupted run says so", [], "interrupted", "interrupted"],
  ])("%s", (_name, events, result, want) => {
    const r = finishChange(fold(events), { finishedAt: new Date(T0.getTime() + 5000), result });
    expect(r.result).toBe(want);
    expect(r.finishedAt).toBe("2026-01-02T03:04:10.000Z");
  });

  it("prints the counts in kapp's order", () => {
    expect(formatOp({ create: 2, delete: 0, update: 1, noop: 5 })).toBe("Op: 2 create, 0 delete, 1 update, 5 noop");
  });
});

const rec = (name: string, startedAt: string, patch: Partial<ChangeRecord> = {}): ChangeRecord => ({ ...fresh(), name, startedAt, ...patch });

describe("selectExpired (retention)", () => {
  const a = rec("a", "2026-01-01T00:00:01Z");
  const b = rec("b", "2026-01-01T00:00:02Z");
  const c = rec("c", "2026-01-01T00:00:03Z");
  const other = rec("o", "2026-01-01T00:00:00Z", { inventory: { ...inventory, id: "id-2" } });
  it.each<[string, ChangeRecord[], number, string[]]>([
    ["keeps the newest N", [b, a, c], 2, ["a"]],
    ["deletes nothing under the limit", [a, b], 5, []],
    ["counts each inventory on its own", [a, b, c, other], 1, ["b", "a"]],
    ["keeping 0 deletes all", [a, b], 0, ["b", "a"]],
  ])("%s", (_name, records, keep, want) => {
    expect(selectExpired(records, keep).map((r) => r.name)).toEqual(want);
  });
});

describe("shownResult", () => {
  const older = rec("a", "2026-01-01T00:00:01Z", { result: "running" });
  const newer = rec("b", "2026-01-01T00:00:02Z", { result: "succeeded" });
  it.each<[string, ChangeRecord, ChangeRecord[], string]>([
    ["the newest running record is running", older, [older], "running"],
    ["a running record a newer change superseded never finished: unknown", older, [older, newer], "unknown"],
    ["a finished record shows its result", newer, [older, newer], "succeeded"],
    ["a newer change of another inventory does not count", older, [older, { ...newer, inventory: { ...inventory, id: "x" } }], "running"],
  ])("%s", (_name, r, all, want) => {
    expect(shownResult(r, all)).toBe(want);
  });
});

describe("the ConfigMap form", () => {
  it("stores the record in the inventory's namespace under a kpt-ts label (never cli-utils' inventory-id label) and reads it back", () => {
    const r = finishChange(fold([{ type: "apply", ref: cm("a"), status: "Failed", error: "x" }]), { finishedAt: T0, result: "succeeded" });
    const obj = changeToConfigMap(r);
    expect(obj.metadata).toEqual({ generateName: "inv-change-", namespace: "app", labels: { [CHANGE_INVENTORY_LABEL]: "id-1" } });
    expect(JSON.stringify(obj)).not.toContain("cli-utils.sigs.k8s.io");
    expect(JSON.stringify(obj)).not.toContain("config.k8s.io/owning-inventory");
    expect(changeFromConfigMap({ ...obj, metadata: { ...obj.metadata, name: "inv-change-x" } })).toEqual({ ...r, name: "inv-change-x" });
  });

  it.each<[string, Record<string, unknown> | undefined]>([
    ["no data", undefined],
    ["not JSON", { change: "{" }],
    ["JSON that is not a record", { change: "[1,2]" }],
    ["a record without a start time", { change: JSON.stringify({ command: "apply", inventory }) }],
  ])("ignores a ConfigMap with %s", (_name, data) => {
    expect(changeFromConfigMap({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "x" }, ...(data ? { data } : {}) })).toBeUndefined();
  });
});

const rg = (namespace: string, name: string, id: string | undefined, resources: ObjRef[]): KubeObject => ({
  apiVersion: "kpt.dev/v1alpha1",
  kind: "ResourceGroup",
  metadata: { name, namespace, ...(id ? { labels: { "cli-utils.sigs.k8s.io/inventory-id": id } } : {}) },
  spec: resources.length ? { resources } : {},
});

describe("inventoryRows (live list)", () => {
  const now = new Date("2026-01-01T01:00:00Z");
  it("lists every inventory with its object count, namespaces and last change", () => {
    const groups = [
      rg("b", "kpt-applied", "id-k", [ref("", "ConfigMap", "b", "x"), ref("", "ConfigMap", "b", "y")]),
      rg("a", "inv", "id-1", [ref("", "ConfigMap", "a", "x"), ref("apps", "Deployment", "c", "d"), ref("", "Namespace", "", "c")]),
      rg("a", "empty", undefined, []),
    ];
    const changes = [
      rec("r1", "2026-01-01T00:00:00Z", { inventory: { name: "inv", namespace: "a", id: "id-1" }, result: "succeeded", finishedAt: "2026-01-01T00:00:10Z" }),
      rec("r2", "2026-01-01T00:50:00Z", { inventory: { name: "inv", namespace: "a", id: "id-1" }, result: "failed", finishedAt: "2026-01-01T00:55:00Z", command: "destroy" }),
      // Same id in another namespace: another inventory's record.
      rec("r3", "2026-01-01T00:59:00Z", { inventory: { name: "inv", namespace: "z", id: "id-1" }, result: "succeeded" }),
    ];
    const rows = inventoryRows(listedInventories(groups), changes, now);
    expect(rows.map((r) => [r.namespace, r.name, r.objects, r.namespaces.join(","), r.clusterScoped, r.lastChange?.result, r.lastChange?.ageMs])).toEqual([
      ["a", "empty", 0, "", 0, undefined, undefined],
      ["a", "inv", 3, "a,c", 1, "failed", 5 * 60_000],
      ["b", "kpt-applied", 2, "b", 0, undefined, undefined],
    ]);
    expect(formatInventoryList(rows, plain)).toEqual([
      "Namespace  Name         Kind           Objects  Namespaces     Last change     Age",
      "a          empty        ResourceGroup  0        -              -               -",
      "a          inv          ResourceGroup  3        a,c,(cluster)  destroy failed  5m",
      "b          kpt-applied  ResourceGroup  2        b              -               -",
      "",
      "3 inventories",
    ]);
  });
});

describe("formatHistory", () => {
  it("shows one row per change, newest first, with failed objects and interrupted runs under their row", () => {
    const records = [
      rec("c3", "2026-01-02T03:05:00.123Z", { command: "destroy", result: "interrupted", finishedAt: "2026-01-02T03:05:02Z", counts: { create: 0, delete: 1, update: 0, noop: 0 }, error: "interrupted" }),
      rec("c2", "2026-01-02T03:04:30Z", { result: "failed", finishedAt: "2026-01-02T03:04:50Z", failed: [{ group: "apps", kind: "Deployment", namespace: "app", name: "web", action: "reconcile", error: "timeout: Ready: 0/1" }] }),
      rec("c1", "2026-01-02T03:04:00Z", { result: "running", counts: { create: 2, delete: 0, update: 0, noop: 0 } }),
    ];
    expect(formatHistory(inventory, records, plain)).toEqual([
      "Inventory: ResourceGroup app/inv (inventory id id-1)",
      "",
      "Started               Took  Command  User   Result       Changes",
      "2026-01-02T03:05:00Z  2s    destroy  alice  interrupted  Op: 0 create, 1 delete, 0 update, 0 noop",
      "  stopped: interrupted",
      "2026-01-02T03:04:30Z  20s   apply    alice  failed       Op: 0 create, 0 delete, 0 update, 0 noop",
      "  failed: deployment.apps/web (reconcile: timeout: Ready: 0/1)",
      "2026-01-02T03:04:00Z  -     apply    alice  unknown      Op: 2 create, 0 delete, 0 update, 0 noop",
      "  never finished: its process was killed or lost the cluster",
      "",
      "3 change(s), newest first",
    ]);
    expect((historyJson(inventory, records) as { changes: { result: string; description: string }[] }).changes.map((c) => [c.result, c.description])).toEqual([
      ["interrupted", "Op: 0 create, 1 delete, 0 update, 0 noop"],
      ["failed", "Op: 0 create, 0 delete, 0 update, 0 noop"],
      ["unknown", "Op: 2 create, 0 delete, 0 update, 0 noop"],
    ]);
  });
});

/** ConfigMaps in memory: what the recorder needs from a cluster. */
function memoryCluster(opts: { failCreate?: ApiError } = {}) {
  const store = new Map<string, KubeObject>();
  let n = 0;
  const cluster = {
    user: "alice",
    async create(obj: KubeObject) {
      if (opts.failCreate) throw opts.failCreate;
      const name = obj.metadata.name ?? `${obj.metadata.generateName}${n++}`;
      const stored = structuredClone({ ...obj, metadata: { ...obj.metadata, name } });
      store.set(name, stored);
      return stored;
    },
    async patch(r: ObjRef, patch: { data: Record<string, string> }) {
      const o = store.get(r.name);
      if (!o) throw new ApiError(404, "NotFound", `configmaps "${r.name}" not found`);
      o.data = { ...(o.data as object), ...patch.data };
      return o;
    },
    async list(_g: string, _k: string, _ns?: string, q: { labelSelector?: string } = {}): Promise<ListResult> {
      const [key, value] = (q.labelSelector ?? "").split("=");
      return { items: [...store.values()].filter((o) => key && (value === undefined ? key in (o.metadata.labels ?? {}) : o.metadata.labels?.[key] === value)), resourceVersion: "1" };
    },
    async delete(r: ObjRef) {
      return store.delete(r.name) ? ("deleted" as const) : ("notfound" as const);
    },
  };
  const records = () => [...store.values()].map((o) => changeFromConfigMap(o)!).sort((a, b) => a.name!.localeCompare(b.name!));
  return { cluster: cluster as unknown as Cluster, records };
}

/** The engine's side of a run: every event to the observer (and the tally), then the end (or how the run stopped). */
async function record(list: readonly EngineEvent[], o: { cluster: Cluster; keep: number; now?: () => Date; warnings?: string[] }, stoppedBy?: Error): Promise<void> {
  const history = new ChangeRecorder({ cluster: o.cluster, keep: o.keep, ...(o.now ? { now: o.now } : {}), onWarning: (w) => o.warnings?.push(w) });
  const tally = new RunTally();
  for (const e of list) {
    tally.add(e);
    history.observe(e);
  }
  await history.finish(tally, stoppedBy);
}

const init = (command: "apply" | "destroy", dryRun: "none" | "client" = "none", objects = [cm("a")]): EngineEvent => ({
  type: "init",
  command,
  dryRun,
  inventory,
  objects: objects.map((r) => ({ ref: r, action: command === "apply" ? ("Apply" as const) : ("Delete" as const) })),
});
const inventoryStored: EngineEvent[] = [
  { type: "group", action: "Inventory", status: "Started" },
  { type: "group", action: "Inventory", status: "Finished" },
];
const applyRun: EngineEvent[] = [
  init("apply"),
  ...inventoryStored,
  { type: "apply", ref: cm("a"), status: "Successful", operation: "created" },
  ...inventoryStored,
  { type: "summary", stats: stats({ apply: { successful: 1, created: 1 } }) },
];

describe("ChangeRecorder (the engine's observer)", () => {
  it("stores one finished record per run", async () => {
    const { cluster, records } = memoryCluster();
    await record(applyRun, { cluster, keep: 10, now: () => T0 });
    expect(records()).toMatchObject([{ command: "apply", user: "alice", result: "succeeded", counts: { create: 1, delete: 0, update: 0, noop: 0 }, inventory }]);
  });

  it("writes a running record once the inventory is stored, before the run ends", async () => {
    const { cluster, records } = memoryCluster();
    const history = new ChangeRecorder({ cluster, keep: 10, onWarning: () => undefined });
    const tally = new RunTally();
    for (const e of applyRun.slice(0, 4)) history.observe(e); // init, inventory started/finished, the apply
    await new Promise((r) => setTimeout(r, 10));
    expect(records().map((r) => r.result)).toEqual(["running"]);
    for (const e of applyRun) tally.add(e);
    await history.finish(tally);
    expect(records().map((r) => r.result)).toEqual(["succeeded"]);
  });

  it.each<[string, Error, string]>([
    ["Ctrl-C", new CancelledError("interrupted: run apply again"), "interrupted"],
    ["a cluster error", new ClusterError("cannot write the inventory"), "failed"],
  ])("records a run stopped by %s", async (_name, err, result) => {
    const { cluster, records } = memoryCluster();
    await record(applyRun.slice(0, 4), { cluster, keep: 10 }, err);
    expect(records()).toMatchObject([{ result, error: err.message }]);
  });

  it("records nothing for a run that stops before its inventory is stored (nothing changed)", async () => {
    const { cluster, records } = memoryCluster();
    await record([init("apply"), { type: "group", action: "Inventory", status: "Started" }], { cluster, keep: 10 }, new ClusterError("namespace missing"));
    expect(records()).toEqual([]);
  });

  it("records nothing for dry runs, with a limit of 0, or for a destroy with nothing to delete", async () => {
    for (const [list, keep] of [[[init("apply", "client"), ...applyRun.slice(1)], 10], [applyRun, 0], [[init("destroy", "none", []), ...applyRun.slice(1)], 10]] as const) {
      const { cluster, records } = memoryCluster();
      await record(list, { cluster, keep });
      expect(records()).toEqual([]);
    }
  });

  it("records nothing for an apply whose plan changes nothing, and records it after all when an object changed between plan and apply", async () => {
    const noopInit: EngineEvent = { ...init("apply"), changesNothing: true } as EngineEvent;
    const noop: EngineEvent[] = [noopInit, ...inventoryStored, { type: "apply", ref: cm("a"), status: "Successful", operation: "unchanged" }, ...inventoryStored, { type: "summary", stats: stats({ apply: { successful: 1, unchanged: 1 } }) }];
    const quiet = memoryCluster();
    await record(noop, { cluster: quiet.cluster, keep: 10 });
    expect(quiet.records()).toEqual([]);

    const drifted = noop.map((e) => (e.type === "apply" ? { ...e, operation: "configured" as const } : e));
    const written = memoryCluster();
    await record(drifted, { cluster: written.cluster, keep: 10 });
    expect(written.records()).toMatchObject([{ result: "succeeded", counts: { create: 0, delete: 0, update: 1, noop: 0 } }]);
  });

  it("keeps only the newest records of the inventory", async () => {
    const { cluster, records } = memoryCluster();
    let t = T0.getTime();
    for (let i = 0; i < 4; i++) await record(applyRun, { cluster, keep: 2, now: () => new Date((t += 1000)) });
    // Each run reads the clock at its start and at its end: the four starts are 06, 08, 10 and 12 s.
    expect(records().map((r) => r.startedAt)).toEqual(["2026-01-02T03:04:10.000Z", "2026-01-02T03:04:12.000Z"]);
  });

  it("warns, and lets the run go on, when the record cannot be written", async () => {
    const { cluster } = memoryCluster({ failCreate: new ApiError(403, "Forbidden", 'configmaps is forbidden: User "bob" cannot create resource "configmaps"') });
    const warnings: string[] = [];
    await record(applyRun, { cluster, keep: 10, warnings });
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/could not write the change record of inventory app\/inv .*forbidden.*--history-limit=0/);
  });

  it("says nothing when a destroy took the record's namespace with it", async () => {
    const terminating = new ApiError(403, "Forbidden", "unable to create new content in namespace app because it is being terminated", [{ reason: "NamespaceTerminating", field: "metadata.namespace" }]);
    const { cluster } = memoryCluster({ failCreate: terminating });
    const warnings: string[] = [];
    await record([init("destroy"), { type: "delete", ref: cm("a"), status: "Successful" }], { cluster, keep: 10, warnings });
    expect(warnings).toEqual([]);
  });
});
