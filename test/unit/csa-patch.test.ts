// Client-side apply's pure core: the patch schema read from OpenAPI v3, kubectl's three-way
// patches (strategic for built-in kinds, JSON merge for custom resources), the API server's
// patch application, and the last-applied annotation. Every patch case also checks that the
// patch applied to the live object gives the expected object.

import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { applyMergePatch, applyStrategicPatch } from "../../src/apply/csa/apply-patch.js";
import { lastAppliedOf, withLastApplied } from "../../src/apply/csa/last-applied.js";
import { LAST_APPLIED_ANNOTATION } from "../../src/model/kube-object.js";
import { PatchError } from "../../src/apply/csa/patch-error.js";
import { patchSchemaFor, type PatchField, type PatchSchema } from "../../src/apply/csa/patch-schema.js";
import { planClientSideApply } from "../../src/apply/csa/plan-csa.js";
import { createThreeWayMergePatch, createThreeWayStrategicPatch, isEmptyPatch } from "../../src/apply/csa/three-way-patch.js";
import type { KubeObject } from "../../src/model/kube-object.js";
import { loadOpenApiDoc } from "../helpers/openapi-fixtures.js";

const appsDoc = loadOpenApiDoc("apis__apps__v1.json");
const coreDoc = loadOpenApiDoc("api__v1.json");
const crdDoc = loadOpenApiDoc("apis__example.com__v1.json");

const deployment = patchSchemaFor(appsDoc, { group: "apps", version: "v1", kind: "Deployment" })!;
const service = patchSchemaFor(coreDoc, { group: "", version: "v1", kind: "Service" })!;
const configMap = patchSchemaFor(coreDoc, { group: "", version: "v1", kind: "ConfigMap" })!;

type Obj = Record<string, unknown>;
/** Reads or writes a nested field in a test object. */
const dig = (obj: unknown, ...path: (string | number)[]): any => path.reduce<any>((o, k) => o?.[k], obj);
const yamlObj = (text: string): Obj => (parse(text) ?? {}) as Obj;

/** Wraps a YAML fragment at a dotted path, so cases show only the part of the object they are about. */
function at(path: string | undefined, text: string, keepEmpty = false): Obj {
  const value = yamlObj(text);
  if (!path || (keepEmpty && Object.keys(value).length === 0)) return value;
  return path
    .split(".")
    .reverse()
    .reduce<Obj>((acc, key) => ({ [key]: acc }), value);
}

/** How a field behaves under a strategic merge patch, as these cases name it. */
export type FieldBehaviour =
  | { kind: "object"; retainKeys: boolean; replace: boolean }
  | { kind: "map" }
  | { kind: "merge-list"; mergeKey: string; retainKeys: boolean }
  | { kind: "set-list" }
  | { kind: "atomic-list" }
  | { kind: "scalar" }
  | { kind: "unknown" };

/** Walks a field path (`["spec", "template", "spec", "containers", "env"]`); list items are stepped into implicitly. */
function describeField(schema: PatchSchema, path: readonly string[]): FieldBehaviour | undefined {
  let node: PatchSchema | undefined = schema;
  let field: PatchField | undefined;
  for (const key of path) {
    if (node?.type === "array") node = node.items();
    field = node?.field(key);
    if (!field) return undefined;
    node = field.schema;
  }
  return field ? behaviourOf(field) : undefined;
}

function behaviourOf(field: PatchField): FieldBehaviour {
  const { meta, schema } = field;
  switch (schema.type) {
    case "object":
      return { kind: "object", retainKeys: meta.retainKeys, replace: meta.strategy === "replace" };
    case "map":
      return { kind: "map" };
    case "array":
      if (meta.strategy !== "merge") return { kind: "atomic-list" };
      return meta.mergeKey ? { kind: "merge-list", mergeKey: meta.mergeKey, retainKeys: meta.retainKeys } : { kind: "set-list" };
    case "scalar":
      return { kind: "scalar" };
    default:
      return { kind: "unknown" };
  }
}

