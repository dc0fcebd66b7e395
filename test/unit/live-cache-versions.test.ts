// The live cache keeps the newest state of each object it follows, whichever way it came (a
// write's answer, a watch event, a list), and keeps it slimmed (managedFields reduced to what
// server-side apply and the client-side migration need); a watch event echoing an older or the
// same version changes nothing and reaches no listener.

import { describe, expect, it } from "vitest";
import type { Cluster, WatchEvent, WatchQuery } from "../../src/cluster/types.js";
import type { KubeObject } from "../../src/model/kube-object.js";
import type { ObjRef } from "../../src/model/ref.js";
import { LiveCache, rvNewer } from "../../src/cluster/live-cache.js";

describe("rvNewer", () => {
  it.each([
    ["10", "9", true], // numbers, not text: "10" < "9" as strings
    ["9", "10", false],
    ["100", "100", false],
    ["101", "100", true],
    ["007", "7", false], // the same number
    ["010", "9", true],
    ["123456789012345678901234567890", "123456789012345678901234567889", true], // beyond 2^53
    ["123456789012345678901234567889", "123456789012345678901234567890", false],
    ["0", "0", false],
    ["abc", "abd", true], // not etcd's: any other version is newer
    ["abc", "abc", false],
    ["", "5", false],
    [undefined, "5", false],
    ["5", undefined, true],
    ["5", "", true],
  ])("%s newer than %s: %s", (a, b, want) => {
    expect(rvNewer(a as string | undefined, b as string | undefined)).toBe(want);
  });
});

const ref: ObjRef = { group: "", kind: "ConfigMap", namespace: "ns", name: "cm" };
const managedFields = [
  { manager: "kubectl-client-side-apply", operation: "Update", fieldsV1: { "f:metadata": { "f:annotations": { "f:kubectl.kubernetes.io/last-applied-configuration": {} } }, "f:data": { "f:a": {} } } },
  { manager: "other", operation: "Update", fieldsV1: { "f:data": { "f:b": {} } } },
  { manager: "kpt", operation: "Apply", fieldsV1: { "f:data": { "f:c": {} } } },
];
const cm = (rv: string, data: Record<string, string> = {}): KubeObject => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name: "cm", namespace: "ns", uid: "u1", resourceVersion: rv, managedFields },
  data,
});

/** A cluster with `cm` at rv 5 whose one watch delivers `events`, then stays open until aborted. */
function clusterWithWatch(events: WatchEvent[], delivered: () => void): Cluster {
  return {
    list: async () => ({ items: [cm("5", { v: "listed" })], resourceVersion: "5" }),
    get: async () => cm("5"),
    watch: (_q: WatchQuery, signal: AbortSignal): AsyncIterable<WatchEvent> => ({
      async *[Symbol.asyncIterator]() {
        yield* events;
        delivered();
        await new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true }));
      },
    }),
  } as unknown as Cluster;
}

describe("LiveCache versions", () => {
  it("takes a newer state from the watch, ignores older and equal echoes, and keeps each state slimmed", async () => {
    let delivered!: () => void;
    const done = new Promise<void>((r) => (delivered = r));
    const events: WatchEvent[] = [
      { type: "MODIFIED", object: cm("4", { v: "older" }) },
      { type: "MODIFIED", object: cm("5", { v: "same version" }) },
      { type: "MODIFIED", object: cm("10", { v: "newer" }) }, // 10 > 5 as numbers
      { type: "MODIFIED", object: cm("9", { v: "older again" }) },
    ];
    const cache = new LiveCache(clusterWithWatch(events, delivered));
    try {
      const seen: (string | undefined)[] = [];
      cache.subscribe((_r, o) => seen.push((o?.data as Record<string, string> | undefined)?.v));
      await cache.follow([ref]);
      await done;
      expect(cache.get(ref)?.data).toEqual({ v: "newer" });
      expect(seen).toEqual(["listed", "newer"]);
      // Slimmed: the client-side applier's entry becomes a marker naming only the annotation,
      // another manager's Update entry is dropped, the Apply entry is kept whole.
      const kept = cache.get(ref)?.metadata.managedFields as { manager: string; operation: string; fieldsV1?: unknown }[];
      expect(kept.map((m) => [m.manager, m.operation])).toEqual([
        ["kubectl-client-side-apply", "Update"],
        ["kpt", "Apply"],
      ]);
      expect(kept[0]!.fieldsV1).toEqual(managedFields[0]!.fieldsV1 && { "f:metadata": { "f:annotations": { "f:kubectl.kubernetes.io/last-applied-configuration": {} } } });
      expect(kept[1]!.fieldsV1).toEqual(managedFields[2]!.fieldsV1);
      // A write's answer goes the same way: an older one is ignored, a newer one taken, slimmed.
      cache.observe(cm("7", { v: "stale write" }));
      expect(cache.get(ref)?.data).toEqual({ v: "newer" });
      cache.observe(cm("11", { v: "written" }));
      expect(cache.get(ref)?.data).toEqual({ v: "written" });
      expect((cache.get(ref)?.metadata.managedFields as unknown[]).length).toBe(2);
      expect(seen).toEqual(["listed", "newer", "written"]);
    } finally {
      cache.close();
    }
  });
});
