// A wave of many slow objects: only the first MAX_EXPLAINED are explained each round, so a
// thousand waiting Deployments do not LIST every Pod of their namespace every few seconds or
// print a line each. The timeout still names every object; reasons come with the explained ones.

import { describe, expect, it } from "vitest";
import { waitFor } from "../../src/status/wait-for.js";
import type { EngineEvent, WaitReason } from "../../src/model/events.js";
import { refKey, refOf } from "../../src/model/ref.js";
import type { KubeObject } from "../../src/model/kube-object.js";
import type { LiveCache } from "../../src/cluster/live-cache.js";
import { MAX_EXPLAINED } from "../../src/status/wait-explainer.js";

const deployment = (i: number): KubeObject =>
  ({
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: `web-${i}`, namespace: "ns", generation: 1 },
    spec: { replicas: 1 },
    status: { observedGeneration: 1, replicas: 1, updatedReplicas: 1, availableReplicas: 0, readyReplicas: 0 },
  }) as KubeObject;

describe("wait explanations under load", () => {
  it(`explains at most ${MAX_EXPLAINED} waiting objects per round, in apply order`, async () => {
    const objects = Array.from({ length: 3 * MAX_EXPLAINED }, (_, i) => deployment(i));
    const byKey = new Map(objects.map((o) => [refKey(refOf(o)), o]));
    const cache = { get: (ref: never) => byKey.get(refKey(ref)), readError: () => undefined, subscribe: () => () => undefined, refreshQuiet: () => undefined } as unknown as LiveCache;
    const asked: string[][] = [];
    const explainer = {
      canExplain: () => true,
      explain: async (waiting: readonly KubeObject[]) => {
        asked.push(waiting.map((o) => o.metadata.name ?? ""));
        return new Map<string, WaitReason[]>(waiting.map((o) => [refKey(refOf(o)), [{ message: "Pending: Unschedulable" }]]));
      },
    };
    const events: EngineEvent[] = [];
    await waitFor(cache, objects.map((o) => ({ ref: refOf(o) })), {
      desired: "Current",
      wave: 0,
      timeoutMs: 300,
      tickMs: 20,
      explainAfterMs: 0,
      emit: (e) => events.push(e),
      explainer,
    });

    expect(asked.length).toBeGreaterThan(0);
    for (const names of asked) expect(names).toEqual(objects.slice(0, MAX_EXPLAINED).map((o) => o.metadata.name));
    const timeouts = events.filter((e): e is Extract<EngineEvent, { type: "wait" }> => e.type === "wait" && e.status === "Timeout");
    expect(timeouts).toHaveLength(objects.length);
    expect(timeouts.filter((e) => e.reasons?.length)).toHaveLength(MAX_EXPLAINED);
  });
});