describe("patchSchemaFor", () => {
  const cases: { name: string; schema: PatchSchema; path: string; want: FieldBehaviour | undefined }[] = [
    { name: "containers merge by name", schema: deployment, path: "spec.template.spec.containers", want: { kind: "merge-list", mergeKey: "name", retainKeys: false } },
    { name: "volumes merge by name and retain keys", schema: deployment, path: "spec.template.spec.volumes", want: { kind: "merge-list", mergeKey: "name", retainKeys: true } },
    { name: "env inside a container merges by name", schema: deployment, path: "spec.template.spec.containers.env", want: { kind: "merge-list", mergeKey: "name", retainKeys: false } },
    { name: "container ports merge by containerPort", schema: deployment, path: "spec.template.spec.containers.ports", want: { kind: "merge-list", mergeKey: "containerPort", retainKeys: false } },
    { name: "finalizers merge as a set", schema: deployment, path: "metadata.finalizers", want: { kind: "set-list" } },
    { name: "tolerations are atomic", schema: deployment, path: "spec.template.spec.tolerations", want: { kind: "atomic-list" } },
    { name: "args are atomic", schema: deployment, path: "spec.template.spec.containers.args", want: { kind: "atomic-list" } },
    { name: "deployment strategy retains keys", schema: deployment, path: "spec.strategy", want: { kind: "object", retainKeys: true, replace: false } },
    { name: "labels are a map", schema: deployment, path: "metadata.labels", want: { kind: "map" } },
    { name: "a map's values resolve through $ref", schema: deployment, path: "spec.template.spec.containers.resources.limits.cpu", want: { kind: "scalar" } },
    { name: "service ports merge by port", schema: service, path: "spec.ports", want: { kind: "merge-list", mergeKey: "port", retainKeys: false } },
    { name: "configmap data is a map", schema: configMap, path: "data", want: { kind: "map" } },
    { name: "unknown fields have no schema", schema: deployment, path: "spec.template.spec.noSuchField", want: undefined },
  ];
  it.each(cases)("$name", ({ schema, path, want }) => {
    expect(describeField(schema, path.split("."))).toEqual(want);
  });

  it("reads the list type and keys kept for server-side apply", () => {
    const ports = deployment.field("spec")!.schema.field("template")!.schema.field("spec")!.schema.field("containers")!.schema.items()!.field("ports")!;
    expect(ports.listType).toBe("map");
    expect(ports.listMapKeys).toEqual(["containerPort", "protocol"]);
    expect(ports.schema.items()!.name).toBe("io.k8s.api.core.v1.ContainerPort");
  });

  it.each([
    { name: "a custom resource (the server refuses strategic patches)", doc: crdDoc, gvk: { group: "example.com", version: "v1", kind: "Widget" } },
    { name: "a kind the document does not describe", doc: appsDoc, gvk: { group: "apps", version: "v1", kind: "StatefulSet" } },
    { name: "a kind only a shared apimachinery type declares (WatchEvent)", doc: appsDoc, gvk: { group: "apps", version: "v1", kind: "WatchEvent" } },
    { name: "something that is not an OpenAPI v3 document", doc: { definitions: {} }, gvk: { group: "apps", version: "v1", kind: "Deployment" } },
  ])("gives no schema for $name", ({ doc, gvk }) => {
    expect(patchSchemaFor(doc, gvk)).toBeUndefined();
  });

  it("resolves references only when walked", () => {
    const doc = {
      components: {
        schemas: {
          "io.k8s.api.x.v1.Thing": {
            type: "object",
            "x-kubernetes-group-version-kind": [{ group: "x", version: "v1", kind: "Thing" }],
            properties: { spec: { allOf: [{ $ref: "#/components/schemas/io.k8s.api.x.v1.Missing" }] } },
          },
        },
      },
    };
    const thing = patchSchemaFor(doc, { group: "x", version: "v1", kind: "Thing" });
    expect(thing?.name).toBe("io.k8s.api.x.v1.Thing");
    expect(thing?.field("spec")).toBeUndefined();
  });
});

interface PatchCase {
  name: string;
  /** Where the YAML fragments sit in the object (dotted path); the root when absent. */
  at?: string;
  /** The last applied configuration; absent when the live object has none. */
  original?: string;
  modified: string;
  current: string;
  patch: string;
  result: string;
}

const LIVE_DEPLOYMENT = `
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: shop
  uid: 0b7c2c9e-3c43-4f7e-9a55-0f3b1f2d8e11
  resourceVersion: "48213"
  generation: 4
  creationTimestamp: "2024-05-01T10:00:00Z"
  annotations:
    deployment.kubernetes.io/revision: "4"
  labels: {app: web}
  managedFields:
  - {manager: kubectl-client-side-apply, operation: Update, apiVersion: apps/v1, fieldsType: FieldsV1, fieldsV1: {}}
spec:
  progressDeadlineSeconds: 600
  replicas: 2
  revisionHistoryLimit: 10
  selector: {matchLabels: {app: web}}
  strategy:
    type: RollingUpdate
    rollingUpdate: {maxSurge: 25%, maxUnavailable: 25%}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: app
        image: registry.example/web:1.4
        imagePullPolicy: IfNotPresent
        ports:
        - {containerPort: 8080, name: http, protocol: TCP}
        resources: {}
        terminationMessagePath: /dev/termination-log
        terminationMessagePolicy: File
      dnsPolicy: ClusterFirst
      restartPolicy: Always
      schedulerName: default-scheduler
      terminationGracePeriodSeconds: 30
status:
  observedGeneration: 4
  replicas: 2
  readyReplicas: 2
  conditions:
  - {type: Available, status: "True", reason: MinimumReplicasAvailable}
`;

const DEPLOYMENT_CONFIG = `
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: shop
  labels: {app: web}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: app
        image: registry.example/web:1.4
        ports:
        - {containerPort: 8080, name: http}
`;

// The same configuration with every map's keys in another order.
const DEPLOYMENT_CONFIG_REORDERED = `
spec:
  template:
    spec:
      containers:
      - ports:
        - {name: http, containerPort: 8080}
        image: registry.example/web:1.4
        name: app
    metadata:
      labels: {app: web}
  selector: {matchLabels: {app: web}}
  replicas: 2
metadata:
  labels: {app: web}
  namespace: shop
  name: web
kind: Deployment
apiVersion: apps/v1
`;

