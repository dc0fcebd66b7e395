// An in-memory API server implementing `Cluster` (src/cluster/types.ts), so the engine's event
// sequences can be tested in milliseconds without a control plane. It answers the way
// kube-apiserver does for the calls the engine makes, with the same typed errors (ApiError with
// the server's status and reason, WatchExpiredError); everything a controller would do (a
// Deployment becoming Available, a finalizer being removed) is scripted by the test.
//
// BEHAVIOUR CONTRACT
// - Discovery: a fixed table of built-in kinds (core, apps, batch, rbac, apiextensions) with their
//   scope and plural; a CustomResourceDefinition that is created adds the kinds of its served
//   versions at once and gets `Established: True` at once (deleting it removes neither its kinds
//   nor their objects). `serves()` and `scopeOf()` read the table; any call on a kind it does not
//   serve fails 404 "the cluster does not serve ...", KubeCluster's own words. `openapi()` answers
//   undefined, so client-side apply sends JSON merge patches. The ResourceGroup kind exists only
//   once its CRD is created, as on a fresh cluster (a first apply installs it).
// - Every write bumps one cluster-wide resourceVersion counter (decimal strings) and is logged as
//   a watch event. A write that changes nothing (same content after the write) keeps the object's
//   resourceVersion and logs nothing, as the real server does for a no-op patch or apply.
//   `metadata.generation` starts at 1 and grows when anything outside metadata and status changes.
//   uid and creationTimestamp are set on create.
// - create: 409 AlreadyExists when the name is taken; 404 when a namespaced object's Namespace does
//   not exist (`namespaces "x" not found`); status in the body is dropped (status subresource); a
//   `generateName` without a name gets a name: the prefix and a counter (the server's is random).
// - update (PUT): 404 when missing; 409 Conflict when the body's resourceVersion is set and stale;
//   the stored status is kept. updateStatus replaces only `status`, with the same rules.
// - patch: "merge" is RFC 7386; "strategic" is applied as a merge patch (the engine sends none: the
//   fake serves no OpenAPI); "json" fails 415. 404 when missing.
// - apply (server-side): creates or merges the configuration into the live object (maps merged,
//   lists replaced), removes fields this field manager applied before and no longer sets, and
//   records the manager's fields in `managedFields` (operation Apply, fieldsV1, lists atomic).
//   A field another Apply manager owns with another value fails 409 Conflict with
//   `FieldManagerConflict` causes unless `force`. Update managers are not tracked.
// - delete: "notfound" when missing (KubeCluster's answer for a 404); 409 Conflict when the uid or
//   resourceVersion precondition does not hold. An object with finalizers gets a
//   deletionTimestamp, stays, and the answer is "terminating" (MODIFIED is logged); it goes away
//   (DELETED) once a write or `removeFinalizers()` leaves it without finalizers. Without
//   finalizers it goes at once ("deleted"). The propagation policy is recorded in `calls`, not
//   acted on: there is no garbage collector (owner references are not followed).
// - dryRun on any write: the same checks and answer, nothing stored, nothing logged.
// - list: the objects of a kind (one namespace, or all), with `metadata.name=` field selectors and
//   `key=value` label selectors, and the current resourceVersion.
// - watch: from a resourceVersion, the logged ADDED/MODIFIED/DELETED events after it (a DELETED event
//   carries the last state), then live ones, until the signal aborts. A resourceVersion older than
//   `compact()` left fails with WatchExpiredError (the server's 410).
// - accessReview (SelfSubjectAccessReview): allowed unless a `forbid()` matches without a name (or
//   with the reviewed name); each review is logged in `reviews`.
// - Leases (coordination.k8s.io) are served, for the run's lock. A list may be `metadataOnly`.
// - 403: `forbid({ verb, kind, namespace?, name? })` refuses matching calls with the API server's
//   sentence (`User "test" cannot create resource "configmaps" in API group "" in the namespace
//   "app"`); verbs get, list, watch, create, update, patch, delete. 422 and other failures:
//   `failOn(match, () => ApiError)` (e.g. `invalid()` below).
// - Scripts: `onWrite(match, fn)` runs `fn` after a matching create/update/patch is stored (a
//   server-side apply counts as the create or patch it is) or a delete leaves the object
//   terminating (verb "delete"; the object still has its finalizers),
//   `delayMs` later (default: the next macrotask, so the engine first sees the object as written).
//   `setStatus()` and `removeFinalizers()` are the controller's writes.
// - `seed()` stores objects as if made before the test; `peek()`, `contents()` read the store;
//   `calls` records every request (verb and object) in order, `writes()` the writing ones, for
//   tests that check what was written (a dry run writes nothing).

