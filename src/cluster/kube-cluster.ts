// The one seam to the API server: discovery, reads, writes (client- and server-side apply),
// deletes and watches, over one keep-alive HTTP agent. Nothing else talks to the cluster.

import { createHash } from "node:crypto";
import { setMaxListeners } from "node:events";
import { ClusterError } from "../model/errors.js";
import { groupOf, type ObjRef } from "../model/ref.js";
import { isRecord, type KubeObject } from "../model/kube-object.js";
import { KPT_GROUP, RESOURCE_GROUP_KIND, RESOURCE_GROUP_VERSION } from "../model/inventory-keys.js";
import { ApiError, apiErrorFrom, briefApiError, NotServedError } from "./api-error.js";
import { RestMapper, type ResourceMapping } from "./discovery.js";
import { diskCacheFor, type HttpCache } from "./disk-cache.js";
import { loadConnection, type KubeconfigOptions } from "./kubeconfig.js";
import { checkListAnswer, checkObjectAnswer, malformedAnswer, parseJsonAnswer } from "./answer-check.js";
import { answerLines, readAnswer, Transport } from "./transport.js";
import { apiServiceOf, availabilityOf, unavailableGroupMessage, type UnavailableApi } from "./unavailable-apis.js";
import { WatchExpiredError, type Cluster, type DeleteOptions, type ListResult, type PatchType, type Scope, type WatchEvent, type WatchQuery, type WriteOptions } from "./types.js";

const PATCH_CONTENT_TYPES: Record<PatchType | "apply", string> = {
  strategic: "application/strategic-merge-patch+json",
  merge: "application/merge-patch+json",
  json: "application/json-patch+json",
  apply: "application/apply-patch+yaml",
};

export interface KubeClusterOptions extends KubeconfigOptions {
  /** Upper bound of parallel requests; the HTTP agent keeps this many sockets alive. */
  maxSockets?: number;
  userAgent?: string;
  /** false: no disk cache; a string: the cache's root directory (`--cache-dir`). */
  httpCache?: false | string;
  /** Told what the run goes without (a cache directory it may not use): for `-v`. */
  onNote?: (message: string) => void;
}


const WATCH_TYPES = new Set(["ADDED", "MODIFIED", "DELETED", "BOOKMARK"]);

/** kpt's ResourceGroup CRD (kpt.dev/v1alpha1, its only version). */
const RESOURCE_GROUP_MAPPING: ResourceMapping = { group: KPT_GROUP, version: RESOURCE_GROUP_VERSION, kind: RESOURCE_GROUP_KIND, resource: "resourcegroups", namespaced: true, verbs: ["get", "list", "create", "update", "patch", "delete", "watch"] };

export class KubeCluster implements Cluster {
  readonly defaultNamespace: string;
  readonly namespaceEnforced: boolean;
  readonly server: string;
  readonly user: string;
  /** The kubeconfig context it was opened with ("" when the flags alone gave the connection). */
  readonly context: string;
  readonly transport: Transport;
  private readonly mapper: RestMapper;
  private readonly openapiDocs = new Map<string, Promise<unknown | undefined>>();
  private openapiIndex?: Promise<Record<string, string>>;
  private readonly cache?: HttpCache;

  constructor(opts: KubeClusterOptions = {}) {
    const conn = loadConnection(opts);
    this.defaultNamespace = conn.namespace;
    this.namespaceEnforced = conn.namespaceEnforced;
    this.server = conn.server;
    this.user = conn.userName;
    this.context = conn.contextName;
    this.transport = new Transport(conn, opts.maxSockets ?? 64, opts.userAgent ?? "kpt-ts");
    this.cache = opts.httpCache === false ? undefined : diskCacheFor(conn.server, process.env, typeof opts.httpCache === "string" ? opts.httpCache : undefined, opts.onNote ? { onUnusable: opts.onNote } : {});
    // The run's one signal is watched by every lookup waiting for discovery and every request: many at once, by design.
    if (opts.signal) setMaxListeners(0, opts.signal);
    this.mapper = new RestMapper(this.transport, this.cache, opts.signal);
  }

  close(): void {
    this.transport.close();
  }

