import { describe, expect, it } from "vitest";
import { parseDependsOn } from "../../src/order/depends-on.js";
import { orderWaves, reverseWaves, type GraphIssue } from "../../src/order/graph.js";
import type { GraphNode } from "../../src/order/graph.js";
import { compareKindOrder } from "../../src/order/kind-order.js";
import { cliUtilsId, type ObjRef } from "../../src/model/ref.js";
import type { KubeObject } from "../../src/model/kube-object.js";

const API: Record<string, string> = {
  "": "v1",
  apps: "apps/v1",
  batch: "batch/v1",
  "rbac.authorization.k8s.io": "rbac.authorization.k8s.io/v1",
  "apiextensions.k8s.io": "apiextensions.k8s.io/v1",
  "admissionregistration.k8s.io": "admissionregistration.k8s.io/v1",
  "example.com": "example.com/v1",
  "other.io": "other.io/v1",
};

/** `Kind[.group]/[ns/]name`, e.g. `Deployment.apps/web/api`, `Namespace/web`. */
function node(id: string, opts: { dependsOn?: string; spec?: Record<string, unknown>; noObject?: boolean } = {}): GraphNode {
  const [kg, ...rest] = id.split("/");
  const [kind, ...g] = kg!.split(".");
  const group = g.join(".");
  const namespace = rest.length === 2 ? rest[0]! : "";
  const name = rest[rest.length - 1]!;
  const ref: ObjRef = { group, kind: kind!, namespace, name };
  if (opts.noObject) return { ref };
  const object: KubeObject = {
    apiVersion: API[group] ?? `${group}/v1`,
    kind: kind!,
    metadata: { name, ...(namespace ? { namespace } : {}), ...(opts.dependsOn ? { annotations: { "config.kubernetes.io/depends-on": opts.dependsOn } } : {}) },
    ...(opts.spec ? { spec: opts.spec } : {}),
  };
  return { ref, object };
}

const label = (r: ObjRef): string => `${r.kind}${r.group ? `.${r.group}` : ""}/${r.namespace ? `${r.namespace}/` : ""}${r.name}`;
const crd = (kind: string, group = "example.com"): GraphNode =>
  node(`CustomResourceDefinition.apiextensions.k8s.io/${kind.toLowerCase()}s.${group}`, { spec: { group, names: { kind, plural: `${kind.toLowerCase()}s` }, scope: "Namespaced" } });

/** kpt's line for a validation error: `invalid object: "<id>": <message>` (several: `invalid objects: [...]`). */
function kptLine(issue: GraphIssue): string {
  const ids = issue.objects.map((r) => JSON.stringify(cliUtilsId(r)));
  return ids.length === 1 ? `invalid object: ${ids[0]}: ${issue.message}` : `invalid objects: [${ids.join(", ")}] ${issue.message}`;
}

interface Case {
  name: string;
  nodes: GraphNode[];
  waves: string[][];
  /** Every issue as kpt words a validation error (`invalid object: "<id>": <message>`), in order. */
  issues?: string[];
  hints?: string[];
}