import { randomUUID } from "node:crypto";
import { ApiError, NotServedError } from "../../src/cluster/api-error.js";
import { WatchExpiredError, type Cluster, type DeleteOptions, type ListResult, type PatchType, type Scope, type WatchEvent, type WatchQuery, type WriteOptions } from "../../src/cluster/types.js";
import { groupOf, refKey, refOf, type ObjRef } from "../../src/model/ref.js";
import type { KubeObject } from "../../src/model/kube-object.js";

export type Verb = "get" | "list" | "watch" | "create" | "update" | "patch" | "delete";

export interface Match {
  verb?: Verb | Verb[];
  kind?: string;
  namespace?: string;
  name?: string;
}

export interface Call {
  verb: Verb | "apply" | "updateStatus";
  ref: ObjRef;
  dryRun?: boolean;
  propagationPolicy?: string;
}

interface KindInfo {
  group: string;
  kind: string;
  versions: string[];
  plural: string;
  scope: Scope;
}

const BUILTIN: KindInfo[] = [
  ["", "v1", "Namespace", "namespaces", "Cluster"],
  ["", "v1", "ConfigMap", "configmaps", "Namespaced"],
  ["", "v1", "Secret", "secrets", "Namespaced"],
  ["", "v1", "Service", "services", "Namespaced"],
  ["", "v1", "ServiceAccount", "serviceaccounts", "Namespaced"],
  ["", "v1", "Pod", "pods", "Namespaced"],
  ["", "v1", "PersistentVolumeClaim", "persistentvolumeclaims", "Namespaced"],
  ["", "v1", "PersistentVolume", "persistentvolumes", "Cluster"],
  ["apps", "v1", "Deployment", "deployments", "Namespaced"],
  ["apps", "v1", "StatefulSet", "statefulsets", "Namespaced"],
  ["apps", "v1", "ReplicaSet", "replicasets", "Namespaced"],
  ["batch", "v1", "Job", "jobs", "Namespaced"],
  ["rbac.authorization.k8s.io", "v1", "Role", "roles", "Namespaced"],
  ["rbac.authorization.k8s.io", "v1", "ClusterRole", "clusterroles", "Cluster"],
  ["apiextensions.k8s.io", "v1", "CustomResourceDefinition", "customresourcedefinitions", "Cluster"],
  ["coordination.k8s.io", "v1", "Lease", "leases", "Namespaced"],
].map(([group, version, kind, plural, scope]) => ({ group: group!, versions: [version!], kind: kind!, plural: plural!, scope: scope as Scope }));

interface Logged {
  rv: number;
  type: "ADDED" | "MODIFIED" | "DELETED";
  object: KubeObject;
}

const clone = <T>(v: T): T => structuredClone(v);

function isMap(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** RFC 7386 JSON merge patch. */
function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isMap(patch)) return clone(patch);
  const out: Record<string, unknown> = isMap(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(sortKeys(a)) === JSON.stringify(sortKeys(b));
}

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (!isMap(v)) return v;
  return Object.fromEntries(Object.keys(v).sort().map((k) => [k, sortKeys(v[k])]));
}

/** Everything but metadata and status: what makes the generation grow. */
function specPart(o: KubeObject): unknown {
  const { metadata: _m, status: _s, ...rest } = o;
  return rest;
}

/** Leaf paths of a configuration (lists are atomic leaves), for server-side apply's ownership. */
function leafPaths(v: unknown, prefix: string[] = [], out: string[][] = []): string[][] {
  if (isMap(v) && Object.keys(v).length > 0) {
    for (const [k, sub] of Object.entries(v)) leafPaths(sub, [...prefix, k], out);
  } else out.push(prefix);
  return out;
}

function fieldsV1Of(paths: string[][]): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  for (const p of paths) {
    let node = root;
    for (const k of p) node = (node[`f:${k}`] ??= {}) as Record<string, unknown>;
  }
  return root;
}

