// One health-rule expression, compiled ahead of time with @marcbachmann/cel-js: parsed and
// type-checked against the variables a rule sees, so a typo or a non-boolean expression is
// refused before the cluster is touched. Evaluation is pure (plain JSON in, a value out).

import { Environment } from "@marcbachmann/cel-js";
import { ESTIMATED_COST_LIMIT, estimateCost, evaluateWithinBudget, UNKNOWN_LIST_SIZE } from "./cel-cost.js";
import type { KubeObject } from "../model/kube-object.js";
import type { HealthExpression } from "../status/types.js";

/**
 * What an expression can name: the whole object (`object`, or `self` as in Kubernetes'
 * validation rules) and its top-level fields. All are maps of unknown shape (`dyn` fields), so
 * the checker knows names and operators but not the object's schema.
 */
const RULE_VARIABLES = ["object", "self", "metadata", "spec", "status"] as const;

let env: Environment | undefined;

function celEnvironment(): Environment {
  if (!env) {
    // Only the declared variables: `phase == 'Ready'` (no `status.`) is refused, not read as null.
    env = new Environment({ unlistedVariablesAreDyn: false });
    for (const v of RULE_VARIABLES) env.registerVariable(v, "map");
  }
  return env;
}

type CompiledExpression = { ok: true; expression: HealthExpression } | { ok: false; message: string };

/**
 * Compiles `text`; refuses a syntax error, an unknown variable or function, an operator on the
 * wrong types, and a result that cannot be a boolean (`dyn`, e.g. `status.ready`, is checked
 * at run time).
 */
export function compileExpression(text: string): CompiledExpression {
  const e = celEnvironment();
  const checked = e.check(text);
  if (!checked.valid) return { ok: false, message: `does not compile: ${describeError(checked.error)}` };
  if (checked.type !== "bool" && checked.type !== "dyn") {
    const type = checked.type ?? "value";
    return { ok: false, message: `gives ${/^[aeiou]/.test(type) ? "an" : "a"} ${type}, not a boolean: compare it (e.g. == 'Ready', > 0)` };
  }
  const program = e.parse(text);
  // Kubernetes refuses a CRD rule whose estimated cost is over its limit; so does kpt-ts (cel-cost.ts).
  const cost = estimateCost(program.ast);
  if (cost > ESTIMATED_COST_LIMIT) {
    return {
      ok: false,
      message: `is too expensive: its estimated cost is ${formatCount(cost)}, over the limit of ${formatCount(ESTIMATED_COST_LIMIT)} (each list of the object counted as ${formatCount(UNKNOWN_LIST_SIZE)} elements): iterate over fewer or smaller lists, or nest fewer all/exists/map/filter`,
    };
  }
  return {
    ok: true,
    expression: { text, fields: fieldsRead(text), evaluate: (obj: KubeObject) => evaluateWithinBudget(program, () => program(variablesOf(obj)) as unknown) },
  };
}

function formatCount(n: number): string {
  return n >= 1e15 ? n.toExponential(1) : Math.round(n).toLocaleString("en-US");
}

function variablesOf(obj: KubeObject): Record<string, unknown> {
  // A field the object lacks reads as an empty map, so `has(status.phase)` works before the controller writes a status.
  return { object: obj, self: obj, metadata: obj.metadata ?? {}, spec: obj.spec ?? {}, status: obj.status ?? {} };
}

/** `Unexpected character: = (column 14)`: the library's summary, and where in the expression. */
function describeError(err: { message?: string; summary?: string; range?: { start: number } } | undefined): string {
  if (!err) return "invalid expression";
  const what = err.summary ?? (err.message ?? "invalid expression").split("\n")[0]!.trim();
  return err.range ? `${what} (column ${err.range.start + 1})` : what;
}

const MAX_FIELDS = 3;

/**
 * The object's fields an expression reads (`status.phase`), for messages while it waits: string
 * literals are skipped, `object.`/`self.` are dropped, and a trailing method name is cut.
 */
export function fieldsRead(text: string): string[] {
  const code = text.replace(/'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"/g, "''");
  const out: string[] = [];
  const re = /(?<![\w.])(object|self|metadata|spec|status)((?:\.[A-Za-z_]\w*)+)(\s*\()?/g;
  for (const m of code.matchAll(re)) {
    let steps = m[2]!.slice(1).split(".");
    if (m[3]) steps = steps.slice(0, -1); // `.exists(` / `.startsWith(`: a method, not a field
    const root = m[1] === "object" || m[1] === "self" ? [] : [m[1]!];
    const path = [...root, ...steps].join(".");
    if (path.includes(".") && !out.includes(path)) out.push(path);
    if (out.length === MAX_FIELDS) break;
  }
  return out;
}
