// The live state of every object the run touches, kept current by watches: one LIST+WATCH per
// kind and namespace (or per object when only one or two of a kind are involved, so a package
// with a single CRD does not list every CRD in the cluster). A poll every `pollPeriodMs` takes
// over only where the server refuses to watch.

import { sleepLong } from "../util/long-timer.js";
import { setMaxListeners } from "node:events";
import { setTimeout as sleep } from "node:timers/promises";
import { ApiError } from "../cluster/api-error.js";
import { WatchExpiredError, type Cluster } from "../cluster/types.js";
import type { ObjRef } from "../object/ref.js";
import type { KubeObject } from "../object/types.js";

type Listener = (ref: ObjRef, obj: KubeObject | undefined) => void;

interface Collection {
  group: string;
  kind: string;
  namespace: string;
  /** name → object; absent = not found (once primed). */
  objects: Map<string, KubeObject>;
  names: Set<string>;
  /** Whole-collection stream, or one stream per name. */
  mode?: "collection" | "names";
  streams: Map<string, Promise<void>>;
  primed: Map<string, Promise<void>>;
  /** Set when the kind is not served yet (a CRD applied later in the run). */
  unserved: boolean;
  /** Why the last read failed (e.g. forbidden); cleared by the next successful read. */
  error?: string;
}

const PER_NAME_LIMIT = 2;

function collectionKey(group: string, kind: string, namespace: string): string {
  return `${group}/${kind}/${namespace}`;
}

function rvNewer(a: string | undefined, b: string | undefined): boolean {
  if (!a) return false;
  if (!b) return true;
  if (/^\d+$/.test(a) && /^\d+$/.test(b)) return BigInt(a) > BigInt(b);
  return a !== b;
}

/**
 * managedFields are a large share of each object's size; only server-side apply's own entries
 * are kept (they tell whether an apply would change anything).
 */
function slim(obj: KubeObject): KubeObject {
  const mf = obj.metadata?.managedFields;
  if (!Array.isArray(mf)) return obj;
  const applied = mf.filter((m: { operation?: string }) => m?.operation === "Apply");
  const { managedFields: _drop, ...metadata } = obj.metadata;
  return { ...obj, metadata: applied.length ? { ...metadata, managedFields: applied } : metadata };
}

export class LiveCache {
  private readonly collections = new Map<string, Collection>();
  private readonly listeners = new Set<Listener>();
  private readonly abort = new AbortController();
  /** Requests made, for tests and benchmarks. */
  readonly stats = { lists: 0, watches: 0, polls: 0 };

  constructor(
    private readonly cluster: Cluster,
    private readonly opts: { pollPeriodMs?: number; signal?: AbortSignal; onError?: (err: unknown) => void } = {},
  ) {
    // Every list and watch listens on this signal; hundreds at once are expected.
    setMaxListeners(0, this.abort.signal);
    opts.signal?.addEventListener("abort", () => this.abort.abort(), { once: true });
  }

  close(): void {
    this.abort.abort();
  }

  subscribe(l: Listener): () => void {
    this.listeners.add(l);
    return () => this.listeners.delete(l);
  }

  private collectionFor(ref: ObjRef): Collection {
    const key = collectionKey(ref.group, ref.kind, ref.namespace);
    let c = this.collections.get(key);
    if (!c) {
      c = { group: ref.group, kind: ref.kind, namespace: ref.namespace, objects: new Map(), names: new Set(), streams: new Map(), primed: new Map(), unserved: false };
      this.collections.set(key, c);
    }
    return c;
  }

  /** The last known state; undefined when the object does not exist. */
  get(ref: ObjRef): KubeObject | undefined {
    return this.collections.get(collectionKey(ref.group, ref.kind, ref.namespace))?.objects.get(ref.name);
  }

  /**
   * Why the object's state is unknown (its kind could not be read, e.g. forbidden); undefined
   * when the cache knows it (present or absent). Never treat such an object as gone.
   */
  readError(ref: ObjRef): string | undefined {
    return this.collections.get(collectionKey(ref.group, ref.kind, ref.namespace))?.error;
  }

  /** True when the object's kind is not served by the cluster (yet). */
  isUnserved(ref: ObjRef): boolean {
    return this.collections.get(collectionKey(ref.group, ref.kind, ref.namespace))?.unserved ?? false;
  }

  /** Records what a write returned, so waits start from the newest state. */
  observe(obj: KubeObject): void {
    const ref = { group: obj.apiVersion.includes("/") ? obj.apiVersion.split("/")[0]! : "", kind: obj.kind, namespace: obj.metadata.namespace ?? "", name: obj.metadata.name ?? "" };
    const c = this.collectionFor(ref);
    this.put(c, slim(obj));
  }

  /** Marks an object gone after we deleted it and the server said it no longer exists. */
  forget(ref: ObjRef): void {
    const c = this.collections.get(collectionKey(ref.group, ref.kind, ref.namespace));
    if (c?.objects.delete(ref.name)) this.emit(c, ref.name, undefined);
  }