function pathsOfFieldsV1(f: unknown, prefix: string[] = [], out: string[][] = []): string[][] {
  const entries = isMap(f) ? Object.entries(f).filter(([k]) => k.startsWith("f:")) : [];
  if (entries.length === 0) out.push(prefix);
  for (const [k, sub] of entries) pathsOfFieldsV1(sub, [...prefix, k.slice(2)], out);
  return out;
}

function valueAt(o: unknown, path: string[]): unknown {
  let v = o;
  for (const k of path) v = isMap(v) ? v[k] : undefined;
  return v;
}

function deleteAt(o: Record<string, unknown>, path: string[]): void {
  let v: unknown = o;
  for (const k of path.slice(0, -1)) v = isMap(v) ? v[k] : undefined;
  if (isMap(v)) delete v[path.at(-1)!];
}

/** Server-side apply's merge: maps merged, lists and scalars replaced. */
function applyMerge(live: unknown, config: unknown): unknown {
  if (!isMap(config) || !isMap(live)) return clone(config);
  const out: Record<string, unknown> = { ...live };
  for (const [k, v] of Object.entries(config)) out[k] = applyMerge(live[k], v);
  return out;
}

/** The 422 the API server answers for an invalid object. */
export function invalid(kind: string, name: string, field: string, detail: string): ApiError {
  return new ApiError(422, "Invalid", `${kind} "${name}" is invalid: ${field}: ${detail}`, [{ reason: "FieldValueInvalid", message: detail, field }]);
}

export class MemoryCluster implements Cluster {
  readonly server = "https://memory.invalid";
  readonly user = "test";
  readonly calls: Call[] = [];
  private readonly kinds = new Map<string, KindInfo>(BUILTIN.map((k) => [`${k.group}/${k.kind}`, k]));
  private readonly objects = new Map<string, KubeObject>();
  private readonly log: Logged[] = [];
  private readonly listeners = new Set<(e: Logged) => void>();
  private readonly forbidden: Match[] = [];
  /** Every access review asked, as `verb plural namespace`. */
  readonly reviews: string[] = [];
  private readonly failures: { match: Match; error: () => ApiError }[] = [];
  private readonly scripts: { match: Match; fn: (obj: KubeObject) => void; delayMs?: number; once: boolean }[] = [];
  private rv = 1;
  private generated = 0;
  /** Watches from a resourceVersion below this fail with WatchExpiredError. */
  private compactedBelow = 0;

  readonly defaultNamespace: string;
  readonly namespaceEnforced: boolean;
  /** The clock of creation and deletion timestamps. */
  private readonly now: () => Date;

  constructor(o: { defaultNamespace?: string; namespaceEnforced?: boolean; now?: () => Date } = {}) {
    this.defaultNamespace = o.defaultNamespace ?? "default";
    this.namespaceEnforced = o.namespaceEnforced ?? false;
    this.now = o.now ?? (() => new Date());
  }

  // ---- test controls -------------------------------------------------------------------------

  /** Stores objects as they are (no checks), as if created before the test. */
  seed(...objs: KubeObject[]): this {
    for (const o of objs) this.store(this.stamp(clone(o)), "ADDED");
    return this;
  }

  /** Refuse matching calls with 403, in the API server's words. */
  forbid(match: Match): this {
    this.forbidden.push(match);
    return this;
  }

  /** Fail matching calls with the error `error()` makes (a 422 from `invalid()`, a 500...). */
  failOn(match: Match, error: () => ApiError): this {
    this.failures.push({ match, error });
    return this;
  }

  /** Runs `fn` (a controller's reaction) after each matching write is stored. */
  onWrite(match: Match, fn: (obj: KubeObject) => void, o: { delayMs?: number; once?: boolean } = {}): this {
    this.scripts.push({ match, fn, delayMs: o.delayMs, once: o.once ?? false });
    return this;
  }

  /** A controller's status write: replaces `status`, bumps the resourceVersion, logs MODIFIED. */
  setStatus(ref: ObjRef, status: unknown): void {
    const live = this.objects.get(refKey(ref));
    if (!live) throw new Error(`setStatus: ${refKey(ref)} does not exist`);
    this.store({ ...clone(live), status: clone(status) }, "MODIFIED");
  }

  /** A controller finishing its work: the object loses its finalizers (and goes, if terminating). */
  removeFinalizers(ref: ObjRef): void {
    const live = this.objects.get(refKey(ref));
    if (!live) return;
    const next = clone(live);
    delete next.metadata.finalizers;
    this.store(next, "MODIFIED");
  }

