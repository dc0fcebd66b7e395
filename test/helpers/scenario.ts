// Building blocks for the end-to-end scenarios of `live apply`: small manifests, unique names,
// reading a package's inventory (file and cluster object) and snapshots of what a namespace holds.
import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse, stringify } from "yaml";
import { adminRequest, kubeconfig, kubectl, kubectlJson, type RunResult } from "./run.js";

/** A name no other test (or earlier run) uses, for cluster-scoped objects and namespaces. */
export function uniqueName(prefix: string): string {
  return `${prefix}-${Math.random().toString(36).slice(2, 8)}`;
}

type Meta = { labels?: Record<string, string>; annotations?: Record<string, string> };

function manifest(apiVersion: string, kind: string, name: string, namespace: string | undefined, meta: Meta, body: Record<string, unknown>): string {
  const metadata: Record<string, unknown> = { name };
  if (namespace !== undefined) metadata.namespace = namespace;
  if (meta.labels) metadata.labels = meta.labels;
  if (meta.annotations) metadata.annotations = meta.annotations;
  return stringify({ apiVersion, kind, metadata, ...body });
}

export function configMap(name: string, namespace: string | undefined, data: Record<string, string> = { key: "value" }, meta: Meta = {}): string {
  return manifest("v1", "ConfigMap", name, namespace, meta, { data });
}

export function service(name: string, namespace: string, meta: Meta = {}, spec: Record<string, unknown> = {}): string {
  return manifest("v1", "Service", name, namespace, meta, { spec: { selector: { app: name }, ports: [{ port: 80, targetPort: 8080 }], ...spec } });
}

export function deployment(name: string, namespace: string, image = "nginx:1.25", meta: Meta = {}): string {
  return manifest("apps/v1", "Deployment", name, namespace, meta, {
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: "main", image }] } },
    },
  });
}

export function namespaceObject(name: string, meta: Meta = {}): string {
  return manifest("v1", "Namespace", name, undefined, meta, {});
}

/** Several manifests in one multi-document file. */
export const docs = (...manifests: string[]): string => manifests.join("---\n");

export interface InventoryInfo {
  name: string;
  namespace: string;
  id: string;
}

/** The inventory a package's resourcegroup.yaml declares. */
export async function readInventoryFile(dir: string, file = "resourcegroup.yaml"): Promise<InventoryInfo> {
  const rg = parse(await readFile(join(dir, file), "utf8")) as { metadata: { name: string; namespace: string; labels: Record<string, string> } };
  return { name: rg.metadata.name, namespace: rg.metadata.namespace, id: rg.metadata.labels["cli-utils.sigs.k8s.io/inventory-id"]! };
}

export interface KubeObj {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; resourceVersion: string; uid: string; labels?: Record<string, string>; annotations?: Record<string, string> } & Record<string, unknown>;
  [k: string]: any;
}

/** The package's ResourceGroup as the cluster holds it, or undefined when there is none. */
export async function clusterInventory(dir: string): Promise<KubeObj | undefined> {
  const inv = await readInventoryFile(dir);
  return getObject("resourcegroups.kpt.dev", inv.name, inv.namespace);
}

/**
 * The API paths of the resources tests read most, as kubectl names them: read with one request
 * from this process instead of a kubectl each (hundreds per run). Others go through kubectl.
 */
const CORE = "/api/v1";
const APPS = "/apis/apps/v1";
const READ_DIRECTLY: { names: string[]; base: string; plural: string; clusterScoped?: boolean }[] = [
  { names: ["configmap", "configmaps"], base: CORE, plural: "configmaps" },
  { names: ["secret", "secrets"], base: CORE, plural: "secrets" },
  { names: ["service", "services"], base: CORE, plural: "services" },
  { names: ["pod", "pods"], base: CORE, plural: "pods" },
  { names: ["namespace", "namespaces"], base: CORE, plural: "namespaces", clusterScoped: true },
  { names: ["pv", "persistentvolumes"], base: CORE, plural: "persistentvolumes", clusterScoped: true },
  { names: ["deployment", "deployments", "deployments.apps"], base: APPS, plural: "deployments" },
  { names: ["statefulset", "statefulsets", "statefulsets.apps"], base: APPS, plural: "statefulsets" },
  { names: ["replicaset", "replicasets", "replicasets.apps"], base: APPS, plural: "replicasets" },
  { names: ["job", "jobs", "jobs.batch"], base: "/apis/batch/v1", plural: "jobs" },
  { names: ["resourcegroups.kpt.dev"], base: "/apis/kpt.dev/v1alpha1", plural: "resourcegroups" },
  { names: ["crd", "customresourcedefinitions"], base: "/apis/apiextensions.k8s.io/v1", plural: "customresourcedefinitions", clusterScoped: true },
];
const PATHS = new Map(READ_DIRECTLY.flatMap((r) => r.names.map((name) => [name, r] as const)));