const cases: Case[] = [
  {
    name: "no dependencies: one wave in kpt's kind order, unlisted kinds by group then kind, validating webhooks last",
    nodes: [
      node("ValidatingWebhookConfiguration.admissionregistration.k8s.io/check"),
      node("Widget.example.com/ns/w"),
      node("Job.batch/ns/migrate"),
      node("Deployment.apps/ns/web"),
      node("Service/ns/web"),
      node("Secret/ns/creds"),
      node("ConfigMap/ns/config"),
      node("ClusterRole.rbac.authorization.k8s.io/reader"),
      node("Role.rbac.authorization.k8s.io/ns/reader"),
      node("ServiceAccount/ns/sa"),
      node("CustomResourceDefinition.apiextensions.k8s.io/gadgets.other.io"),
      node("Namespace/other"),
    ],
    waves: [
      [
        "Namespace/other",
        "CustomResourceDefinition.apiextensions.k8s.io/gadgets.other.io",
        "ServiceAccount/ns/sa",
        "Role.rbac.authorization.k8s.io/ns/reader",
        "ClusterRole.rbac.authorization.k8s.io/reader",
        "ConfigMap/ns/config",
        "Secret/ns/creds",
        "Service/ns/web",
        "Deployment.apps/ns/web",
        "Job.batch/ns/migrate",
        "Widget.example.com/ns/w",
        "ValidatingWebhookConfiguration.admissionregistration.k8s.io/check",
      ],
    ],
  },
  {
    name: "ties within a kind are broken by namespace, then name",
    nodes: [node("ConfigMap/b/x"), node("ConfigMap/a/z"), node("ConfigMap/a/y")],
    waves: [["ConfigMap/a/y", "ConfigMap/a/z", "ConfigMap/b/x"]],
  },
  {
    name: "depends-on, namespaced form: the dependency goes first",
    nodes: [node("Deployment.apps/ns/web", { dependsOn: "/namespaces/ns/Secret/creds" }), node("Secret/ns/creds"), node("ConfigMap/ns/c")],
    waves: [["ConfigMap/ns/c", "Secret/ns/creds"], ["Deployment.apps/ns/web"]],
  },
  {
    name: "depends-on, cluster-scoped form",
    nodes: [node("Job.batch/ns/j", { dependsOn: "rbac.authorization.k8s.io/ClusterRole/reader" }), node("ClusterRole.rbac.authorization.k8s.io/reader")],
    waves: [["ClusterRole.rbac.authorization.k8s.io/reader"], ["Job.batch/ns/j"]],
  },
  {
    name: "several dependencies, comma-separated with spaces; a chain makes one wave per step",
    nodes: [
      node("Deployment.apps/ns/app", { dependsOn: " /namespaces/ns/Service/db , batch/namespaces/ns/Job/migrate " }),
      node("Job.batch/ns/migrate", { dependsOn: "apps/namespaces/ns/StatefulSet/db" }),
      node("Service/ns/db"),
      node("StatefulSet.apps/ns/db"),
    ],
    waves: [["Service/ns/db", "StatefulSet.apps/ns/db"], ["Job.batch/ns/migrate"], ["Deployment.apps/ns/app"]],
  },
  {
    name: "objects wait for their Namespace when it is in the package",
    nodes: [node("ConfigMap/team/a"), node("Namespace/team"), node("ConfigMap/elsewhere/b"), node("ClusterRole.rbac.authorization.k8s.io/r")],
    waves: [["Namespace/team", "ClusterRole.rbac.authorization.k8s.io/r", "ConfigMap/elsewhere/b"], ["ConfigMap/team/a"]],
  },
  {
    name: "custom resources wait for their CRD; other groups' kinds do not",
    nodes: [node("Widget.example.com/ns/w"), crd("Widget"), node("Widget.other.io/ns/w2")],
    waves: [["CustomResourceDefinition.apiextensions.k8s.io/widgets.example.com", "Widget.other.io/ns/w2"], ["Widget.example.com/ns/w"]],
  },
  {
    name: "namespace, CRD and depends-on edges together",
    nodes: [node("Namespace/ns"), crd("Widget"), node("Widget.example.com/ns/w", { dependsOn: "/namespaces/ns/ConfigMap/c" }), node("ConfigMap/ns/c")],
    waves: [["Namespace/ns", "CustomResourceDefinition.apiextensions.k8s.io/widgets.example.com"], ["ConfigMap/ns/c"], ["Widget.example.com/ns/w"]],
  },
  {
    name: "objects known only by reference (prune candidates) still wait for their Namespace",
    nodes: [node("Namespace/ns", { noObject: true }), node("Secret/ns/old", { noObject: true })],
    waves: [["Namespace/ns"], ["Secret/ns/old"]],
  },
  {
    name: "a two-object cycle lists its edges in kpt's format; what waits on it gets no wave",
    nodes: [
      node("Pod/ns/a", { dependsOn: "/namespaces/ns/Pod/b" }),
      node("Pod/ns/b", { dependsOn: "/namespaces/ns/Pod/a" }),
      node("Pod/ns/c", { dependsOn: "/namespaces/ns/Pod/a" }),
      node("ConfigMap/ns/free"),
    ],
    waves: [["ConfigMap/ns/free"]],
    issues: ['invalid objects: ["ns_a__Pod", "ns_b__Pod"] cyclic dependency:\n- /namespaces/ns/Pod/a -> /namespaces/ns/Pod/b\n- /namespaces/ns/Pod/b -> /namespaces/ns/Pod/a'],
  },
  {
    name: "an object depending on itself is a cycle",
    nodes: [node("ConfigMap/ns/me", { dependsOn: "/namespaces/ns/ConfigMap/me" })],
    waves: [],
    issues: ['invalid object: "ns_me__ConfigMap": cyclic dependency:\n- /namespaces/ns/ConfigMap/me -> /namespaces/ns/ConfigMap/me'],
  },
  {
    name: "two separate cycles are two issues, each with only its own edges",
    nodes: [
      node("Secret/ns/a", { dependsOn: "/namespaces/ns/Secret/b" }),
      node("Secret/ns/b", { dependsOn: "/namespaces/ns/Secret/c" }),
      node("Secret/ns/c", { dependsOn: "/namespaces/ns/Secret/a" }),
      node("ClusterRole.rbac.authorization.k8s.io/x", { dependsOn: "rbac.authorization.k8s.io/ClusterRole/y" }),
      node("ClusterRole.rbac.authorization.k8s.io/y", { dependsOn: "rbac.authorization.k8s.io/ClusterRole/x" }),
    ],
    waves: [],
    issues: [
      'invalid objects: ["_x_rbac.authorization.k8s.io_ClusterRole", "_y_rbac.authorization.k8s.io_ClusterRole"] cyclic dependency:\n- rbac.authorization.k8s.io/ClusterRole/x -> rbac.authorization.k8s.io/ClusterRole/y\n- rbac.authorization.k8s.io/ClusterRole/y -> rbac.authorization.k8s.io/ClusterRole/x',
      'invalid objects: ["ns_a__Secret", "ns_b__Secret", "ns_c__Secret"] cyclic dependency:\n- /namespaces/ns/Secret/a -> /namespaces/ns/Secret/b\n- /namespaces/ns/Secret/b -> /namespaces/ns/Secret/c\n- /namespaces/ns/Secret/c -> /namespaces/ns/Secret/a',
    ].sort(),
  },
  {
    name: "a dependency that is not in the set is kpt's external dependency error, with a did-you-mean",
    nodes: [node("Deployment.apps/ns/web", { dependsOn: "/ConfigMap/config" }), node("ConfigMap/ns/config")],
    waves: [["ConfigMap/ns/config", "Deployment.apps/ns/web"]],
    issues: ['invalid object: "ns_web_apps_Deployment": external dependency: apps/namespaces/ns/Deployment/web -> /ConfigMap/config'],
    hints: ['did you mean "/namespaces/ns/ConfigMap/config"? depends-on references are not defaulted to the object\'s namespace'],
  },
  {
    name: "an external dependency on something that exists nowhere",
    nodes: [node("Deployment.apps/ns/web", { dependsOn: "/namespaces/ns/Secret/missing" })],
    waves: [["Deployment.apps/ns/web"]],
    issues: ['invalid object: "ns_web_apps_Deployment": external dependency: apps/namespaces/ns/Deployment/web -> /namespaces/ns/Secret/missing'],
    hints: ["only objects of this package can be waited for: add /namespaces/ns/Secret/missing to the package or remove it from the depends-on annotation"],
  },
  {
    name: "a dependency listed twice",
    nodes: [node("Deployment.apps/ns/web", { dependsOn: "/namespaces/ns/Secret/s,/namespaces/ns/Secret/s" }), node("Secret/ns/s")],
    waves: [["Secret/ns/s"], ["Deployment.apps/ns/web"]],
    issues: ['invalid object: "ns_web_apps_Deployment": duplicate dependency: apps/namespaces/ns/Deployment/web -> /namespaces/ns/Secret/s'],
  },
  {
    name: "an annotation that does not parse",
    nodes: [node("Deployment.apps/ns/web", { dependsOn: "/namespaces/ns/Secret/s,Secret/s" })],
    waves: [["Deployment.apps/ns/web"]],
    issues: ['invalid object: "ns_web_apps_Deployment": invalid "config.kubernetes.io/depends-on" annotation: failed to parse object reference (index: 1): expected 3 or 5 fields, found 2: "Secret/s"'],
  },
];

