// Engine event sequences for the printer tests, mirroring the runs of the real kpt binary
// captured in fixtures/kpt-output/, plus small helpers to feed and capture a printer.

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Writable } from "node:stream";
import { emptyStats, type EngineEvent, type RunStats } from "../../src/events.js";
import type { ObjRef } from "../../src/object/ref.js";
import type { KubeObject } from "../../src/object/types.js";

export const ref = (group: string, kind: string, namespace: string, name: string): ObjRef => ({ group, kind, namespace, name });

export const ns = ref("", "Namespace", "", "kptjs");
export const cm2 = ref("", "ConfigMap", "kptjs", "cm2");
export const svc = ref("", "Service", "kptjs", "web");
export const dep = ref("apps", "Deployment", "kptjs", "web");
export const cm3 = ref("", "ConfigMap", "kptjs", "cm3");
export const preexisting = ref("", "ConfigMap", "default", "preexisting");
export const badpod = ref("", "Pod", "default", "badpod");
export const depDefault = ref("apps", "Deployment", "default", "dep");

export const POLICY_SKIP = "inventory policy prevented actuation (strategy: Apply, status: Empty, policy: MustMatch)";
export const BADPOD_ERROR = 'error when creating "a.yaml": Pod "badpod" is invalid: spec.containers[0].image: Required value';
export const DEPENDENCY_SKIP = "dependency apply actuation failed: default_badpod__Pod";

const inventory = { name: "inventory-kptjs", namespace: "kptjs", id: "kptjs-id" };

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

const group = (action: "Apply" | "Prune" | "Delete" | "Wait" | "Inventory", status: "Started" | "Finished", wave?: number): EngineEvent =>
  ({ type: "group", action, status, ...(wave === undefined ? {} : { wave }) });
const inventoryUpdate: EngineEvent[] = [group("Inventory", "Started"), group("Inventory", "Finished")];

/** `kpt live apply` of a new package: apply-first.json. */
export function applyFirst(): EngineEvent[] {
  return [
    { type: "init", command: "apply", dryRun: "none", inventory, objects: [ns, cm2, svc, dep].map((r) => ({ ref: r, action: "Apply" as const })) },
    ...inventoryUpdate,
    group("Apply", "Started", 0),
    { type: "apply", ref: ns, status: "Successful", operation: "created" },
    group("Apply", "Finished", 0),
    group("Wait", "Started", 0),
    { type: "status", ref: ns, status: "Current", message: "Resource is current" },
    { type: "wait", ref: ns, status: "Successful" },
    group("Wait", "Finished", 0),
    group("Apply", "Started", 1),
    { type: "apply", ref: cm2, status: "Successful", operation: "created" },
    { type: "apply", ref: svc, status: "Successful", operation: "created" },
    { type: "apply", ref: dep, status: "Successful", operation: "created" },
    group("Apply", "Finished", 1),
    group("Wait", "Started", 1),
    { type: "wait", ref: cm2, status: "Successful" },
    { type: "wait", ref: svc, status: "Successful" },
    { type: "wait", ref: dep, status: "Pending", message: "Available: 0/2" },
    { type: "waiting", wave: 1, pending: [{ ref: dep, status: "InProgress", message: "Available: 0/2" }], total: 3, elapsedMs: 100 },
    { type: "status", ref: dep, status: "Current", message: "Deployment is available. Replicas: 2" },
    { type: "wait", ref: dep, status: "Successful" },
    group("Wait", "Finished", 1),
    ...inventoryUpdate,
    { type: "summary", stats: stats({ apply: { successful: 4, created: 4 }, wait: { successful: 4 } }) },
  ];
}

/** Re-applying the unchanged package with --show-status-events: apply-ok-status.json. */
export function applyOkStatus(): EngineEvent[] {
  return [
    { type: "init", command: "apply", dryRun: "none", inventory, objects: [ns, cm2, svc, dep].map((r) => ({ ref: r, action: "Apply" as const })) },
    { type: "status", ref: svc, status: "Current", message: "Service is ready" },
    { type: "status", ref: ns, status: "Current", message: "Resource is current" },
    { type: "status", ref: cm2, status: "Current", message: "Resource is always ready" },
    { type: "status", ref: dep, status: "Current", message: "Deployment is available. Replicas: 2" },
    ...inventoryUpdate,
    group("Apply", "Started", 0),
    { type: "apply", ref: ns, status: "Successful", operation: "unchanged" },
    group("Apply", "Finished", 0),
    group("Wait", "Started", 0),
    { type: "wait", ref: ns, status: "Successful" },
    group("Wait", "Finished", 0),
    group("Apply", "Started", 1),
    { type: "apply", ref: cm2, status: "Successful", operation: "unchanged" },
    { type: "apply", ref: svc, status: "Successful", operation: "unchanged" },
    { type: "apply", ref: dep, status: "Successful", operation: "configured" },
    group("Apply", "Finished", 1),
    group("Wait", "Started", 1),
    { type: "wait", ref: cm2, status: "Successful" },
    { type: "wait", ref: svc, status: "Successful" },
    { type: "wait", ref: dep, status: "Successful" },
    group("Wait", "Finished", 1),
    ...inventoryUpdate,
    { type: "summary", stats: stats({ apply: { successful: 4, unchanged: 3, configured: 1 }, wait: { successful: 4 } }) },
  ];
}