  /** The stored object (a copy), or undefined. */
  peek(ref: ObjRef): KubeObject | undefined {
    const o = this.objects.get(refKey(ref));
    return o && clone(o);
  }

  /** Every stored object's `Kind/namespace/name`, sorted (for "nothing changed" assertions). */
  contents(): string[] {
    return [...this.objects.values()].map((o) => `${o.kind}/${o.metadata.namespace ?? ""}/${o.metadata.name}@${o.metadata.resourceVersion}`).sort();
  }

  /** The writes made so far (calls other than get, list and watch). */
  writes(): Call[] {
    return this.calls.filter((c) => !["get", "list", "watch"].includes(c.verb));
  }

  /** Forgets the watch log: watches from an older resourceVersion then expire (410). */
  compact(): void {
    this.compactedBelow = this.rv;
    this.log.length = 0;
  }

  // ---- discovery -----------------------------------------------------------------------------

  private kindOf(group: string, kind: string, apiVersion?: string): KindInfo {
    const k = this.kinds.get(`${group}/${kind}`);
    const version = apiVersion ? (apiVersion.includes("/") ? apiVersion.split("/")[1]! : apiVersion) : undefined;
    if (!k || (version && !k.versions.includes(version))) throw new NotServedError(group, kind, apiVersion);
    return k;
  }

  async scopeOf(group: string, kind: string): Promise<Scope | undefined> {
    return this.kinds.get(`${group}/${kind}`)?.scope;
  }

  async serves(apiVersion: string, kind: string): Promise<boolean> {
    const k = this.kinds.get(`${groupOf(apiVersion)}/${kind}`);
    const version = apiVersion.includes("/") ? apiVersion.split("/")[1]! : apiVersion;
    return Boolean(k?.versions.includes(version));
  }

  resetDiscovery(): void {}

  async openapi(): Promise<unknown | undefined> {
    return undefined;
  }

  close(): void {}

  // ---- checks --------------------------------------------------------------------------------

  private matches(m: Match, verb: Verb, ref: ObjRef): boolean {
    const verbs = m.verb === undefined ? undefined : Array.isArray(m.verb) ? m.verb : [m.verb];
    return (!verbs || verbs.includes(verb)) && (m.kind === undefined || m.kind === ref.kind) && (m.namespace === undefined || m.namespace === ref.namespace) && (m.name === undefined || m.name === ref.name);
  }

  /** 403 or an injected failure for this call, else nothing. */
  private check(verb: Verb, ref: ObjRef, k: KindInfo): void {
    if (this.forbidden.some((m) => this.matches(m, verb, ref))) {
      const who = ref.name && !["list", "watch", "create"].includes(verb) ? `${k.plural}${k.group ? `.${k.group}` : ""} "${ref.name}"` : `${k.plural}${k.group ? `.${k.group}` : ""}`;
      const where = k.scope === "Namespaced" && ref.namespace ? ` in the namespace "${ref.namespace}"` : k.scope === "Cluster" ? " at the cluster scope" : "";
      throw new ApiError(403, "Forbidden", `${who} is forbidden: User "${this.user}" cannot ${verb} resource "${k.plural}" in API group "${k.group}"${where}`);
    }
    const f = this.failures.find((x) => this.matches(x.match, verb, ref));
    if (f) throw f.error();
  }

  private record(verb: Call["verb"], ref: ObjRef, extra: Partial<Call> = {}): void {
    this.calls.push({ verb, ref, ...extra });
  }

  private notFound(k: KindInfo, name: string): ApiError {
    return new ApiError(404, "NotFound", `${k.plural}${k.group ? `.${k.group}` : ""} "${name}" not found`);
  }

  private conflict(k: KindInfo, name: string, why = "the object has been modified; please apply your changes to the latest version and try again"): ApiError {
    return new ApiError(409, "Conflict", `Operation cannot be fulfilled on ${k.plural}${k.group ? `.${k.group}` : ""} "${name}": ${why}`);
  }

  private refFor(obj: KubeObject, k: KindInfo): ObjRef {
    const r = refOf(obj);
    return k.scope === "Cluster" ? { ...r, namespace: "" } : r;
  }

  // ---- storage -------------------------------------------------------------------------------

