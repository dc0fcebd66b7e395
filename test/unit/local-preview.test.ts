// The preview a read-only identity gets: computed locally, with the planner apply uses.
// Client-side: the three-way merge of the package object, the last-applied annotation and the
// live object. Server-side: the same merge with the fields the field manager owns (managedFields)
// in the place of the annotation.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { withLastApplied } from "../../src/apply/csa/last-applied.js";
import { patchSchemaFor } from "../../src/apply/csa/patch-schema.js";
import { planClientSideApply } from "../../src/apply/csa/plan-csa.js";
import type { PatchSchema } from "../../src/apply/csa/patch-schema.js";
import { localPreviewNote, previewPlannedWrite, previewServerSide } from "../../src/apply/local-preview.js";
import { appliedByManager, projectFields } from "../../src/apply/ssa-local.js";
import { previewMigratedLocally } from "../../src/apply/ssa-migration.js";
import { MemoryCluster } from "../helpers/memory-cluster.js";
import { LAST_APPLIED_ANNOTATION, type KubeObject } from "../../src/model/kube-object.js";

const loadDoc = (file: string): unknown => JSON.parse(readFileSync(new URL(`./fixtures/openapi/${file}`, import.meta.url), "utf8"));
const deployment = patchSchemaFor(loadDoc("apis__apps__v1.json"), { group: "apps", version: "v1", kind: "Deployment" })!;
const configMapSchema = patchSchemaFor(loadDoc("api__v1.json"), { group: "", version: "v1", kind: "ConfigMap" })!;
const obj = (yaml: string): KubeObject => parse(yaml) as KubeObject;

const cm = (data: Record<string, string>, extra: Record<string, unknown> = {}): KubeObject => ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "cfg", namespace: "app" }, data, ...extra });

/** A live object as the server keeps it after a client-side apply of `applied`, with `drift` changed by others since. */
function liveAfterCsa(applied: KubeObject, drift: (o: KubeObject) => KubeObject = (o) => o): KubeObject {
  const stored = withLastApplied(applied);
  return drift({ ...stored, metadata: { ...stored.metadata, uid: "u1", resourceVersion: "7", creationTimestamp: "2026-01-01T00:00:00Z" } });
}

/** What a client-side dry run shows: the planner's write, applied locally. */
const previewCsa = (desired: KubeObject, live: KubeObject | undefined, schema: PatchSchema | undefined = configMapSchema) => previewPlannedWrite(planClientSideApply(desired, live, live ? schema : undefined), live);

describe("a client-side apply previewed locally (its planned write)", () => {

  it("a new object is the package object with its last-applied annotation, as apply creates it", () => {
    const want = cm({ color: "blue" });
    const got = previewCsa(want, undefined);
    expect(got.data).toEqual({ color: "blue" });
    expect(JSON.parse(got.metadata.annotations![LAST_APPLIED_ANNOTATION]!)).toMatchObject({ data: { color: "blue" } });
  });

  it("a changed value: the package's value, server bookkeeping kept, the annotation updated", () => {
    const live = liveAfterCsa(cm({ color: "blue", size: "s" }));
    const got = previewCsa(cm({ color: "green", size: "s" }), live);
    expect(got.data).toEqual({ color: "green", size: "s" });
    expect(got.metadata.uid).toBe("u1");
    expect(JSON.parse(got.metadata.annotations![LAST_APPLIED_ANNOTATION]!).data).toEqual({ color: "green", size: "s" });
  });

  it("removes what the package dropped since it was last applied, and keeps what others added", () => {
    const live = liveAfterCsa(cm({ color: "blue", old: "x" }), (o) => ({ ...o, data: { ...(o.data as object), theirs: "y" } }));
    expect(previewCsa(cm({ color: "blue" }), live).data).toEqual({ color: "blue", theirs: "y" });
  });

  it("an object already as the package has it is returned as it stands", () => {
    const live = liveAfterCsa(cm({ color: "blue" }));
    expect(previewCsa(cm({ color: "blue" }), live)).toBe(live);
  });

  it("merges lists by their merge keys (strategic merge): a container's image changes, a sidecar someone added stays", () => {
    const applied = obj(`apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: app}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: web, image: "nginx:1.25"}]
`);
    const live = liveAfterCsa(applied, (o) => {
      const c = structuredClone(o) as any;
      c.spec.template.spec.containers.push({ name: "mesh", image: "proxy:1" });
      return c;
    });
    const want = structuredClone(applied) as any;
    want.spec.template.spec.containers[0].image = "nginx:1.27";
    const got = previewCsa(want, live, deployment) as any;
    expect(got.spec.template.spec.containers).toEqual([
      { name: "web", image: "nginx:1.27" },
      { name: "mesh", image: "proxy:1" },
    ]);
  });

  it("without a schema (custom resources) uses the JSON merge patch: lists are replaced whole", () => {
    const applied: KubeObject = { apiVersion: "example.com/v1", kind: "Widget", metadata: { name: "w", namespace: "app" }, spec: { items: ["a", "b"] } };
    const live = liveAfterCsa(applied);
    const got = previewCsa({ ...applied, spec: { items: ["c"] } }, live, undefined);
    expect(got.spec).toEqual({ items: ["c"] });
  });
});