  /**
   * Starts what every run needs and no package decides (the connection, discovery and, for
   * client-side apply, the OpenAPI index) while the command is still reading its package, so
   * those round trips are not waited for afterwards. Failures are not reported here: the same
   * lookups made for real fetch again and report them. Credentials from a program (which may
   * prompt) are not fetched ahead of need.
   */
  prepare(opts: { openapi?: boolean } = {}): void {
    if (this.transport.conn.credentials.runsProgram) return;
    this.mapper.ensure().catch(() => undefined);
    if (opts.openapi) void this.openapiPaths();
  }

  async scopeOf(group: string, kind: string): Promise<Scope | undefined> {
    return this.discover(() => this.mapper.scopeOf(group, kind));
  }

  async serves(apiVersion: string, kind: string): Promise<boolean> {
    return Boolean(await this.discover(() => this.mapper.forApiVersion(apiVersion, kind)));
  }

  resetDiscovery(): void {
    this.mapper.reset();
  }

  /** Discovery failures are access failures: they end the run with a message about the cluster. */
  private async discover<T>(fn: () => Promise<T>): Promise<T> {
    try {
      // Discovery's requests carry the run's signal: a stopped run stops waiting for them.
      return await fn();
    } catch (err) {
      if (err instanceof ApiError) {
        // One line of what failed; what to do comes from the cause (formatError), the server's words with -v.
        const why = err.status === 403 ? "your user may not read the API's discovery endpoints (/api, /apis)" : briefApiError(err);
        throw new ClusterError(`cannot discover the API of ${this.server}: ${why}`, { cause: err });
      }
      throw err;
    }
  }

  private async mapping(group: string, kind: string, apiVersion?: string): Promise<ResourceMapping> {
    // kpt's inventory lives at a path every kpt-compatible cluster shares: it is read while
    // discovery is still on its way (one round trip fewer at the start of every run). Were its
    // CRD missing, the read finds nothing, which is what the caller's discovery check says too.
    if (!apiVersion && group === KPT_GROUP && kind === RESOURCE_GROUP_KIND && !this.mapper.loaded) return RESOURCE_GROUP_MAPPING;
    const m = apiVersion
      ? await this.discover(() => this.mapper.forApiVersion(apiVersion, kind))
      : await this.discover(() => this.mapper.forGroupKind(group, kind));
    if (!m) {
      const unavailable = this.mapper.unavailableOf(group);
      if (unavailable) throw new ApiError(503, "ServiceUnavailable", unavailableGroupMessage(unavailable, `use ${group ? `${kind}.${group}` : kind}`));
      throw new NotServedError(group, kind, apiVersion);
    }
    return m;
  }

  private collectionPath(m: ResourceMapping, namespace?: string): string {
    const base = m.group ? `/apis/${m.group}/${m.version}` : `/api/${m.version}`;
    return m.namespaced && namespace ? `${base}/namespaces/${encodeURIComponent(namespace)}/${m.resource}` : `${base}/${m.resource}`;
  }

  private objectPath(m: ResourceMapping, namespace: string, name: string): string {
    return `${this.collectionPath(m, m.namespaced ? namespace : undefined)}/${encodeURIComponent(name)}`;
  }

  async get(ref: ObjRef, signal?: AbortSignal, opts: { metadataOnly?: boolean } = {}): Promise<KubeObject | undefined> {
    const m = await this.mapping(ref.group, ref.kind);
    // Metadata only: the server answers with a PartialObjectMetadata (plain JSON if it cannot).
    const accept = opts.metadataOnly ? "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json" : undefined;
    try {
      const path = this.objectPath(m, ref.namespace, ref.name);
      return checkObjectAnswer<KubeObject>(await this.transport.request("GET", path, { signal, accept, what: `get ${ref.kind} ${ref.name}` }), this.transport.urlOf(path));
    } catch (err) {
      if (err instanceof ApiError && err.notFound) return undefined;
      throw err;
    }
  }

