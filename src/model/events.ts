// The engine's whole contract with the outside world: a typed stream of events.
// Printers consume it; nothing in the engine writes to the terminal.

import type { ObjRef } from "./ref.js";
import type { KubeObject, SourcePos } from "./kube-object.js";
import type { RunPlan } from "./plan.js";
import type { HookPhase } from "./lifecycle-keys.js";

/** kstatus' reconcile statuses (what `live status --statuses` selects among). */
export const KSTATUS_VALUES = ["InProgress", "Current", "Failed", "Terminating", "NotFound", "Unknown"] as const;
export type KStatus = (typeof KSTATUS_VALUES)[number];

export type Action = "Apply" | "Prune" | "Delete" | "Wait" | "Inventory";
export type ActuationStatus = "Pending" | "Successful" | "Skipped" | "Failed";
export type WaitStatus = "Pending" | "Successful" | "Skipped" | "Failed" | "Timeout";
/** What an apply did, as kubectl words it. `unchanged` objects were not written. */
export type ApplyOperation = "created" | "configured" | "unchanged";
export type DryRunStrategy = "none" | "client" | "server";

export interface InitEvent {
  type: "init";
  /** Which command produced the stream. */
  command: "apply" | "destroy";
  dryRun: DryRunStrategy;
  inventory: { name: string; namespace: string; id: string };
  /** Every object the run may act on, in action order (apply waves, then prune/delete waves). */
  objects: { ref: ObjRef; action: "Apply" | "Prune" | "Delete" }[];
  /** What the run is about to do, decided before its first write (see plan/types.ts); always set by the engine. */
  plan?: RunPlan;
  /**
   * The plan writes nothing (nothing to create, update, delete or detach; the inventory already
   * lists every object): the run then writes no inventory, no status and no change record.
   */
  changesNothing?: boolean;
}

export interface GroupEvent {
  type: "group";
  action: Action;
  status: "Started" | "Finished";
  /** 0-based wave index for Apply/Prune/Delete/Wait groups. */
  wave?: number;
}

export interface ApplyEvent {
  type: "apply";
  ref: ObjRef;
  status: Exclude<ActuationStatus, "Pending">;
  operation?: ApplyOperation;
  /** Set when status is Skipped or Failed. */
  error?: string;
  /** Failed: the package file and line the object came from (for CI annotations). */
  source?: SourcePos;
  /** A dry run computed locally because the server refused it this identity: the line that says so. */
  local?: string;
  /**
   * The live object the apply was made against (absent: there was none), and the object as the
   * server returned it or, in a dry run, would store it (the live one when unchanged): what a
   * diff of the run shows. As the cluster holds them, a Secret's values too (as StatusEvent's
   * object): printers never print them, and the diff masks them.
   */
  before?: KubeObject;
  after?: KubeObject;
  /** A dry run the server could not make, the object shown as the package has it: why (its Namespace or CRD comes with the package). */
  note?: string;
}

export interface PruneEvent {
  type: "prune" | "delete";
  ref: ObjRef;
  status: Exclude<ActuationStatus, "Pending">;
  error?: string;
}

export interface WaitEvent {
  type: "wait";
  ref: ObjRef;
  status: WaitStatus;
  /** For Pending/Timeout/Failed: what the object is waiting for, from its status message. */
  message?: string;
  /** For Timeout and Failed: the last known reasons it was still waiting (beyond kpt; never in --output json). */
  reasons?: WaitReason[];
}

/**
 * What a waiting object waits on, beyond its own status (kpt-ts only, like kapp's `L` lines):
 * a Deployment's current ReplicaSet and its not-ready Pods, a StatefulSet's, DaemonSet's or
 * Job's Pods, a claim's missing PersistentVolume.
 */
