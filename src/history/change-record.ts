// One change of a package, as kapp's app-changes record it: who ran which command when, what it
// did (`Op: 2 create, 0 delete, 1 update, 5 noop`), whether it succeeded, which objects failed.
// Pure: a record is made from the run's tally (model/run-tally.ts, the one fold of its events),
// then stored as a ConfigMap beside the inventory (see cluster-history.ts). The real kpt never looks at these ConfigMaps: it finds
// inventories by name (ResourceGroup), and they carry none of cli-utils' labels or annotations.

import { formatRef, type ObjRef } from "../model/ref.js";
import type { RunTally } from "../model/run-tally.js";
import { isRecord, type KubeObject } from "../model/kube-object.js";

/** The label every record carries; its value is the inventory id (not cli-utils' inventory-id label: kpt selects inventories by that one). */
export const CHANGE_INVENTORY_LABEL = "kpt-ts.dev/change-of-inventory";
/** The ConfigMap key holding the record as JSON. */
export const CHANGE_DATA_KEY = "change";
/** Failed objects stored per record at most (a ConfigMap holds 1 MiB); the rest are counted. */
const MAX_FAILED = 50;
const MAX_ERROR_CHARS = 300;

type ChangeCommand = "apply" | "destroy";
/** `running` until the run ends; a record that stays `running` belongs to a process that was killed. */
type ChangeResult = "running" | "succeeded" | "failed" | "interrupted";
/** What `live history` and `live list` show: a superseded `running` record is `unknown` (its process died). */
export type ShownResult = ChangeResult | "unknown";

/** What the run did (model/operation.ts), stored in kapp's words: `noop` is unchanged. */
interface ChangeCounts {
  create: number;
  delete: number;
  update: number;
  noop: number;
}

interface FailedObject extends ObjRef {
  /** What failed: the write (apply/prune/delete), the wait that followed (reconcile), a hook, a replacement. */
  action: "apply" | "prune" | "delete" | "reconcile" | "hook" | "replace";
  error: string;
}

/** A hook the run ran (docs/lifecycle.md) and how it ended. */
export interface HookRun extends ObjRef {
  phase: string;
  result: "completed" | "failed" | "timeout" | "skipped";
}

/** An object the run deleted and created again (an immutable field), and why. */
export interface Replacement extends ObjRef {
  reason: string;
}

export interface ChangeRecord {
  /** The ConfigMap's name, once stored. */
  name?: string;
  command: ChangeCommand;
  inventory: { name: string; namespace: string; id: string };
  /** The kubeconfig user that ran it. */
  user: string;
  startedAt: string;
  finishedAt?: string;
  result: ChangeResult;
  counts: ChangeCounts;
  skipped: number;
  failed: FailedObject[];
  /** Failed objects beyond those listed. */
  moreFailed?: number;
  /** Why the run stopped, when it did not finish (a cluster error, an interrupt). */
  error?: string;
  /** Hooks run, in the order they ended (absent: none). */
  hooks?: HookRun[];
  /** Objects replaced (absent: none). */
  replaced?: Replacement[];
}

export function startChange(o: { command: ChangeCommand; inventory: ChangeRecord["inventory"]; user: string; startedAt: Date }): ChangeRecord {
  return {
    command: o.command,
    inventory: { ...o.inventory },
    user: o.user,
    startedAt: o.startedAt.toISOString(),
    result: "running",
    counts: { create: 0, delete: 0, update: 0, noop: 0 },
    skipped: 0,
    failed: [],
  };
}

/** What the run did so far, from its tally: kapp's counts, the skips, the failed objects (the first 50). */
export function withOutcome(r: ChangeRecord, t: RunTally): ChangeRecord {
  const c = t.operations;
  const failed = t.failures.slice(0, MAX_FAILED).map((f) => ({ ...storedRef(f.ref), action: f.action, error: f.error.slice(0, MAX_ERROR_CHARS) }));
  const { moreFailed: _more, hooks: _hooks, replaced: _replaced, ...rest } = r;
  const result = { Successful: "completed", Failed: "failed", Timeout: "timeout", Skipped: "skipped" } as const;
  const hooks = t.hooks.slice(0, MAX_FAILED).map((h): HookRun => ({ phase: h.phase, ...storedRef(h.ref), result: result[h.status] }));
  const replaced = t.replaced.slice(0, MAX_FAILED).map((x): Replacement => ({ ...storedRef(x.ref), reason: x.reason.slice(0, MAX_ERROR_CHARS) }));
  return {
    ...rest,
    ...(hooks.length ? { hooks } : {}),
    ...(replaced.length ? { replaced } : {}),
    counts: { create: c.create, delete: c.delete, update: c.update, noop: c.unchanged },
    skipped: c.skip,
    failed,
    ...(t.failures.length > MAX_FAILED ? { moreFailed: t.failures.length - MAX_FAILED } : {}),
  };
}

/** The run ended: `failed` when anything failed (as kpt's exit code 3), `interrupted` on Ctrl-C. */
export function finishChange(r: ChangeRecord, o: { finishedAt: Date; result: Exclude<ChangeResult, "running">; error?: string }): ChangeRecord {
  const failed = o.result === "succeeded" && (r.failed.length > 0 || (r.moreFailed ?? 0) > 0) ? "failed" : o.result;
  return { ...r, finishedAt: o.finishedAt.toISOString(), result: failed, ...(o.error ? { error: o.error.slice(0, MAX_ERROR_CHARS) } : {}) };
}

/** kapp's form: `Op: 2 create, 0 delete, 1 update, 5 noop`. */
export function formatOp(c: ChangeCounts): string {
  return `Op: ${c.create} create, ${c.delete} delete, ${c.update} update, ${c.noop} noop`;
}