  async list(group: string, kind: string, namespace?: string, opts: { fieldSelector?: string; labelSelector?: string; signal?: AbortSignal; metadataOnly?: boolean; limit?: number } = {}): Promise<ListResult> {
    const m = await this.mapping(group, kind);
    const accept = opts.metadataOnly ? "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json" : undefined;
    const items: KubeObject[] = [];
    let cont: string | undefined;
    let resourceVersion = "";
    do {
      const path = this.collectionPath(m, namespace);
      const page = checkListAnswer(
        await this.transport.request<unknown>("GET", path, {
          query: { limit: opts.limit ?? 500, continue: cont, fieldSelector: opts.fieldSelector, labelSelector: opts.labelSelector },
          signal: opts.signal,
          accept,
          what: `list ${kind}`,
        }),
        this.transport.urlOf(path),
      );
      // List items carry no apiVersion/kind; give them back so they look like what GET returns.
      const apiVersion = m.group ? `${m.group}/${m.version}` : m.version;
      for (const it of page.items) items.push((opts.metadataOnly ? { ...it, apiVersion, kind: m.kind } : { apiVersion, kind: m.kind, ...it }) as KubeObject);
      cont = typeof page.metadata.continue === "string" && page.metadata.continue ? page.metadata.continue : undefined;
      resourceVersion = typeof page.metadata.resourceVersion === "string" ? page.metadata.resourceVersion : resourceVersion;
    } while (cont && opts.limit === undefined);
    return { items, resourceVersion };
  }

  private writeQuery(opts: WriteOptions = {}, extra: Record<string, string | boolean | undefined> = {}) {
    return { dryRun: opts.dryRun ? "All" : undefined, fieldManager: opts.fieldManager, ...extra };
  }

  /** A write that sends the object itself: POST to its collection, else PUT or PATCH of it (`sub`: a subresource). */
  private async writeObject(method: "POST" | "PUT" | "PATCH", obj: KubeObject, opts: WriteOptions, verb: string, o: { sub?: string; contentType?: string; force?: boolean; idempotent?: boolean } = {}): Promise<KubeObject> {
    const m = await this.mapping(groupOf(obj.apiVersion), obj.kind, obj.apiVersion);
    const path = method === "POST" ? this.collectionPath(m, obj.metadata.namespace) : `${this.objectPath(m, obj.metadata.namespace ?? "", obj.metadata.name ?? "")}${o.sub ?? ""}`;
    return this.transport.request(method, path, {
      body: obj,
      contentType: o.contentType,
      query: this.writeQuery(opts, { force: o.force ? true : undefined }),
      signal: opts.signal,
      what: `${verb} ${obj.kind} ${obj.metadata.name}`,
      idempotent: o.idempotent,
    });
  }

  async create(obj: KubeObject, opts: WriteOptions = {}): Promise<KubeObject> {
    // A fixed name makes a repeated create answer 409 AlreadyExists instead of making a second object.
    return this.writeObject("POST", obj, opts, "create", { idempotent: Boolean(obj.metadata.name) });
  }

  async patch(ref: ObjRef, patch: unknown, type: PatchType, opts: WriteOptions = {}): Promise<KubeObject> {
    const m = await this.mapping(ref.group, ref.kind);
    const path = this.objectPath(m, ref.namespace, ref.name);
    const send = () => this.transport.request<KubeObject>("PATCH", path, { body: patch, contentType: PATCH_CONTENT_TYPES[type], query: this.writeQuery(opts), signal: opts.signal, what: `patch ${ref.kind} ${ref.name}` });
    const { uid, resourceVersion } = opts.basedOn ?? {};
    // A Secret's answer holds its values: never kept on disk.
    if (!opts.dryRun || !uid || !resourceVersion || !this.cache || (ref.group === "" && ref.kind === "Secret")) return send();
    // The same patch against the same version of the same object: the answer the server gave before.
    const key = `dry-run patch ${path} ${type} ${opts.fieldManager ?? ""} ${uid} ${resourceVersion} ${createHash("sha256").update(JSON.stringify(patch)).digest("hex")}`;
    const kept = await this.cache.read(key);
    if (kept) {
      try {
        return checkObjectAnswer<KubeObject>(JSON.parse(kept.body), this.transport.urlOf(path));
      } catch {
        /* a corrupt copy: asked again below, and replaced */
      }
    }
    const answer = await send();
    await this.cache.write(key, { body: JSON.stringify(answer) });
    return answer;
  }