const strategicCases: PatchCase[] = [
  {
    // The worked example of kubernetes.io "Declarative Management of Kubernetes Objects Using
    // Configuration Files": minReadySeconds left the file, the image changed, replicas were scaled by hand.
    name: "the documented declarative-config example: field cleared, image set, scaled replicas kept",
    at: "spec",
    original: `
      minReadySeconds: 5
      selector: {matchLabels: {app: nginx}}
      template:
        metadata: {labels: {app: nginx}}
        spec: {containers: [{name: nginx, image: 'nginx:1.14.2', ports: [{containerPort: 80}]}]}`,
    modified: `
      selector: {matchLabels: {app: nginx}}
      template:
        metadata: {labels: {app: nginx}}
        spec: {containers: [{name: nginx, image: 'nginx:1.16.1', ports: [{containerPort: 80}]}]}`,
    current: `
      replicas: 2
      minReadySeconds: 5
      selector: {matchLabels: {app: nginx}}
      template:
        metadata: {labels: {app: nginx}}
        spec: {containers: [{name: nginx, image: 'nginx:1.14.2', ports: [{containerPort: 80, protocol: TCP}]}]}`,
    patch: `
      minReadySeconds: null
      template:
        spec:
          $setElementOrder/containers: [{name: nginx}]
          containers: [{name: nginx, image: 'nginx:1.16.1'}]`,
    result: `
      replicas: 2
      selector: {matchLabels: {app: nginx}}
      template:
        metadata: {labels: {app: nginx}}
        spec: {containers: [{name: nginx, image: 'nginx:1.16.1', ports: [{containerPort: 80, protocol: TCP}]}]}`,
  },
  {
    name: "a label removed from the package is removed",
    at: "metadata",
    original: "labels: {app: web, tier: frontend}",
    modified: "labels: {app: web}",
    current: "labels: {app: web, tier: frontend}",
    patch: "labels: {tier: null}",
    result: "labels: {app: web}",
  },
  {
    name: "an annotation someone else added is kept",
    at: "metadata",
    original: "annotations: {team: a}",
    modified: "annotations: {team: b}",
    current: "annotations: {team: a, example.com/owner: ops}",
    patch: "annotations: {team: b}",
    result: "annotations: {team: b, example.com/owner: ops}",
  },
  {
    name: "replicas set by an HPA are kept when the package does not set them",
    at: "spec",
    original: "selector: {matchLabels: {app: web}}",
    modified: "selector: {matchLabels: {app: web}}",
    current: "{replicas: 7, selector: {matchLabels: {app: web}}}",
    patch: "{}",
    result: "{replicas: 7, selector: {matchLabels: {app: web}}}",
  },
  {
    name: "replicas the package sets are restored when changed by hand",
    at: "spec",
    original: "replicas: 3",
    modified: "replicas: 3",
    current: "replicas: 5",
    patch: "replicas: 3",
    result: "replicas: 3",
  },
  {
    name: "a container added to the package is merged in by name",
    at: "spec.template.spec",
    original: "containers: [{name: app, image: 'app:1'}]",
    modified: "containers: [{name: app, image: 'app:1'}, {name: sidecar, image: 'proxy:1'}]",
    current: "containers: [{name: app, image: 'app:1', imagePullPolicy: IfNotPresent}]",
    patch: `
      $setElementOrder/containers: [{name: app}, {name: sidecar}]
      containers: [{name: sidecar, image: 'proxy:1'}]`,
    result: "containers: [{name: app, image: 'app:1', imagePullPolicy: IfNotPresent}, {name: sidecar, image: 'proxy:1'}]",
  },
  {
    name: "a container removed from the package is deleted by name",
    at: "spec.template.spec",
    original: "containers: [{name: app, image: 'app:1'}, {name: old, image: 'old:1'}]",
    modified: "containers: [{name: app, image: 'app:1'}]",
    current: "containers: [{name: app, image: 'app:1', imagePullPolicy: IfNotPresent}, {name: old, image: 'old:1', imagePullPolicy: IfNotPresent}]",
    patch: `
      $setElementOrder/containers: [{name: app}]
      containers: [{name: old, $patch: delete}]`,
    result: "containers: [{name: app, image: 'app:1', imagePullPolicy: IfNotPresent}]",
  },
  {
    name: "a changed image patches only that container and field",
    at: "spec.template.spec",
    original: "containers: [{name: app, image: 'app:1'}, {name: proxy, image: 'proxy:1'}]",
    modified: "containers: [{name: app, image: 'app:2'}, {name: proxy, image: 'proxy:1'}]",
    current: `
      containers:
      - {name: app, image: 'app:1', terminationMessagePath: /dev/termination-log}
      - {name: proxy, image: 'proxy:1', terminationMessagePath: /dev/termination-log}`,
    patch: `
      $setElementOrder/containers: [{name: app}, {name: proxy}]
      containers: [{name: app, image: 'app:2'}]`,
    result: `
      containers:
      - {name: app, image: 'app:2', terminationMessagePath: /dev/termination-log}
      - {name: proxy, image: 'proxy:1', terminationMessagePath: /dev/termination-log}`,
  },
  {
    name: "an env var removed from a container is deleted, nested in the container's entry",
    at: "spec.template.spec",
    original: "containers: [{name: app, env: [{name: A, value: '1'}, {name: B, value: '2'}]}]",
    modified: "containers: [{name: app, env: [{name: A, value: '1'}]}]",
    current: "containers: [{name: app, env: [{name: A, value: '1'}, {name: B, value: '2'}], imagePullPolicy: Always}]",
    patch: `
      $setElementOrder/containers: [{name: app}]
      containers:
      - name: app
        $setElementOrder/env: [{name: A}]
        env: [{name: B, $patch: delete}]`,
    result: "containers: [{name: app, env: [{name: A, value: '1'}], imagePullPolicy: Always}]",
  },
  {
    name: "a port is merged in by containerPort, keeping server defaults",
    at: "spec.template.spec",
    original: "containers: [{name: app, ports: [{containerPort: 80}]}]",
    modified: "containers: [{name: app, ports: [{containerPort: 80}, {containerPort: 443, name: https}]}]",
    current: "containers: [{name: app, ports: [{containerPort: 80, protocol: TCP}]}]",
    patch: `
      $setElementOrder/containers: [{name: app}]
      containers:
      - name: app
        $setElementOrder/ports: [{containerPort: 80}, {containerPort: 443}]
        ports: [{containerPort: 443, name: https}]`,
    result: "containers: [{name: app, ports: [{containerPort: 80, protocol: TCP}, {containerPort: 443, name: https}]}]",
  },
  {
    name: "a volume switched from configMap to secret clears the old source (retainKeys)",
    at: "spec.template.spec",
    original: "volumes: [{name: config, configMap: {name: app-config}}]",
    modified: "volumes: [{name: config, secret: {secretName: app-secret}}]",
    current: "volumes: [{name: config, configMap: {name: app-config, defaultMode: 420}}]",
    patch: `
      $setElementOrder/volumes: [{name: config}]
      volumes:
      - name: config
        $retainKeys: [name, secret]
        configMap: null
        secret: {secretName: app-secret}`,
    result: "volumes: [{name: config, secret: {secretName: app-secret}}]",
  },
  {
    name: "a finalizer removed from the package is deleted; one added by a controller stays",
    at: "metadata",
    original: "finalizers: [example.com/a, example.com/b]",
    modified: "finalizers: [example.com/b]",
    current: "finalizers: [example.com/a, example.com/b, controller.example.com/c]",
    patch: `
      $setElementOrder/finalizers: [example.com/b]
      $deleteFromPrimitiveList/finalizers: [example.com/a]`,
    result: "finalizers: [example.com/b, controller.example.com/c]",
  },
  {
    name: "a finalizer added to the package is merged into the set",
    at: "metadata",
    original: "finalizers: [example.com/a]",
    modified: "finalizers: [example.com/a, example.com/b]",
    current: "finalizers: [example.com/a, controller.example.com/c]",
    patch: `
      $setElementOrder/finalizers: [example.com/a, example.com/b]
      finalizers: [example.com/b]`,
    result: "finalizers: [example.com/a, example.com/b, controller.example.com/c]",
  },
  {
    name: "an atomic list (tolerations) is replaced whole, dropping items others added",
    at: "spec.template.spec",
    original: "tolerations: [{key: gpu, operator: Exists}]",
    modified: "tolerations: [{key: spot, operator: Exists}]",
    current: "tolerations: [{key: gpu, operator: Exists}, {key: node.kubernetes.io/not-ready, operator: Exists, effect: NoExecute}]",
    patch: "tolerations: [{key: spot, operator: Exists}]",
    result: "tolerations: [{key: spot, operator: Exists}]",
  },
  {
    name: "a nested map entry removed from the package is deleted (resources.limits)",
    at: "spec.template.spec",
    original: "containers: [{name: app, resources: {limits: {cpu: 500m, memory: 256Mi}}}]",
    modified: "containers: [{name: app, resources: {limits: {cpu: 500m}}}]",
    current: "containers: [{name: app, resources: {limits: {cpu: 500m, memory: 256Mi}, requests: {cpu: 100m}}}]",
    patch: `
      $setElementOrder/containers: [{name: app}]
      containers: [{name: app, resources: {limits: {memory: null}}}]`,
    result: "containers: [{name: app, resources: {limits: {cpu: 500m}, requests: {cpu: 100m}}}]",
  },
  {
    name: "a null in the package clears the live field even if it was never applied",
    at: "spec.template.spec",
    original: "containers: [{name: app}]",
    modified: "{containers: [{name: app}], serviceAccountName: null}",
    current: "{containers: [{name: app}], serviceAccountName: builder}",
    patch: "serviceAccountName: null",
    result: "containers: [{name: app}]",
  },
  {
    name: "an unchanged object gives an empty patch despite server defaults, metadata and status",
    original: DEPLOYMENT_CONFIG,
    modified: DEPLOYMENT_CONFIG,
    current: LIVE_DEPLOYMENT,
    patch: "{}",
    result: LIVE_DEPLOYMENT,
  },
  {
    name: "key order is irrelevant",
    original: DEPLOYMENT_CONFIG,
    modified: DEPLOYMENT_CONFIG_REORDERED,
    current: LIVE_DEPLOYMENT,
    patch: "{}",
    result: LIVE_DEPLOYMENT,
  },
  {
    name: "reordered containers send only the new order",
    at: "spec.template.spec",
    original: "containers: [{name: a}, {name: b}]",
    modified: "containers: [{name: b}, {name: a}]",
    current: "containers: [{name: a, image: x}, {name: b, image: y}]",
    patch: "$setElementOrder/containers: [{name: b}, {name: a}]",
    result: "containers: [{name: b, image: y}, {name: a, image: x}]",
  },
  {
    name: "without a last applied configuration nothing is removed",
    at: "metadata",
    modified: "labels: {app: web, tier: frontend}",
    current: "labels: {app: web, legacy: 'yes'}",
    patch: "labels: {tier: frontend}",
    result: "labels: {app: web, legacy: 'yes', tier: frontend}",
  },
  {
    name: "switching the strategy to Recreate clears rollingUpdate (retainKeys)",
    at: "spec",
    original: "strategy: {type: RollingUpdate, rollingUpdate: {maxSurge: 1}}",
    modified: "strategy: {type: Recreate}",
    current: "strategy: {type: RollingUpdate, rollingUpdate: {maxSurge: 1, maxUnavailable: 25%}}",
    patch: "strategy: {$retainKeys: [type], rollingUpdate: null, type: Recreate}",
    result: "strategy: {type: Recreate}",
  },
  {
    name: "a value changing type is replaced, under retainKeys listing every kept key",
    at: "spec",
    original: "strategy: {type: RollingUpdate, rollingUpdate: {maxSurge: 25%}}",
    modified: "strategy: {type: RollingUpdate, rollingUpdate: {maxSurge: 1}}",
    current: "strategy: {type: RollingUpdate, rollingUpdate: {maxSurge: 25%, maxUnavailable: 25%}}",
    patch: "strategy: {$retainKeys: [rollingUpdate, type], rollingUpdate: {maxSurge: 1}}",
    result: "strategy: {type: RollingUpdate, rollingUpdate: {maxSurge: 1, maxUnavailable: 25%}}",
  },
  {
    name: "kubectl re-sends $retainKeys when the server defaulted fields next to a retainKeys struct",
    at: "spec",
    original: "strategy: {type: RollingUpdate}",
    modified: "strategy: {type: RollingUpdate}",
    current: "strategy: {type: RollingUpdate, rollingUpdate: {maxSurge: 25%, maxUnavailable: 25%}}",
    patch: "strategy: {$retainKeys: [type]}",
    // The API server then defaults rollingUpdate again.
    result: "strategy: {type: RollingUpdate}",
  },
  {
    name: "kubectl re-sends the container order when a sidecar was injected; the result is unchanged",
    at: "spec.template.spec",
    original: "containers: [{name: app}]",
    modified: "containers: [{name: app}]",
    current: "containers: [{name: app}, {name: istio-proxy}]",
    patch: "$setElementOrder/containers: [{name: app}]",
    result: "containers: [{name: app}, {name: istio-proxy}]",
  },
  {
    name: "a container already gone from the live object still gets its delete directive",
    at: "spec.template.spec",
    original: "containers: [{name: app}, {name: old}]",
    modified: "containers: [{name: app}]",
    current: "containers: [{name: app}]",
    patch: `
      $setElementOrder/containers: [{name: app}]
      containers: [{name: old, $patch: delete}]`,
    result: "containers: [{name: app}]",
  },
  {
    name: "a whole list removed from the package is nulled",
    at: "spec.template.spec",
    original: "{containers: [{name: app}], volumes: [{name: cache, emptyDir: {}}]}",
    modified: "containers: [{name: app}]",
    current: "{containers: [{name: app}], volumes: [{name: cache, emptyDir: {}}]}",
    patch: "volumes: null",
    result: "containers: [{name: app}]",
  },
  {
    name: "a list the live object lacks is sent whole, without an order directive",
    at: "spec.template.spec",
    original: "containers: [{name: app}]",
    modified: "{containers: [{name: app}], initContainers: [{name: migrate, image: 'tool:1'}]}",
    current: "containers: [{name: app}]",
    patch: "initContainers: [{name: migrate, image: 'tool:1'}]",
    result: "{containers: [{name: app}], initContainers: [{name: migrate, image: 'tool:1'}]}",
  },
  {
    name: "a container added by someone else is kept while the package adds its own",
    at: "spec.template.spec",
    original: "containers: [{name: app}]",
    modified: "containers: [{name: app}, {name: metrics}]",
    current: "containers: [{name: app}, {name: debug}]",
    patch: `
      $setElementOrder/containers: [{name: app}, {name: metrics}]
      containers: [{name: metrics}]`,
    // New items go before server-only items that followed their neighbours, as the API server orders them.
    result: "containers: [{name: app}, {name: metrics}, {name: debug}]",
  },
  {
    name: "an env var whose value moved to valueFrom is replaced field by field",
    at: "spec.template.spec",
    original: "containers: [{name: app, env: [{name: DB, value: local}]}]",
    modified: "containers: [{name: app, env: [{name: DB, valueFrom: {configMapKeyRef: {name: db, key: url}}}]}]",
    current: "containers: [{name: app, env: [{name: DB, value: local}]}]",
    patch: `
      $setElementOrder/containers: [{name: app}]
      containers:
      - name: app
        $setElementOrder/env: [{name: DB}]
        env: [{name: DB, value: null, valueFrom: {configMapKeyRef: {name: db, key: url}}}]`,
    result: "containers: [{name: app, env: [{name: DB, valueFrom: {configMapKeyRef: {name: db, key: url}}}]}]",
  },
];

