// Reading the cluster's own record in end-to-end tests: objects (or their absence), condition
// times, and the order of lines a run printed.
import { kubectl } from "./run.js";
import { getObject as getKubeObject } from "./scenario.js";

export interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
}

export interface LiveObject {
  metadata: {
    name: string;
    namespace?: string;
    uid: string;
    generation?: number;
    creationTimestamp: string;
    deletionTimestamp?: string;
    finalizers?: string[];
    annotations?: Record<string, string>;
    managedFields?: { manager: string; operation: string; subresource?: string; time: string }[];
  };
  spec?: any;
  status?: any;
}

/** The live object, or undefined when it does not exist (any other failure throws). */
export const getObject = getKubeObject<LiveObject>;

export function conditionOf(obj: LiveObject | undefined, type: string): Condition | undefined {
  return (obj?.status?.conditions as Condition[] | undefined)?.find((c) => c.type === type);
}

/** Milliseconds since the epoch of an RFC 3339 timestamp from the API server (second resolution). */
export function at(timestamp: string | undefined): number {
  if (!timestamp) throw new Error("no timestamp");
  const t = Date.parse(timestamp);
  if (Number.isNaN(t)) throw new Error(`not a timestamp: ${timestamp}`);
  return t;
}

export function randomSuffix(): string {
  return Math.random().toString(36).slice(2, 8);
}

export function linesOf(out: string): string[] {
  return out.split("\n").filter((l) => l !== "");
}

/** Index of the first line equal to `line` (or matching it), -1 when none. */
export function lineIndex(out: string, line: string | RegExp): number {
  return linesOf(out).findIndex((l) => (typeof line === "string" ? l === line : line.test(l)));
}

/** Best-effort cleanup that never fails a test. */
export async function deleteQuietly(...args: string[]): Promise<void> {
  await kubectl(["delete", ...args, "--ignore-not-found", "--wait=false"]).catch(() => undefined);
}

export async function dropFinalizers(kind: string, name: string, namespace: string): Promise<void> {
  await kubectl(["patch", kind, name, "-n", namespace, "--type=merge", "-p", '{"metadata":{"finalizers":null}}']).catch(() => undefined);
}

/** JSON lines printed by `--output json`. */
export function jsonLines<T = Record<string, unknown>>(out: string): T[] {
  return linesOf(out).map((l) => JSON.parse(l) as T);
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
