// What a step's handler is given (the run it belongs to, what earlier steps learned) and what a
// handler is. The runner (run-steps.ts) looks handlers up by step type; one per type.

import type { Writer } from "../apply/writer.js";
import type { Cluster } from "../cluster/types.js";
import type { GroupEvent } from "../model/events.js";
import type { KubeObject } from "../model/kube-object.js";
import type { PlannedApply, PlannedDelete, RunPlan, RunStep, StepOf } from "../model/plan.js";
import type { ObjRef, RefSet } from "../model/ref.js";
import type { LiveCache } from "../status/live-cache.js";
import type { WaitExplainer } from "../status/wait-explainer.js";
import type { WaitTarget } from "../status/wait-for.js";
import type { ApplyObjectContext, ApplyObjectResult } from "./apply-object.js";
import type { ResolvedOptions } from "./options.js";
import type { Recorder } from "./run-events.js";

export interface RunContext {
  plan: RunPlan;
  /** The plan's decisions by refKey. */
  applies: ReadonlyMap<string, PlannedApply>;
  deletes: ReadonlyMap<string, PlannedDelete>;
  /** Reads; every write of a package object goes through `writer`. */
  cluster: Cluster;
  writer: Writer;
  cache: LiveCache;
  recorder: Recorder;
  o: ResolvedOptions;
  dry: boolean;
  /** How one object is applied (apply-object.ts), shared by every step that applies one. */
  applyContext: ApplyObjectContext;
  explainer: WaitExplainer;
  state: RunState;
}

/** What the steps learn as they go, for the steps after them. */
export interface RunState {
  /** The inventory as the cluster holds it now (the final write compares against it). */
  stored: KubeObject | undefined;
  /** Objects applied before their wave (the inventory's Namespace): the result their wave reports. */
  appliedEarly: Map<string, ApplyObjectResult>;
  /** What a wait follows, by refKey, in the order written: the generation applied, the uid deleted. */
  written: Map<string, WaitTarget>;
  /** Failed writes whose answer was lost: the object may exist all the same. */
  mayExist: ObjRef[];
  /** Objects let go (protection annotation): they leave the inventory. */
  abandoned: RefSet;
  /** Hook objects that may exist (left by earlier runs, or created by this one and not deleted): the inventory keeps listing them. */
  hooks: RefSet;
  /** Phases with a hook that failed or timed out: their later hooks are skipped. */
  failedPhases: Set<string>;
  /** Objects whose replacement failed (still there): their wave does not apply them. */
  notReplaced: RefSet;
  /**
   * Set by a step that ends the run (a failed pre-apply or pre-destroy hook), with why: as after
   * an interrupt, only the steps that keep the inventory true still run; the run's failure is
   * the step's own (exit 3), not an interrupt.
   */
  stopped?: string;
}

export interface StepHandler<S extends RunStep> {
  /** kpt's group events around the step (`Apply Started 0` ... `Apply Finished 0`); none for a step kpt does not show. */
  group?(step: S): Pick<GroupEvent, "action" | "wave">;
  /**
   * Whether the step still runs once the run was interrupted (default: no). Steps that keep the
   * inventory true do; `previousRan`: the step before it ran.
   */
  afterInterrupt?(step: S, previousRan: boolean): boolean;
  run(step: S, ctx: RunContext): Promise<void>;
}

/** One handler per step type: a step type without one does not compile. */
export type StepHandlers = { [T in RunStep["type"]]: StepHandler<StepOf<T>> };