const serviceCases: PatchCase[] = [
  {
    name: "service ports merge by port; the nodePort the server allocated is kept",
    at: "spec",
    original: "{type: NodePort, ports: [{name: http, port: 80, targetPort: 8080}]}",
    modified: "{type: NodePort, ports: [{name: http, port: 80, targetPort: 9090}]}",
    current: "{type: NodePort, clusterIP: 10.0.0.12, ports: [{name: http, port: 80, targetPort: 8080, protocol: TCP, nodePort: 30080}]}",
    patch: `
      $setElementOrder/ports: [{port: 80}]
      ports: [{port: 80, targetPort: 9090}]`,
    result: "{type: NodePort, clusterIP: 10.0.0.12, ports: [{name: http, port: 80, targetPort: 9090, protocol: TCP, nodePort: 30080}]}",
  },
];

const configMapCases: PatchCase[] = [
  {
    name: "a configmap key removed from the package is deleted; one added is set",
    original: "data: {a: '1', b: '2'}",
    modified: "data: {a: '1', c: '3'}",
    current: "data: {a: '1', b: '2'}",
    patch: "data: {b: null, c: '3'}",
    result: "data: {a: '1', c: '3'}",
  },
];

function runStrategic(schema: PatchSchema, c: PatchCase): void {
  const original = c.original === undefined ? undefined : at(c.at, c.original);
  const current = at(c.at, c.current);
  const patch = createThreeWayStrategicPatch(original, at(c.at, c.modified), current, schema);
  expect(patch).toEqual(at(c.at, c.patch, true));
  expect(applyStrategicPatch(current, patch, schema)).toEqual(at(c.at, c.result));
}