  async apply(obj: KubeObject, opts: WriteOptions & { fieldManager: string; force: boolean }): Promise<KubeObject> {
    return this.writeObject("PATCH", obj, opts, "apply", { contentType: PATCH_CONTENT_TYPES.apply, force: opts.force });
  }

  async update(obj: KubeObject, opts: WriteOptions = {}): Promise<KubeObject> {
    return this.writeObject("PUT", obj, opts, "update");
  }

  async updateStatus(obj: KubeObject, opts: WriteOptions = {}): Promise<KubeObject> {
    return this.writeObject("PUT", obj, opts, "update status of", { sub: "/status" });
  }

  async delete(ref: ObjRef, opts: DeleteOptions = {}): Promise<"deleted" | "terminating" | "notfound"> {
    const m = await this.mapping(ref.group, ref.kind);
    const body: Record<string, unknown> = { apiVersion: "v1", kind: "DeleteOptions" };
    if (opts.propagationPolicy) body.propagationPolicy = opts.propagationPolicy;
    if (opts.uid || opts.resourceVersion) body.preconditions = { ...(opts.uid ? { uid: opts.uid } : {}), ...(opts.resourceVersion ? { resourceVersion: opts.resourceVersion } : {}) };
    if (opts.dryRun) body.dryRun = ["All"];
    try {
      const res = await this.transport.request<any>("DELETE", this.objectPath(m, ref.namespace, ref.name), { body, signal: opts.signal, what: `delete ${ref.kind} ${ref.name}` });
      // The server answers with the object: without a deletionTimestamp it is already gone.
      return res?.kind !== "Status" && res?.metadata?.deletionTimestamp ? "terminating" : "deleted";
    } catch (err) {
      if (err instanceof ApiError && err.notFound) return "notfound";
      throw err;
    }
  }

  async *watch(q: WatchQuery, signal: AbortSignal): AsyncIterable<WatchEvent> {
    const m = await this.mapping(q.group, q.kind);
    const res = await this.transport.openStream("GET", this.collectionPath(m, q.namespace), {
      query: { watch: true, resourceVersion: q.resourceVersion, allowWatchBookmarks: true, fieldSelector: q.fieldSelector, timeoutSeconds: 1800 },
      signal,
      what: `watch ${q.kind}`,
    });
    const url = this.transport.urlOf(this.collectionPath(m, q.namespace));
    if ((res.statusCode ?? 0) >= 300) {
      const err = apiErrorFrom(res.statusCode ?? 0, await readAnswer(res, url), `watch ${q.kind}`);
      if (err.status === 410) throw new WatchExpiredError(err.message);
      throw err;
    }
    const apiVersion = m.group ? `${m.group}/${m.version}` : m.version;
    try {
      for await (const line of answerLines(res, url)) {
        if (!line.trim()) continue;
        const ev = parseJsonAnswer(line, url) as { type?: unknown; object?: any };
        if (!isRecord(ev) || !isRecord(ev.object)) throw malformedAnswer(url, "a watch event that is not an object with an object");
        if (ev.type === "ERROR") {
          const status = ev.object as { code?: number; message?: string };
          if (status.code === 410) throw new WatchExpiredError(status.message ?? "watch expired");
          throw apiErrorFrom(status.code ?? 500, JSON.stringify(status), `watch ${q.kind}`);
        }
        if (!WATCH_TYPES.has(ev.type as string) || !isRecord(ev.object.metadata)) throw malformedAnswer(url, `a watch event of type ${JSON.stringify(ev.type)}${isRecord(ev.object.metadata) ? "" : " without metadata"}`);
        yield { type: ev.type as WatchEvent["type"], object: { apiVersion, kind: m.kind, ...ev.object } as KubeObject };
      }
    } catch (err) {
      if (signal.aborted) return;
      throw err;
    } finally {
      res.destroy();
    }
  }

  /**
   * The aggregated APIs discovery found listed but unavailable, each with its APIService's own
   * reason when this identity may read it. Empty when all is well (no request beyond discovery).
   */
  async unavailableApis(signal?: AbortSignal): Promise<UnavailableApi[]> {
    const stale = await this.mapper.unavailable().catch(() => []);
    return Promise.all(
      stale.map(async (s) => {
        const apiService = apiServiceOf(s.group, s.version);
        const obj = await this.transport.request<unknown>("GET", `/apis/apiregistration.k8s.io/v1/apiservices/${encodeURIComponent(apiService)}`, { signal, what: `get APIService ${apiService}` }).catch(() => undefined);
        const condition = availabilityOf(obj);
        return { ...s, apiService, ...(condition ? { condition } : {}) };
      }),
    );
  }

