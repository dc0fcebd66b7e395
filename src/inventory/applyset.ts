// The ApplySet inventory (KEP-3659, as kubectl implements it): its id, its parent object, the
// group-kinds and namespaces the parent names so members can be listed by label, and which
// parents kpt-ts may change. Pure. Facts carried over from kubectl's pkg/cmd/apply/applyset.go:
// the id is `applyset-` + base64url(sha256("<name>.<namespace>.<kind>.<group>")) + `-v1`; the
// group-kinds are `Kind.group` (`Kind` for the core group), sorted and comma-separated; the
// additional namespaces leave out the parent's own; a parent whose tooling names another tool is
// not changed (kubectl: "... is managed by tooling X instead of Y").

import { UsageError } from "../model/errors.js";
import {
  applySetId,
  APPLYSET_GROUP_KINDS_ANNOTATION,
  APPLYSET_GROUP_RESOURCES_ANNOTATION,
  APPLYSET_ID_LABEL,
  APPLYSET_NAMESPACES_ANNOTATION,
  APPLYSET_TOOLING_ANNOTATION,
} from "../model/inventory-keys.js";
import type { ApplySetParent, InventoryInfo, KubeObject } from "../model/kube-object.js";
import type { ApplySetScope } from "../model/plan.js";
import { RefSet, type ObjRef } from "../model/ref.js";
import type { InventoryPolicy } from "./policy.js";

/** The name kpt-ts gives itself in the tooling annotation (`kpt-ts/v0.1.0`). */
export const TOOLING_NAME = "kpt-ts";

export { applySetId };

/** The parent as an object reference (core group: Secrets and ConfigMaps). */
export function parentRef(info: Pick<InventoryInfo, "name" | "namespace" | "applySet">): ObjRef {
  return { group: "", kind: info.applySet?.kind ?? "Secret", namespace: info.namespace, name: info.name };
}

/** How kubectl names a parent in its messages and flags: `secrets./web`, `configmaps./web`. */
export function formatParent(info: Pick<InventoryInfo, "name" | "applySet">): string {
  return `${resourceOf(info.applySet?.kind ?? "Secret")}/${info.name}`;
}

function resourceOf(kind: ApplySetParent["kind"]): string {
  return kind === "Secret" ? "secrets" : "configmaps";
}

const PARENT_RESOURCES: Record<string, ApplySetParent["kind"]> = { secret: "Secret", secrets: "Secret", configmap: "ConfigMap", configmaps: "ConfigMap", cm: "ConfigMap" };

/**
 * The inventory `--applyset [RESOURCE][.GROUP]/NAME` names, with `-n`: kubectl's flag (a bare NAME
 * is a Secret). kubectl takes the parent's namespace from `-n` only, never from the kubeconfig;
 * so does kpt-ts.
 */
export function applySetFromFlag(value: string, namespace: string | undefined): InventoryInfo {
  const slash = value.indexOf("/");
  const [typePart, name] = slash < 0 ? ["secrets", value] : [value.slice(0, slash), value.slice(slash + 1)];
  const dot = typePart.indexOf(".");
  const resource = (dot < 0 ? typePart : typePart.slice(0, dot)).toLowerCase();
  const group = dot < 0 ? "" : typePart.slice(dot + 1);
  if (!name) throw new UsageError(`--applyset "${value}": the parent's name is missing: give [RESOURCE][.GROUP]/NAME, e.g. --applyset secrets/my-app`);
  const kind = group === "" || group === "core" ? PARENT_RESOURCES[resource] : undefined;
  if (!kind) {
    throw new UsageError(
      `--applyset "${value}": kpt-ts keeps an ApplySet in a Secret or a ConfigMap (secrets/NAME, configmaps/NAME); "${typePart}" is neither (custom resource parents are not supported)`,
    );
  }
  if (!namespace) throw new UsageError(`--applyset ${value} needs --namespace: the parent ${resourceOf(kind)}/${name} lives in a namespace (kubectl takes it from -n only, and so does kpt-ts)`);
  return applySetInventory({ name, namespace, kind, origin: "flag", source: { file: "--applyset", line: 1 } });
}