/** A skipped (foreign) object, a failing Pod and a Deployment depending on it: apply-failures.json. */
export function applyFailures(withStatus = false): EngineEvent[] {
  return [
    { type: "init", command: "apply", dryRun: "none", inventory, objects: [preexisting, badpod, depDefault].map((r) => ({ ref: r, action: "Apply" as const })) },
    ...(withStatus ? [{ type: "status", ref: preexisting, status: "Current", message: "Resource is always ready" } as const] : []),
    ...inventoryUpdate,
    group("Apply", "Started", 0),
    { type: "apply", ref: preexisting, status: "Skipped", error: POLICY_SKIP },
    { type: "apply", ref: badpod, status: "Failed", error: BADPOD_ERROR },
    group("Apply", "Finished", 0),
    group("Wait", "Started", 0),
    { type: "wait", ref: preexisting, status: "Skipped" },
    { type: "wait", ref: badpod, status: "Skipped" },
    group("Wait", "Finished", 0),
    group("Apply", "Started", 1),
    { type: "apply", ref: depDefault, status: "Skipped", error: DEPENDENCY_SKIP },
    group("Apply", "Finished", 1),
    group("Wait", "Started", 1),
    { type: "wait", ref: depDefault, status: "Skipped" },
    group("Wait", "Finished", 1),
    ...inventoryUpdate,
    { type: "summary", stats: stats({ apply: { skipped: 2, failed: 1 }, wait: { skipped: 3 } }) },
  ];
}

/** Applying with cm3 removed from the package: apply-prune.json. */
export function applyPrune(): EngineEvent[] {
  const first = applyFirst().filter((e) => e.type !== "summary" && !(e.type === "wait" && e.status === "Pending") && e.type !== "waiting");
  const init = first[0];
  if (init?.type !== "init") throw new Error("scenario starts with init");
  const withoutFinalInventory = first.slice(1, -2);
  return [
    { ...init, objects: [...init.objects, { ref: cm3, action: "Prune" }] },
    ...withoutFinalInventory,
    group("Prune", "Started", 0),
    { type: "prune", ref: cm3, status: "Successful" },
    group("Prune", "Finished", 0),
    group("Wait", "Started", 2),
    { type: "wait", ref: cm3, status: "Pending", message: "Resource scheduled for deletion" },
    { type: "wait", ref: cm3, status: "Successful" },
    group("Wait", "Finished", 2),
    ...inventoryUpdate,
    { type: "summary", stats: stats({ apply: { successful: 4, created: 4 }, prune: { successful: 1 }, wait: { successful: 5 } }) },
  ];
}

/** `kpt live destroy`: destroy.json. */
export function destroy(): EngineEvent[] {
  return [
    {
      type: "init",
      command: "destroy",
      dryRun: "none",
      inventory,
      objects: [dep, svc, cm2, ns].map((r) => ({ ref: r, action: "Delete" as const })),
    },
    group("Delete", "Started", 0),
    { type: "delete", ref: dep, status: "Successful" },
    { type: "delete", ref: svc, status: "Successful" },
    { type: "delete", ref: cm2, status: "Successful" },
    group("Delete", "Finished", 0),
    group("Wait", "Started", 0),
    { type: "wait", ref: dep, status: "Successful" },
    { type: "wait", ref: svc, status: "Successful" },
    { type: "wait", ref: cm2, status: "Successful" },
    group("Wait", "Finished", 0),
    group("Delete", "Started", 1),
    { type: "delete", ref: ns, status: "Successful" },
    group("Delete", "Finished", 1),
    group("Wait", "Started", 1),
    { type: "wait", ref: ns, status: "Pending", message: "Resource scheduled for deletion" },
    { type: "status", ref: ns, status: "Terminating", message: "Resource scheduled for deletion" },
    { type: "waiting", wave: 1, pending: [{ ref: ns, status: "Terminating", message: "Resource scheduled for deletion" }], total: 1, elapsedMs: 5_000 },
    { type: "status", ref: ns, status: "NotFound", message: "Resource not found" },
    { type: "wait", ref: ns, status: "Successful" },
    group("Wait", "Finished", 1),
    ...inventoryUpdate,
    { type: "summary", stats: stats({ delete: { successful: 4 }, wait: { successful: 4 } }) },
  ];
}

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
