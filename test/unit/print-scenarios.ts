// Event sequences for the printer tests, from real engine runs on the in-memory cluster
// (test/helpers/memory-cluster.ts) of the scenarios the real kpt binary ran for the captures in
// fixtures/kpt-output/: a change in the engine's events shows in the printer tests. Plus small
// helpers to feed and capture a printer.

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Writable } from "node:stream";
import type { EngineEvent, RunStats } from "../../src/model/events.js";
import { emptyStats } from "../../src/model/run-tally.js";
import type { ObjRef } from "../../src/model/ref.js";
import type { InventoryInfo, KubeObject } from "../../src/model/kube-object.js";
import { configMap, deployment, INVENTORY, namespace, packageOf, pod, rollOutDeployments, runApply, runDestroy, service } from "../helpers/engine-run.js";
import { invalid, MemoryCluster } from "../helpers/memory-cluster.js";

export const ref = (group: string, kind: string, namespace: string, name: string): ObjRef => ({ group, kind, namespace, name });

export const ns = ref("", "Namespace", "", "kptjs");
export const cm2 = ref("", "ConfigMap", "kptjs", "cm2");
export const svc = ref("", "Service", "kptjs", "web");
export const dep = ref("apps", "Deployment", "kptjs", "web");
export const cm3 = ref("", "ConfigMap", "kptjs", "cm3");
export const preexisting = ref("", "ConfigMap", "default", "preexisting");

export const POLICY_SKIP = "inventory policy prevented actuation (strategy: Apply, status: Empty, policy: MustMatch)";
export const BADPOD_ERROR = 'error when creating "a.yaml": Pod "badpod" is invalid: spec.containers[0].image: Required value';

export function fixture(name: string): string {
  return readFileSync(join(import.meta.dirname, "fixtures/kpt-output", name), "utf8");
}

export function stats(patch: { [K in keyof RunStats]?: Partial<RunStats[K]> }): RunStats {
  const s = emptyStats();
  Object.assign(s.apply, patch.apply);
  Object.assign(s.prune, patch.prune);
  Object.assign(s.delete, patch.delete);
  Object.assign(s.wait, patch.wait);
  return s;
}

/** A live object as the status watcher would attach it. */
export function liveObject(r: ObjRef, createdAt: string, conditions?: { type: string; status: string }[]): KubeObject {
  return {
    apiVersion: r.group ? `${r.group}/v1` : "v1",
    kind: r.kind,
    metadata: { name: r.name, namespace: r.namespace || undefined, creationTimestamp: createdAt },
    ...(conditions ? { status: { conditions } } : {}),
  };
}

const kptjs: InventoryInfo = { ...INVENTORY, name: "inventory-kptjs", namespace: "kptjs", id: "kptjs-id" };
/** The clock of the runs' objects: created one second before the table printer's NOW. */
const CREATED = new Date("2026-11-21T23:33:32Z");

/** kpt's demo package: the Namespace, a ConfigMap, a Service and a Deployment of two replicas. */
const kptjsObjects = (withCm3: boolean): KubeObject[] => [
  namespace("kptjs"),
  configMap("cm2", { namespace: "kptjs" }),
  ...(withCm3 ? [configMap("cm3", { namespace: "kptjs" })] : []),
  service("web", { namespace: "kptjs" }),
  deployment("web", { namespace: "kptjs", replicas: 2 }),
];

/** A cluster whose Deployments roll out a moment after each write, as a controller would. */
function kptjsCluster(): MemoryCluster {
  return rollOutDeployments(new MemoryCluster({ now: () => CREATED }));
}

async function run(events: Promise<{ events: EngineEvent[]; error?: unknown }>): Promise<EngineEvent[]> {
  const r = await events;
  if (r.error) throw r.error;
  return r.events;
}

/** Runs each scenario once per test file; callers get their own copy of the list. */
function once(scenario: () => Promise<EngineEvent[]>): () => Promise<EngineEvent[]> {
  let cached: Promise<EngineEvent[]> | undefined;
  return async () => [...(await (cached ??= scenario()))];
}

/** `kpt live apply` of a new package (kpt's apply-first.json). */
export const applyFirst = once(() => run(runApply(kptjsCluster(), packageOf(kptjs, kptjsObjects(false)))));