/** One object, or undefined when it does not exist (managed fields left out unless asked for, as kubectl does). */
export async function getObject<T = KubeObj>(resource: string, name: string, namespace?: string, opts: { managedFields?: boolean } = {}): Promise<T | undefined> {
  const at = PATHS.get(resource);
  if (at) {
    const path = `${at.base}${namespace && !at.clusterScoped ? `/namespaces/${namespace}` : ""}/${at.plural}/${encodeURIComponent(name)}`;
    const r = await adminRequest("GET", path);
    if (r.status === 404) return undefined;
    if (r.status !== 200) throw new Error(`GET ${path}: HTTP ${r.status} ${r.body}`);
    const obj = JSON.parse(r.body) as KubeObj;
    if (!opts.managedFields) delete obj.metadata.managedFields;
    return obj as T;
  }
  const r = await kubectl([
    "get",
    resource,
    name,
    ...(namespace ? ["-n", namespace] : []),
    ...(opts.managedFields ? ["--show-managed-fields"] : []),
    "--ignore-not-found",
    "-o",
    "json",
  ]);
  if (r.code !== 0) throw new Error(`kubectl get ${resource} ${name}: ${r.stderr}`);
  return r.stdout.trim() === "" ? undefined : (JSON.parse(r.stdout) as T);
}

/** `group/Kind/namespace/name` of every object an inventory lists, sorted. */
export function inventoryRefs(rg: KubeObj | undefined): string[] {
  const resources = (rg?.spec?.resources ?? []) as { group: string; kind: string; namespace: string; name: string }[];
  return resources.map((r) => `${r.group}/${r.kind}/${r.namespace}/${r.name}`).sort();
}

export const ref = (group: string, kind: string, namespace: string, name: string): string => `${group}/${kind}/${namespace}/${name}`;

/** The kinds these tests create in their namespaces. */
export const TEST_KINDS = "configmaps,services,deployments.apps,resourcegroups.kpt.dev";

/** The label of kpt-ts' change-history ConfigMaps (records of runs, not package objects). */
export const CHANGE_LABEL = "kpt-ts.dev/change-of-inventory";

/**
 * Every object of the test kinds in a namespace, except the ConfigMap Kubernetes puts in each
 * namespace and kpt-ts' change-history records.
 */
export async function listObjects(namespace: string, kinds = TEST_KINDS): Promise<KubeObj[]> {
  const list = await kubectlWhileDiscoveryChurns(() => kubectlJson<{ items: KubeObj[] }>(["get", kinds, "-n", namespace]));
  return list.items.filter((o) => !(o.kind === "ConfigMap" && (o.metadata.name === "kube-root-ca.crt" || o.metadata.labels?.[CHANGE_LABEL] !== undefined)));
}

/**
 * kubectl's discovery can miss a served type for a moment while other tests add and remove CRDs
 * on the shared cluster ("the server doesn't have a resource type"): asked again, it answers.
 */
async function kubectlWhileDiscoveryChurns<T>(get: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await get();
    } catch (err) {
      if (attempt >= 3 || !String(err).includes("doesn't have a resource type")) throw err;
      await new Promise((r) => setTimeout(r, 1000));
    }
  }
}

/** `Kind/name` -> resourceVersion for every object of the test kinds in a namespace. */
export async function resourceVersions(namespace: string, kinds = TEST_KINDS): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const o of await listObjects(namespace, kinds)) out[`${o.kind}/${o.metadata.name}`] = o.metadata.resourceVersion;
  return out;
}

/** The non-empty lines of a command's standard output. */
export const lines = (r: RunResult): string[] => r.stdout.split("\n").filter((l) => l.trim() !== "");

/** For assertion messages: everything a command printed. */
export const printed = (r: RunResult): string => `exit ${r.code}\n--- stdout\n${r.stdout}\n--- stderr\n${r.stderr}`;

/** A copy of the test cluster's kubeconfig whose context namespace is `namespace`. */
export async function kubeconfigWithNamespace(namespace: string): Promise<string> {
  const path = join(await mkdtemp(join(tmpdir(), "kpt-ts-kubeconfig-")), "config");
  await writeFile(path, await readFile(kubeconfig(), "utf8"));
  const r = await kubectl(["config", "set-context", "--current", `--namespace=${namespace}`, "--kubeconfig", path]);
  if (r.code !== 0) throw new Error(`setting the context namespace: ${r.stderr}`);
  return path;
}

/** A namespaced Widget CRD in `group` (v1, status subresource, any spec and status): an operator's custom resource. */
export function widgetCrd(group: string): string {
  return `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.${group}
spec:
  group: ${group}
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget, listKind: WidgetList}
  versions:
  - name: v1
    served: true
    storage: true
    subresources: {status: {}}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec: {type: object, x-kubernetes-preserve-unknown-fields: true}
          status: {type: object, x-kubernetes-preserve-unknown-fields: true}
`;
}