  async accessReview(q: { verb: string; group: string; kind: string; namespace: string; name?: string }, signal?: AbortSignal): Promise<{ allowed: boolean; resource: string } | undefined> {
    const m = await this.mapping(q.group, q.kind).catch(() => undefined);
    if (!m) return undefined;
    const resourceAttributes = { verb: q.verb, group: q.group, resource: m.resource, ...(m.namespaced && q.namespace ? { namespace: q.namespace } : {}), ...(q.name ? { name: q.name } : {}) };
    const body = { apiVersion: "authorization.k8s.io/v1", kind: "SelfSubjectAccessReview", spec: { resourceAttributes } };
    const resource = m.group ? `${m.resource}.${m.group}` : m.resource;
    try {
      const res = await this.transport.request<any>("POST", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", { body, signal, what: `access review of ${q.verb} ${resource}` });
      return typeof res?.status?.allowed === "boolean" ? { allowed: res.status.allowed, resource } : undefined;
    } catch (err) {
      if (signal?.aborted) throw err;
      return undefined;
    }
  }

  async whoAmI(signal?: AbortSignal): Promise<string | undefined> {
    const body = { apiVersion: "authentication.k8s.io/v1", kind: "SelfSubjectReview" };
    const res = await this.transport.request<any>("POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews", { body, signal, what: "self subject review" }).catch(() => undefined);
    const name = res?.status?.userInfo?.username;
    return typeof name === "string" && name ? name : undefined;
  }

  /** The /openapi/v3 index: each group/version's document URL, with its hash. */
  private openapiPaths(): Promise<Record<string, string>> {
    this.openapiIndex ??= this.transport
      .request<any>("GET", "/openapi/v3", { what: "openapi index" })
      .then((idx) => Object.fromEntries(Object.entries(idx?.paths ?? {}).map(([k, v]: [string, any]) => [k, v.serverRelativeURL as string])))
      .catch(() => ({}));
    return this.openapiIndex;
  }

  async openapi(group: string, version: string): Promise<unknown | undefined> {
    const gv = group ? `apis/${group}/${version}` : `api/${version}`;
    let doc = this.openapiDocs.get(gv);
    if (!doc) this.openapiDocs.set(gv, (doc = this.fetchOpenapi(gv)));
    return doc;
  }

  private async fetchOpenapi(gv: string): Promise<unknown | undefined> {
    const url = (await this.openapiPaths())[gv];
    if (!url) return undefined;
    const [path, query] = url.split("?");
    const q = Object.fromEntries(new URLSearchParams(query ?? ""));
    // The URL carries the document's hash: a copy cached under it is current by construction.
    // The key names what the copy holds (the schemas alone), so whole documents an earlier build kept are not read.
    const key = `openapi schemas ${url}`;
    const cached = q.hash ? await this.cache?.read(key) : undefined;
    if (cached) {
      try {
        return JSON.parse(cached.body);
      } catch {
        /* a corrupt copy: fetched again below, and replaced */
      }
    }
    // Not cancelled with the run: an object in flight at Ctrl-C still needs its merge keys to be patched right.
    return this.transport.revalidate(path!, undefined, { query: q, what: `openapi ${gv}` }).then(
      ({ body }) => {
        // Client-side apply reads only the schemas' structure: the paths and the descriptions,
        // nine tenths of a document (api/v1: 1.46 MB, 0.13 MB without), are dropped, which makes the
        // copy on disk and each run's parse of it that much cheaper. A description is a string; a
        // field *named* description (PriorityClass's) is a schema object, and stays.
        const parsed: unknown = JSON.parse(body, (k, v: unknown) => (k === "description" && typeof v === "string" ? undefined : v));
        const doc = { components: (parsed as { components?: unknown } | null)?.components };
        if (q.hash) void this.cache?.write(key, { body: JSON.stringify(doc) });
        return doc;
      },
      () => undefined,
    );
  }
}
