// One identity type for every object the engine handles, and one formatter, so every
// message, event and inventory entry names objects the same way.

import type { KubeObject } from "./kube-object.js";

export interface ObjRef {
  /** API group without version; "" for the core group. */
  group: string;
  kind: string;
  /** "" for cluster-scoped objects. */
  namespace: string;
  name: string;
}

export function groupOf(apiVersion: string): string {
  const slash = apiVersion.indexOf("/");
  return slash < 0 ? "" : apiVersion.slice(0, slash);
}

/** Whether a group and kind name a CustomResourceDefinition. */
export function isCrd(group: string, kind: string): boolean {
  return kind === "CustomResourceDefinition" && group === "apiextensions.k8s.io";
}

export function refOf(obj: KubeObject): ObjRef {
  return {
    group: groupOf(obj.apiVersion),
    kind: obj.kind,
    namespace: obj.metadata.namespace ?? "",
    name: obj.metadata.name ?? "",
  };
}

/** A stable map key; unique per object. */
export function refKey(r: ObjRef): string {
  return `${r.group}/${r.kind}/${r.namespace}/${r.name}`;
}

/** `deployment.apps`, `configmap`: kpt's lower-cased GroupKind. */
export function formatGroupKind(r: Pick<ObjRef, "group" | "kind">): string {
  return (r.group ? `${r.kind}.${r.group}` : r.kind).toLowerCase();
}

/** How kpt's events name an object: `deployment.apps/wordpress` (the namespace is not printed). */
export function formatRef(r: ObjRef): string {
  return `${formatGroupKind(r)}/${r.name}`;
}

/** The same with the namespace, for messages where two objects could share a kind and name. */
export function formatRefNs(r: ObjRef): string {
  return r.namespace ? `${formatGroupKind(r)}/${r.name} (namespace ${r.namespace})` : formatRef(r);
}

/** cli-utils' ObjMetadata string, `<ns>_<name>_<group>_<Kind>`, used in kpt's dependency messages. */
export function cliUtilsId(r: ObjRef): string {
  return `${r.namespace}_${r.name.replace(/:/g, "__")}_${r.group}_${r.kind}`;
}

/** The depends-on reference form: `group/namespaces/ns/Kind/name` or `group/Kind/name`. */
export function formatDependsOnRef(r: ObjRef): string {
  return r.namespace ? `${r.group}/namespaces/${r.namespace}/${r.kind}/${r.name}` : `${r.group}/${r.kind}/${r.name}`;
}

/** Sort key used wherever a deterministic order of refs is needed. */
export function compareRefs(a: ObjRef, b: ObjRef): number {
  return refKey(a) < refKey(b) ? -1 : refKey(a) > refKey(b) ? 1 : 0;
}

/** A set of refs keyed by refKey; insertion order preserved. */
export class RefSet implements Iterable<ObjRef> {
  private readonly items = new Map<string, ObjRef>();
  constructor(refs: Iterable<ObjRef> = []) {
    for (const r of refs) this.add(r);
  }
  add(r: ObjRef): this {
    this.items.set(refKey(r), r);
    return this;
  }
  delete(r: ObjRef): boolean {
    return this.items.delete(refKey(r));
  }
  has(r: ObjRef): boolean {
    return this.items.has(refKey(r));
  }
  get size(): number {
    return this.items.size;
  }
  [Symbol.iterator](): Iterator<ObjRef> {
    return this.items.values();
  }
  toArray(): ObjRef[] {
    return [...this.items.values()];
  }
  union(other: Iterable<ObjRef>): RefSet {
    return new RefSet([...this, ...other]);
  }
  /** The same objects, in any order. */
  equals(other: Iterable<ObjRef>): boolean {
    const o = other instanceof RefSet ? other : new RefSet(other);
    return o.size === this.size && this.toArray().every((r) => o.has(r));
  }
  minus(other: RefSet): RefSet {
    return new RefSet(this.toArray().filter((r) => !other.has(r)));
  }
  intersect(other: RefSet): RefSet {
    return new RefSet(this.toArray().filter((r) => other.has(r)));
  }
}
