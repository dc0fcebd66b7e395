// A package's health rule for a kind (docs/health-rules.md): failed, then inProgress, then
// current, each a compiled CEL expression (src/health/). Pure. An expression that cannot be
// evaluated on this object (a field not set yet) leaves it InProgress with the error, never
// Current and never a crash.

import { isRecord, type KubeObject } from "../../model/kube-object.js";
import { current, failed, inProgress } from "../results.js";
import { generationMessage } from "./generic.js";
import type { HealthExpression, HealthRule, StatusResult } from "../types.js";

type Outcome = { ok: true; value: boolean } | { ok: false; result: StatusResult };

/**
 * kstatus' generation check, lenient about the type: Argo Rollouts writes status.observedGeneration
 * as a string ("3"), which kstatus' strict reader calls malformed. Anything not a whole number is
 * no observedGeneration at all.
 */
export function checkRuleGeneration(obj: KubeObject): StatusResult | undefined {
  const generation = wholeNumber(obj.metadata?.generation);
  const observed = wholeNumber(isRecord(obj.status) ? obj.status.observedGeneration : undefined);
  if (generation === undefined || observed === undefined || generation === observed) return undefined;
  return inProgress("LatestGenerationNotObserved", generationMessage(obj.kind, generation, observed));
}

function wholeNumber(v: unknown): number | undefined {
  const n = typeof v === "number" ? v : typeof v === "string" && /^\d+$/.test(v) ? Number(v) : NaN;
  return Number.isInteger(n) ? n : undefined;
}

/** The rule's verdict on `obj` (the generic checks, Terminating and generation, come first). */
export function healthRuleStatus(obj: KubeObject, rule: HealthRule): StatusResult {
  if (rule.failed) {
    const o = test(obj, rule, "failed", rule.failed);
    if (!o.ok) return o.result;
    if (o.value) return failed("HealthRuleFailed", `${describe(rule, "failed", rule.failed)}${fieldValues(obj, rule.failed)}`);
  }
  if (rule.inProgress) {
    const o = test(obj, rule, "inProgress", rule.inProgress);
    if (!o.ok) return o.result;
    if (o.value) return inProgress("HealthRuleInProgress", `${describe(rule, "inProgress", rule.inProgress)}${fieldValues(obj, rule.inProgress)}`);
  }
  if (!rule.current) return current(`rule ${rule.name}: neither failed nor in progress`);
  const o = test(obj, rule, "current", rule.current);
  if (!o.ok) return o.result;
  if (o.value) return current(describe(rule, "current", rule.current));
  return inProgress("HealthRuleNotCurrent", `${describe(rule, "current", rule.current)} is false${fieldValues(obj, rule.current)}`);
}

function test(obj: KubeObject, rule: HealthRule, which: string, e: HealthExpression): Outcome {
  let value: unknown;
  try {
    value = e.evaluate(obj);
  } catch (err) {
    const why = (err instanceof Error ? err.message : String(err)).split("\n")[0]!.trim();
    // Over its cost budget (src/health/cel-cost.ts): a failed evaluation, said as such.
    if (err instanceof Error && err.name === "CelCostError") return { ok: false, result: inProgress("HealthRuleCost", `${describe(rule, which, e)}: ${why}`) };
    return { ok: false, result: inProgress("HealthRuleError", `${describe(rule, which, e)} cannot be evaluated yet: ${why}`) };
  }
  // The compiler refuses expressions known not to be boolean; a `dyn` one (`status.ready`) is checked here.
  if (typeof value !== "boolean") {
    const gave = isSecret(obj) ? `a ${typeof value}` : shortValue(value);
    return { ok: false, result: inProgress("HealthRuleError", `${describe(rule, which, e)} gave ${gave}, not true or false`) };
  }
  return { ok: true, value };
}

function describe(rule: HealthRule, which: string, e: HealthExpression): string {
  return `rule ${rule.name} ${which}: ${e.text}`;
}

/** `; status.phase is "Provisioning"`: what the expression read, so a wait says what it waits on. */
function fieldValues(obj: KubeObject, e: HealthExpression): string {
  if (isSecret(obj)) return ""; // never a Secret's values, whatever a rule reads
  const parts = e.fields.map((f) => {
    const v = readPath(obj, f);
    return v === undefined ? `${f} is not set` : `${f} is ${shortValue(v)}`;
  });
  return parts.length > 0 ? `; ${parts.join(", ")}` : "";
}

function isSecret(obj: KubeObject): boolean {
  return obj.kind === "Secret" && obj.apiVersion === "v1";
}

function readPath(obj: unknown, path: string): unknown {
  let cur = obj;
  for (const step of path.split(".")) {
    if (!isRecord(cur) || !Object.hasOwn(cur, step)) return undefined;
    cur = cur[step];
  }
  return cur ?? undefined;
}

const MAX_VALUE_CHARS = 80;

function shortValue(v: unknown): string {
  if (v === undefined) return "nothing";
  let s: string;
  try {
    s = JSON.stringify(v, (_k, x: unknown) => (typeof x === "bigint" ? Number(x) : x)) ?? String(v);
  } catch {
    s = String(v);
  }
  return s.length > MAX_VALUE_CHARS ? `${s.slice(0, MAX_VALUE_CHARS - 3)}...` : s;
}
