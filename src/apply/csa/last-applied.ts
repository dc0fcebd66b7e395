// The last-applied-configuration annotation, written and read the way kubectl does, so a
// package can move between kubectl apply and kpt-ts without a spurious patch or lost fields.

import { LAST_APPLIED_ANNOTATION, type KubeObject } from "../../model/kube-object.js";
import { compareStrings, isJsonObject } from "./json-value.js";

/**
 * The configuration last applied to a live object. Undefined when there is none or it is not
 * a JSON object: the patch then removes nothing, which is the safe side of not knowing.
 */
export function lastAppliedOf(live: KubeObject): object | undefined {
  const raw = live.metadata.annotations?.[LAST_APPLIED_ANNOTATION];
  const checked = parsedByCheck.get(live);
  if (checked) {
    parsedByCheck.delete(live);
    if (checked.raw === raw) return checked.value;
  }
  return readLastApplied(live).value;
}

/**
 * Why the live object's annotation, present, cannot be read as a configuration (undefined when
 * it can, or there is none). kubectl apply refuses such an object ("invalid JSON document");
 * kpt-ts applies it as if it had no annotation, and says so (README, where kpt-ts differs).
 */
export function lastAppliedProblem(live: KubeObject): string | undefined {
  const read = readLastApplied(live);
  // The planner reads the configuration next: it takes this parse (once, so no two callers
  // ever share one object) instead of parsing the annotation again.
  if (read.value) parsedByCheck.set(live, { raw: live.metadata.annotations![LAST_APPLIED_ANNOTATION]!, value: read.value });
  return read.problem;
}

const parsedByCheck = new WeakMap<KubeObject, { raw: string; value: object }>();

function readLastApplied(live: KubeObject): { value?: object; problem?: string } {
  const raw = live.metadata.annotations?.[LAST_APPLIED_ANNOTATION];
  if (typeof raw !== "string" || raw.trim() === "") return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    // Not the parser's message: it quotes the text, which for a Secret holds its values.
    return { problem: "is not valid JSON" };
  }
  return isJsonObject(parsed) ? { value: parsed } : { problem: "is not a JSON object" };
}

/**
 * A copy of `obj` carrying its own configuration in the annotation. The value is what kubectl
 * writes byte for byte: the object without the annotation, `annotations: {}` when it has no
 * other, keys sorted, compact JSON with Go's escaping of <, > and &, and a final newline.
 */
export function withLastApplied(obj: KubeObject): KubeObject {
  const { config, value } = lastAppliedConfig(obj);
  return { ...config, metadata: { ...config.metadata, annotations: { ...config.metadata.annotations, [LAST_APPLIED_ANNOTATION]: value } } };
}

/**
 * Each object's value, made once: a plan asks for it several times per object (the no-op check,
 * the method's size check, the patch), and a CRD's costs milliseconds. Objects are not changed
 * once read (a plan makes new ones), so the object itself is the key.
 */
const values = new WeakMap<KubeObject, string>();

/** `live` was last applied from exactly `config`: its annotation is what withLastApplied would write. */
export function appliedFrom(config: KubeObject, live: KubeObject): boolean {
  const recorded = live.metadata.annotations?.[LAST_APPLIED_ANNOTATION];
  return recorded !== undefined && recorded === lastAppliedValue(config);
}

/** The annotation's value for `obj`, as withLastApplied writes it. */
export function lastAppliedValue(obj: KubeObject): string {
  let value = values.get(obj);
  if (value === undefined) {
    // sortKeys copies as it goes, so the object itself is only read.
    value = encodeLikeGo(withoutOwnAnnotation(obj));
    values.set(obj, value);
  }
  return value;
}

/**
 * The length in bytes of `lastAppliedValue(obj)`, without writing it: key order changes no length,
 * so nothing is sorted, and Go's escapes are counted instead of made (for a 1.5 MB CRD, measured
 * on every apply, the sorted copy cost more than everything else the plan does with it).
 */
export function lastAppliedBytes(obj: KubeObject): number {
  const known = values.get(obj);
  if (known !== undefined) return Buffer.byteLength(known);
  const json = JSON.stringify(withoutOwnAnnotation(obj));
  // `\u003c` (6 bytes) for a 1-byte `<`, `>` or `&`, or for a 3-byte U+2028 or U+2029. Counted
  // with indexOf, which scans natively (a loop over a CRD's characters ran for long in V8's interpreter).
  const count = (c: string) => {
    let n = 0;
    for (let at = json.indexOf(c); at !== -1; at = json.indexOf(c, at + 1)) n++;
    return n;
  };
  const extra = 5 * (count("<") + count(">") + count("&")) + 3 * (count("\u2028") + count("\u2029"));
  return Buffer.byteLength(json) + extra + 1;
}

function lastAppliedConfig(obj: KubeObject): { config: KubeObject; value: string } {
  // A JSON copy (faster than structuredClone), keeping the package's key order for diffs; its
  // value is the object's own (the copy drops what JSON drops, as the encoding does).
  const config = JSON.parse(JSON.stringify(withoutOwnAnnotation(obj))) as KubeObject;
  return { config, value: lastAppliedValue(obj) };
}

/** `obj` as its configuration, without an annotation of that configuration (a shallow view). */
function withoutOwnAnnotation(obj: KubeObject): KubeObject {
  const { [LAST_APPLIED_ANNOTATION]: _previous, ...annotations } = obj.metadata.annotations ?? {};
  return { ...obj, metadata: { ...obj.metadata, annotations } };
}

function encodeLikeGo(value: unknown): string {
  const json = JSON.stringify(sortKeys(value));
  // These characters only occur inside strings, where Go's encoder writes them as \u escapes.
  return `${json.replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`)}\n`;
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (!isJsonObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort(compareStrings)) {
    if (value[key] !== undefined) out[key] = sortKeys(value[key]);
  }
  return out;
}
