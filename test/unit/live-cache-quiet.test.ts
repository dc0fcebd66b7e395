// The live cache does not depend on one watch: a quiet object is read again directly, a change the
// watch never delivered is taken and that watch replaced, and a silent watch is replaced.

import { describe, expect, it, vi } from "vitest";
import type { Cluster, WatchEvent, WatchQuery } from "../../src/cluster/types.js";
import { refKey, type ObjRef } from "../../src/model/ref.js";
import type { KubeObject } from "../../src/model/kube-object.js";
import { DELETION_QUIET_REREAD_MS, LiveCache, QUIET_REREAD_MS } from "../../src/cluster/live-cache.js";
import { waitFor } from "../../src/status/wait-for.js";
import { followStatus } from "../../src/status/follow-status.js";
import type { EngineEvent, StatusEvent } from "../../src/model/events.js";
import { MemoryCluster } from "../helpers/memory-cluster.js";

const ref: ObjRef = { group: "", kind: "ConfigMap", namespace: "ns", name: "held" };
const cm = (rv: string, extra: Record<string, unknown> = {}): KubeObject => ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "held", namespace: "ns", uid: "u1", resourceVersion: rv, ...extra } });

/** A cluster whose watches open and then say nothing (until aborted); reads answer `current`. */
function silentCluster(state: { current: KubeObject | undefined }) {
  const counts = { lists: 0, watches: 0, gets: 0 };
  const cluster = {
    list: async () => (counts.lists++, { items: state.current ? [state.current] : [], resourceVersion: "100" }),
    get: async () => (counts.gets++, state.current),
    watch: (_q: WatchQuery, signal: AbortSignal): AsyncIterable<WatchEvent> => ({
      [Symbol.asyncIterator]: () => {
        counts.watches++;
        return { next: () => new Promise<IteratorResult<WatchEvent>>((resolve) => signal.addEventListener("abort", () => resolve({ done: true, value: undefined }), { once: true })) };
      },
    }),
  } as unknown as Cluster;
  return { cluster, counts };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("LiveCache without a healthy watch", () => {
  it("reads a quiet object again, takes what the watch missed, and replaces that watch", async () => {
    const state = { current: cm("1") as KubeObject | undefined };
    const { cluster, counts } = silentCluster(state);
    const cache = new LiveCache(cluster, { watchBehindMs: 0 });
    try {
      await cache.follow([ref]);
      const seen: (KubeObject | undefined)[] = [];
      cache.subscribe((_r, o) => seen.push(o));
      state.current = cm("2", { deletionTimestamp: "2026-01-01T00:00:00Z" });
      cache.refreshQuiet([ref], 0); // first sight: starts the quiet clock
      await sleep(20);
      cache.refreshQuiet([ref], 10);
      await sleep(20);
      expect(cache.get(ref)?.metadata.deletionTimestamp).toBe("2026-01-01T00:00:00Z");
      expect(cache.stats.watchesReplaced).toBe(1);
      await sleep(20);
      expect(counts.watches).toBe(2); // listed and watched afresh
      state.current = undefined;
      await sleep(20);
      cache.refreshQuiet([ref], 10);
      await sleep(20);
      expect(cache.get(ref)).toBeUndefined();
      expect(seen.at(-1)).toBeUndefined();
    } finally {
      cache.close();
    }
  });

  it("does not read again what changed recently", async () => {
    const state = { current: cm("1") as KubeObject | undefined };
    const { cluster, counts } = silentCluster(state);
    const cache = new LiveCache(cluster);
    try {
      await cache.follow([ref]);
      cache.refreshQuiet([ref], 60_000);
      cache.refreshQuiet([ref], 60_000);
      await sleep(20);
      expect(counts.gets).toBe(0);
      expect(cache.stats.rereads).toBe(0);
    } finally {
      cache.close();
    }
  });

  it("replaces a watch that delivers nothing, not even bookmarks, for watchIdleMs", async () => {
    const { cluster, counts } = silentCluster({ current: cm("1") });
    const cache = new LiveCache(cluster, { watchIdleMs: 50 });
    try {
      await cache.follow([ref]);
      await sleep(180);
      expect(counts.watches).toBeGreaterThanOrEqual(3);
      expect(counts.lists).toBeGreaterThanOrEqual(3);
      expect(cache.stats.watchesReplaced).toBeGreaterThanOrEqual(2);
    } finally {
      cache.close();
    }
  });
});

// Issue 30: `live status` of a bundle of 20 kinds sent a WATCH per kind although its first reads
// were all it printed (--poll-until known, the default).
describe("live status' reads (followStatus)", () => {
  const cluster = () => new MemoryCluster().seed({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "a", namespace: "ns" } }, { apiVersion: "v1", kind: "Secret", metadata: { name: "b", namespace: "ns" } });
  const refs: ObjRef[] = [
    { group: "", kind: "ConfigMap", namespace: "ns", name: "a" },
    { group: "", kind: "Secret", namespace: "ns", name: "b" },
  ];
  const collect = async (events: AsyncIterable<StatusEvent>) => {
    const out: string[] = [];
    for await (const e of events) out.push(`${e.ref.kind}/${e.ref.name} ${e.status}`);
    return out;
  };

  it("by default (poll-until known): one read per kind, no watch", async () => {
    const c = cluster();
    expect(await collect(followStatus(c, refs))).toEqual(["ConfigMap/a Current", "Secret/b Current"]);
    expect(c.calls.map((call) => call.verb).sort()).toEqual(["list", "list"]);
  });

  it("when it waits (poll-until deleted), it watches from what it read: a delete made right after the read, before any watch, is seen", async () => {
    const c = cluster();
    const list = c.list.bind(c);
    c.list = async (...args: Parameters<MemoryCluster["list"]>) => {
      const answer = await list(...args);
      // Gone before the run could watch: only a watch from the list's resourceVersion tells.
      for (const item of answer.items) void c.delete({ group: "", kind: item.kind, namespace: "ns", name: item.metadata.name! });
      return answer;
    };
    expect(await collect(followStatus(c, refs, { pollUntil: "deleted", timeoutMs: 10_000 }))).toEqual(["ConfigMap/a Current", "Secret/b Current", "ConfigMap/a NotFound", "Secret/b NotFound"]);
    expect(c.calls.filter((call) => call.verb === "watch")).toHaveLength(2);
  });
});

