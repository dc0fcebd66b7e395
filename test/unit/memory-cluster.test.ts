// The in-memory cluster keeps its contract (the top of test/helpers/memory-cluster.ts): the engine
// tests are only worth what the fake's answers are, so each clause a run relies on is checked here.

import { describe, expect, it } from "vitest";
import { ApiError, briefApiError, forbiddenOf } from "../../src/cluster/api-error.js";
import { WatchExpiredError, type WatchEvent } from "../../src/cluster/types.js";
import { refOf } from "../../src/model/ref.js";
import { configMap, namespace } from "../helpers/engine-run.js";
import { invalid, MemoryCluster } from "../helpers/memory-cluster.js";

const cm = configMap("a");
const ref = refOf(cm);

async function rejection(p: Promise<unknown>): Promise<ApiError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof ApiError)) throw new Error(`expected an ApiError, got ${String(err)}`);
  return err;
}

/** The watch events from `rv` until `count` arrived. */
async function watched(c: MemoryCluster, rv: string, count: number): Promise<string[]> {
  const abort = new AbortController();
  const out: string[] = [];
  for await (const e of c.watch({ group: "", kind: "ConfigMap", namespace: "app", resourceVersion: rv }, abort.signal) as AsyncIterable<WatchEvent>) {
    out.push(`${e.type} ${e.object.metadata.name}`);
    if (out.length === count) abort.abort();
  }
  return out;
}