/** Re-applying the unchanged package (kpt's apply-ok-status.json). */
export const applyOkStatus = once(async () => {
  const cluster = kptjsCluster();
  await run(runApply(cluster, packageOf(kptjs, kptjsObjects(false))));
  return run(runApply(cluster, packageOf(kptjs, kptjsObjects(false))));
});

/** Re-applying with cm2's data changed: cm2 configured, the rest unchanged. */
export const applyUpdate = once(async () => {
  const cluster = kptjsCluster();
  await run(runApply(cluster, packageOf(kptjs, kptjsObjects(false))));
  const [nsObj, , svcObj, depObj] = kptjsObjects(false);
  return run(runApply(cluster, packageOf(kptjs, [nsObj!, configMap("cm2", { namespace: "kptjs", data: { key: "changed" } }), svcObj!, depObj!])));
});

/**
 * A skipped object (a ConfigMap in "default" that no inventory owns), a Pod the server refuses
 * (422) and a Deployment depending on it (kpt's apply-failures.json).
 */
export const applyFailures = once(() => {
  const cluster = kptjsCluster()
    .seed(namespace("default"), namespace("kptjs"), configMap("preexisting", { namespace: "default" }))
    .failOn({ verb: "create", kind: "Pod", name: "badpod" }, () => invalid("Pod", "badpod", "spec.containers[0].image", "Required value"));
  const badpodObj = pod("badpod", { namespace: "default", image: "" });
  const objects = [configMap("preexisting", { namespace: "default" }), badpodObj, deployment("dep", { namespace: "default", dependsOn: [badpodObj] })];
  return run(runApply(cluster, packageOf(kptjs, objects, () => "a.yaml")));
});

/** Applying with cm3 removed from the package (kpt's apply-prune.json). */
export const applyPrune = once(async () => {
  const cluster = kptjsCluster();
  await run(runApply(cluster, packageOf(kptjs, kptjsObjects(true))));
  return run(runApply(cluster, packageOf(kptjs, kptjsObjects(false))));
});

/** `kpt live destroy`; the Namespace terminates a moment, as its controller empties it (kpt's destroy.json). */
export const destroy = once(async () => {
  const cluster = kptjsCluster();
  await run(runApply(cluster, packageOf(kptjs, kptjsObjects(false))));
  const nsRef = ref("", "Namespace", "", "kptjs");
  const live = cluster.peek(nsRef)!;
  live.metadata.finalizers = ["kubernetes"];
  await cluster.update(live);
  cluster.onWrite({ kind: "Namespace", verb: "delete" }, () => cluster.removeFinalizers(nsRef), { delayMs: 20 });
  return run(runDestroy(cluster, packageOf(kptjs, kptjsObjects(false))));
});

export async function* streamOf<T>(events: T[], failWith?: Error): AsyncGenerator<T> {
  for (const e of events) yield e;
  if (failWith) throw failWith;
}

/** A writable that remembers everything written to it. */
export function captureStream(): { stream: NodeJS.WritableStream; text: () => string } {
  let text = "";
  const stream = new Writable({
    write(chunk: Buffer | string, _enc, cb) {
      text += chunk.toString();
      cb();
    },
  });
  return { stream, text: () => text };
}

/** An async iterable the test pushes into, for printers whose output depends on timing. */
export function channel<T>(): { iterable: AsyncIterable<T>; push: (v: T) => void; close: () => void; fail: (err: Error) => void } {
  const queue: T[] = [];
  let done = false;
  let error: Error | undefined;
  let wake: (() => void) | undefined;
  const notify = (): void => {
    wake?.();
    wake = undefined;
  };
  return {
    iterable: {
      async *[Symbol.asyncIterator]() {
        for (;;) {
          if (queue.length > 0) {
            yield queue.shift() as T;
            continue;
          }
          if (error) throw error;
          if (done) return;
          await new Promise<void>((resolve) => (wake = resolve));
        }
      },
    },
    push: (v) => {
      queue.push(v);
      notify();
    },
    close: () => {
      done = true;
      notify();
    },
    fail: (err) => {
      error = err;
      notify();
    },
  };
}