describe("createThreeWayStrategicPatch (Deployment)", () => {
  it.each(strategicCases)("$name", (c) => runStrategic(deployment, c));
});

describe("createThreeWayStrategicPatch (Service, ConfigMap)", () => {
  it.each(serviceCases)("$name", (c) => runStrategic(service, c));
  it.each(configMapCases)("$name", (c) => runStrategic(configMap, c));
});

describe("strategic patches kubectl refuses to compute", () => {
  it.each([
    { name: "a container without its merge key", modified: "containers: [{image: 'app:1'}]" },
    { name: "a list mixing objects and strings", modified: "containers: [{name: app}, oops]" },
  ])("$name", ({ modified }) => {
    const current = at("spec.template.spec", "containers: [{name: app}]");
    expect(() => createThreeWayStrategicPatch(undefined, at("spec.template.spec", modified), current, deployment)).toThrow(PatchError);
  });
});

describe("applyStrategicPatch directives", () => {
  it.each([
    {
      name: "$patch: replace on a map replaces it whole",
      current: "metadata: {labels: {a: '1', b: '2'}}",
      patch: "metadata: {labels: {$patch: replace, c: '3'}}",
      result: "metadata: {labels: {c: '3'}}",
    },
    {
      name: "$patch: delete on a map removes its content",
      current: "metadata: {labels: {a: '1'}, name: x}",
      patch: "metadata: {labels: {$patch: delete}}",
      result: "metadata: {labels: {}, name: x}",
    },
    {
      name: "$patch: replace in a merge list replaces the list",
      current: "spec: {template: {spec: {containers: [{name: a}, {name: b}]}}}",
      patch: "spec: {template: {spec: {containers: [{name: c}, {$patch: replace}]}}}",
      result: "spec: {template: {spec: {containers: [{name: c}]}}}",
    },
    {
      name: "$setElementOrder that contradicts the patch list is refused",
      current: "spec: {template: {spec: {containers: [{name: a}, {name: b}]}}}",
      patch: "spec: {template: {spec: {$setElementOrder/containers: [{name: a}, {name: b}], containers: [{name: b, image: x}, {name: a, image: y}]}}}",
      result: undefined,
    },
  ])("$name", ({ current, patch, result }) => {
    const run = () => applyStrategicPatch(yamlObj(current), yamlObj(patch), deployment);
    if (result === undefined) expect(run).toThrow(PatchError);
    else expect(run()).toEqual(yamlObj(result));
  });
});

