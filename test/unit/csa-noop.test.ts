// The no-op check client-side apply makes before it asks for a schema: it may only say
// "unchanged" where kubectl's three-way patch (computed with the real merge keys) is empty too,
// and it must say so for the common re-apply, or a no-op run would fetch OpenAPI for nothing.

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { lastAppliedOf, withLastApplied } from "../../src/apply/csa/last-applied.js";
import { applyMergePatch, applyStrategicPatch } from "../../src/apply/csa/apply-patch.js";
import { storedForm } from "../../src/apply/csa/stored-form.js";
import { createThreeWayMergePatch, createThreeWayStrategicPatch, isEmptyPatch } from "../../src/apply/csa/three-way-patch.js";
import { patchSchemaFor } from "../../src/apply/csa/patch-schema.js";
import { isCsaNoop, planClientSideApply } from "../../src/apply/csa/plan-csa.js";
import { containsJson, deepEqualJson } from "../../src/apply/csa/json-value.js";
import type { KubeObject } from "../../src/model/kube-object.js";
import { loadOpenApiDoc } from "../helpers/openapi-fixtures.js";

const apps = patchSchemaFor(loadOpenApiDoc("apis__apps__v1.json"), { group: "apps", version: "v1", kind: "Deployment" })!;
const core = patchSchemaFor(loadOpenApiDoc("api__v1.json"), { group: "", version: "v1", kind: "ConfigMap" })!;

const configMap = (data: Record<string, string>, labels: Record<string, string> = {}): KubeObject =>
  ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "cm", namespace: "ns", labels }, data }) as KubeObject;

const deployment = (image: string, ports: object[]): KubeObject =>
  ({
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: "web", namespace: "ns" },
    spec: { replicas: 1, selector: { matchLabels: { app: "web" } }, template: { metadata: { labels: { app: "web" } }, spec: { containers: [{ name: "app", image, ports }] } } },
  }) as KubeObject;

/** What the server returns after storing `applied`: its fields plus server-set metadata and status. */
function stored(applied: KubeObject, extra: Record<string, unknown> = {}): KubeObject {
  const o = structuredClone(withLastApplied(applied)) as KubeObject & Record<string, unknown>;
  Object.assign(o.metadata, { uid: "u-1", resourceVersion: "42", creationTimestamp: "2026-11-23T00:00:00Z", managedFields: [{ manager: "kubectl-client-side-apply" }] });
  return { ...o, status: { observedGeneration: 1 }, ...extra } as KubeObject;
}

describe("isCsaNoop", () => {
  it("says unchanged for a re-apply of what was applied, with server-set fields around it", () => {
    const cm = configMap({ a: "1" }, { tier: "web" });
    expect(isCsaNoop(cm, stored(cm))).toBe(true);
    expect(planClientSideApply(cm, stored(cm), core).op).toBe("unchanged");
  });

  it("computes the patch when the live object drifted from the package", () => {
    const cm = configMap({ a: "1" });
    const live = stored(cm);
    (live as any).data.a = "edited by hand";
    expect(isCsaNoop(cm, live)).toBe(false);
    expect(planClientSideApply(cm, live, core)).toMatchObject({ op: "patch", patch: { data: { a: "1" } } });
  });

  it("computes the patch when the package dropped a field it applied before", () => {
    const before = configMap({ a: "1", gone: "x" });
    const now = configMap({ a: "1" });
    expect(isCsaNoop(now, stored(before))).toBe(false);
    expect(planClientSideApply(now, stored(before), core)).toMatchObject({ op: "patch", patch: { data: { gone: null } } });
  });

  it("leaves lists the server filled in to the schema-aware planner", () => {
    const d = deployment("pause:3.10", [{ containerPort: 8080 }]);
    const live = stored(d);
    (live as any).spec.template.spec.containers[0].ports[0].protocol = "TCP";
    (live as any).spec.template.spec.containers[0].imagePullPolicy = "IfNotPresent";
    expect(isCsaNoop(d, live)).toBe(false);
    expect(planClientSideApply(d, live, apps).op).toBe("unchanged");
  });

  it("never says unchanged where kubectl's patch is not empty (random edits)", () => {
    const data = fc.dictionary(fc.constantFrom("a", "b", "c"), fc.constantFrom("1", "2", ""), { maxKeys: 3 });
    const port = fc.record({ containerPort: fc.constantFrom(80, 8080), protocol: fc.constantFrom("TCP", "UDP", undefined) }, { requiredKeys: ["containerPort"] });
    const ports = fc.uniqueArray(port, { selector: (p) => p.containerPort, maxLength: 2 });
    fc.assert(
      fc.property(data, data, data, fc.constantFrom("pause:3.10", "pause:3.9"), fc.constantFrom("pause:3.10", "pause:3.9"), ports, ports, (before, now, drift, img1, img2, p1, p2) => {
        const liveCm = stored(configMap(before));
        Object.assign((liveCm as any).data ?? ((liveCm as any).data = {}), drift);
        const cm = configMap(now);
        if (isCsaNoop(cm, liveCm)) expect(planClientSideApply(cm, liveCm, core).op).toBe("unchanged");
        const liveD = stored(deployment(img1, p1));
        const d = deployment(img2, p2);
        if (isCsaNoop(d, liveD)) expect(planClientSideApply(d, liveD, apps).op).toBe("unchanged");
      }),
      { numRuns: 500 },
    );
  });
});

