// The live state of every object the run touches, kept current by watches: one LIST+WATCH per
// kind and namespace (or per object when only one or two of a kind are involved, so a package
// with a single CRD does not list every CRD in the cluster). A poll every `pollPeriodMs` takes
// over only where the server refuses to watch.
//
// A wait never depends on one watch staying healthy: what a wait still waits for and has not
// seen change for `QUIET_REREAD_MS` is read again directly (refreshQuiet), metadata first (a 4 MB
// CRD costs the server a few hundred bytes to answer), the whole object only when it changed; when
// such a read finds a state the watch never delivered and that watch has gone quiet too, the watch
// is replaced (listed and watched afresh). A watch that still delivers is behind, not dead: on a
// loaded server watches lag reads by seconds (WATCH_BEHIND_MS), and listing again would only add
// to its load.

import { sleepLong } from "../util/long-timer.js";
import { setMaxListeners } from "node:events";
import { setTimeout as sleep } from "node:timers/promises";
import { ApiError, NotServedError } from "./api-error.js";
import { WatchExpiredError, type Cluster } from "./types.js";
import { groupOf, type ObjRef } from "../model/ref.js";
import type { KubeObject } from "../model/kube-object.js";
import { clientSideMarker, ownsLastApplied, type ManagedFieldsEntry } from "../model/managed-fields.js";

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
  /** Stream keys ("" for the whole collection) whose first read has answered. */
  answered: Set<string>;
  /** Set when the kind is not served yet (a CRD applied later in the run). */
  unserved: boolean;
  /** Why the last read failed (e.g. forbidden); cleared by the next successful read. */
  error?: string;
  /** name → when its state last changed or was last read directly (ms since epoch). */
  touched: Map<string, number>;
  /** Names being read directly right now. */
  rereading: Set<string>;
  /** stream key → the abort of its current watch, to replace a watch that stopped delivering. */
  watches: Map<string, AbortController>;
  /** stream key → when its current watch last delivered anything (a bookmark included) or opened (ms since epoch). */
  heard: Map<string, number>;
}

/**
 * How long a waited-for object may go without a change before it is read again directly. kpt's
 * poller reads every object every 2 s; most objects reconcile (or go) within a couple of seconds
 * of their write, so a re-read after 5 quiet seconds costs nothing for them, one GET per 5 s (or
 * one LIST per kind and namespace) for an object that stays stuck, and a change a watch missed
 * ends its wait at most about 5 s late.
 */
export const QUIET_REREAD_MS = 5_000;

/**
 * The same for a wait until objects are gone (prune, destroy). What such a wait still waits for
 * has finalizers to run (a CRD's custom resources, a Namespace's contents), and its read is a
 * metadata probe of a few hundred bytes, so it is made sooner: kpt's poller reads every 2 s too.
 * On a loaded API server the watch tells of a CRD's removal seconds after a read can (issue 30:
 * Argo CD's destroy), and this read is what ends the wait then.
 */
export const DELETION_QUIET_REREAD_MS = 2_000;

/**
 * A watch that delivers nothing, not even a BOOKMARK, for this long is replaced. The API server
 * sends a bookmark about once a minute on a watch that asks for them (the watch cache's periodic
 * bookmarks, measured at 60 s on 1.35), so two and a half minutes of silence means the stream is
 * dead (a half-open connection, a stuck proxy); a server that sends no bookmarks gets a fresh
 * LIST and WATCH of the kind every 150 s, which is cheap.
 */
const WATCH_IDLE_MS = 150_000;

/**
 * A watch that delivered anything (a bookmark included) this recently is behind, not dead, when a
 * direct read finds what it has not told yet: it is kept. On a busy server a watch of CRDs of
 * megabytes lags reads by seconds to tens of seconds (issue 30), and replacing it would list every
 * CRD again; the quiet reads go on meanwhile, so no wait depends on it.
 */
const WATCH_BEHIND_MS = 30_000;

const PER_NAME_LIMIT = 2;

/** A quiet re-read lists a whole collection only when at least 1 in LIST_SHARE of its objects are quiet. */
const LIST_SHARE = 8;
/** Otherwise at most this many objects of a collection are read again in one pass. */
const REREADS_PER_PASS = 64;

function collectionKey(group: string, kind: string, namespace: string): string {
  return `${group}/${kind}/${namespace}`;
}

/**
 * Whether resourceVersion `a` is newer than `b`: etcd's are decimal integers, compared as numbers
 * (by length, then digit by digit: no BigInt per watch event); any other is newer when it differs.
 */