/** An ApplySet inventory, its id derived from its parent. */
export function applySetInventory(o: { name: string; namespace: string; kind: ApplySetParent["kind"]; origin: InventoryInfo["origin"]; source: InventoryInfo["source"]; labels?: Record<string, string>; annotations?: Record<string, string> }): InventoryInfo {
  return {
    name: o.name,
    namespace: o.namespace,
    id: applySetId({ name: o.name, namespace: o.namespace, kind: o.kind, group: "" }),
    labels: o.labels ?? {},
    annotations: o.annotations ?? {},
    origin: o.origin,
    source: o.source,
    applySet: { kind: o.kind },
  };
}

export interface GroupKind {
  group: string;
  kind: string;
}

/** `Deployment.apps`, `ConfigMap` (kubectl's schema.GroupKind.String()). */
export function formatGroupKind(gk: GroupKind): string {
  return gk.group ? `${gk.kind}.${gk.group}` : gk.kind;
}

/** kubectl's schema.ParseGroupKind: the kind up to the first dot, the group after it. */
export function parseGroupKind(s: string): GroupKind {
  const dot = s.indexOf(".");
  return dot < 0 ? { group: "", kind: s } : { group: s.slice(dot + 1), kind: s.slice(0, dot) };
}

/** The scope that covers these objects (the parent's namespace left out of the namespaces). */
export function scopeOf(refs: Iterable<ObjRef>, parentNamespace: string): ApplySetScope {
  const gks = new Set<string>();
  const nss = new Set<string>();
  for (const r of refs) {
    gks.add(formatGroupKind(r));
    if (r.namespace && r.namespace !== parentNamespace) nss.add(r.namespace);
  }
  return { groupKinds: [...gks].sort(), namespaces: [...nss].sort() };
}

/** Both scopes at once (kubectl's superset, written before the first apply). */
export function unionScope(a: ApplySetScope, b: ApplySetScope): ApplySetScope {
  return { groupKinds: [...new Set([...a.groupKinds, ...b.groupKinds])].sort(), namespaces: [...new Set([...a.namespaces, ...b.namespaces])].sort() };
}

export function sameScope(a: ApplySetScope, b: ApplySetScope): boolean {
  return a.groupKinds.join(",") === b.groupKinds.join(",") && a.namespaces.join(",") === b.namespaces.join(",");
}

/** True when `outer` names every group-kind and namespace `inner` does. */
export function coversScope(outer: ApplySetScope, inner: ApplySetScope): boolean {
  return inner.groupKinds.every((g) => outer.groupKinds.includes(g)) && inner.namespaces.every((n) => outer.namespaces.includes(n));
}

const splitList = (v: string | undefined): string[] => (v ? v.split(",").map((s) => s.trim()).filter(Boolean) : []);

/**
 * The scope a parent in the cluster names. `groupResources`: kubectl 1.27's older hint (plural
 * resources), when the parent has only that one; the caller maps them to kinds.
 */
export function storedScope(parent: KubeObject | undefined): ApplySetScope & { groupResources?: string[] } {
  const a = parent?.metadata.annotations ?? {};
  const scope = { groupKinds: [...new Set(splitList(a[APPLYSET_GROUP_KINDS_ANNOTATION]))].sort(), namespaces: [...new Set(splitList(a[APPLYSET_NAMESPACES_ANNOTATION]))].filter((n) => n !== parent?.metadata.namespace).sort() };
  if (a[APPLYSET_GROUP_KINDS_ANNOTATION] === undefined && a[APPLYSET_GROUP_RESOURCES_ANNOTATION]) return { ...scope, groupResources: splitList(a[APPLYSET_GROUP_RESOURCES_ANNOTATION]) };
  return scope;
}

/** Every namespace the scope's namespaced members may be in: the parent's first. */
export function scopeNamespaces(info: Pick<InventoryInfo, "namespace">, scope: ApplySetScope): string[] {
  return [info.namespace, ...scope.namespaces.filter((n) => n !== info.namespace)];
}

/**
 * The parent to write: the cluster copy (when there is one) with kpt-ts's tooling and this
 * scope, else a new one from the package's inventory information. Labels and annotations the
 * package gives the inventory are kept on it, as on a ResourceGroup.
 */