describe("a server-side apply previewed locally", () => {
  const ssa = { fieldManager: "kpt", schema: configMapSchema };
  const live = cm(
    { color: "blue", old: "x", theirs: "y" },
    {},
  );
  live.metadata.managedFields = [
    { manager: "kpt", operation: "Apply", fieldsType: "FieldsV1", fieldsV1: { "f:data": { "f:color": {}, "f:old": {} } } },
    { manager: "someone", operation: "Update", fieldsType: "FieldsV1", fieldsV1: { "f:data": { "f:theirs": {} } } },
  ];

  it("what the field manager applied is read from managedFields", () => {
    expect(appliedByManager(live, "kpt")).toEqual({ data: { color: "blue", old: "x" } });
    expect(appliedByManager(live, "nobody")).toEqual({});
  });

  it("reads own fields only: fieldsV1 keys a server sent as f:__proto__ or f:constructor reach no inherited member (issue 35)", () => {
    const fields = JSON.parse('{"f:data":{"f:__proto__":{"f:x":{}},"f:constructor":{},"f:color":{}}}');
    const got = projectFields(fields, { data: { color: "blue" } });
    expect(JSON.stringify(got)).toBe('{"data":{"color":"blue"}}');
    expect(Object.getPrototypeOf((got as any).data)).toBe(Object.prototype);
  });

  it("projects list items by key", () => {
    const fields = { "f:spec": { "f:ports": { 'k:{"port":80,"protocol":"TCP"}': { ".": {}, "f:port": {} } } } };
    expect(projectFields(fields, { spec: { ports: [{ port: 80, protocol: "TCP", name: "http" }, { port: 90, protocol: "TCP" }] } })).toEqual({ spec: { ports: [{ port: 80 }] } });
  });

  it("the package's values win, fields the manager owned and dropped go, fields others own stay", () => {
    const got = previewServerSide(cm({ color: "green" }), live, ssa);
    expect(got.data).toEqual({ color: "green", theirs: "y" });
    // No last-applied annotation: server-side apply does not write one.
    expect(got.metadata.annotations?.[LAST_APPLIED_ANNOTATION]).toBeUndefined();
  });

  it("a manager that never applied removes nothing", () => {
    expect(previewServerSide(cm({ color: "green" }), live, { ...ssa, fieldManager: "new" }).data).toEqual({ color: "green", old: "x", theirs: "y" });
  });

  it("a new object is the package object", () => {
    expect(previewServerSide(cm({ a: "1" }), undefined, ssa)).toEqual(cm({ a: "1" }));
  });
});

describe("local previews of Secrets", () => {
  const b64 = (v: string) => Buffer.from(v).toString("base64");
  const secret = (body: Record<string, unknown>): KubeObject => ({ apiVersion: "v1", kind: "Secret", metadata: { name: "db", namespace: "app" }, ...body });

  it.each([false, true])("stringData ends up in data, as the server stores it (server-side: %s)", (serverSide) => {
    const live = liveAfterCsa(secret({ stringData: { password: "first" } }), (o) => {
      const { stringData: _s, ...rest } = o;
      return { ...rest, data: { password: b64("first"), other: b64("kept") } };
    });
    const desired = secret({ stringData: { password: "second" } });
    const got = serverSide ? previewServerSide(desired, live, { fieldManager: "kubectl", schema: undefined }) : previewCsa(desired, live, undefined);
    expect(got.stringData).toBeUndefined();
    expect(got.data).toEqual({ password: b64("second"), other: b64("kept") });
  });
});