const mergeCases: PatchCase[] = [
  {
    name: "a field removed from the package is removed",
    at: "spec",
    original: "{size: 3, color: red}",
    modified: "size: 3",
    current: "{size: 3, color: red}",
    patch: "color: null",
    result: "size: 3",
  },
  {
    name: "fields added by a controller are kept",
    original: "spec: {size: 3}",
    modified: "spec: {size: 3}",
    current: "{spec: {size: 3, shards: 2}, metadata: {annotations: {operator.example.com/seen: 'true'}}, status: {ready: true}}",
    patch: "{}",
    result: "{spec: {size: 3, shards: 2}, metadata: {annotations: {operator.example.com/seen: 'true'}}, status: {ready: true}}",
  },
  {
    name: "drift in a field the package sets is corrected",
    at: "spec",
    original: "size: 3",
    modified: "size: 3",
    current: "size: 5",
    patch: "size: 3",
    result: "size: 3",
  },
  {
    name: "a list is replaced whole, losing items others added",
    at: "spec",
    original: "tags: [a, b]",
    modified: "tags: [a, c]",
    current: "tags: [a, b, x]",
    patch: "tags: [a, c]",
    result: "tags: [a, c]",
  },
  {
    name: "a list of objects is replaced whole even when its schema says list-type map",
    at: "spec",
    original: "ports: [{name: http, port: 80}]",
    modified: "ports: [{name: http, port: 8080}]",
    current: "ports: [{name: http, port: 80}, {name: metrics, port: 9090}]",
    patch: "ports: [{name: http, port: 8080}]",
    result: "ports: [{name: http, port: 8080}]",
  },
  {
    name: "a nested map entry removed from the package is deleted",
    at: "spec",
    original: "selector: {app: web, tier: fe}",
    modified: "selector: {app: web}",
    current: "selector: {app: web, tier: fe, extra: x}",
    patch: "selector: {tier: null}",
    result: "selector: {app: web, extra: x}",
  },
  {
    name: "a null in the package removes a field that was applied before",
    at: "spec",
    original: "{size: 3, color: red}",
    modified: "{size: 3, color: null}",
    current: "{size: 3, color: red}",
    patch: "color: null",
    result: "size: 3",
  },
  {
    name: "a null in the package removes a field it never applied (the deletions diff sees it as added null)",
    at: "spec",
    original: "size: 3",
    modified: "{size: 3, color: null}",
    current: "{size: 3, color: blue}",
    patch: "color: null",
    result: "size: 3",
  },
  {
    name: "an explicitly empty object is sent as a value",
    at: "spec",
    original: "size: 3",
    modified: "{size: 3, config: {}}",
    current: "size: 3",
    patch: "config: {}",
    result: "{size: 3, config: {}}",
  },
  {
    name: "without a last applied configuration nothing is removed",
    at: "spec",
    modified: "{size: 3}",
    current: "{size: 2, legacy: true}",
    patch: "size: 3",
    result: "{size: 3, legacy: true}",
  },
];