  private put(c: Collection, obj: KubeObject): void {
    const name = obj.metadata.name ?? "";
    const prev = c.objects.get(name);
    if (prev && prev.metadata.uid === obj.metadata.uid && !rvNewer(obj.metadata.resourceVersion, prev.metadata.resourceVersion)) return;
    c.objects.set(name, obj);
    if (c.names.has(name) || c.mode === "names") this.emit(c, name, obj);
  }

  private emit(c: Collection, name: string, obj: KubeObject | undefined): void {
    const ref = { group: c.group, kind: c.kind, namespace: c.namespace, name };
    for (const l of this.listeners) l(ref, obj);
  }

  /** Starts following the refs; resolves once each has been read at least once. */
  async follow(refs: Iterable<ObjRef>): Promise<void> {
    const byCollection = new Map<Collection, string[]>();
    for (const r of refs) {
      const c = this.collectionFor(r);
      if (!byCollection.has(c)) byCollection.set(c, []);
      byCollection.get(c)!.push(r.name);
    }
    await Promise.all([...byCollection].map(([c, names]) => this.followIn(c, names)));
  }

  private async followIn(c: Collection, names: string[]): Promise<void> {
    for (const n of names) c.names.add(n);
    // A collection followed name by name that grows (prune candidates after the package's
    // objects) gets one stream for all: its per-name streams go on, harmlessly, beside it.
    if (c.mode === undefined || (c.mode === "names" && c.names.size > PER_NAME_LIMIT)) c.mode = c.names.size > PER_NAME_LIMIT ? "collection" : "names";
    const keys = c.mode === "collection" ? [""] : names;
    for (const key of keys) {
      if (!c.streams.has(key)) {
        let primedResolve!: () => void;
        c.primed.set(key, new Promise<void>((r) => (primedResolve = r)));
        c.streams.set(key, this.stream(c, key, primedResolve));
      }
    }
    await Promise.all(keys.map((k) => c.primed.get(k)));
  }

  /** Re-tries kinds that were not served, after CRDs were established. */
  async refreshUnserved(): Promise<void> {
    const pending = [...this.collections.values()].filter((c) => c.unserved);
    for (const c of pending) {
      c.unserved = false;
      c.streams.clear();
      c.primed.clear();
      const names = [...c.names];
      c.mode = undefined;
      c.names.clear();
      await this.followIn(c, names);
    }
  }

  /** LIST then WATCH from the list's resourceVersion, forever; relist when the watch expires. */
  private async stream(c: Collection, name: string, primed: () => void): Promise<void> {
    try {
      await this.listAndWatch(c, name, primed);
    } finally {
      primed(); // closed or cancelled before the first read: `follow` must not wait forever
    }
  }

  private async listAndWatch(c: Collection, name: string, primed: () => void): Promise<void> {
    const signal = this.abort.signal;
    const fieldSelector = name ? `metadata.name=${name}` : undefined;
    const ns = c.namespace || undefined;
    let backoff = 500;
    let watchRefused = false;
    while (!signal.aborted) {
      let rv: string;
      try {
        this.stats.lists++;
        const list = await this.cluster.list(c.group, c.kind, ns, { fieldSelector, signal });
        const seen = new Set<string>();
        for (const o of list.items) {
          seen.add(o.metadata.name ?? "");
          this.put(c, slim(o));
        }
        for (const existing of [...c.objects.keys()]) {
          if ((!name || existing === name) && !seen.has(existing)) {
            c.objects.delete(existing);
            this.emit(c, existing, undefined);
          }
        }
        rv = list.resourceVersion;
        c.error = undefined;
        primed();
      } catch (err) {
        if (signal.aborted) return;
        if (err instanceof ApiError && err.status === 404 && /does not serve/.test(err.message)) {
          c.unserved = true;
          primed();
          return;
        }
        c.error = err instanceof Error ? err.message : String(err);
        primed();
        this.opts.onError?.(err);
        await sleep(backoff, undefined, { signal }).catch(() => {});
        backoff = Math.min(backoff * 2, 10_000);
        continue;
      }
      if (watchRefused) {
        this.stats.polls++;
        await sleepLong(this.opts.pollPeriodMs ?? 2000, signal).catch(() => {});
        continue;
      }
      try {
        this.stats.watches++;
        for await (const ev of this.cluster.watch({ group: c.group, kind: c.kind, namespace: ns, resourceVersion: rv, fieldSelector }, signal)) {
          if (ev.type === "BOOKMARK") continue;
          const objName = ev.object.metadata.name ?? "";
          if (ev.type === "DELETED") {
            if (c.objects.get(objName)?.metadata.uid === ev.object.metadata.uid || !c.objects.has(objName)) {
              c.objects.delete(objName);
              if (c.names.has(objName)) this.emit(c, objName, undefined);
            }
          } else this.put(c, slim(ev.object));
        }
        backoff = 500;
      } catch (err) {
        if (signal.aborted) return;
        if (err instanceof WatchExpiredError) continue;
        if (err instanceof ApiError && (err.status === 403 || err.status === 405)) {
          watchRefused = true; // fall back to polling this collection
          continue;
        }
        this.opts.onError?.(err);
        await sleep(backoff, undefined, { signal }).catch(() => {});
        backoff = Math.min(backoff * 2, 10_000);
      }
    }
  }
}
