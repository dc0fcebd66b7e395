// The engine's options and their defaults, declared once. The library takes them as they are;
// the CLI's flags are made from them (commands/command-specs.ts keys its engine flags by these
// names and takes each default from ENGINE_DEFAULTS), so a command hands its parsed flags over
// without copying a field.

import type { PropagationPolicy } from "../cluster/types.js";
import type { DryRunStrategy } from "../model/events.js";
import type { InventoryPolicy } from "../inventory/policy.js";
import type { RunPlan } from "../model/plan.js";
import type { ComputeStatusOptions } from "../status/types.js";

export interface EngineOptions {
  dryRun?: DryRunStrategy;
  serverSide?: boolean;
  /** kpt's default field manager for server-side apply. */
  fieldManager?: string;
  forceConflicts?: boolean;
  /**
   * False (`--wait=false`, kpt#4599): no wait after a wave's writes or deletes; the run ends
   * right after the last write and prune. Dependents still follow their dependencies' writes.
   */
  wait?: boolean;
  /** Per wave, as kpt: undefined waits until reconciled. */
  reconcileTimeoutMs?: number;
  /**
   * Every Job of the package is waited for until it completes, and fails the run when it fails
   * (`--wait-for-jobs`; one Job at a time: `kpt-ts.dev/wait: complete`, docs/lifecycle.md).
   */
  waitForJobs?: boolean;
  pruneTimeoutMs?: number;
  prunePropagationPolicy?: PropagationPolicy;
  inventoryPolicy?: InventoryPolicy;
  installResourceGroup?: boolean;
  statusPolicy?: "all" | "none";
  /** Objects applied or deleted at once within a wave. */
  concurrency?: number;
  /** Poll period where the server refuses watches. */
  pollPeriodMs?: number;
  /** False: the run leaves no change record (`live history`); nor does a `historyLimit` of 0. */
  history?: boolean;
  /** Change records kept per inventory, newest first (kapp's --app-changes-max-to-keep). */
  historyLimit?: number;
  signal?: AbortSignal;
  /** How statuses are computed beyond kstatus' defaults (health rules), in every wait. */
  statusOptions?: Omit<ComputeStatusOptions, "now">;
  /**
   * How long a run that writes waits for another run of the same inventory to release its lock (a
   * Lease beside the inventory); undefined or 0: it fails at once (exit 2), naming the holder.
   */
  lockTimeoutMs?: number;
  /**
   * Awaited once the plan is known, before the first write (never in dry-run); throwing stops
   * the run with nothing changed. The CLI asks the user here before deleting anything.
   */
  confirm?: (plan: RunPlan) => Promise<void>;
}

/** The options that have no default: absent means "none" (no timeout, no hook, no signal). */
type WithoutDefault = "reconcileTimeoutMs" | "pruneTimeoutMs" | "signal" | "confirm" | "statusOptions" | "lockTimeoutMs";

export type ResolvedOptions = Required<Omit<EngineOptions, WithoutDefault>> & Pick<EngineOptions, WithoutDefault>;

/** Every default of the engine (and so of the CLI's flags). */
export const ENGINE_DEFAULTS: Required<Omit<EngineOptions, WithoutDefault>> = {
  dryRun: "none",
  serverSide: false,
  fieldManager: "kubectl",
  forceConflicts: false,
  wait: true,
  waitForJobs: false,
  prunePropagationPolicy: "Background",
  inventoryPolicy: "strict",
  installResourceGroup: true,
  statusPolicy: "all",
  concurrency: 16,
  pollPeriodMs: 2000,
  history: true,
  historyLimit: 200,
};

export function resolveOptions(o: EngineOptions): ResolvedOptions {
  // An option given as undefined (a flag left out) takes its default.
  const given = Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as EngineOptions;
  const r: ResolvedOptions = { ...ENGINE_DEFAULTS, ...given };
  return { ...r, concurrency: Math.max(1, r.concurrency) };
}