describe("createThreeWayMergePatch (custom resources)", () => {
  it.each(mergeCases)("$name", (c) => {
    const original = c.original === undefined ? undefined : at(c.at, c.original);
    const current = at(c.at, c.current);
    const patch = createThreeWayMergePatch(original, at(c.at, c.modified), current);
    expect(patch).toEqual(at(c.at, c.patch, true));
    expect(applyMergePatch(current, patch)).toEqual(at(c.at, c.result));
  });

  it.each([
    { name: "null deletes, objects merge, lists replace", current: "{a: 1, b: {c: 1, d: [1, 2]}}", patch: "{a: null, b: {d: [3], e: 1}}", result: "{b: {c: 1, d: [3], e: 1}}" },
    { name: "nulls inside a value set where there was none are dropped", current: "{a: 1}", patch: "{b: {c: null, d: 1}}", result: "{a: 1, b: {d: 1}}" },
    { name: "an object replaces a scalar", current: "{a: 1}", patch: "{a: {b: 2}}", result: "{a: {b: 2}}" },
  ])("applyMergePatch: $name", ({ current, patch, result }) => {
    expect(applyMergePatch(yamlObj(current), yamlObj(patch))).toEqual(yamlObj(result));
  });
});

describe("last-applied-configuration", () => {
  const configMapObj = (extra = ""): KubeObject =>
    yamlObj(`
apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
  namespace: shop
${extra}
data: {mode: fast, url: "http://a?x=1&y=<2>"}
`) as KubeObject;

  it("is the object's sorted, compact JSON with Go's escaping, annotations: {} and a newline, as kubectl writes it", () => {
    const out = withLastApplied(configMapObj());
    expect(out.metadata.annotations?.[LAST_APPLIED_ANNOTATION]).toBe(
      '{"apiVersion":"v1","data":{"mode":"fast","url":"http://a?x=1\\u0026y=\\u003c2\\u003e"},"kind":"ConfigMap","metadata":{"annotations":{},"name":"settings","namespace":"shop"}}\n',
    );
  });

  it("leaves out the previous annotation, keeps the other annotations and does not modify its input", () => {
    const input = configMapObj(`  annotations: {team: a, ${LAST_APPLIED_ANNOTATION}: stale}`);
    const before = structuredClone(input);
    const out = withLastApplied(input);
    expect(input).toEqual(before);
    expect(out.metadata.annotations?.team).toBe("a");
    expect(JSON.parse(out.metadata.annotations![LAST_APPLIED_ANNOTATION]!).metadata.annotations).toEqual({ team: "a" });
  });

  it.each([
    { name: "a JSON object", value: '{"kind":"ConfigMap"}\n', want: { kind: "ConfigMap" } },
    { name: "no annotation", value: undefined, want: undefined },
    { name: "an empty value", value: "", want: undefined },
    { name: "invalid JSON", value: "{not json", want: undefined },
    { name: "JSON that is not an object", value: "[1,2]", want: undefined },
  ])("lastAppliedOf reads $name", ({ value, want }) => {
    const live = configMapObj();
    if (value !== undefined) live.metadata.annotations = { [LAST_APPLIED_ANNOTATION]: value };
    expect(lastAppliedOf(live)).toEqual(want);
  });
});