export function rvNewer(a: string | undefined, b: string | undefined): boolean {
  if (!a) return false;
  if (!b) return true;
  if (DIGITS.test(a) && DIGITS.test(b)) {
    const x = a.replace(LEADING_ZEROS, "");
    const y = b.replace(LEADING_ZEROS, "");
    return x.length !== y.length ? x.length > y.length : x > y;
  }
  return a !== b;
}
const DIGITS = /^\d+$/;
const LEADING_ZEROS = /^0+(?=\d)/;

/**
 * managedFields are a large share of each object's size; only server-side apply's own entries
 * are kept (they tell whether an apply would change anything), and a small marker of each
 * client-side applier's entry (it tells that a switch to server-side apply must migrate them).
 */
function slim(obj: KubeObject): KubeObject {
  const mf = obj.metadata?.managedFields;
  if (!Array.isArray(mf)) return obj;
  const kept = (mf as ManagedFieldsEntry[]).flatMap((m) => (m?.operation === "Apply" ? [m] : m?.operation === "Update" && ownsLastApplied(m) ? [clientSideMarker(m)] : []));
  const { managedFields: _drop, ...metadata } = obj.metadata;
  return { ...obj, metadata: kept.length ? { ...metadata, managedFields: kept } : metadata };
}

export class LiveCache {
  private readonly collections = new Map<string, Collection>();
  private readonly listeners = new Set<Listener>();
  private readonly abort = new AbortController();
  /** Requests made, for tests and benchmarks. */
  readonly stats = { lists: 0, watches: 0, polls: 0, rereads: 0, watchesReplaced: 0 };

  /** Held until the first subscriber, with `watchOnDemand`: each watch waits for it after its LIST. */
  private watchesHeld?: { open: Promise<void>; release: () => void };

  constructor(
    private readonly cluster: Cluster,
    private readonly opts: {
      pollPeriodMs?: number;
      signal?: AbortSignal;
      onError?: (err: unknown) => void;
      watchIdleMs?: number;
      /** See WATCH_BEHIND_MS. */
      watchBehindMs?: number;
      /**
       * Watch only once someone subscribes (`live status`: objects whose first read says all
       * there is to know need no watch, which for a bundle of 20 kinds is 20 requests fewer).
       * A watch that starts late starts from its LIST's resourceVersion, so nothing is missed.
       */
      watchOnDemand?: boolean;
    } = {},
  ) {
    // Every list and watch listens on this signal; hundreds at once are expected.
    setMaxListeners(0, this.abort.signal);
    opts.signal?.addEventListener("abort", () => this.abort.abort(), { once: true });
    if (opts.watchOnDemand) {
      let release!: () => void;
      const open = new Promise<void>((resolve) => (release = resolve));
      this.watchesHeld = { open, release };
    }
  }

  close(): void {
    this.abort.abort();
  }

  subscribe(l: Listener): () => void {
    this.listeners.add(l);
    this.watchesHeld?.release();
    return () => this.listeners.delete(l);
  }