describe("localPreviewNote", () => {
  it("is one line that says why and what a local preview cannot see", () => {
    for (const serverSide of [false, true]) {
      const note = localPreviewNote('the server refused dry-run writes: forbidden: user "ci" may not patch configmaps in namespace app', serverSide);
      expect(note).not.toContain("\n");
      expect(note).toMatch(/^Preview computed locally \(the server refused dry-run writes: .*may not patch configmaps/);
      expect(note).toMatch(/admission webhooks/);
      expect(note).toMatch(/defaulting/);
      expect(note).toContain(serverSide ? "field manager" : "last-applied annotation");
    }
  });
});

describe("a server-side apply previewed locally after a client-side apply (issue 36)", () => {
  const serviceSchema = patchSchemaFor(loadDoc("api__v1.json"), { group: "", version: "v1", kind: "Service" })!;
  /** The Service as the package has it (v1 applied client-side; v2 previewed server-side). */
  const svc = (labels: Record<string, string>, spec: Record<string, unknown> = {}): KubeObject => ({
    apiVersion: "v1",
    kind: "Service",
    metadata: { name: "web", namespace: "app", labels },
    spec: { selector: { app: "web" }, ports: [{ name: "http", port: 80 }], ...spec },
  });
  /**
   * As the server keeps it after kubectl-client-side-apply created it: the defaults it filled in
   * (type, sessionAffinity, a port's protocol and targetPort), all owned by the client-side
   * applier, which also owns the last-applied annotation.
   */
  function createdClientSide(applied: KubeObject): KubeObject {
    const stored = withLastApplied(applied);
    const spec = stored.spec as Record<string, unknown>;
    return {
      ...stored,
      metadata: {
        ...stored.metadata,
        uid: "u1",
        resourceVersion: "7",
        managedFields: [
          {
            manager: "kubectl-client-side-apply",
            operation: "Update",
            apiVersion: "v1",
            fieldsType: "FieldsV1",
            fieldsV1: {
              "f:metadata": { "f:annotations": { ".": {}, [`f:${LAST_APPLIED_ANNOTATION}`]: {} }, "f:labels": Object.fromEntries(Object.keys(applied.metadata.labels ?? {}).map((k) => [`f:${k}`, {}])) },
              "f:spec": {
                "f:internalTrafficPolicy": {},
                "f:ports": { ".": {}, 'k:{"port":80,"protocol":"TCP"}': { ".": {}, "f:name": {}, "f:port": {}, "f:protocol": {}, "f:targetPort": {} } },
                "f:selector": {},
                "f:sessionAffinity": {},
                "f:type": {},
              },
            },
          },
        ],
      },
      spec: { ...spec, clusterIP: "10.0.0.7", internalTrafficPolicy: "Cluster", ports: [{ name: "http", port: 80, protocol: "TCP", targetPort: 80 }], sessionAffinity: "None", type: "ClusterIP" },
    };
  }
  const preview = (desired: KubeObject, live: KubeObject) =>
    previewMigratedLocally(new MemoryCluster().seed(live), { group: "", kind: "Service", namespace: "app", name: "web" }, desired, "kubectl", { release: [], leftAlone: [], schema: serviceSchema });

  it("keeps what the server filled in, which the client-side applier owns but never sent: the server fills it in again", async () => {
    const live = createdClientSide(svc({ app: "web" }));
    const got = await preview(svc({ app: "web" }), live);
    expect(got?.spec).toEqual(live.spec);
    expect(got?.metadata.labels).toEqual({ app: "web" });
  });

  it("removes what the client-side applier sent and the package dropped, as the migrated apply removes it", async () => {
    const live = createdClientSide(svc({ app: "web", tier: "front" }));
    const got = await preview(svc({ app: "web" }), live);
    expect(got?.metadata.labels).toEqual({ app: "web" });
    expect(got?.spec).toEqual(live.spec);
  });

  it("the package's changes win", async () => {
    const live = createdClientSide(svc({ app: "web" }));
    const got = await preview(svc({ app: "web" }, { sessionAffinity: "ClientIP" }), live);
    expect((got?.spec as Record<string, unknown>).sessionAffinity).toBe("ClientIP");
    expect((got?.spec as Record<string, unknown>).type).toBe("ClusterIP");
  });
});
