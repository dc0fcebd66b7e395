// Client-side → server-side migration (kubectl's csaupgrade): which entries become whose, table by
// table on the managedFields the API server writes for a ConfigMap applied client-side.

import { describe, expect, it } from "vitest";
import { clientSideManagers, migratedManagedFields, migrationPatch, unionFields, upgradeManagedFields } from "../../src/apply/csa-upgrade.js";
import { isSsaNoop } from "../../src/apply/ssa-noop.js";
import { clientSideMarker, type ManagedFieldsEntry } from "../../src/model/managed-fields.js";
import type { KubeObject } from "../../src/model/kube-object.js";

const LA = "f:kubectl.kubernetes.io/last-applied-configuration";
const TIME = "2026-01-01T00:00:00Z";
const NOW = new Date("2026-02-02T10:00:00.123Z");

/** What `kubectl apply` (client-side) of data {a, b} leaves. */
const csa = (apiVersion = "v1", manager = "kubectl-client-side-apply"): ManagedFieldsEntry => ({
  manager,
  operation: "Update",
  apiVersion,
  time: TIME,
  fieldsType: "FieldsV1",
  fieldsV1: { "f:data": { ".": {}, "f:a": {}, "f:b": {} }, "f:metadata": { "f:annotations": { ".": {}, [LA]: {} } } },
});
const ssa = (manager: string, fields: object, apiVersion = "v1"): ManagedFieldsEntry => ({ manager, operation: "Apply", apiVersion, time: TIME, fieldsType: "FieldsV1", fieldsV1: fields });
const lastAppliedEntry: ManagedFieldsEntry = { manager: "kubectl-last-applied", operation: "Apply", apiVersion: "v1", time: "2026-02-02T10:00:00Z", fieldsType: "FieldsV1", fieldsV1: { "f:metadata": { "f:annotations": { [LA]: {} } } } };
const controller: ManagedFieldsEntry = { manager: "kube-controller-manager", operation: "Update", apiVersion: "v1", time: TIME, fieldsType: "FieldsV1", fieldsV1: { "f:data": { "f:c": {} } } };

function configMap(managedFields: ManagedFieldsEntry[], annotated = true): KubeObject {
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: {
      name: "cm",
      namespace: "ns",
      resourceVersion: "42",
      ...(annotated ? { annotations: { "kubectl.kubernetes.io/last-applied-configuration": '{"apiVersion":"v1","data":{"a":"1","b":"2"},"kind":"ConfigMap"}\n' } } : {}),
      managedFields,
    },
    data: { a: "1", b: "2" },
  };
}

const union = { "f:data": { ".": {}, "f:a": {}, "f:b": {} }, "f:metadata": { "f:annotations": { ".": {}, [LA]: {} } } };

describe("migratedManagedFields", () => {
  it.each<[string, ManagedFieldsEntry[], string, ManagedFieldsEntry[] | undefined]>([
    ["client-side only, manager kubectl: the entry becomes kubectl's Apply, and kubectl-last-applied keeps the annotation", [csa()], "kubectl", [{ ...csa(), manager: "kubectl", operation: "Apply" }, lastAppliedEntry]],
    ["client-side only, another manager: no entry for the annotation (the server would not keep it current)", [csa()], "deployer", [{ ...csa(), manager: "deployer", operation: "Apply" }]],
    ["an Apply entry exists: the client-side fields join it", [ssa("kubectl", { "f:data": { "f:a": {} } }), csa()], "kubectl", [ssa("kubectl", union), lastAppliedEntry]],
    ["an Apply entry already owns the annotation: none is added for it", [ssa("kubectl-last-applied", { "f:metadata": { "f:annotations": { [LA]: {} } } }), csa()], "kubectl", [ssa("kubectl-last-applied", { "f:metadata": { "f:annotations": { [LA]: {} } } }), { ...csa(), manager: "kubectl", operation: "Apply" }]],
    ["another version's client-side entry is dropped, not merged", [ssa("kubectl", { "f:data": { "f:a": {} } }, "v2"), csa("v1")], "kubectl", [ssa("kubectl", { "f:data": { "f:a": {} } }, "v2"), lastAppliedEntry]],
    ["other Update managers (controllers) keep their fields", [controller, csa()], "kubectl", [controller, { ...csa(), manager: "kubectl", operation: "Apply" }, lastAppliedEntry]],
    ["every client-side applier that owns the annotation is migrated", [csa("v1", "old-tool"), csa()], "kubectl", [{ ...csa("v1", "old-tool"), manager: "kubectl", operation: "Apply" }, lastAppliedEntry]],
    ["nothing applied client-side: nothing to do", [ssa("kubectl", { "f:data": { "f:a": {} } }), controller], "kubectl", undefined],
  ])("%s", (_name, entries, manager, expected) => {
    expect(migratedManagedFields(configMap(entries), manager, NOW)).toEqual(expected);
  });

  it("does not keep an annotation the object does not have", () => {
    expect(migratedManagedFields(configMap([csa()], false), "kubectl", NOW)).toEqual([{ ...csa(), manager: "kubectl", operation: "Apply" }]);
  });
});

describe("upgradeManagedFields", () => {
  it("leaves a status subresource's Update entry alone", () => {
    const status = { ...csa(), subresource: "status" };
    expect(upgradeManagedFields([status], ["kubectl-client-side-apply"], "kubectl")).toEqual([status]);
  });
});

describe("unionFields", () => {
  it.each([
    ["disjoint", { "f:a": {} }, { "f:b": {} }, { "f:a": {}, "f:b": {} }],
    ["nested", { "f:spec": { "f:x": {} } }, { "f:spec": { ".": {}, "f:y": {} } }, { "f:spec": { "f:x": {}, ".": {}, "f:y": {} } }],
    ["list items", { "f:l": { 'k:{"name":"a"}': { ".": {} } } }, { "f:l": { 'k:{"name":"b"}': { ".": {} } } }, { "f:l": { 'k:{"name":"a"}': { ".": {} }, 'k:{"name":"b"}': { ".": {} } } }],
  ])("%s", (_name, a, b, expected) => {
    expect(unionFields(a, b)).toEqual(expected);
  });
});

describe("migrationPatch", () => {
  it("replaces managedFields and is guarded by the resourceVersion read", () => {
    expect(migrationPatch([], "42")).toEqual([
      { op: "replace", path: "/metadata/managedFields", value: [] },
      { op: "replace", path: "/metadata/resourceVersion", value: "42" },
    ]);
  });
});

describe("the live cache's marker of a client-side applier", () => {
  it("still names the applier, and makes a server-side re-apply not a no-op", () => {
    const marked = configMap([ssa("kubectl", { "f:data": { "f:a": {}, "f:b": {} } }), clientSideMarker(csa())]);
    expect(clientSideManagers(marked)).toEqual(new Set(["kubectl-client-side-apply"]));
    const desired: KubeObject = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "cm", namespace: "ns" }, data: { a: "1", b: "2" } };
    expect(isSsaNoop(desired, marked, "kubectl")).toBe(false);
    expect(isSsaNoop(desired, configMap([ssa("kubectl", { "f:data": { "f:a": {}, "f:b": {} } })]), "kubectl")).toBe(true);
  });
});
