// What a health rule's CEL may cost, as Kubernetes bounds CRD validation rules (KEP-2876): an
// estimated cost checked when the rule is loaded (a rule over it is bad input, refused before the
// cluster is touched), and a runtime budget per evaluation (an evaluation over it is stopped and
// counts as a failed evaluation). @marcbachmann/cel-js 8 has neither (only parse-time limits on
// the expression's size), so both live here:
//
// - the estimate walks the parsed expression: every node costs 1, a comprehension (`all`,
//   `exists`, `map`, `filter`...) costs its body times the size of what it iterates: a literal
//   list's length, or UNKNOWN_LIST_SIZE for a list of the object (Kubernetes takes a list's
//   maxItems; an object here has no schema);
// - the runtime count goes through the library's one evaluation step (`Evaluator.run`, which
//   every node's evaluation passes through): each node costs 1, a string or list a step builds
//   (`+`, `join`, `split`...) costs a tenth of its length, and `matches` runs on V8's linear-time
//   regular expression engine (CEL's regular expressions are RE2's, which never backtrack), so no
//   pattern and no string from the cluster can make one step take long.
//
// And because a signal is only handled when the event loop turns, evaluations share a time slice:
// once evaluations have run for SLICE_MS in all without the loop turning, further ones are
// deferred (the object stays InProgress, and is looked at again at the next tick) so that Ctrl-C
// and SIGTERM stay prompt, however many objects a rule is evaluated on at once. One evaluation is
// never cut short by the clock, only by its budget: its verdict does not depend on the machine's load.

import { setFlagsFromString } from "node:v8";

/** Kubernetes' StaticEstimatedCostLimit for one expression. */
export const ESTIMATED_COST_LIMIT = 10_000_000;
/** Kubernetes' PerCallLimit: the runtime budget of one evaluation (0.05 to 0.4 s of work here). */
const RUNTIME_COST_LIMIT = 1_000_000;
/** How many elements the estimate assumes for a list of the object. */
export const UNKNOWN_LIST_SIZE = 1_000;
/** CEL evaluation time allowed between two turns of the event loop. */
const SLICE_MS = 500;

/** The evaluation went over its runtime budget, or was deferred; `name` tells them apart from CEL's own errors. */
export class CelCostError extends Error {
  constructor(
    message: string,
    readonly deferred = false,
  ) {
    super(message);
    this.name = "CelCostError";
  }
}

/** The parts of cel-js' AST nodes read here (`ast.meta` is public; its shape is 8.x's). */
interface AstNode {
  op: string;
  args: unknown;
  meta?: { alternate?: AstNode; macro?: Record<string, unknown> };
  evaluate(ev: Evaluator, node: AstNode, ctx: unknown): unknown;
}

interface Evaluator {
  run(node: AstNode, ctx: unknown): unknown;
}

function isNode(v: unknown): v is AstNode {
  return typeof v === "object" && v !== null && typeof (v as AstNode).op === "string" && "args" in (v as object);
}

/** Every node directly below `node`, whatever its shape (arrays, map entries, a macro's parts). */
function childrenOf(node: AstNode): AstNode[] {
  const out: AstNode[] = [];
  const collect = (v: unknown, depth: number): void => {
    if (isNode(v)) out.push(v);
    else if (Array.isArray(v) && depth < 3) for (const x of v) collect(x, depth + 1);
  };
  collect(node.args, 0);
  const macro = node.meta?.macro;
  if (macro) for (const k of ["args", "val", "exp"]) collect(macro[k], 0);
  return out;
}

interface Estimate {
  cost: number;
  /** Elements, for a list the expression builds itself (a literal, a map/filter of one). */
  size?: number;
}

/** The estimated cost of a parsed expression (its root AST node). */
export function estimateCost(root: unknown): number {
  return isNode(root) ? estimate(root).cost : 0;
}

function estimate(node: AstNode): Estimate {
  const n = node.meta?.alternate ?? node;
  if (n.op === "comprehension") {
    const a = n.args as { iterable: AstNode; init: AstNode; step: AstNode };
    const it = estimate(a.iterable);
    const times = it.size ?? UNKNOWN_LIST_SIZE;
    return { cost: 1 + it.cost + estimate(a.init).cost + times * (1 + estimate(a.step).cost), size: times };
  }
  const kids = childrenOf(n).map(estimate);
  let cost = 1;
  for (const k of kids) cost += k.cost;
  if (n.op === "list") return { cost, size: kids.length };
  if (n.op === "?:" && kids.length === 3) return { cost: 1 + kids[0]!.cost + Math.max(kids[1]!.cost, kids[2]!.cost) };
  if (n.op === "+" && kids.length === 2 && kids[0]!.size !== undefined && kids[1]!.size !== undefined) return { cost, size: kids[0]!.size + kids[1]!.size };
  return { cost };
}

/** What an error raised inside an evaluation costs, in steps (it takes about as long as 50). */
const ERROR_COST = 50;

/** The running evaluation's budget (evaluations never overlap: they are synchronous). */
let steps = 0;
/**
 * Why the running evaluation was stopped: kept apart from what the library returns, since
 * `exists` and `all` swallow an error in one element when another decides the result.
 */
let stopped: CelCostError | undefined;
let limit = RUNTIME_COST_LIMIT;
/** CEL time used since the event loop last turned (evaluations only), and when the running one began. */
let sliceUsed = 0;
let sliceOpen = false;
const instrumented = new WeakSet<object>();