// Issue 30: Argo CD's destroy waited on CRDs of 4 MB. Each quiet read fetched the whole CRD, and
// when it found one gone before the (lagging, not dead) watch said so, the cache listed every CRD
// again to replace that watch: load on a server busy finalizing the very CRDs waited for.
describe("quiet reads that cost the server little", () => {
  /** Reads answer `current`, by metadata or whole (counted apart); each watch delivers a bookmark every `bookmarkMs`, or nothing. */
  function countingCluster(state: { current: Map<string, KubeObject> }, bookmarkMs?: number) {
    const counts = { lists: 0, metadataLists: 0, gets: 0, metadataGets: 0, watches: 0 };
    const meta = (o: KubeObject): KubeObject => ({ apiVersion: o.apiVersion, kind: o.kind, metadata: o.metadata });
    const cluster = {
      list: async (_g: string, _k: string, _ns?: string, opts: { metadataOnly?: boolean } = {}) => {
        if (opts.metadataOnly) counts.metadataLists++;
        else counts.lists++;
        const items = [...state.current.values()];
        return { items: opts.metadataOnly ? items.map(meta) : items, resourceVersion: "100" };
      },
      get: async (r: ObjRef, _s?: AbortSignal, opts: { metadataOnly?: boolean } = {}) => {
        if (opts.metadataOnly) counts.metadataGets++;
        else counts.gets++;
        const o = state.current.get(r.name);
        return o && opts.metadataOnly ? meta(o) : o;
      },
      watch: (_q: WatchQuery, signal: AbortSignal): AsyncIterable<WatchEvent> => ({
        [Symbol.asyncIterator]: () => {
          counts.watches++;
          return {
            next: () =>
              new Promise<IteratorResult<WatchEvent>>((resolve) => {
                const onAbort = () => (clearTimeout(t), resolve({ done: true, value: undefined }));
                const t = bookmarkMs === undefined ? undefined : setTimeout(() => (signal.removeEventListener("abort", onAbort), resolve({ done: false, value: { type: "BOOKMARK", object: { apiVersion: "v1", kind: "ConfigMap", metadata: { resourceVersion: "100" } } } })), bookmarkMs);
                signal.addEventListener("abort", onAbort, { once: true });
              }),
          };
        },
      }),
    } as unknown as Cluster;
    return { cluster, counts };
  }
  const named = (name: string, rv: string, extra: Record<string, unknown> = {}): KubeObject => ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace: "ns", uid: `u-${name}`, resourceVersion: rv, ...extra }, data: { big: "x".repeat(1000) } });
  const refOf = (name: string): ObjRef => ({ group: "", kind: "ConfigMap", namespace: "ns", name });

  it("reads metadata alone while nothing changed, the whole object once it has", async () => {
    const state = { current: new Map([["held", named("held", "1")]]) };
    const { cluster, counts } = countingCluster(state);
    const cache = new LiveCache(cluster);
    try {
      await cache.follow([refOf("held")]);
      cache.refreshQuiet([refOf("held")], 0);
      await sleep(20);
      expect(counts).toMatchObject({ metadataGets: 1, gets: 0 });
      state.current.set("held", named("held", "2", { deletionTimestamp: "2026-01-01T00:00:00Z" }));
      cache.refreshQuiet([refOf("held")], 0);
      await sleep(20);
      expect(counts).toMatchObject({ metadataGets: 2, gets: 1 });
      expect(cache.get(refOf("held"))?.data).toEqual({ big: "x".repeat(1000) }); // the cache keeps whole objects
      expect(cache.get(refOf("held"))?.metadata.deletionTimestamp).toBe("2026-01-01T00:00:00Z");
    } finally {
      cache.close();
    }
  });

  it("a collection read again lists metadata alone, and takes a deletion from it", async () => {
    const state = { current: new Map(["a", "b", "c"].map((n) => [n, named(n, "1")])) };
    const { cluster, counts } = countingCluster(state);
    const cache = new LiveCache(cluster);
    const refs = ["a", "b", "c"].map(refOf);
    try {
      await cache.follow(refs);
      expect(counts).toMatchObject({ lists: 1, metadataLists: 0 });
      cache.refreshQuiet(refs, 0);
      await sleep(20);
      expect(counts).toMatchObject({ lists: 1, metadataLists: 1 });
      state.current.delete("b");
      cache.refreshQuiet(refs, 0);
      await sleep(20);
      expect(cache.get(refOf("b"))).toBeUndefined();
      expect(cache.get(refOf("a"))?.data).toBeDefined();
      expect(counts.metadataLists).toBe(2);
    } finally {
      cache.close();
    }
  });

  it("a few quiet objects of a large collection are read one by one, a bounded number per pass, not by listing it all (issue 33: a prune of 1,000 from 50,000)", async () => {
    const names = Array.from({ length: 400 }, (_, i) => `cm-${i}`);
    const state = { current: new Map(names.map((n) => [n, named(n, "1")])) };
    const { cluster, counts } = countingCluster(state);
    const cache = new LiveCache(cluster);
    try {
      await cache.follow(names.map(refOf));
      const listsAfterFollow = counts.lists;
      // 20 of 400 quiet (1 in 20): read each, no list.
      cache.refreshQuiet(names.slice(0, 20).map(refOf), 0);
      await sleep(20);
      expect(counts).toMatchObject({ metadataLists: 0, metadataGets: 20, lists: listsAfterFollow });
      // 300 quiet of 400: one list of metadata.
      cache.refreshQuiet(names.slice(0, 300).map(refOf), 0);
      await sleep(20);
      expect(counts).toMatchObject({ metadataLists: 1, metadataGets: 20 });
    } finally {
      cache.close();
    }
    const many = Array.from({ length: 2000 }, (_, i) => `cm-${i}`);
    const big = countingCluster({ current: new Map(many.map((n) => [n, named(n, "1")])) });
    const read: string[] = [];
    const get = big.cluster.get.bind(big.cluster);
    big.cluster.get = (r, signal, opts) => (read.push(r.name), get(r, signal, opts));
    const second = new LiveCache(big.cluster);
    try {
      await second.follow(many.map(refOf));
      // 150 quiet of 2,000: at most 64 read in this pass, the others in the next.
      const quiet = many.slice(0, 150).map(refOf);
      second.refreshQuiet(quiet, 0);
      await sleep(20);
      expect(big.counts).toMatchObject({ metadataLists: 0, metadataGets: 64 });
      second.refreshQuiet(quiet, 0);
      await sleep(20);
      expect(big.counts.metadataGets).toBe(128);
      expect(new Set(read).size).toBe(128); // the second pass read others than the first
    } finally {
      second.close();
    }
  });

  it("a watch that still delivers (bookmarks) is not replaced when a read finds a deletion it has not told yet", async () => {
    const state = { current: new Map([["held", named("held", "1")]]) };
    const { cluster, counts } = countingCluster(state, 5);
    const cache = new LiveCache(cluster, { watchBehindMs: 50 });
    try {
      await cache.follow([refOf("held")]);
      await sleep(80);
      state.current.delete("held");
      cache.refreshQuiet([refOf("held")], 50);
      await sleep(20);
      expect(cache.get(refOf("held"))).toBeUndefined();
      expect(cache.stats.watchesReplaced).toBe(0);
      expect(counts).toMatchObject({ lists: 1, watches: 1 });
    } finally {
      cache.close();
    }
  });

  it("a deletion's wait reads what stays quiet again after DELETION_QUIET_REREAD_MS, sooner than other waits", async () => {
    vi.useFakeTimers();
    const state = { current: new Map([["held", named("held", "1", { deletionTimestamp: "2026-01-01T00:00:00Z", finalizers: ["x/y"] })]]) };
    const { cluster, counts } = countingCluster(state);
    const cache = new LiveCache(cluster);
    try {
      await cache.follow([refOf("held")]);
      const events: EngineEvent[] = [];
      const waited = waitFor(cache, [{ ref: refOf("held"), uid: "u-held" }], { desired: "NotFound", wave: 0, emit: (e) => events.push(e), timeoutMs: 60_000 });
      state.current.delete("held"); // the watch never tells
      await vi.advanceTimersByTimeAsync(DELETION_QUIET_REREAD_MS + 1_100);
      expect(DELETION_QUIET_REREAD_MS).toBeLessThan(QUIET_REREAD_MS);
      expect(counts.metadataGets).toBeGreaterThanOrEqual(1);
      expect(events.filter((e) => e.type === "wait").map((e) => (e as { status: string }).status)).toEqual(["Pending", "Successful"]);
      expect((await waited).get(refKey(refOf("held")))).toBe("Successful");
    } finally {
      cache.close();
      vi.useRealTimers();
    }
  });
});