  /** uid, creationTimestamp, generation for a new object. */
  private stamp(o: KubeObject): KubeObject {
    o.metadata.uid ??= randomUUID();
    o.metadata.creationTimestamp ??= this.now().toISOString().replace(/\.\d{3}Z$/, "Z");
    o.metadata.generation ??= 1;
    return o;
  }

  private store(o: KubeObject, type: Logged["type"]): KubeObject {
    const key = refKey(refOf(o));
    o.metadata.resourceVersion = String(++this.rv);
    if (type !== "DELETED" && o.metadata.deletionTimestamp && !(o.metadata.finalizers as string[] | undefined)?.length) {
      this.objects.delete(key);
      this.publish({ rv: this.rv, type: "DELETED", object: clone(o) });
      return o;
    }
    if (type === "DELETED") this.objects.delete(key);
    else this.objects.set(key, o);
    if (o.kind === "CustomResourceDefinition" && type === "ADDED") this.establish(o);
    this.publish({ rv: this.rv, type, object: clone(o) });
    return o;
  }

  private publish(e: Logged): void {
    this.log.push(e);
    for (const l of this.listeners) l(e);
  }

  /** A CRD serves its kinds at once and is Established at once. */
  private establish(crd: KubeObject): void {
    const spec = crd.spec as { group?: string; scope?: string; names?: { kind?: string; plural?: string }; versions?: { name: string; served?: boolean }[] };
    if (spec?.group && spec.names?.kind) {
      this.kinds.set(`${spec.group}/${spec.names.kind}`, {
        group: spec.group,
        kind: spec.names.kind,
        plural: spec.names.plural ?? `${spec.names.kind.toLowerCase()}s`,
        versions: (spec.versions ?? []).filter((v) => v.served !== false).map((v) => v.name),
        scope: spec.scope === "Cluster" ? "Cluster" : "Namespaced",
      });
    }
    crd.status = { conditions: [{ type: "Established", status: "True" }, { type: "NamesAccepted", status: "True" }] };
  }

  /** Replaces a live object by `next`, unless that changes nothing (then no new resourceVersion). */
  private replace(live: KubeObject, next: KubeObject, dryRun: boolean | undefined, verb: Verb): KubeObject {
    const { resourceVersion: _a, ...nm } = next.metadata;
    const { resourceVersion: _b, ...lm } = live.metadata;
    if (sameJson({ ...next, metadata: nm }, { ...live, metadata: lm })) return clone(live);
    if (!sameJson(specPart(next), specPart(live))) next.metadata.generation = (live.metadata.generation ?? 1) + 1;
    if (dryRun) return { ...next, metadata: { ...next.metadata, resourceVersion: live.metadata.resourceVersion } };
    const stored = this.store(next, "MODIFIED");
    this.react(stored, verb);
    return clone(stored);
  }

  private react(obj: KubeObject, verb: Verb): void {
    const ref = refOf(obj);
    for (const s of [...this.scripts]) {
      if (!this.matches(s.match, verb, ref)) continue;
      if (s.once) this.scripts.splice(this.scripts.indexOf(s), 1);
      setTimeout(() => {
        const now = this.objects.get(refKey(ref));
        if (now) s.fn(clone(now));
      }, s.delayMs ?? 0);
    }
  }

  // ---- Cluster -------------------------------------------------------------------------------

  async get(ref: ObjRef, _signal?: AbortSignal, opts: { metadataOnly?: boolean } = {}): Promise<KubeObject | undefined> {
    const k = this.kindOf(ref.group, ref.kind);
    this.record("get", ref);
    this.check("get", ref, k);
    const o = this.objects.get(refKey(ref));
    if (!o) return undefined;
    return opts.metadataOnly ? { apiVersion: "meta.k8s.io/v1", kind: "PartialObjectMetadata", metadata: clone(o.metadata) } : clone(o);
  }

  async list(group: string, kind: string, namespace?: string, opts: { fieldSelector?: string; labelSelector?: string; metadataOnly?: boolean; limit?: number } = {}): Promise<ListResult> {
    const k = this.kindOf(group, kind);
    const ref = { group, kind, namespace: namespace ?? "", name: "" };
    this.record("list", ref);
    this.check("list", ref, k);
    // As KubeCluster: a namespace means nothing for a cluster-scoped kind.
    const ns = k.scope === "Cluster" ? undefined : namespace;
    const items = [...this.objects.values()].filter((o) => this.selected(o, group, kind, ns, opts.fieldSelector, opts.labelSelector)).map((o) => (opts.metadataOnly ? { apiVersion: o.apiVersion, kind: o.kind, metadata: clone(o.metadata) } : clone(o)));
    return { items: opts.limit === undefined ? items : items.slice(0, opts.limit), resourceVersion: String(this.rv) };
  }

