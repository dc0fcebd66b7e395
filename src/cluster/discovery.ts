// Which kinds the cluster serves, and as which resource and scope. Fetched once per run with
// aggregated discovery (two requests in all), revalidated against the copy on disk by ETag (an
// unchanged answer is a 304 with no payload); refreshed when a kind is missing, so CRDs applied
// earlier in the same run become usable for later waves.

import { isRecord } from "../model/kube-object.js";
import { groupOf } from "../model/ref.js";
import type { HttpCache } from "./disk-cache.js";
import { readDiscoveryAnswer, type DiscoveryAnswer } from "./discovery-answer.js";
import type { Transport } from "./transport.js";

export interface ResourceMapping {
  group: string;
  version: string;
  kind: string;
  /** Plural resource name used in URLs. */
  resource: string;
  namespaced: boolean;
  verbs: string[];
}

/**
 * A group/version the cluster lists but cannot describe: an aggregated API whose APIService has
 * no working backend (aggregated discovery marks it Stale; the per-version walk gets an error).
 * Every other group is discovered as usual; only this one's kinds are unknown.
 */
export interface UnavailableGroupVersion {
  group: string;
  version: string;
  /** The per-version walk's error, when that is how it was found. */
  error?: string;
}

const AGGREGATED = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json";

export class RestMapper {
  /** `group/version/kind` → mapping */
  private byGvk = new Map<string, ResourceMapping>();
  /** `group/kind` → mapping at the group's preferred version */
  private byGk = new Map<string, ResourceMapping>();
  private loading?: Promise<void>;
  private loadedAt = 0;
  private stale: UnavailableGroupVersion[] = [];

  constructor(
    private readonly transport: Transport,
    private readonly cache?: HttpCache,
    /** The run's cancellation: discovery writes nothing, so a stopped run stops waiting for it. */
    private readonly signal?: AbortSignal,
  ) {}

  private async load(): Promise<void> {
    const [core, apis] = await Promise.all([this.fetchAggregated("/api"), this.fetchAggregated("/apis")]);
    const byGvk = new Map<string, ResourceMapping>();
    const byGk = new Map<string, ResourceMapping>();
    const stale: UnavailableGroupVersion[] = [];
    for (const g of [...core, ...apis]) {
      const group: string = g.metadata?.name ?? "";
      (g.versions ?? []).forEach((v: any, index: number) => {
        if (v.freshness === "Stale" || v.error !== undefined) stale.push({ group, version: String(v.version), ...(v.error !== undefined ? { error: String(v.error) } : {}) });
        for (const r of v.resources ?? []) {
          const kind = r.responseKind?.kind;
          if (!kind || String(r.resource).includes("/")) continue;
          const m: ResourceMapping = {
            group,
            version: v.version,
            kind,
            resource: r.resource,
            namespaced: r.scope === "Namespaced",
            verbs: r.verbs ?? [],
          };
          byGvk.set(`${group}/${v.version}/${kind}`, m);
          // Versions come in preference order; the first one seen is the preferred one.
          if (index === 0 || !byGk.has(`${group}/${kind}`)) byGk.set(`${group}/${kind}`, m);
        }
      });
    }
    this.byGvk = byGvk;
    this.byGk = byGk;
    this.stale = stale;
    this.loadedAt = Date.now();
  }

  /**
   * Aggregated discovery when the server has it (1.30+ by default), else the per-version walk.
   * A cached copy is revalidated by its ETag only when it can be read: a 304 must never make a
   * broken copy current (it would break every later run), so without one the server is asked
   * for the whole answer.
   */
  private async fetchAggregated(path: "/api" | "/apis"): Promise<any[]> {
    const key = `discovery ${path} ${AGGREGATED}`;
    const url = this.transport.urlOf(path);
    const entry = await this.cache?.read(key);
    let cached: Extract<DiscoveryAnswer, { kind: "aggregated" }> | undefined;
    try {
      const answer = entry ? readDiscoveryAnswer(entry.body, url, path) : undefined;
      if (answer?.kind === "aggregated") cached = answer;
    } catch {
      /* corrupt: fetched whole, and replaced below */
    }
    const { body, changed } = await this.transport.revalidate(path, cached ? entry : undefined, { what: `discovery ${path}`, accept: AGGREGATED, ...(this.signal ? { signal: this.signal } : {}) });
    const res = changed || !cached ? readDiscoveryAnswer(body, url, path) : cached;
    if (res.kind === "aggregated") {
      if (changed?.etag) void this.cache?.write(key, changed);
      return res.groups;
    }
    return this.fetchLegacy(path, res.index);
  }

