// One object's decision (plan/plan-object.ts) for what issue 22 part B adds: objects too large for
// client-side apply are applied server-side (found before anything is written, the same on every
// run), and the kpt-ts.dev annotations that leave fields to other controllers or make an object
// create-only. Pure tables: inline objects, the real apps/v1 merge schema, no cluster.

import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { lastAppliedBytes, lastAppliedValue, withLastApplied } from "../../src/apply/csa/last-applied.js";
import { patchSchemaFor } from "../../src/apply/csa/patch-schema.js";
import { leftAloneRules, parseFieldPaths, releasedManagedFields, withFieldsOf, withoutFields, ownedLeftAlone } from "../../src/apply/left-alone.js";
import { MAX_ANNOTATIONS_BYTES, storedAnnotationBytes } from "../../src/apply/stored-annotations.js";
import { planNote } from "../../src/diff/change-set.js";
import { decideObject, needsMergeSchema, settleRemovalPatch, type ObjectPlanOptions } from "../../src/plan/plan-object.js";
import type { KubeObject } from "../../src/model/kube-object.js";
import type { PlannedApply } from "../../src/model/plan.js";
import { loadOpenApiDoc } from "../helpers/openapi-fixtures.js";

const apps = patchSchemaFor(loadOpenApiDoc("apis__apps__v1.json"), { group: "apps", version: "v1", kind: "Deployment" })!;

const CSA: ObjectPlanOptions = { serverSide: false, fieldManager: "kpt-ts", inventoryId: "inv-1", inventoryPolicy: "strict" } as ObjectPlanOptions;
const SSA: ObjectPlanOptions = { ...CSA, serverSide: true };
const OWNED = { "config.k8s.io/owning-inventory": "inv-1" };

function deployment(replicas: number, annotations: Record<string, string> = {}, image = "nginx:1"): KubeObject {
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: "web", namespace: "ns", annotations: { ...OWNED, ...annotations } },
    spec: { replicas, selector: { matchLabels: { app: "web" } }, template: { metadata: { labels: { app: "web" } }, spec: { containers: [{ name: "app", image }] } } },
  } as KubeObject;
}

/** A CRD-like object whose schema text is `bytes` long: the size that decides the apply method. */
function bigObject(bytes: number): KubeObject {
  return { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "big", namespace: "ns", annotations: { ...OWNED } }, data: { blob: "x".repeat(bytes) } } as KubeObject;
}

/** What the server stores after a client-side apply of `sent` (the last-applied annotation as sent). */
function storedCsa(sent: KubeObject, change: (o: any) => void = () => {}): KubeObject {
  const o = structuredClone(sent) as any;
  Object.assign(o.metadata, { uid: "u-1", resourceVersion: "7", managedFields: [{ manager: "kubectl-client-side-apply", operation: "Update", fieldsV1: {} }] });
  change(o);
  return o as KubeObject;
}