function charge(n: number): void {
  steps += n;
  if (steps > limit) throw (stopped ??= new CelCostError(`it was stopped after ${limit.toLocaleString("en-US")} steps, the most one evaluation may take (as Kubernetes' per-call cost limit)`));
}

/** Replaces the evaluator's step with one that counts (once per evaluator). */
function instrument(ev: Evaluator): void {
  if (instrumented.has(ev)) return;
  instrumented.add(ev);
  ev.run = function countedRun(this: Evaluator, node: AstNode, ctx: unknown): unknown {
    return step(this, node, ctx, evaluateNode);
  };
}

const evaluateNode = (ev: Evaluator, node: AstNode, ctx: unknown): unknown => node.evaluate(ev, node, ctx);

/** One counted evaluation step: `node` evaluated by `evaluate`, charged to the running budget. */
function step(ev: Evaluator, node: AstNode, ctx: unknown, evaluate: (ev: Evaluator, node: AstNode, ctx: unknown) => unknown): unknown {
  charge(1);
  if (node.op === "rcall" && Array.isArray(node.args) && node.args[0] === "matches") {
    const m = linearMatch(ev, node, ctx);
    if (m !== undefined) return m;
  }
  let value: unknown;
  try {
    value = evaluate(ev, node, ctx);
  } catch (err) {
    // Making an error (its message quotes the expression) costs far more than a step.
    if (!(err instanceof CelCostError)) charge(ERROR_COST);
    throw err;
  }
  if (value instanceof Error) charge(ERROR_COST); // `exists` and `all` hand errors on as values
  if ((node.op === "+" || node.op === "rcall") && (typeof value === "string" || Array.isArray(value))) charge(Math.floor(value.length / 10));
  return value;
}

function deferred(): CelCostError {
  return new CelCostError(`deferred: health rules have run for ${SLICE_MS} ms without a pause; it is looked at again shortly`, true);
}

/**
 * `s.matches(p)` on V8's linear-time engine (the `l` flag): RE2 semantics as CEL specifies, no
 * backtracking whatever the pattern or the string. Undefined: not two strings (the library then
 * reports the type error as usual).
 */
function linearMatch(ev: Evaluator, node: AstNode, ctx: unknown): boolean | undefined {
  const [, receiver, args] = node.args as [string, AstNode, AstNode[]];
  if (!Array.isArray(args) || args.length !== 1) return undefined;
  const s = ev.run(receiver, ctx);
  const p = ev.run(args[0]!, ctx);
  if (typeof s !== "string" || typeof p !== "string") return undefined;
  charge(Math.ceil((1 + s.length / 10) * (1 + p.length / 10)));
  return linearRegExp(p).test(s);
}

const patterns = new Map<string, RegExp>();
let linearEngine = false;

function linearRegExp(pattern: string): RegExp {
  let re = patterns.get(pattern);
  if (re) return re;
  if (!linearEngine) {
    // Lets `new RegExp(p, "l")` pick the linear engine; other regular expressions are unchanged
    // but for one safety net: one that backtracks excessively moves to the linear engine when it can.
    setFlagsFromString("--enable-experimental-regexp-engine");
    setFlagsFromString("--enable-experimental-regexp-engine-on-excessive-backtracks");
    linearEngine = true;
  }
  try {
    re = new RegExp(pattern, "l");
  } catch (err) {
    throw new Error(`invalid regular expression ${JSON.stringify(pattern)}: ${(err as Error).message.replace(/^Invalid regular expression: /, "")} (CEL uses RE2 syntax: no backreferences or lookarounds)`);
  }
  if (patterns.size > 256) patterns.clear();
  patterns.set(pattern, re);
  return re;
}

/**
 * Runs one evaluation of `program` (cel-js' parsed function, with its `ast`) within `budget`
 * steps: a CelCostError when it goes over (or is deferred, see the file comment).
 */
export function evaluateWithinBudget<T>(program: { ast: unknown }, run: () => T, budget = RUNTIME_COST_LIMIT): T {
  const root = program.ast as AstNode;
  if (!instrumented.has(root)) {
    instrumented.add(root);
    // The root node is evaluated before any step: it hands over the evaluator to instrument.
    // The library's own evaluate() replaces itself on the node on first use; the wrapper comes back after each call.
    const evaluateRoot = (Object.getPrototypeOf(root) as AstNode).evaluate;
    const evaluateOnce = (ev: Evaluator, node: AstNode, ctx: unknown): unknown => {
      try {
        return evaluateRoot.call(node, ev, node, ctx);
      } finally {
        node.evaluate = wrapper;
      }
    };
    const wrapper = function (this: AstNode, ev: Evaluator, node: AstNode, ctx: unknown): unknown {
      instrument(ev);
      return step(ev, node, ctx, evaluateOnce);
    };
    root.evaluate = wrapper;
  }
  if (!sliceOpen) {
    sliceOpen = true;
    sliceUsed = 0;
    setImmediate(() => (sliceOpen = false));
  } else if (sliceUsed > SLICE_MS) throw deferred();
  steps = 0;
  limit = budget;
  stopped = undefined;
  const evaluationStart = performance.now();
  let value: T;
  // The library's errors are values to it (`exists` goes on past one): their stacks are of no use.
  const stackLimit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    value = run();
  } catch (err) {
    throw stopped ?? err;
  } finally {
    Error.stackTraceLimit = stackLimit;
    sliceUsed += performance.now() - evaluationStart;
  }
  if (stopped) throw stopped;
  return value;
}