describe("orderWaves", () => {
  it.each(cases)("$name", (c) => {
    const result = orderWaves(c.nodes);
    expect(result.waves.map((w) => w.map(label))).toEqual(c.waves);
    expect(result.issues.map(kptLine).sort()).toEqual(c.issues ?? []);
    if (c.hints) expect(result.issues.map((i) => i.hint)).toEqual(c.hints);
  });

  it("exposes what each object waits for: depends-on, its Namespace and its CRD", () => {
    const { dependencies } = orderWaves([
      node("Namespace/ns"),
      crd("Widget"),
      node("Widget.example.com/ns/w", { dependsOn: "/namespaces/ns/ConfigMap/c" }),
      node("ConfigMap/ns/c"),
    ]);
    expect(Object.fromEntries([...dependencies].map(([k, refs]) => [k, refs.map(label)]))).toEqual({
      "example.com/Widget/ns/w": ["ConfigMap/ns/c", "Namespace/ns", "CustomResourceDefinition.apiextensions.k8s.io/widgets.example.com"],
      "/ConfigMap/ns/c": ["Namespace/ns"],
    });
  });

  it("names the objects and edges of a cycle in the issue", () => {
    const { issues } = orderWaves([node("Pod/ns/a", { dependsOn: "/namespaces/ns/Pod/b" }), node("Pod/ns/b", { dependsOn: "/namespaces/ns/Pod/a" })]);
    expect(issues).toHaveLength(1);
    expect(issues[0]!.kind).toBe("cyclic-dependency");
    expect(issues[0]!.objects.map(label)).toEqual(["Pod/ns/a", "Pod/ns/b"]);
    expect(issues[0]!.edges.map((e) => `${label(e.from)} -> ${label(e.to)}`)).toEqual(["Pod/ns/a -> Pod/ns/b", "Pod/ns/b -> Pod/ns/a"]);
  });
});