  async whoAmI(): Promise<string> {
    return this.user;
  }

  /** A SelfSubjectAccessReview: allowed unless `forbid()` refuses the verb on the kind there. */
  async accessReview(q: { verb: string; group: string; kind: string; namespace: string; name?: string }): Promise<{ allowed: boolean; resource: string } | undefined> {
    const k = this.kinds.get(`${q.group}/${q.kind}`);
    if (!k) return undefined;
    this.reviews.push(`${q.verb} ${k.plural} ${q.namespace}${q.name ? ` ${q.name}` : ""}`);
    const ref = { group: q.group, kind: q.kind, namespace: q.namespace, name: q.name ?? "" };
    const allowed = !this.forbidden.some((m) => this.matches({ ...m, name: undefined }, q.verb as Verb, ref) && (m.name === undefined || m.name === q.name));
    return { allowed, resource: k.group ? `${k.plural}.${k.group}` : k.plural };
  }

  private selected(o: KubeObject, group: string, kind: string, namespace: string | undefined, fieldSelector?: string, labelSelector?: string): boolean {
    if (groupOf(o.apiVersion) !== group || o.kind !== kind) return false;
    if (namespace && (o.metadata.namespace ?? "") !== namespace) return false;
    const name = fieldSelector?.match(/^metadata\.name=(.*)$/)?.[1];
    if (name !== undefined && o.metadata.name !== name) return false;
    for (const term of labelSelector ? labelSelector.split(",") : []) {
      const [key, value] = term.split("=");
      // `key` alone: the label exists, whatever its value.
      if (value === undefined ? o.metadata.labels?.[key!] === undefined : o.metadata.labels?.[key!] !== value) return false;
    }
    return true;
  }

  async create(given: KubeObject, opts: WriteOptions = {}): Promise<KubeObject> {
    const obj = !given.metadata.name && given.metadata.generateName ? { ...given, metadata: { ...given.metadata, name: `${given.metadata.generateName}${String(++this.generated).padStart(5, "0")}` } } : given;
    const k = this.kindOf(groupOf(obj.apiVersion), obj.kind, obj.apiVersion);
    const ref = this.refFor(obj, k);
    this.record("create", ref, opts.dryRun ? { dryRun: true } : {});
    this.check("create", ref, k);
    if (this.objects.has(refKey(ref))) throw new ApiError(409, "AlreadyExists", `${k.plural}${k.group ? `.${k.group}` : ""} "${ref.name}" already exists`);
    if (k.scope === "Namespaced") {
      const ns = this.objects.get(refKey({ group: "", kind: "Namespace", namespace: "", name: ref.namespace }));
      if (!ns) throw new ApiError(404, "NotFound", `namespaces "${ref.namespace}" not found`, [], undefined, { kind: "namespaces", name: ref.namespace });
    }
    const o = clone(obj);
    delete o.status;
    delete o.metadata.resourceVersion;
    if (k.scope === "Cluster") delete o.metadata.namespace;
    this.stamp(o);
    if (opts.dryRun) return o;
    const stored = this.store(o, "ADDED");
    this.react(stored, "create");
    return clone(stored);
  }

  private live(ref: ObjRef, k: KindInfo): KubeObject {
    const o = this.objects.get(refKey(ref));
    if (!o) throw this.notFound(k, ref.name);
    return o;
  }

  async update(obj: KubeObject, opts: WriteOptions = {}): Promise<KubeObject> {
    const k = this.kindOf(groupOf(obj.apiVersion), obj.kind, obj.apiVersion);
    const ref = this.refFor(obj, k);
    this.record("update", ref, opts.dryRun ? { dryRun: true } : {});
    this.check("update", ref, k);
    const live = this.live(ref, k);
    if (obj.metadata.resourceVersion && obj.metadata.resourceVersion !== live.metadata.resourceVersion) throw this.conflict(k, ref.name);
    const next = clone(obj);
    next.metadata = { ...next.metadata, uid: live.metadata.uid, creationTimestamp: live.metadata.creationTimestamp, generation: live.metadata.generation };
    if (live.metadata.deletionTimestamp) next.metadata.deletionTimestamp = live.metadata.deletionTimestamp;
    if (live.status === undefined) delete next.status;
    else next.status = clone(live.status);
    return this.replace(live, next, opts.dryRun, "update");
  }

