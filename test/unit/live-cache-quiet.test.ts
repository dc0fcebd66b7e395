// The live cache does not depend on one watch: a quiet object is read again directly, a change the
// watch never delivered is taken and that watch replaced, and a silent watch is replaced.

import { describe, expect, it } from "vitest";
import type { Cluster, WatchEvent, WatchQuery } from "../../src/cluster/types.js";
import type { ObjRef } from "../../src/model/ref.js";
import type { KubeObject } from "../../src/model/kube-object.js";
import { LiveCache } from "../../src/cluster/live-cache.js";
import { followStatus } from "../../src/status/follow-status.js";
import type { StatusEvent } from "../../src/model/events.js";
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
    const cache = new LiveCache(cluster);
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