describe("objects too large for client-side apply", () => {
  // The limit counts keys and values of all annotations; the last-applied copy holds the whole
  // object once more, so an object of ~256 KiB of data crosses it with client-side apply only.
  const small = bigObject(100 * 1024);
  const large = bigObject(200 * 1024);
  const huge = bigObject(300 * 1024);
  it.each([
    { name: "100 KiB of data: client-side apply fits", object: small, options: CSA, method: "client-side", reason: false },
    { name: "200 KiB of data: fits too (one copy of 200 KiB)", object: large, options: CSA, method: "client-side", reason: false },
    { name: "300 KiB of data: the copy would not fit, applied server-side", object: huge, options: CSA, method: "server-side", reason: true },
    { name: "--server-side: server-side, no reason to give", object: huge, options: SSA, method: "server-side", reason: false },
  ])("$name", ({ object, options, method, reason }) => {
    const d = decideObject(object, undefined, undefined, options);
    expect(d.operation).toBe("create");
    expect(d.method).toBe(method);
    expect(d.methodReason !== undefined).toBe(reason);
    if (reason) expect(d.methodReason).toMatch(/too large for client-side apply: .* over the 256 KiB/);
    // A server-side apply carries no client-side patch; the executor sends the object as it is.
    if (method === "server-side") expect(d.csa).toBeUndefined();
  });

  it("the measure is the server's: keys and values in bytes, the last-applied copy included", () => {
    const o = bigObject(10);
    const base = storedAnnotationBytes(o, "server-side");
    expect(base).toBe(Buffer.byteLength("config.k8s.io/owning-inventory") + Buffer.byteLength("inv-1"));
    expect(storedAnnotationBytes(o, "client-side")).toBeGreaterThan(base + JSON.stringify(o).length - 10);
    // Multi-byte characters count as bytes, not as characters.
    const wide = bigObject(0);
    (wide as any).data.blob = "é".repeat(140 * 1024);
    expect(storedAnnotationBytes(wide, "client-side")).toBeGreaterThan(MAX_ANNOTATIONS_BYTES);
  });

  it("the last-applied copy is measured to the byte of what kubectl would write (Go's escapes of <, >, &, U+2028, U+2029; multi-byte text)", () => {
    const text = fc.string({ unit: fc.constantFrom("a", "<", ">", "&", "\u2028", "\u2029", "é", "😀", '"', "\\", "\n", "\u0001") });
    fc.assert(
      fc.property(fc.dictionary(text, fc.oneof(text, fc.integer(), fc.array(text, { maxLength: 3 }))), fc.dictionary(text, text, { maxKeys: 3 }), (data, annotations) => {
        const o = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "m", namespace: "ns", annotations }, data } as unknown as KubeObject;
        expect(lastAppliedBytes(o)).toBe(Buffer.byteLength(lastAppliedValue(o)));
      }),
      { numRuns: 300 },
    );
  });

  it("on every later run the same: an object applied server-side is decided server-side again, unchanged when it is as applied", () => {
    const live = storedCsa(huge, (o) => {
      o.metadata.managedFields = [{ manager: "kpt-ts", operation: "Apply", fieldsV1: { "f:data": { "f:blob": {} }, "f:metadata": { "f:annotations": { "f:config.k8s.io/owning-inventory": {} } } } }];
    });
    const d = decideObject(huge, live, undefined, CSA);
    expect(d).toMatchObject({ method: "server-side", operation: "unchanged" });
    expect(d.methodReason).toBeDefined();
    // No OpenAPI document is needed for it.
    expect(needsMergeSchema(huge, live, false)).toBe(false);
  });

  it("the plan says it (live diff, --dry-run and the plan's JSON read the same note)", () => {
    const d = decideObject(huge, undefined, undefined, CSA);
    expect(planNote({ ref: { group: "", kind: "ConfigMap", name: "big", namespace: "ns" }, object: huge, source: { file: "big.yaml", line: 1 }, ...d } as PlannedApply)).toMatch(/^applied server-side: too large/);
  });
});