describe("planClientSideApply", () => {
  const desired = yamlObj(DEPLOYMENT_CONFIG) as KubeObject;
  /** kubectl records `annotations: {}` for an object without other annotations. */
  const asKubectlRecordsIt = (o: KubeObject) => ({ ...o, metadata: { ...o.metadata, annotations: {} } });
  /** What the server holds after kubectl (or we) applied `config`: defaults, status, the annotation. */
  const liveAfterApplying = (config: KubeObject): KubeObject => {
    const live = yamlObj(LIVE_DEPLOYMENT) as KubeObject;
    const applied = withLastApplied(config).metadata.annotations![LAST_APPLIED_ANNOTATION]!;
    live.metadata.annotations = { ...live.metadata.annotations, [LAST_APPLIED_ANNOTATION]: applied };
    return live;
  };

  it("creates a missing object with the annotation", () => {
    const plan = planClientSideApply(desired, undefined, deployment);
    expect(plan.op).toBe("create");
    if (plan.op !== "create") return;
    expect(lastAppliedOf(plan.body)).toEqual(asKubectlRecordsIt(desired));
    expect(plan.body.spec).toEqual(desired.spec);
  });

  it("leaves an object that already matches its package", () => {
    expect(planClientSideApply(desired, liveAfterApplying(desired), deployment)).toEqual({ op: "unchanged" });
  });

  it("sends a strategic patch with the new annotation for a changed built-in object, and previews the result", () => {
    const changed = structuredClone(desired);
    dig(changed, "spec", "template", "spec", "containers", 0).image = "registry.example/web:1.5";
    const live = liveAfterApplying(desired);
    const plan = planClientSideApply(changed, live, deployment);
    expect(plan.op).toBe("patch");
    if (plan.op !== "patch") return;
    expect(plan.patchType).toBe("strategic");
    expect(plan.patch).toEqual({
      metadata: { annotations: { [LAST_APPLIED_ANNOTATION]: withLastApplied(changed).metadata.annotations![LAST_APPLIED_ANNOTATION] } },
      spec: {
        template: {
          spec: {
            "$setElementOrder/containers": [{ name: "app" }],
            containers: [{ name: "app", image: "registry.example/web:1.5" }],
          },
        },
      },
    });
    const container = dig(plan.preview, "spec", "template", "spec", "containers", 0);
    expect(container).toMatchObject({ image: "registry.example/web:1.5", imagePullPolicy: "IfNotPresent", terminationMessagePath: "/dev/termination-log" });
    expect(lastAppliedOf(plan.preview)).toEqual(asKubectlRecordsIt(changed));
    expect(plan.preview.status).toEqual(live.status);
  });

  it("sends a JSON merge patch when there is no schema (custom resources)", () => {
    const widget = yamlObj("{apiVersion: example.com/v1, kind: Widget, metadata: {name: w, namespace: shop}, spec: {size: 3, tags: [a]}}") as KubeObject;
    const live = { ...structuredClone(widget), status: { ready: true } } as KubeObject;
    live.metadata.annotations = { [LAST_APPLIED_ANNOTATION]: withLastApplied(widget).metadata.annotations![LAST_APPLIED_ANNOTATION]! };
    const next = structuredClone(widget);
    dig(next, "spec").tags = ["a", "b"];
    delete dig(next, "spec").size;
    const plan = planClientSideApply(next, live, patchSchemaFor(crdDoc, { group: "example.com", version: "v1", kind: "Widget" }));
    expect(plan.op).toBe("patch");
    if (plan.op !== "patch") return;
    expect(plan.patchType).toBe("merge");
    expect(plan.patch).toEqual({
      metadata: { annotations: { [LAST_APPLIED_ANNOTATION]: withLastApplied(next).metadata.annotations![LAST_APPLIED_ANNOTATION] } },
      spec: { size: null, tags: ["a", "b"] },
    });
    expect(plan.preview.spec).toEqual({ tags: ["a", "b"] });
    expect(plan.preview.status).toEqual({ ready: true });
  });

  it("treats a patch of {} as unchanged", () => {
    expect(isEmptyPatch({})).toBe(true);
    expect(isEmptyPatch({ spec: null })).toBe(false);
  });
});