export interface WaitReason {
  /** The other object it is about (a ReplicaSet, a Pod); absent when it is about the waiting object itself. */
  ref?: ObjRef;
  /** `Pending: Unschedulable`, `Running: CrashLoopBackOff`, `Ready: 0/1`, `no PersistentVolume matches` */
  message: string;
  /** The cluster's longer words, when it has any (the scheduler's message, the claim's needs). */
  detail?: string;
}

export interface StatusEvent {
  type: "status";
  ref: ObjRef;
  status: KStatus;
  message: string;
  /** Terminating: what keeps it from going (a Namespace's deletion conditions, finalizers); beyond kpt, never in --output json. */
  heldBy?: WaitReason[];
  /** The live object, when known; the table printer shows its conditions and age. */
  object?: KubeObject;
}

/**
 * What a wait phase is still waiting for; emitted when the pending set changes and every few
 * seconds while it does not, so printers can show progress (kpt prints nothing while it waits).
 */
export interface WaitingEvent {
  type: "waiting";
  wave: number;
  /** Objects not yet reconciled (Current for apply, gone for prune/destroy), with their status. */
  pending: { ref: ObjRef; status: KStatus; message: string; reasons?: WaitReason[] }[];
  /** How many objects this wait phase covers in all. */
  total: number;
  elapsedMs: number;
  /** The per-wave timeout, when one was given (--reconcile-timeout / --prune-timeout). */
  timeoutMs?: number;
}

/**
 * A hook's progress (docs/lifecycle.md; beyond kpt, whose `--output json` gains a `hook` line):
 * the object an earlier run left deleted (`delete-previous`), the hook created, its outcome
 * (`wait`: completed, failed, timed out, or skipped because the apply failed or an earlier hook
 * did), and its deletion by its delete policy (`delete`).
 */
export interface HookEvent {
  type: "hook";
  phase: HookPhase;
  ref: ObjRef;
  action: "delete-previous" | "create" | "wait" | "delete";
  status: "Successful" | "Skipped" | "Failed" | "Timeout";
  /** Why it failed, timed out or was skipped; for `delete`, the policy that deleted it. */
  message?: string;
  /** Failed or Timeout: what it was last seen waiting on (a Job's last Pod's state). */
  reasons?: WaitReason[];
  /** Failed: the package file and line the hook came from. */
  source?: SourcePos;
}

/**
 * An object deleted to be created again, its update refused for an immutable field
 * (`kpt-ts.dev/update-strategy: replace-on-immutable`; beyond kpt). Its apply event follows.
 */
export interface ReplaceEvent {
  type: "replace";
  ref: ObjRef;
  status: "Successful" | "Failed";
  /** Why it is replaced: the server's refusal (`spec.template: field is immutable`). */
  reason: string;
  error?: string;
}

export interface ActionStats {
  successful: number;
  skipped: number;
  failed: number;
}
export interface ApplyStats extends ActionStats {
  created: number;
  configured: number;
  unchanged: number;
}
export interface WaitStats extends ActionStats {
  timeout: number;
}
export interface RunStats {
  apply: ApplyStats;
  prune: ActionStats;
  delete: ActionStats;
  wait: WaitStats;
  /** Hooks run (docs/lifecycle.md): each hook's outcome, counted once (a failed create counts as failed). */
  hook: WaitStats;
  /** Objects replaced (deleted to be created again). */
  replace: ActionStats;
}

/**
 * Something the user should know that is neither an object's outcome nor a failure of the run
 * (statuses left out of an inventory too large to hold them). Printed once, as `[WARN] ...` on
 * stderr; kpt's JSON has no event for it, so `--output json` prints it on stderr too.
 */
export interface WarningEvent {
  type: "warning";
  message: string;
}

/** The last event of every run that was not aborted. */
export interface SummaryEvent {
  type: "summary";
  stats: RunStats;
}

export type EngineEvent = InitEvent | GroupEvent | ApplyEvent | PruneEvent | WaitEvent | StatusEvent | WaitingEvent | WarningEvent | SummaryEvent | HookEvent | ReplaceEvent;