// planClientSideApply answers "unchanged" early when the live object was last applied from this
// very configuration and lacks nothing of it; that must be exactly kubectl's answer, the full
// three-way patch being empty (or writing nothing the server would store).
describe("the unchanged shortcut", () => {
  const fullAnswer = (d: KubeObject, live: KubeObject, schema: typeof apps | undefined): "unchanged" | "patch" => {
    const original = lastAppliedOf(live);
    const modified = withLastApplied(d);
    const patch = schema ? createThreeWayStrategicPatch(original, modified, live, schema) : createThreeWayMergePatch(original, modified, live);
    if (isEmptyPatch(patch)) return "unchanged";
    const preview = schema ? applyStrategicPatch(live, patch, schema) : applyMergePatch(live, patch);
    return deepEqualJson(storedForm(preview as KubeObject, live) as never, live as never) ? "unchanged" : "patch";
  };

  it("agrees with the full patch on re-applies over drifted live objects", () => {
    const port = fc.record({ containerPort: fc.constantFrom(80, 8080), protocol: fc.constantFrom("TCP", "UDP", undefined) }, { requiredKeys: ["containerPort"] });
    const ports = fc.uniqueArray(port, { selector: (p) => p.containerPort, maxLength: 2 });
    const drift = fc.record({
      image: fc.constantFrom(undefined, "pause:3.9"),
      protocol: fc.constantFrom(undefined, "TCP", "SCTP"),
      extraPort: fc.boolean(),
      dropPorts: fc.boolean(),
      label: fc.constantFrom(undefined, "x"),
      replicas: fc.constantFrom(undefined, 3),
    });
    fc.assert(
      fc.property(fc.constantFrom("pause:3.10", "pause:3.9"), ports, drift, fc.boolean(), (image, p, dr, strategic) => {
        const d = deployment(image, p);
        const live = stored(d) as any;
        const c = live.spec.template.spec.containers[0];
        if (dr.image) c.image = dr.image;
        if (dr.protocol && c.ports[0]) c.ports[0].protocol = dr.protocol;
        if (dr.extraPort) c.ports.push({ containerPort: 9999 });
        if (dr.dropPorts) delete c.ports;
        if (dr.label) live.spec.template.metadata.labels.extra = dr.label;
        if (dr.replicas) live.spec.replicas = dr.replicas;
        const schema = strategic ? apps : undefined;
        expect(planClientSideApply(d, live, schema).op).toBe(fullAnswer(d, live, schema));
      }),
      { numRuns: 500 },
    );
  });
});

describe("containsJson", () => {
  it("allows extra object fields, not extra or different list items", () => {
    expect(containsJson({ a: 1, b: { c: 2, d: 3 } }, { b: { c: 2 } })).toBe(true);
    expect(containsJson({ a: [1, 2] }, { a: [1] })).toBe(false);
    expect(containsJson({ a: [{ x: 1, y: 2 }] }, { a: [{ x: 1 }] })).toBe(false);
    expect(containsJson({ a: "1" }, { a: 1 })).toBe(false);
    expect(containsJson({}, { a: null })).toBe(false);
  });
});

// The server folds a Secret's write-only stringData into data and never stores it, so a
// re-applied stringData Secret adds a field the live object can never show.
describe("a Secret applied with stringData", () => {
  const secretSchema = patchSchemaFor(loadOpenApiDoc("api__v1.json"), { group: "", version: "v1", kind: "Secret" })!;
  const secret = (stringData: Record<string, string>): KubeObject => ({ apiVersion: "v1", kind: "Secret", metadata: { name: "s", namespace: "ns" }, stringData }) as KubeObject;
  /** What the server keeps of it: stringData as base64 data. */
  const storedSecret = (applied: KubeObject): KubeObject => {
    const { stringData, ...rest } = stored(applied) as KubeObject & { stringData: Record<string, string> };
    return { ...rest, data: Object.fromEntries(Object.entries(stringData).map(([k, v]) => [k, Buffer.from(v).toString("base64")])) } as KubeObject;
  };

  it.each([
    ["strategic", secretSchema],
    ["merge", undefined],
  ] as const)("%s: the same values again are unchanged; a changed value is a patch", (_name, schema) => {
    const live = storedSecret(secret({ token: "a" }));
    expect(planClientSideApply(secret({ token: "a" }), live, schema).op).toBe("unchanged");
    expect(planClientSideApply(secret({ token: "b" }), live, schema).op).toBe("patch");
    expect(planClientSideApply(secret({ token: "a", extra: "x" }), live, schema).op).toBe("patch");
  });
});