describe("reverseWaves", () => {
  it("deletes dependents first: the last wave first, each wave back to front", () => {
    const { waves } = orderWaves([node("Namespace/ns"), node("ConfigMap/ns/c"), node("Deployment.apps/ns/d", { dependsOn: "/namespaces/ns/ConfigMap/c" }), node("Secret/ns/s")]);
    expect(reverseWaves(waves).map((w) => w.map(label))).toEqual([["Deployment.apps/ns/d"], ["Secret/ns/s", "ConfigMap/ns/c"], ["Namespace/ns"]]);
    expect(waves.map((w) => w.map(label))).toEqual([["Namespace/ns"], ["ConfigMap/ns/c", "Secret/ns/s"], ["Deployment.apps/ns/d"]]);
  });
});

describe("parseDependsOn", () => {
  it.each([
    { name: "both forms, trimmed", value: " apps/namespaces/ns/Deployment/web ,/Namespace/ns", refs: ["apps/Deployment/ns/web", "/Namespace//ns"] },
    { name: "4 fields", value: "a/b/c/d", error: 'invalid "config.kubernetes.io/depends-on" annotation: failed to parse object reference (index: 0): expected 3 or 5 fields, found 4: "a/b/c/d"' },
    { name: "5 fields without namespaces", value: "/ns/x/Pod/a", error: 'invalid "config.kubernetes.io/depends-on" annotation: failed to parse object reference (index: 0): missing "namespaces" field: "/ns/x/Pod/a"' },
    { name: "trailing comma", value: "/Namespace/a,", error: 'invalid "config.kubernetes.io/depends-on" annotation: failed to parse object reference (index: 1): expected 3 or 5 fields, found 1: ""' },
  ])("$name", ({ value, refs, error }) => {
    const parsed = parseDependsOn(value);
    if (refs) expect(parsed.ok && parsed.refs.map((r) => `${r.group}/${r.kind}/${r.namespace}/${r.name}`)).toEqual(refs);
    else expect(parsed).toEqual({ ok: false, message: error });
  });
});

describe("compareKindOrder", () => {
  it("puts Namespaces before CRDs before ConfigMaps before Deployments before unknown kinds before validating webhooks", () => {
    const refs = ["Deployment.apps/d", "Foo.example.com/f", "ValidatingWebhookConfiguration.admissionregistration.k8s.io/v", "ConfigMap/c", "CustomResourceDefinition.apiextensions.k8s.io/x", "Namespace/n"].map((id) => node(id).ref);
    expect(refs.sort(compareKindOrder).map((r) => r.kind)).toEqual(["Namespace", "CustomResourceDefinition", "ConfigMap", "Deployment", "Foo", "ValidatingWebhookConfiguration"]);
  });
});

describe("orderWaves at package scale", () => {
  /** n objects across namespaces and CRDs, with a long depends-on chain and wide fan-in. */
  function bigPackage(n: number): GraphNode[] {
    const nodes: GraphNode[] = [node("Namespace/ns0"), node("Namespace/ns1"), crd("Widget")];
    const ref = (i: number): string => (i % 3 === 0 ? `example.com/namespaces/ns${i % 2}/Widget/c${i}` : `/namespaces/ns${i % 2}/ConfigMap/c${i}`);
    for (let i = 0; i < n; i++) {
      const ns = `ns${i % 2}`;
      // Even objects form one long chain (a wave each, the worst case for a per-wave scan); odd ones all wait for the first.
      const dependsOn = i % 2 === 0 ? (i > 0 ? ref(i - 2) : undefined) : ref(0);
      nodes.push(node(i % 3 === 0 ? `Widget.example.com/${ns}/c${i}` : `ConfigMap/${ns}/c${i}`, dependsOn ? { dependsOn } : {}));
    }
    return nodes;
  }

  // Speed is the benchmark's business (bench/ prints time per object per size); this checks that
  // a 10,000-object package with 5,000 waves is ordered completely, without recursion limits.
  it("orders a 10,000-object package with 5,000 waves completely", () => {
    const nodes = bigPackage(10_000);
    const { waves, issues } = orderWaves(nodes);
    expect(issues).toEqual([]);
    expect(waves.flat()).toHaveLength(nodes.length);
    expect(waves.length).toBeGreaterThanOrEqual(5_000);
  });

  it("reports a 5,000-object cycle without recursion limits", () => {
    const n = 5_000;
    const nodes = Array.from({ length: n }, (_, i) => node(`ConfigMap/ns/c${i}`, { dependsOn: `/namespaces/ns/ConfigMap/c${(i + 1) % n}` }));
    const { waves, issues } = orderWaves(nodes);
    expect(waves).toEqual([]);
    expect(issues).toHaveLength(1);
    expect(issues[0]!.edges).toHaveLength(n);
  });
});