  async updateStatus(obj: KubeObject, opts: WriteOptions = {}): Promise<KubeObject> {
    const k = this.kindOf(groupOf(obj.apiVersion), obj.kind, obj.apiVersion);
    const ref = this.refFor(obj, k);
    this.record("updateStatus", ref, opts.dryRun ? { dryRun: true } : {});
    this.check("update", ref, k);
    const live = this.live(ref, k);
    if (obj.metadata.resourceVersion && obj.metadata.resourceVersion !== live.metadata.resourceVersion) throw this.conflict(k, ref.name);
    return this.replace(live, { ...clone(live), status: clone(obj.status) }, opts.dryRun, "update");
  }

  async patch(ref: ObjRef, patch: unknown, type: PatchType, opts: WriteOptions = {}): Promise<KubeObject> {
    const k = this.kindOf(ref.group, ref.kind);
    this.record("patch", ref, opts.dryRun ? { dryRun: true } : {});
    this.check("patch", ref, k);
    if (type === "json") throw new ApiError(415, "UnsupportedMediaType", "the in-memory cluster does not take JSON patches");
    const live = this.live(ref, k);
    const next = mergePatch(live, patch) as KubeObject;
    next.metadata = { ...next.metadata, uid: live.metadata.uid, name: live.metadata.name };
    return this.replace(live, next, opts.dryRun, "patch");
  }

  async apply(obj: KubeObject, opts: WriteOptions & { fieldManager: string; force: boolean }): Promise<KubeObject> {
    const k = this.kindOf(groupOf(obj.apiVersion), obj.kind, obj.apiVersion);
    const ref = this.refFor(obj, k);
    this.record("apply", ref, opts.dryRun ? { dryRun: true } : {});
    const existing = this.objects.get(refKey(ref));
    this.check(existing ? "patch" : "create", ref, k);
    const config = clone(obj);
    delete config.status;
    const { resourceVersion: _rv, managedFields: _mf, ...configMeta } = config.metadata;
    config.metadata = configMeta;
    const paths = leafPaths(config).filter((p) => !(p[0] === "apiVersion" || p[0] === "kind" || (p[0] === "metadata" && (p[1] === "name" || p[1] === "namespace"))));
    const managed = (existing?.metadata.managedFields ?? []) as { manager: string; operation: string; fieldsV1: unknown }[];
    if (existing && !opts.force) {
      const clashes = managed
        .filter((m) => m.manager !== opts.fieldManager && m.operation === "Apply")
        .flatMap((m) => pathsOfFieldsV1(m.fieldsV1).filter((p) => paths.some((q) => q.join(".") === p.join(".")) && !sameJson(valueAt(existing, p), valueAt(config, p))).map((p) => ({ manager: m.manager, path: p })));
      if (clashes.length) {
        throw new ApiError(
          409,
          "Conflict",
          `Apply failed with ${clashes.length} conflict${clashes.length > 1 ? "s" : ""}: ${clashes.map((c) => `conflict with "${c.manager}": .${c.path.join(".")}`).join("\n")}`,
          clashes.map((c) => ({ reason: "FieldManagerConflict", message: `conflict with "${c.manager}"`, field: `.${c.path.join(".")}` })),
        );
      }
    }
    if (!existing) {
      if (k.scope === "Namespaced" && !this.objects.has(refKey({ group: "", kind: "Namespace", namespace: "", name: ref.namespace }))) {
        throw new ApiError(404, "NotFound", `namespaces "${ref.namespace}" not found`, [], undefined, { kind: "namespaces", name: ref.namespace });
      }
      const o = this.stamp(config);
      o.metadata.managedFields = [{ manager: opts.fieldManager, operation: "Apply", apiVersion: obj.apiVersion, fieldsV1: fieldsV1Of(paths) }];
      if (opts.dryRun) return o;
      const stored = this.store(o, "ADDED");
      this.react(stored, "create");
      return clone(stored);
    }
    const merged = applyMerge(clone(existing), config) as KubeObject;
    // Fields this manager applied before and no longer sets are removed (unless another owns them).
    const ours = managed.find((m) => m.manager === opts.fieldManager && m.operation === "Apply");
    const othersOwn = (p: string[]) => managed.some((m) => m.manager !== opts.fieldManager && pathsOfFieldsV1(m.fieldsV1).some((q) => q.join(".") === p.join(".")));
    for (const p of ours ? pathsOfFieldsV1(ours.fieldsV1) : []) {
      if (!paths.some((q) => q.join(".") === p.join(".")) && !othersOwn(p)) deleteAt(merged as unknown as Record<string, unknown>, p);
    }
    const rest = managed
      .filter((m) => !(m.manager === opts.fieldManager && m.operation === "Apply"))
      .map((m) => (opts.force ? { ...m, fieldsV1: fieldsV1Of(pathsOfFieldsV1(m.fieldsV1).filter((p) => !paths.some((q) => q.join(".") === p.join(".")))) } : m));
    merged.metadata.managedFields = [...rest, { manager: opts.fieldManager, operation: "Apply", apiVersion: obj.apiVersion, fieldsV1: fieldsV1Of(paths) }];
    merged.status = existing.status;
    if (existing.status === undefined) delete merged.status;
    return this.replace(existing, merged, opts.dryRun, "patch");
  }

