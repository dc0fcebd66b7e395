// The engine's options and their defaults, in one place.

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
  pruneTimeoutMs?: number;
  prunePropagationPolicy?: PropagationPolicy;
  inventoryPolicy?: InventoryPolicy;
  installResourceGroup?: boolean;
  statusPolicy?: "all" | "none";
  /** Objects applied or deleted at once within a wave. */
  concurrency?: number;
  /** Poll period where the server refuses watches. */
  pollPeriodMs?: number;
  signal?: AbortSignal;
  /** How statuses are computed beyond kstatus' defaults (health rules), in every wait. */
  statusOptions?: Omit<ComputeStatusOptions, "now">;
  /**
   * Awaited once the plan is known, before the first write (never in dry-run); throwing stops
   * the run with nothing changed. The CLI asks the user here before deleting anything.
   */
  confirm?: (plan: RunPlan) => Promise<void>;
}

export type ResolvedOptions = Required<Omit<EngineOptions, "reconcileTimeoutMs" | "pruneTimeoutMs" | "signal" | "confirm" | "statusOptions">> &
  Pick<EngineOptions, "reconcileTimeoutMs" | "pruneTimeoutMs" | "signal" | "confirm" | "statusOptions">;

export const DEFAULT_CONCURRENCY = 16;

export function resolveOptions(o: EngineOptions): ResolvedOptions {
  return {
    dryRun: o.dryRun ?? "none",
    serverSide: o.serverSide ?? false,
    fieldManager: o.fieldManager ?? "kubectl",
    forceConflicts: o.forceConflicts ?? false,
    wait: o.wait ?? true,
    reconcileTimeoutMs: o.reconcileTimeoutMs,
    pruneTimeoutMs: o.pruneTimeoutMs,
    prunePropagationPolicy: o.prunePropagationPolicy ?? "Background",
    inventoryPolicy: o.inventoryPolicy ?? "strict",
    installResourceGroup: o.installResourceGroup ?? true,
    statusPolicy: o.statusPolicy ?? "all",
    concurrency: Math.max(1, o.concurrency ?? DEFAULT_CONCURRENCY),
    pollPeriodMs: o.pollPeriodMs ?? 2000,
    signal: o.signal,
    confirm: o.confirm,
    statusOptions: o.statusOptions,
  };
}