describe("MemoryCluster keeps its contract", () => {
  it("create: sets uid, generation and a resourceVersion; 409 when the name is taken; 404 without the namespace", async () => {
    const c = new MemoryCluster().seed(namespace());
    const created = await c.create(cm);
    expect(created.metadata).toMatchObject({ generation: 1, uid: expect.any(String), resourceVersion: expect.stringMatching(/^\d+$/) });
    expect((await rejection(c.create(cm))).reason).toBe("AlreadyExists");
    const err = await rejection(c.create(configMap("b", { namespace: "nowhere" })));
    expect([err.status, err.message, err.missingNamespace]).toEqual([404, 'namespaces "nowhere" not found', "nowhere"]);
  });

  it("update: 409 Conflict on a stale resourceVersion; a write that changes nothing keeps the resourceVersion", async () => {
    const c = new MemoryCluster().seed(namespace());
    const v1 = await c.create(cm);
    const v2 = await c.update({ ...v1, data: { key: "new" } });
    expect(Number(v2.metadata.resourceVersion)).toBeGreaterThan(Number(v1.metadata.resourceVersion));
    expect((await rejection(c.update({ ...v1, data: { key: "newer" } }))).status).toBe(409);
    const same = await c.patch(ref, { data: { key: "new" } }, "merge");
    expect(same.metadata.resourceVersion).toBe(v2.metadata.resourceVersion);
  });

  it("patch: a JSON merge patch (null removes); JSON patches are refused with 415; 404 when missing", async () => {
    const c = new MemoryCluster().seed(namespace(), { ...cm, data: { key: "value", extra: "x" } });
    expect((await c.patch(ref, { data: { extra: null, more: "y" } }, "merge")).data).toEqual({ key: "value", more: "y" });
    expect((await rejection(c.patch(ref, [], "json"))).status).toBe(415);
    expect((await rejection(c.patch(refOf(configMap("missing")), {}, "merge"))).status).toBe(404);
  });

  it("generation grows with the spec, not with metadata or status", async () => {
    const c = new MemoryCluster().seed(namespace());
    await c.create(cm);
    expect((await c.patch(ref, { metadata: { labels: { x: "y" } } }, "merge")).metadata.generation).toBe(1);
    expect((await c.patch(ref, { data: { key: "2" } }, "merge")).metadata.generation).toBe(2);
  });

  it("delete: an object with finalizers goes terminating, and is gone once they are removed (DELETED)", async () => {
    const c = new MemoryCluster().seed(namespace(), { ...cm, metadata: { ...cm.metadata, finalizers: ["example.com/hold"] } });
    const rv = (await c.list("", "ConfigMap", "app")).resourceVersion;
    expect(await c.delete(ref)).toBe("terminating");
    expect(c.peek(ref)?.metadata.deletionTimestamp).toBeDefined();
    c.removeFinalizers(ref);
    expect(c.peek(ref)).toBeUndefined();
    expect(await watched(c, rv, 2)).toEqual(["MODIFIED a", "DELETED a"]);
    expect(await c.delete(ref)).toBe("notfound");
  });

  it("delete: a uid or resourceVersion precondition that does not hold is a 409; a dry run deletes nothing", async () => {
    const c = new MemoryCluster().seed(namespace(), cm);
    expect((await rejection(c.delete(ref, { uid: "another" }))).status).toBe(409);
    expect((await rejection(c.delete(ref, { resourceVersion: "1" }))).status).toBe(409);
    expect(await c.delete(ref, { dryRun: true })).toBe("deleted");
    expect(c.peek(ref)).toBeDefined();
  });

  it("watch: replays what happened after the resourceVersion, then follows; expires (410) after compact()", async () => {
    const c = new MemoryCluster().seed(namespace());
    const rv = (await c.list("", "ConfigMap", "app")).resourceVersion;
    await c.create(cm);
    const events = watched(c, rv, 3);
    await c.patch(ref, { data: { key: "2" } }, "merge");
    await c.delete(ref);
    expect(await events).toEqual(["ADDED a", "MODIFIED a", "DELETED a"]);
    c.compact();
    const stale = c.watch({ group: "", kind: "ConfigMap", resourceVersion: rv }, new AbortController().signal)[Symbol.asyncIterator]().next();
    await expect(stale).rejects.toBeInstanceOf(WatchExpiredError);
  });

  it("403: refuses in the API server's words, which the engine's advice reads", async () => {
    const c = new MemoryCluster().seed(namespace(), cm).forbid({ verb: "delete", kind: "ConfigMap" });
    const err = await rejection(c.delete(ref));
    expect(forbiddenOf(err)).toEqual({ user: "test", verb: "delete", resource: "configmaps", namespace: "app" });
    expect(briefApiError(err)).toBe('forbidden: user "test" may not delete configmaps in namespace app');
    expect(await c.get(ref)).toBeDefined();
  });

  it("injected failures (a 422) hit only the matching verb and object", async () => {
    const c = new MemoryCluster().seed(namespace()).failOn({ verb: "create", name: "bad" }, () => invalid("ConfigMap", "bad", "data", "Invalid value"));
    expect((await rejection(c.create(configMap("bad")))).status).toBe(422);
    await expect(c.create(configMap("good"))).resolves.toBeDefined();
  });

  it("kinds it does not serve fail 404 in KubeCluster's words; a created CRD serves its kind at once, Established", async () => {
    const c = new MemoryCluster();
    const widget = { apiVersion: "example.com/v1", kind: "Widget", metadata: { name: "w" } };
    expect((await rejection(c.create(widget))).message).toMatch(/does not serve example.com\/v1, Kind=Widget/);
    const crd = await c.create({
      apiVersion: "apiextensions.k8s.io/v1",
      kind: "CustomResourceDefinition",
      metadata: { name: "widgets.example.com" },
      spec: { group: "example.com", scope: "Cluster", names: { kind: "Widget", plural: "widgets" }, versions: [{ name: "v1", served: true, storage: true }] },
    });
    expect(crd.status).toMatchObject({ conditions: expect.arrayContaining([{ type: "Established", status: "True" }]) });
    expect([await c.serves("example.com/v1", "Widget"), await c.scopeOf("example.com", "Widget")]).toEqual([true, "Cluster"]);
    await expect(c.create(widget)).resolves.toBeDefined();
  });

  it("server-side apply: records the manager's fields, removes the ones it stops setting, and conflicts with another manager's", async () => {
    const c = new MemoryCluster().seed(namespace());
    await c.apply({ ...cm, data: { key: "v", old: "o" } }, { fieldManager: "me", force: false });
    const applied = await c.apply({ ...cm, data: { key: "v" } }, { fieldManager: "me", force: false });
    expect(applied.data).toEqual({ key: "v" });
    expect(applied.metadata.managedFields).toEqual([{ manager: "me", operation: "Apply", apiVersion: "v1", fieldsV1: { "f:data": { "f:key": {} } } }]);
    const again = await c.apply({ ...cm, data: { key: "v" } }, { fieldManager: "me", force: false });
    expect(again.metadata.resourceVersion).toBe(applied.metadata.resourceVersion);
    const err = await rejection(c.apply({ ...cm, data: { key: "other" } }, { fieldManager: "you", force: false }));
    expect([err.status, err.causes.map((x) => x.reason)]).toEqual([409, ["FieldManagerConflict"]]);
    expect((await c.apply({ ...cm, data: { key: "other" } }, { fieldManager: "you", force: true })).data).toEqual({ key: "other" });
  });

  it("scripts run after the write is stored, a macrotask later: the writer sees the object as written first", async () => {
    const c = new MemoryCluster().seed(namespace());
    c.onWrite({ kind: "ConfigMap", verb: "create" }, (o) => c.setStatus(refOf(o), { ready: true }));
    const created = await c.create(cm);
    expect(created.status).toBeUndefined();
    await new Promise((r) => setTimeout(r, 5));
    expect(c.peek(ref)?.status).toEqual({ ready: true });
  });
});