  private collectionFor(ref: ObjRef): Collection {
    const key = collectionKey(ref.group, ref.kind, ref.namespace);
    let c = this.collections.get(key);
    if (!c) {
      c = { group: ref.group, kind: ref.kind, namespace: ref.namespace, objects: new Map(), names: new Set(), streams: new Map(), primed: new Map(), answered: new Set(), unserved: false, touched: new Map(), rereading: new Set(), watches: new Map(), heard: new Map() };
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

  /** Whether the object has been read at least once (present, absent, or unreadable with a reason). */
  isRead(ref: ObjRef): boolean {
    const c = this.collections.get(collectionKey(ref.group, ref.kind, ref.namespace));
    return Boolean(c && (c.answered.has("") || c.answered.has(ref.name) || c.objects.has(ref.name)));
  }

  /**
   * Every object of a kind in a namespace ("" for a cluster-scoped kind), when the cache follows
   * that collection as a whole and its last read succeeded; undefined otherwise (read it directly).
   */
  listed(group: string, kind: string, namespace: string): KubeObject[] | undefined {
    const c = this.collections.get(collectionKey(group, kind, namespace));
    if (!c || c.mode !== "collection" || !c.answered.has("") || c.error !== undefined || c.unserved) return undefined;
    return [...c.objects.values()];
  }

  /** True when the object's kind is not served by the cluster (yet). */
  isUnserved(ref: ObjRef): boolean {
    return this.collections.get(collectionKey(ref.group, ref.kind, ref.namespace))?.unserved ?? false;
  }

  /** Records what a write returned, so waits start from the newest state. */
  observe(obj: KubeObject): void {
    const ref = { group: groupOf(obj.apiVersion), kind: obj.kind, namespace: obj.metadata.namespace ?? "", name: obj.metadata.name ?? "" };
    this.put(this.collectionFor(ref), obj);
  }

  /** Marks an object gone after we deleted it and the server said it no longer exists. */
  forget(ref: ObjRef): void {
    const c = this.collections.get(collectionKey(ref.group, ref.kind, ref.namespace));
    if (c?.objects.has(ref.name)) this.drop(c, ref.name);
  }

  /** Keeps `obj` (slimmed) unless the cache holds the same object at the same or a newer version. */
  private put(c: Collection, obj: KubeObject): void {
    const name = obj.metadata.name ?? "";
    const prev = c.objects.get(name);
    // Checked before slimming: the watch event echoing the run's own write is dropped here.
    if (prev && prev.metadata.uid === obj.metadata.uid && !rvNewer(obj.metadata.resourceVersion, prev.metadata.resourceVersion)) return;
    const kept = slim(obj);
    c.objects.set(name, kept);
    if (c.names.has(name) || c.mode === "names") this.emit(c, name, kept);
  }

  private emit(c: Collection, name: string, obj: KubeObject | undefined): void {
    c.touched.set(name, Date.now());
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
        c.primed.set(key, new Promise<void>((r) => (primedResolve = r)).then(() => void c.answered.add(key)));
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
          this.put(c, o);
        }
        for (const existing of [...c.objects.keys()]) {
          if ((!name || existing === name) && !seen.has(existing)) this.drop(c, existing);
        }
        rv = list.resourceVersion;
        c.error = undefined;
        primed();
      } catch (err) {
        if (signal.aborted) return;
        if (err instanceof NotServedError) {
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
      if (this.watchesHeld) {
        await Promise.race([this.watchesHeld.open, new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }))]);
        if (signal.aborted) return;
      }
      // Its own abort, so that a watch found to have missed a change can be replaced (replaceWatch).
      const watchAbort = new AbortController();
      const stop = () => watchAbort.abort();
      signal.addEventListener("abort", stop, { once: true });
      c.watches.set(name, watchAbort);
      c.heard.set(name, Date.now());
      const idle = setTimeout(() => {
        this.stats.watchesReplaced++;
        watchAbort.abort();
      }, this.opts.watchIdleMs ?? WATCH_IDLE_MS);
      idle.unref?.();
      try {
        this.stats.watches++;
        for await (const ev of this.cluster.watch({ group: c.group, kind: c.kind, namespace: ns, resourceVersion: rv, fieldSelector }, watchAbort.signal)) {
          idle.refresh();
          c.heard.set(name, Date.now());
          if (ev.type === "BOOKMARK") continue;
          const objName = ev.object.metadata.name ?? "";
          if (ev.type === "DELETED") {
            if (c.objects.get(objName)?.metadata.uid === ev.object.metadata.uid || !c.objects.has(objName)) {
              c.objects.delete(objName);
              if (c.names.has(objName)) this.emit(c, objName, undefined);
            }
          } else this.put(c, ev.object);
        }
        backoff = 500;
      } catch (err) {
        if (signal.aborted) return;
        if (watchAbort.signal.aborted) continue; // replaced: list and watch again
        if (err instanceof WatchExpiredError) continue;
        if (err instanceof ApiError && (err.status === 403 || err.status === 405)) {
          watchRefused = true; // fall back to polling this collection
          continue;
        }
        this.opts.onError?.(err);
        await sleep(backoff, undefined, { signal }).catch(() => {});
        backoff = Math.min(backoff * 2, 10_000);
      } finally {
        clearTimeout(idle);
        signal.removeEventListener("abort", stop);
        if (c.watches.get(name) === watchAbort) {
          c.watches.delete(name);
          c.heard.delete(name);
        }
      }
    }
  }

  /**
   * Ends the watch that should have delivered `name` (its stream then lists and watches again),
   * unless it delivered something within WATCH_BEHIND_MS: then it is behind, and what it missed
   * is on its way (the quiet reads go on meanwhile).
   */
  private replaceWatch(c: Collection, name: string): void {
    const key = c.mode === "collection" || !c.streams.has(name) ? "" : name;
    const found = c.watches.has(key) ? key : c.watches.has(name) ? name : undefined;
    if (found === undefined) return;
    if (Date.now() - (c.heard.get(found) ?? 0) < (this.opts.watchBehindMs ?? WATCH_BEHIND_MS)) return;
    this.stats.watchesReplaced++;
    c.watches.get(found)!.abort();
  }

  /**
   * Reads again, directly, each of `refs` whose state has not changed for `quietMs` (and that is
   * not being read already): a GET each, or one LIST for a kind and namespace followed as a whole
   * when several of its objects are quiet, of metadata alone; the whole object is read only when
   * the metadata says it changed. A state the watch had not delivered (a newer version, or the
   * object gone) is taken, and that watch is replaced unless it delivered something lately.
   * Returns at once; what the reads find reaches subscribers as any change does.
   */
  refreshQuiet(refs: Iterable<ObjRef>, quietMs = QUIET_REREAD_MS): void {
    const now = Date.now();
    const due = new Map<Collection, string[]>();
    for (const ref of refs) {
      const c = this.collections.get(collectionKey(ref.group, ref.kind, ref.namespace));
      // Unserved or unreadable kinds have their own retries; a stream not yet primed reads anyway.
      if (!c || c.unserved || c.error !== undefined || c.rereading.has(ref.name) || !c.streams.size) continue;
      const touched = c.touched.get(ref.name);
      if (touched === undefined) c.touched.set(ref.name, now);
      if (now - (touched ?? now) < quietMs) continue;
      const list = due.get(c);
      if (list) list.push(ref.name);
      else due.set(c, [ref.name]);
    }
    for (const [c, quiet] of due) {
      // One list when the quiet objects are a good share of what it returns; otherwise a read
      // each, at most REREADS_PER_PASS now (the rest on the next pass): 1,000 objects pruned
      // from 50,000 do not list 50,000 every two seconds while a lagging watch catches up.
      const whole = c.mode === "collection" && quiet.length > PER_NAME_LIMIT && quiet.length * LIST_SHARE >= c.objects.size;
      // The longest quiet first: what the last pass read waits its turn.
      const names = whole ? quiet : quiet.sort((a, b) => (c.touched.get(a) ?? 0) - (c.touched.get(b) ?? 0)).slice(0, REREADS_PER_PASS);
      for (const n of names) {
        c.rereading.add(n);
        c.touched.set(n, now);
      }
      const read = whole ? this.rereadCollection(c, names) : Promise.all(names.map((n) => this.rereadOne(c, n)));
      void read.catch(() => undefined).finally(() => names.forEach((n) => c.rereading.delete(n)));
    }
  }

  /** The object is gone: we deleted it, or a read found it gone that the watch had not told of. */
  private drop(c: Collection, name: string): void {
    c.objects.delete(name);
    this.emit(c, name, undefined);
  }

  private async rereadOne(c: Collection, name: string): Promise<void> {
    const before = c.objects.get(name);
    const ref = { group: c.group, kind: c.kind, namespace: c.namespace, name };
    this.stats.rereads++;
    const probe = await this.cluster.get(ref, this.abort.signal, { metadataOnly: true });
    if (this.abort.signal.aborted || c.objects.get(name) !== before) return; // the watch delivered something meanwhile: it is alive, and newer than this read may be
    if (!missedBy(before, probe)) return;
    if (probe) {
      const obj = await this.cluster.get(ref, this.abort.signal);
      if (this.abort.signal.aborted || c.objects.get(name) !== before) return;
      if (obj) this.put(c, obj);
      else if (before) this.drop(c, name);
    } else this.drop(c, name);
    this.replaceWatch(c, name);
  }

  private async rereadCollection(c: Collection, names: string[]): Promise<void> {
    const before = new Map(names.map((n) => [n, c.objects.get(n)]));
    const ns = c.namespace || undefined;
    this.stats.rereads++;
    const probe = await this.cluster.list(c.group, c.kind, ns, { signal: this.abort.signal, metadataOnly: true });
    if (this.abort.signal.aborted) return;
    const probed = new Map(probe.items.map((o) => [o.metadata.name ?? "", o]));
    // Delivered meanwhile, or the same version as the watch's: nothing missed.
    const missed = names.filter((n) => c.objects.get(n) === before.get(n) && missedBy(before.get(n), probed.get(n)));
    if (!missed.length) return;
    const changed = missed.filter((n) => probed.has(n));
    const found = changed.length ? new Map((await this.cluster.list(c.group, c.kind, ns, { signal: this.abort.signal })).items.map((o) => [o.metadata.name ?? "", o])) : new Map<string, KubeObject>();
    if (this.abort.signal.aborted) return;
    for (const n of missed) {
      if (c.objects.get(n) !== before.get(n)) continue; // delivered meanwhile
      const obj = found.get(n);
      if (obj) this.put(c, obj);
      else if (before.get(n)) this.drop(c, n);
    }
    this.replaceWatch(c, "");
  }
}

/**
 * Whether a direct read (undefined: not found) tells what the cache (`known`) had not: the object
 * gone, another incarnation, or a newer version (an older one is not: a read may trail the watch).
 */
function missedBy(known: KubeObject | undefined, read: KubeObject | undefined): boolean {
  if (!read) return known !== undefined;
  return !known || known.metadata.uid !== read.metadata.uid || rvNewer(read.metadata.resourceVersion, known.metadata.resourceVersion);
}
