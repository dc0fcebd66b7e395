// kpt-ts' own lifecycle annotations (docs/lifecycle.md): how the run waits for an object, hooks
// that run before or after an apply or a destroy, and what to do when the server refuses an update
// of an immutable field. The real kpt ignores them (a hook is then a plain object of the package).
// Names and values only; object/lifecycle-annotations.ts reads and checks them.

import type { KubeObject } from "./kube-object.js";

/** `complete`: a Job is waited for until it completes (Failed when it fails); `none`: never waited for. */
export const WAIT_ANNOTATION = "kpt-ts.dev/wait";
export const WAIT_VALUES = ["complete", "none"] as const;
export type WaitMode = (typeof WAIT_VALUES)[number];

/** The object's own reconcile timeout (a Go duration: `90s`, `5m`), instead of the run's. */
export const RECONCILE_TIMEOUT_ANNOTATION = "kpt-ts.dev/reconcile-timeout";

/** The phases an object runs in as a hook (a comma-separated list): it is then not one of the package's objects. */
export const HOOK_ANNOTATION = "kpt-ts.dev/hook";
export const HOOK_PHASES = ["pre-apply", "post-apply", "pre-destroy", "post-destroy"] as const;
export type HookPhase = (typeof HOOK_PHASES)[number];

/** When a hook object is deleted (a comma-separated list; Helm's words). */
export const HOOK_DELETE_POLICY_ANNOTATION = "kpt-ts.dev/hook-delete-policy";
export const HOOK_DELETE_POLICIES = ["before-hook-creation", "hook-succeeded", "hook-failed"] as const;
export type HookDeletePolicy = (typeof HOOK_DELETE_POLICIES)[number];

/** The order among the hooks of one phase: lower first (an integer; 0 when absent). */
export const HOOK_WEIGHT_ANNOTATION = "kpt-ts.dev/hook-weight";

/** `replace-on-immutable`: when the server refuses an update of an immutable field, delete the object and create it again. */
export const UPDATE_STRATEGY_ANNOTATION = "kpt-ts.dev/update-strategy";
export const UPDATE_STRATEGIES = ["replace-on-immutable"] as const;

/** True for a Job the package asks to be waited for until it completes (`live status` reads it too). */
export function mustComplete(obj: KubeObject): boolean {
  return obj.metadata.annotations?.[WAIT_ANNOTATION] === "complete";
}

/** True for an object of the package that runs as a hook. */
export function isHook(obj: KubeObject): boolean {
  return obj.metadata.annotations?.[HOOK_ANNOTATION] !== undefined;
}