  async delete(ref: ObjRef, opts: DeleteOptions = {}): Promise<"deleted" | "terminating" | "notfound"> {
    const k = this.kindOf(ref.group, ref.kind);
    this.record("delete", ref, { ...(opts.dryRun ? { dryRun: true } : {}), ...(opts.propagationPolicy ? { propagationPolicy: opts.propagationPolicy } : {}) });
    this.check("delete", ref, k);
    const live = this.objects.get(refKey(ref));
    if (!live) return "notfound";
    if (opts.uid && opts.uid !== live.metadata.uid) throw this.conflict(k, ref.name, `Precondition failed: UID in precondition: ${opts.uid}, UID in object meta: ${live.metadata.uid}`);
    if (opts.resourceVersion && opts.resourceVersion !== live.metadata.resourceVersion) {
      throw this.conflict(k, ref.name, `Precondition failed: ResourceVersion in precondition: ${opts.resourceVersion}, ResourceVersion in object meta: ${live.metadata.resourceVersion}`);
    }
    const finalizers = (live.metadata.finalizers as string[] | undefined) ?? [];
    if (opts.dryRun) return finalizers.length ? "terminating" : "deleted";
    if (finalizers.length) {
      if (!live.metadata.deletionTimestamp) this.react(this.store({ ...clone(live), metadata: { ...clone(live.metadata), deletionTimestamp: this.now().toISOString().replace(/\.\d{3}Z$/, "Z") } }, "MODIFIED"), "delete");
      return "terminating";
    }
    this.store(clone(live), "DELETED");
    return "deleted";
  }

  async *watch(q: WatchQuery, signal: AbortSignal): AsyncIterable<WatchEvent> {
    const k = this.kindOf(q.group, q.kind);
    const ref = { group: q.group, kind: q.kind, namespace: q.namespace ?? "", name: "" };
    this.record("watch", ref);
    this.check("watch", ref, k);
    const from = Number(q.resourceVersion);
    if (from < this.compactedBelow) throw new WatchExpiredError(`too old resource version: ${q.resourceVersion} (${this.compactedBelow})`);
    const ns = k.scope === "Cluster" ? undefined : q.namespace;
    const wanted = (e: Logged) => e.rv > from && this.selected(e.object, q.group, q.kind, ns, q.fieldSelector);
    const queue: Logged[] = this.log.filter(wanted);
    let wake: (() => void) | undefined;
    const listener = (e: Logged) => {
      if (!wanted(e)) return;
      queue.push(e);
      wake?.();
    };
    const onAbort = () => wake?.();
    this.listeners.add(listener);
    signal.addEventListener("abort", onAbort, { once: true });
    try {
      while (!signal.aborted) {
        const e = queue.shift();
        if (e) {
          yield { type: e.type, object: clone(e.object) };
          continue;
        }
        await new Promise<void>((resolve) => (wake = resolve));
        wake = undefined;
      }
    } finally {
      this.listeners.delete(listener);
      signal.removeEventListener("abort", onAbort);
    }
  }
}