describe("kpt-ts.dev/ignore-fields and kpt-ts.dev/create-only: the rules", () => {
  it.each([
    { text: "spec.replicas", want: [[{ key: "spec" }, { key: "replicas" }]] },
    { text: "spec.replicas, spec.template.spec.containers[name=app].resources", want: [[{ key: "spec" }, { key: "replicas" }], [{ key: "spec" }, { key: "template" }, { key: "spec" }, { key: "containers" }, { field: "name", value: "app" }, { key: "resources" }]] },
    { text: 'metadata.annotations["example.com/hash"]\nspec.replicas', want: [[{ key: "metadata" }, { key: "annotations" }, { key: "example.com/hash" }], [{ key: "spec" }, { key: "replicas" }]] },
  ])("parses $text", ({ text, want }) => {
    const parsed = parseFieldPaths(text);
    expect("paths" in parsed && parsed.paths.map((p) => p.steps)).toEqual(want);
  });

  it.each([
    { name: "an empty list", annotations: { "kpt-ts.dev/ignore-fields": " , " }, problem: /no field paths given/ },
    { name: "a stray bracket", annotations: { "kpt-ts.dev/ignore-fields": "spec.containers[name]" }, problem: /expected \["key"\] or \[field=value\]/ },
    { name: "the object's name", annotations: { "kpt-ts.dev/ignore-fields": "metadata.name" }, problem: /names the object/ },
    { name: "the inventory annotation", annotations: { "kpt-ts.dev/ignore-fields": 'metadata.annotations["config.k8s.io/owning-inventory"]' }, problem: /which inventory owns the object/ },
    { name: "create-only not a boolean", annotations: { "kpt-ts.dev/create-only": "yes" }, problem: /must be "true" or "false"/ },
    // Issue 35: the members every JavaScript object inherits are no field of the object.
    { name: "a __proto__ key", annotations: { "kpt-ts.dev/ignore-fields": 'data["__proto__"].x' }, problem: /names "__proto__", which is not a field of the object/ },
    { name: "a bare __proto__ step", annotations: { "kpt-ts.dev/ignore-fields": "spec.__proto__" }, problem: /names "__proto__"/ },
    { name: "a constructor key", annotations: { "kpt-ts.dev/ignore-fields": "spec.constructor.name" }, problem: /names "constructor"/ },
    { name: "a prototype key", annotations: { "kpt-ts.dev/ignore-fields": 'spec["prototype"]' }, problem: /names "prototype"/ },
    { name: "a selector on constructor", annotations: { "kpt-ts.dev/ignore-fields": 'spec.template.spec.containers[constructor="function Object() { [native code] }"].image' }, problem: /names "constructor"/ },
    { name: "a selector on __proto__", annotations: { "kpt-ts.dev/ignore-fields": "spec.template.spec.containers[__proto__=x]" }, problem: /names "__proto__"/ },
    { name: "the last-applied annotation", annotations: { "kpt-ts.dev/ignore-fields": 'metadata.annotations["kubectl.kubernetes.io/last-applied-configuration"]' }, problem: /client-side apply's own record/ },
  ])("refuses $name", ({ annotations, problem }) => {
    const { problems } = leftAloneRules(deployment(1, annotations as unknown as Record<string, string>));
    expect(problems.join("\n")).toMatch(problem);
  });

  it("accepts a selector's value that names an inherited member: it is only text to compare", () => {
    expect(leftAloneRules(deployment(1, { "kpt-ts.dev/ignore-fields": "spec.template.spec.containers[name=constructor].image" })).problems).toEqual([]);
  });

  it("walks own fields only: a field and a list item named like an inherited member are the object's own, nothing else is reached", () => {
    const obj = JSON.parse('{"data":{"keep":"1"},"spec":{"items":[{"name":"a","v":1},{"name":"b","v":2}]}}');
    // A selector compares own fields: no item has an own toString, whatever the text.
    const paths = (parseFieldPaths('spec.items[name=a].v, spec.items[toString="function toString() { [native code] }"].v') as { paths: any }).paths;
    expect(withoutFields(obj, paths)).toEqual({ data: { keep: "1" }, spec: { items: [{ name: "a" }, { name: "b", v: 2 }] } });
    // Paths the parser refuses, built by hand: the walks themselves reach no inherited member
    // either, so nothing is sent that the package does not hold (a dry run sent "__proto__": {}).
    const inherited = [{ text: 'data["__proto__"].x', steps: [{ key: "data" }, { key: "__proto__" }, { key: "x" }] }];
    expect(JSON.stringify(withFieldsOf({ data: {} }, { data: {} }, inherited))).toBe('{"data":{}}');
    expect(JSON.stringify(withoutFields({ data: {} }, inherited))).toBe('{"data":{}}');
    const ctor = [{ text: "spec.items[constructor=...]", steps: [{ key: "spec" }, { key: "items" }, { field: "constructor", value: String(Object) }] }];
    expect(withoutFields(obj, ctor)).toEqual(obj);
    expect(releasedManagedFields([{ manager: "kpt-ts", operation: "Apply", fieldsV1: { "f:data": { "f:x": {} } } }] as any, "kpt-ts", inherited)).toBeUndefined();
  });

  it("withoutFields drops the named fields and list items, leaving the input as it was", () => {
    const d = deployment(3);
    const paths = (parseFieldPaths("spec.replicas, spec.template.spec.containers[name=app].image") as { paths: any }).paths;
    const out = withoutFields(d, paths) as any;
    expect(out.spec.replicas).toBeUndefined();
    expect(out.spec.template.spec.containers).toEqual([{ name: "app" }]);
    expect((d as any).spec.replicas).toBe(3);
  });

  it("server-side: the fields our manager owns are given up, the others' entries untouched", () => {
    const paths = (parseFieldPaths("spec.replicas") as { paths: any }).paths;
    const entries = [
      { manager: "kpt-ts", operation: "Apply", fieldsV1: { "f:spec": { "f:replicas": {}, "f:selector": {} } } },
      { manager: "hpa", operation: "Update", fieldsV1: { "f:spec": { "f:replicas": {} } } },
    ];
    const released = releasedManagedFields(entries as any, "kpt-ts", paths)!;
    expect(released[0]!.fieldsV1).toEqual({ "f:spec": { "f:selector": {} } });
    expect(released[1]).toBe(entries[1]);
    expect(releasedManagedFields(released, "kpt-ts", paths)).toBeUndefined();
    expect(ownedLeftAlone({ ...deployment(1), metadata: { ...deployment(1).metadata, managedFields: entries } } as KubeObject, "kpt-ts", paths)).toEqual(["spec.replicas"]);
  });
});

describe("an HPA's replicas left alone (kpt-ts.dev/ignore-fields: spec.replicas)", () => {
  const IGNORE = { "kpt-ts.dev/ignore-fields": "spec.replicas" };
  // Applied client-side with the rule in place, then scaled to 5 by someone else.
  const appliedWithRule = (replicas: number) => {
    const sent = decideObject(deployment(2, IGNORE), undefined, undefined, CSA).csa as { op: "create"; body: KubeObject };
    return storedCsa(sent.body, (o) => (o.spec.replicas = replicas));
  };
  // Applied client-side without the rule (last-applied says 2), then scaled to 5.
  const appliedWithoutRule = storedCsa(withLastApplied(deployment(2)), (o) => (o.spec.replicas = 5));

  it.each([
    { name: "created: the replicas are sent", pkg: deployment(2, IGNORE), live: undefined, operation: "create", replicas: 2 },
    { name: "scaled to 5, re-applied with the rule: unchanged, 5 stays", pkg: deployment(2, IGNORE), live: appliedWithRule(5), operation: "unchanged", replicas: 5 },
    { name: "scaled to 5, the rule added now: the patch does not touch the replicas", pkg: deployment(2, IGNORE, "nginx:2"), live: appliedWithoutRule, operation: "update", replicas: 5 },
    { name: "scaled to 5, no rule: reset to 2", pkg: deployment(2), live: appliedWithoutRule, operation: "update", replicas: 2 },
    { name: "another change with the rule: applied, replicas stay", pkg: deployment(2, IGNORE, "nginx:2"), live: appliedWithRule(5), operation: "update", replicas: 5 },
  ])("client-side: $name", ({ pkg, live, operation, replicas }) => {
    const d = decideObject(pkg, live, apps, CSA);
    expect(d.operation).toBe(operation);
    const after: any = d.csa?.op === "create" ? d.csa.body : d.csa?.op === "patch" ? d.csa.preview : live;
    expect(after.spec.replicas).toBe(replicas);
    if (live && pkg.metadata.annotations!["kpt-ts.dev/ignore-fields"]) expect(d.leftAlone).toEqual({ fields: ["spec.replicas"] });
  });

  it("the last-applied copy a create stores leaves the replicas out, as every later apply computes it", () => {
    const d = decideObject(deployment(2, IGNORE), undefined, undefined, CSA);
    const body = (d.csa as { body: KubeObject }).body;
    expect(body.spec).toMatchObject({ replicas: 2 });
    const lastApplied = JSON.parse(body.metadata.annotations!["kubectl.kubernetes.io/last-applied-configuration"]!);
    expect(lastApplied.spec.replicas).toBeUndefined();
  });

  it("server-side: sent without the replicas; owned ones are given up first", () => {
    const live = storedCsa(deployment(2, IGNORE), (o) => {
      o.metadata.managedFields = [{ manager: "kpt-ts", operation: "Apply", fieldsV1: { "f:spec": { "f:replicas": {}, "f:template": {} } } }];
      o.spec.replicas = 5;
    });
    const d = decideObject(deployment(2, IGNORE), live, undefined, SSA);
    expect(d.operation).toBe("update");
    expect((d.sent as any).spec.replicas).toBeUndefined();
    expect(d.leftAlone).toEqual({ fields: ["spec.replicas"], release: ["spec.replicas"] });
  });
});

describe("switching to server-side apply: the migration of client-side field ownership is the plan's", () => {
  // kubectl's client-side applier owns the last-applied annotation: what csaupgrade migrates.
  const csaEntry = { manager: "kubectl-client-side-apply", operation: "Update", fieldsV1: { "f:metadata": { "f:annotations": { "f:kubectl.kubernetes.io/last-applied-configuration": {} } }, "f:spec": { "f:replicas": {} } } };
  const ssaEntry = { manager: "kpt-ts", operation: "Apply", fieldsV1: { "f:spec": { "f:replicas": {} } } };
  const applied = (entries: object[]) => storedCsa(withLastApplied(deployment(2)), (o) => (o.metadata.managedFields = entries));
  it.each([
    { name: "applied client-side, now server-side: update, migrated first", live: applied([csaEntry]), options: SSA, migrate: true },
    { name: "applied server-side before: update, nothing to migrate", live: applied([ssaEntry]), options: SSA, migrate: false },
    { name: "client-side again: nothing to migrate", live: applied([csaEntry]), options: CSA, migrate: false },
  ])("$name", ({ live, options, migrate }) => {
    const d = decideObject(deployment(3), live, apps, options);
    expect(d.operation).toBe("update");
    expect(d.migrate === true).toBe(migrate);
  });
});

describe("kpt-ts.dev/create-only", () => {
  const ONLY = { "kpt-ts.dev/create-only": "true" };
  it.each([
    { name: "missing: created", live: undefined, options: CSA, operation: "create" },
    { name: "exists and differs, client-side: unchanged", live: storedCsa(withLastApplied(deployment(9))), options: CSA, operation: "unchanged" },
    { name: "exists and differs, server-side: unchanged", live: storedCsa(deployment(9)), options: SSA, operation: "unchanged" },
  ])("$name", ({ live, options, operation }) => {
    const d = decideObject(deployment(1, ONLY), live, apps, options);
    expect(d.operation).toBe(operation);
    if (live) {
      expect(d.leftAlone).toEqual({ createOnly: true });
      expect(planNote({ ...d, live } as PlannedApply)).toBe("create-only: it exists, so it is left as it is");
      expect(needsMergeSchema(deployment(1, ONLY), live, false)).toBe(false);
    }
  });

  it("false is the same as no annotation", () => {
    const live = storedCsa(withLastApplied(deployment(9)));
    expect(decideObject(deployment(1, { "kpt-ts.dev/create-only": "false" }), live, apps, CSA).operation).toBe("update");
  });
});

describe("a client-side patch that only takes away what the server defaults (metrics-server's $retainKeys)", () => {
  // The package sets strategy.rollingUpdate only; the server fills in strategy.type and
  // maxSurge. kubectl's patch carries `$retainKeys: [rollingUpdate]`, which would drop `type`,
  // and the server defaults it straight back: kubectl and kpt write this every run.
  const pkg = (): KubeObject => {
    const d = deployment(1) as any;
    delete d.spec.replicas;
    d.spec.strategy = { rollingUpdate: { maxUnavailable: 0 } };
    return d as KubeObject;
  };
  const live = storedCsa(withLastApplied(pkg()), (o) => {
    o.spec.replicas = 1;
    o.spec.strategy = { type: "RollingUpdate", rollingUpdate: { maxUnavailable: 0, maxSurge: "25%" } };
    // Defaults inside list items, which the quick no-op test cannot see past.
    o.spec.template.spec.containers[0].terminationMessagePolicy = "File";
  });

  it("is planned as an update that only removes, for the server's dry run to settle", () => {
    const d = decideObject(pkg(), live, apps, CSA);
    expect(d.operation).toBe("update");
    expect(d.csa).toMatchObject({ op: "patch", serverMaySettle: true });
  });

  it.each([
    { name: "the dry run stores the live object as it is (defaults filled back): unchanged", stored: live, operation: "unchanged" },
    { name: "the dry run stores something else: still the update", stored: { ...live, spec: { ...(live as any).spec, strategy: { rollingUpdate: { maxUnavailable: 0 } } } } as KubeObject, operation: "update" },
  ])("$name", ({ stored, operation }) => {
    const d = decideObject(pkg(), live, apps, CSA);
    const p = { ref: { group: "apps", kind: "Deployment", name: "web", namespace: "ns" }, object: pkg(), source: { file: "d.yaml", line: 1 }, live, ...d } as PlannedApply;
    // What every dry run changes (resourceVersion, managedFields) does not count.
    const answered = { ...stored, metadata: { ...stored.metadata, resourceVersion: "8", managedFields: [] } } as KubeObject;
    expect(settleRemovalPatch(p, answered).operation).toBe(operation);
  });

  it("a patch that changes a value the package sets is never settled away", () => {
    const changed = pkg() as any;
    changed.spec.strategy.rollingUpdate.maxUnavailable = 1;
    const d = decideObject(changed, live, apps, CSA);
    expect(d.csa).toMatchObject({ op: "patch" });
    expect((d.csa as { serverMaySettle?: true }).serverMaySettle).toBeUndefined();
  });
});

describe("a client-side patch that only adds zero values the server omits (Argo Rollouts' CRDs)", () => {
  // The package says `preserveUnknownFields: false`; the server's CRD type drops a false there, so
  // the live object never has it and kubectl's patch restates it on every apply.
  const pkg = (): KubeObject => ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c", namespace: "ns" }, data: { a: "1" }, spec: { preserveUnknownFields: false, versions: [] } }) as unknown as KubeObject;
  const live = storedCsa(withLastApplied(pkg()), (o) => {
    delete o.spec.preserveUnknownFields;
    delete o.spec.versions;
  });

  it("is planned as an update for the server's dry run to settle", () => {
    const d = decideObject(pkg(), live, undefined, CSA);
    expect(d.operation).toBe("update");
    expect(d.csa).toMatchObject({ op: "patch", serverMaySettle: true });
  });

  it("a patch that adds a value that is not a zero value is never settled away", () => {
    const changed = pkg() as any;
    changed.spec.preserveUnknownFields = true;
    const d = decideObject(changed, live, undefined, CSA);
    expect(d.csa).toMatchObject({ op: "patch" });
    expect((d.csa as { serverMaySettle?: true }).serverMaySettle).toBeUndefined();
  });
});

// Issue 35: a live last-applied annotation that cannot be read is read as missing, and said.
describe("a live last-applied annotation that is not a configuration", () => {
  const live = (lastApplied: string) =>
    storedCsa(withLastApplied(deployment(2)), (o) => {
      o.metadata.annotations["kubectl.kubernetes.io/last-applied-configuration"] = lastApplied;
      o.spec.template.spec.containers[0].env = [{ name: "DROPPED", value: "1" }];
    });

  it.each([
    { name: "not JSON", value: "{not json", problem: "is not valid JSON" },
    { name: "JSON, not an object", value: '"a string"', problem: "is not a JSON object" },
  ])("$name: the object is updated as if it had none (nothing is removed), and the plan says why", ({ value, problem }) => {
    const d = decideObject(deployment(3), live(value), apps, CSA);
    expect(d.operation).toBe("update");
    expect(d.lastAppliedUnreadable).toBe(problem);
    const after: any = (d.csa as { preview: KubeObject }).preview;
    expect(after.spec.replicas).toBe(3);
    expect(after.spec.template.spec.containers[0].env).toEqual([{ name: "DROPPED", value: "1" }]); // not known to be ours: kept
    expect(JSON.parse(after.metadata.annotations["kubectl.kubernetes.io/last-applied-configuration"]).spec.replicas).toBe(3);
    expect(planNote({ ...d, ref: { group: "apps", kind: "Deployment", namespace: "ns", name: "web" } } as unknown as PlannedApply)).toContain(`its last-applied-configuration annotation ${problem}: read as missing`);
  });

  it("a readable one, or none, is said nothing of; the secret-holding text is never quoted", () => {
    expect(decideObject(deployment(3), live(withLastApplied(deployment(2)).metadata.annotations!["kubectl.kubernetes.io/last-applied-configuration"]!), apps, CSA).lastAppliedUnreadable).toBeUndefined();
    const none = storedCsa(deployment(2), (o) => delete o.metadata.annotations["kubectl.kubernetes.io/last-applied-configuration"]);
    expect(decideObject(deployment(3), none, apps, CSA).lastAppliedUnreadable).toBeUndefined();
    expect(decideObject(deployment(3), live('{"data":{"password":"c2VjcmV0"'), apps, CSA).lastAppliedUnreadable).toBe("is not valid JSON");
  });
});