/** `deployment.apps/web (reconcile: timeout: Ready: 0/1)` */
export function formatFailed(f: FailedObject): string {
  return `${formatRef(f)} (${f.action}: ${f.error})`;
}

/** Newest first: by start time, then by name (records started in the same millisecond). */
export function compareNewestFirst(a: ChangeRecord, b: ChangeRecord): number {
  if (a.startedAt !== b.startedAt) return a.startedAt < b.startedAt ? 1 : -1;
  return (b.name ?? "").localeCompare(a.name ?? "");
}

/**
 * A `running` record that a newer change of the same inventory has superseded can no longer be
 * running: its process was killed (or lost the cluster) before it could say how it ended.
 */
export function shownResult(r: ChangeRecord, all: readonly ChangeRecord[]): ShownResult {
  if (r.result !== "running") return r.result;
  const superseded = all.some((o) => o !== r && o.inventory.id === r.inventory.id && compareNewestFirst(o, r) < 0);
  return superseded ? "unknown" : "running";
}

/** The records beyond the newest `keep` of each inventory: the ones retention deletes. */
export function selectExpired(records: readonly ChangeRecord[], keep: number): ChangeRecord[] {
  const byInventory = new Map<string, ChangeRecord[]>();
  for (const r of records) {
    const list = byInventory.get(r.inventory.id) ?? [];
    list.push(r);
    byInventory.set(r.inventory.id, list);
  }
  return [...byInventory.values()].flatMap((list) => [...list].sort(compareNewestFirst).slice(Math.max(0, keep)));
}

/** The ConfigMap that stores a record: in the inventory's namespace, labelled with the inventory id. */
export function changeToConfigMap(r: ChangeRecord): KubeObject {
  const { name, ...stored } = r;
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: {
      ...(name ? { name } : { generateName: `${r.inventory.name.slice(0, 200)}-change-` }),
      namespace: r.inventory.namespace,
      labels: { [CHANGE_INVENTORY_LABEL]: r.inventory.id },
    },
    data: { [CHANGE_DATA_KEY]: JSON.stringify(stored) },
  };
}

/** The record a ConfigMap holds; undefined when it is not one (or was edited into something else). */
export function changeFromConfigMap(cm: KubeObject): ChangeRecord | undefined {
  const text = (cm.data as Record<string, unknown> | undefined)?.[CHANGE_DATA_KEY];
  if (typeof text !== "string") return undefined;
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isRecord(raw) || !isRecord(raw.inventory) || typeof raw.startedAt !== "string" || typeof raw.command !== "string") return undefined;
  const counts: Record<string, unknown> = isRecord(raw.counts) ? raw.counts : {};
  const num = (v: unknown) => (typeof v === "number" && Number.isFinite(v) ? v : 0);
  const results: ChangeResult[] = ["running", "succeeded", "failed", "interrupted"];
  return {
    name: cm.metadata.name,
    command: raw.command === "destroy" ? "destroy" : "apply",
    inventory: { name: str(raw.inventory.name), namespace: str(raw.inventory.namespace) || (cm.metadata.namespace ?? ""), id: str(raw.inventory.id) || (cm.metadata.labels?.[CHANGE_INVENTORY_LABEL] ?? "") },
    user: str(raw.user),
    startedAt: raw.startedAt,
    ...(typeof raw.finishedAt === "string" ? { finishedAt: raw.finishedAt } : {}),
    result: results.includes(raw.result as ChangeResult) ? (raw.result as ChangeResult) : "running",
    counts: { create: num(counts.create), delete: num(counts.delete), update: num(counts.update), noop: num(counts.noop) },
    skipped: num(raw.skipped),
    failed: Array.isArray(raw.failed) ? raw.failed.filter(isRecord).map((f) => ({ ...storedRef(f), action: str(f.action) as FailedObject["action"], error: str(f.error) })) : [],
    ...(num(raw.moreFailed) ? { moreFailed: num(raw.moreFailed) } : {}),
    ...(typeof raw.error === "string" ? { error: raw.error } : {}),
    ...hooksAndReplacements(raw),
  };
}

/** The hooks and replacements a stored record lists, read as defensively as the rest of it. */
function hooksAndReplacements(raw: Record<string, unknown>): Pick<ChangeRecord, "hooks" | "replaced"> {
  const results: HookRun["result"][] = ["completed", "failed", "timeout", "skipped"];
  const hooks = Array.isArray(raw.hooks)
    ? raw.hooks.filter(isRecord).map((h): HookRun => ({ phase: str(h.phase), ...storedRef(h), result: results.includes(h.result as HookRun["result"]) ? (h.result as HookRun["result"]) : "failed" }))
    : [];
  const replaced = Array.isArray(raw.replaced) ? raw.replaced.filter(isRecord).map((x): Replacement => ({ ...storedRef(x), reason: str(x.reason) })) : [];
  return { ...(hooks.length ? { hooks } : {}), ...(replaced.length ? { replaced } : {}) };
}

const str = (v: unknown): string => (typeof v === "string" ? v : "");

/** A ref's four fields alone, in the order records store them; strings only (a stored record is read defensively). */
function storedRef(r: { group?: unknown; kind?: unknown; namespace?: unknown; name?: unknown }): ObjRef {
  return { group: str(r.group), kind: str(r.kind), namespace: str(r.namespace), name: str(r.name) };
}

/** `pre-apply job.batch/db-migrate completed` */
export function formatHookRun(h: HookRun): string {
  return `${h.phase} ${formatRef(h)} ${h.result}`;
}

/** `job.batch/report (spec.template: field is immutable)` */
export function formatReplacement(x: Replacement): string {
  return `${formatRef(x)} (${x.reason})`;
}
