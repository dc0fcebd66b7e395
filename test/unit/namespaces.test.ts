import { describe, expect, it } from "vitest";
import { formatIssue } from "../../src/model/errors.js";
import { assignNamespaces } from "../../src/object/namespaces.js";
import type { ResourceScope } from "../../src/object/namespaces.js";
import { analyzePackage } from "../../src/object/parse-package.js";
import type { PackageObject } from "../../src/model/kube-object.js";

// What a typical cluster's discovery knows.
const CLUSTER: Record<string, ResourceScope> = {
  "/ConfigMap": "Namespaced",
  "/Service": "Namespaced",
  "apps/Deployment": "Namespaced",
  "/Namespace": "Cluster",
  "rbac.authorization.k8s.io/ClusterRole": "Cluster",
  "apiextensions.k8s.io/CustomResourceDefinition": "Cluster",
};
const scopeOf = (group: string, kind: string): ResourceScope | undefined => CLUSTER[`${group}/${kind}`];

function objectsOf(yaml: string): PackageObject[] {
  const result = analyzePackage({ path: "pkg", fromStdin: false, files: [{ path: "a.yaml", content: yaml }] }, { requireInventory: false });
  expect(result.issues).toEqual([]);
  return result.objects;
}

const crd = (kind: string, scope: string, version = "v1") => `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: ${kind.toLowerCase()}s.example.com
spec:
  group: example.com
  names: {kind: ${kind}, plural: ${kind.toLowerCase()}s}
  scope: ${scope}
  versions:
  - {name: ${version}, served: true, storage: true}
`;

interface Case {
  name: string;
  yaml: string;
  enforced?: string;
  /** `Kind/name=namespace` ("" for none) of every object, in order. */
  namespaces: string[];
  issues: string[];
}

const cases: Case[] = [
  {
    name: "namespaced objects without a namespace get the default; others keep theirs",
    yaml: "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: b, namespace: team}\n",
    namespaces: ["ConfigMap/a=ctx", "Deployment/b=team"],
    issues: [],
  },
  {
    name: "with -n, objects without a namespace get the enforced one and matching ones pass",
    yaml: "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\napiVersion: v1\nkind: Service\nmetadata: {name: b, namespace: forced}\n",
    enforced: "forced",
    namespaces: ["ConfigMap/a=forced", "Service/b=forced"],
    issues: [],
  },
  {
    name: "with -n, another namespace is kpt's error at the namespace's line",
    yaml: "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  namespace: other\n",
    enforced: "forced",
    namespaces: ["ConfigMap/a=other"],
    issues: ['pkg/a.yaml:5: ConfigMap/a: found namespace "other", but all resources must be in namespace "forced"'],
  },
  {
    name: "cluster-scoped objects get no namespace, and one with a namespace is an error",
    yaml: "apiVersion: v1\nkind: Namespace\nmetadata: {name: team}\n---\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: reader\n  namespace: team\n",
    namespaces: ["Namespace/team=", "ClusterRole/reader=team"],
    issues: ['pkg/a.yaml:9: ClusterRole/reader: resource is cluster-scoped but has a non-empty namespace "team": remove metadata.namespace'],
  },
  {
    name: "a kind the cluster does not know takes its scope from a CRD in the package",
    yaml: `${crd("Widget", "Namespaced")}---\napiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\n---\n${crd("Gadget", "Cluster")}---\napiVersion: example.com/v1\nkind: Gadget\nmetadata: {name: g}\n`,
    namespaces: ["CustomResourceDefinition/widgets.example.com=", "Widget/w=ctx", "CustomResourceDefinition/gadgets.example.com=", "Gadget/g="],
    issues: [],
  },
  {
    name: "a CRD that does not define the object's version does not count",
    yaml: `${crd("Widget", "Namespaced", "v1")}---\napiVersion: example.com/v2\nkind: Widget\nmetadata: {name: w}\n`,
    namespaces: ["CustomResourceDefinition/widgets.example.com=", "Widget/w="],
    issues: [
      "pkg/a.yaml:12: 1 resource type could not be found in the cluster or as CRDs among the applied resources.\n\nResource types:\nexample.com/v2, Kind=Widget (pkg/a.yaml:12)\n\nCheck apiVersion and kind for typos; for custom resources, install their CustomResourceDefinitions first or add them to this package.",
    ],
  },
  {
    name: "unknown types are listed once each, as kpt does",
    yaml: "apiVersion: example.com/v1\nkind: Foo\nmetadata: {name: a}\n---\napiVersion: example.com/v1\nkind: Foo\nmetadata: {name: b}\n---\napiVersion: v1\nkind: ConfgMap\nmetadata: {name: c}\n",
    namespaces: ["Foo/a=", "Foo/b=", "ConfgMap/c="],
    issues: [
      "pkg/a.yaml:1: 2 resource types could not be found in the cluster or as CRDs among the applied resources.\n\nResource types:\nexample.com/v1, Kind=Foo (pkg/a.yaml:1)\n/v1, Kind=ConfgMap (pkg/a.yaml:9)\n\nCheck apiVersion and kind for typos; for custom resources, install their CustomResourceDefinitions first or add them to this package.",
    ],
  },
  {
    name: "an object without a namespace that lands on a twin in the default namespace",
    yaml: "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, namespace: ctx}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n",
    namespaces: ["ConfigMap/a=ctx", "ConfigMap/a=ctx"],
    issues: ['pkg/a.yaml:5: ConfigMap/a: duplicate object in namespace "ctx": also defined at pkg/a.yaml:1 (objects without metadata.namespace go to "ctx")'],
  },
];

describe("assignNamespaces", () => {
  it.each(cases)("$name", (c) => {
    const result = assignNamespaces(objectsOf(c.yaml), { scopeOf, defaultNamespace: "ctx", ...(c.enforced ? { enforcedNamespace: c.enforced } : {}) });
    expect(result.objects.map((o) => `${o.object.kind}/${o.object.metadata.name}=${o.object.metadata.namespace ?? ""}`)).toEqual(c.namespaces);
    expect(result.issues.map(formatIssue)).toEqual(c.issues);
  });

  it("does not change its input", () => {
    const input = objectsOf("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n");
    const before = structuredClone(input.map(({ object, source }) => ({ object, source })));
    const result = assignNamespaces(input, { scopeOf, defaultNamespace: "ctx" });
    expect(input.map(({ object, source }) => ({ object, source }))).toEqual(before);
    expect(result.objects[0]!.object.metadata.namespace).toBe("ctx");
    expect(result.objects[0]!.source).toEqual(input[0]!.source);
  });
});