export function buildParent(info: InventoryInfo, scope: ApplySetScope, tooling: string, current?: KubeObject): KubeObject {
  const kind = info.applySet?.kind ?? "Secret";
  const base: KubeObject = current
    ? structuredClone(current)
    : { apiVersion: "v1", kind, metadata: { name: info.name, namespace: info.namespace }, ...(kind === "Secret" ? { type: "Opaque" } : {}) };
  const annotations: Record<string, string> = { ...info.annotations, ...base.metadata.annotations };
  delete annotations[APPLYSET_GROUP_RESOURCES_ANNOTATION]; // replaced by the group-kinds, as kubectl does
  annotations[APPLYSET_TOOLING_ANNOTATION] = tooling;
  annotations[APPLYSET_GROUP_KINDS_ANNOTATION] = scope.groupKinds.join(",");
  if (scope.namespaces.length) annotations[APPLYSET_NAMESPACES_ANNOTATION] = scope.namespaces.join(",");
  else delete annotations[APPLYSET_NAMESPACES_ANNOTATION];
  base.metadata = { ...base.metadata, labels: { ...info.labels, ...base.metadata.labels, [APPLYSET_ID_LABEL]: info.id }, annotations };
  return base;
}

/** The tool that manages a parent (`kubectl` for `kubectl/v1.32.0`), as kubectl's toolingBaseName reads it. */
export function toolingName(tooling: string): string {
  const parts = tooling.split("/");
  return parts.length >= 2 ? parts.slice(0, -1).join("/") : tooling;
}

/** What kind of parent an existing object is, to kpt-ts. */
export type ParentOwnership = "ours" | "other-tool" | "no-tooling" | "wrong-id";

export function parentOwnership(parent: KubeObject, info: InventoryInfo): ParentOwnership {
  const id = parent.metadata.labels?.[APPLYSET_ID_LABEL];
  if (id !== undefined && id !== info.id) return "wrong-id";
  const tooling = parent.metadata.annotations?.[APPLYSET_TOOLING_ANNOTATION];
  if (tooling === undefined || id === undefined) return "no-tooling";
  return toolingName(tooling) === TOOLING_NAME ? "ours" : "other-tool";
}

/**
 * Why kpt-ts may not write this parent, or undefined when it may. Another tool's ApplySet (or an
 * object that is not a parent yet) is taken over only with --inventory-policy adopt or
 * force-adopt; a parent whose id label does not match its name is never written (KEP-3659: the
 * id protects against impersonation).
 */
export function parentRefusal(parent: KubeObject, info: InventoryInfo, policy: InventoryPolicy): string | undefined {
  const what = `ApplySet parent ${info.namespace}/${formatParent(info)}`;
  const ownership = parentOwnership(parent, info);
  if (ownership === "ours") return undefined;
  if (ownership === "wrong-id") {
    return `${what} has ${APPLYSET_ID_LABEL}="${parent.metadata.labels?.[APPLYSET_ID_LABEL]}", not "${info.id}" as its name, namespace and kind give: it is not this ApplySet's parent; remove the label, or choose another parent name`;
  }
  if (policy !== "strict") return undefined;
  if (ownership === "other-tool") {
    const tool = toolingName(parent.metadata.annotations![APPLYSET_TOOLING_ANNOTATION]!);
    return `${what} already exists and is managed by tooling "${tool}" instead of "${TOOLING_NAME}": take it over with --inventory-policy=adopt (its members keep their label; ${tool} will then refuse it)`;
  }
  return `${what} already exists and is not an ApplySet kpt-ts manages (no ${APPLYSET_TOOLING_ANNOTATION} annotation or ${APPLYSET_ID_LABEL} label): take it over with --inventory-policy=adopt, or choose another parent name`;
}

/** Members found by label, as refs, in a stable order (the lists' order), each once. */
export function memberRefs(objects: Iterable<KubeObject>, group: string, kind: string): ObjRef[] {
  return new RefSet([...objects].map((o) => ({ group, kind, namespace: o.metadata.namespace ?? "", name: o.metadata.name ?? "" }))).toArray();
}
