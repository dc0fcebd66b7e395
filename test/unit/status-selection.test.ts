// `live status`: which objects it follows and under which inventory, for one package
// (--inv-type local) and for every ResourceGroup in the cluster (--inv-type remote), with kpt's
// --inv-names and --namespaces filters.
import { describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import { listedInventories, selectForStatus, type StatusSelection } from "../../src/inventory/status-selection.js";
import type { KubeObject } from "../../src/model/kube-object.js";

const resourceGroups = parseAllDocuments(`
apiVersion: kpt.dev/v1alpha1
kind: ResourceGroup
metadata: {name: inv-b, namespace: ns-b}
spec:
  resources:
  - {group: "", kind: ConfigMap, namespace: ns-b, name: cm-b1}
  - {group: apps, kind: Deployment, namespace: ns-b, name: dep-b}
  - {group: "", kind: Namespace, namespace: "", name: ns-b}
---
apiVersion: kpt.dev/v1alpha1
kind: ResourceGroup
metadata: {name: inv-a, namespace: ns-a}
spec:
  resources:
  - {group: "", kind: ConfigMap, namespace: ns-a, name: cm-a1}
  - {group: "", kind: ConfigMap, namespace: ns-b, name: cm-a2}
---
apiVersion: kpt.dev/v1alpha1
kind: ResourceGroup
metadata: {name: inv-a, namespace: other}
spec:
  resources:
  - {group: "", kind: ConfigMap, namespace: ns-b, name: cm-b1}
---
apiVersion: kpt.dev/v1alpha1
kind: ResourceGroup
metadata: {name: empty, namespace: ns-a}
`).map((d) => d.toJS() as KubeObject);

const shown = (selection: StatusSelection) => selectForStatus(listedInventories(resourceGroups), selection).map((m) => `${m.inventoryName} ${m.ref.kind}/${m.ref.namespace}/${m.ref.name}`);

describe("selectForStatus", () => {
  it.each<[string, StatusSelection, string[]]>([
    [
      "everything, grouped by inventory: by name, then namespace; each inventory's objects as it lists them; an object two inventories list, under each",
      {},
      ["inv-a ConfigMap/ns-a/cm-a1", "inv-a ConfigMap/ns-b/cm-a2", "inv-a ConfigMap/ns-b/cm-b1", "inv-b ConfigMap/ns-b/cm-b1", "inv-b Deployment/ns-b/dep-b", "inv-b Namespace//ns-b"],
    ],
    ["--inv-names: those inventories (every namespace's of that name)", { inventoryNames: ["inv-a"] }, ["inv-a ConfigMap/ns-a/cm-a1", "inv-a ConfigMap/ns-b/cm-a2", "inv-a ConfigMap/ns-b/cm-b1"]],
    ["--inv-names of no inventory: nothing", { inventoryNames: ["nope"] }, []],
    ["--namespaces: the objects' namespaces, not the inventories'; cluster-scoped objects left out", { namespaces: ["ns-b"] }, ["inv-a ConfigMap/ns-b/cm-a2", "inv-a ConfigMap/ns-b/cm-b1", "inv-b ConfigMap/ns-b/cm-b1", "inv-b Deployment/ns-b/dep-b"]],
    ["both", { inventoryNames: ["inv-b", "inv-a"], namespaces: ["ns-a"] }, ["inv-a ConfigMap/ns-a/cm-a1"]],
    ["empty lists (kpt's empty flags) select everything", { inventoryNames: [], namespaces: [] }, ["inv-a ConfigMap/ns-a/cm-a1", "inv-a ConfigMap/ns-b/cm-a2", "inv-a ConfigMap/ns-b/cm-b1", "inv-b ConfigMap/ns-b/cm-b1", "inv-b Deployment/ns-b/dep-b", "inv-b Namespace//ns-b"]],
  ])("%s", (_name, selection, expected) => {
    expect(shown(selection)).toEqual(expected);
  });
});