  private async fetchLegacy(path: "/api" | "/apis", index: any): Promise<any[]> {
    const groupVersions: { group: string; versions: string[] }[] =
      path === "/api"
        ? [{ group: "", versions: Array.isArray(index?.versions) ? index.versions.filter((v: unknown) => typeof v === "string") : ["v1"] }]
        : (Array.isArray(index?.groups) ? index.groups.filter((g: unknown) => isRecord(g) && typeof g.name === "string") : []).map((g: any) => ({
            group: g.name,
            versions: [g.preferredVersion?.groupVersion, ...(Array.isArray(g.versions) ? g.versions : []).map((v: any) => v?.groupVersion)]
              .filter((gv: unknown) => typeof gv === "string" && gv !== "")
              .map((gv: string) => gv.split("/")[1] ?? "")
              .filter((v: string, i: number, a: string[]) => v && a.indexOf(v) === i),
          }));
    return Promise.all(
      groupVersions.map(async ({ group, versions }) => ({
        metadata: { name: group },
        versions: await Promise.all(
          versions.map(async (version) => {
            // One group that fails (an aggregated API without its backend) does not stop the others.
            let error: string | undefined;
            const list = await this.transport.request<any>("GET", group ? `/apis/${group}/${version}` : `/api/${version}`, this.signal ? { signal: this.signal } : {}).catch((err: unknown) => {
              if (this.signal?.aborted) throw err; // the run was stopped: not "no resources"
              error = err instanceof Error ? err.message : String(err);
              return { resources: [] };
            });
            return {
              version,
              ...(error !== undefined ? { error } : {}),
              resources: (Array.isArray(list?.resources) ? list.resources.filter((r: unknown) => isRecord(r) && typeof r.name === "string") : []).map((r: any) => ({
                resource: r.name,
                responseKind: { kind: r.kind },
                scope: r.namespaced ? "Namespaced" : "Cluster",
                verbs: Array.isArray(r.verbs) ? r.verbs : [],
              })),
            };
          }),
        ),
      })),
    );
  }

  /** Reads discovery now (once per run, again after reset()); lookups wait for it. */
  ensure(): Promise<void> {
    this.loading ??= this.load().catch((err) => {
      this.loading = undefined;
      throw err;
    });
    return this.loading;
  }

  /** True once discovery has been read in this run. */
  get loaded(): boolean {
    return this.loadedAt > 0;
  }

  /** Forgets what was discovered (after CRDs changed); the next lookup reloads. */
  reset(): void {
    this.loading = undefined;
  }

  /** The mapping of a kind at an exact apiVersion (`apps/v1`, `v1`). */
  async forApiVersion(apiVersion: string, kind: string): Promise<ResourceMapping | undefined> {
    const version = apiVersion.includes("/") ? apiVersion.split("/")[1]! : apiVersion;
    return this.lookup("byGvk", `${groupOf(apiVersion)}/${version}/${kind}`);
  }

  /** The preferred-version mapping of a group/kind (inventory entries carry no version). */
  async forGroupKind(group: string, kind: string): Promise<ResourceMapping | undefined> {
    return this.lookup("byGk", `${group}/${kind}`);
  }

  /** A mapping, refreshing discovery once when it is unknown (unless it was read in the last 500 ms). */
  private async lookup(table: "byGvk" | "byGk", key: string): Promise<ResourceMapping | undefined> {
    await this.ensure();
    if (!this[table].has(key) && Date.now() - this.loadedAt > 500) {
      this.reset();
      await this.ensure();
    }
    return this[table].get(key);
  }

  /** The group/versions discovery could not describe (see UnavailableGroupVersion), once loaded. */
  async unavailable(): Promise<readonly UnavailableGroupVersion[]> {
    await this.ensure();
    return this.stale;
  }

  /** The unavailable group/version of `group`, if the last discovery found one (no request). */
  unavailableOf(group: string): UnavailableGroupVersion | undefined {
    return this.stale.find((s) => s.group === group);
  }

  /** Scope lookup without refreshing, for planning over many objects. */
  async scopeOf(group: string, kind: string): Promise<"Namespaced" | "Cluster" | undefined> {
    await this.ensure();
    const m = this.byGk.get(`${group}/${kind}`);
    return m ? (m.namespaced ? "Namespaced" : "Cluster") : undefined;
  }
}
