// Plain JSON values as the patch code sees them, and the few operations it needs on them.
// Patches compare and order values the way apimachinery's Go code does (Go `==`, `%v`
// strings), so the patches we compute are the ones kubectl would send.

export type JsonValue = null | boolean | number | string | JsonValue[] | JsonObject;
export interface JsonObject {
  [key: string]: JsonValue;
}

/** The JSON type of a value; two values of different kinds replace each other in a patch. */
export type JsonKind = "null" | "boolean" | "number" | "string" | "array" | "object";

export function kindOf(v: JsonValue): JsonKind {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  return typeof v as "boolean" | "number" | "string" | "object";
}

export function isJsonObject(v: unknown): v is JsonObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

export function hasKey(obj: JsonObject, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(obj, key);
}

/**
 * Key order is irrelevant; list order is not. A field whose value is undefined counts as absent,
 * as it is on the wire (the diff compares objects built by spreading, which may carry some).
 */
export function deepEqualJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const y = b as unknown[];
    return a.length === y.length && a.every((v, i) => deepEqualJson(v, y[i]));
  }
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  const keys = Object.keys(x).filter((k) => x[k] !== undefined);
  return keys.length === Object.keys(y).filter((k) => y[k] !== undefined).length && keys.every((k) => Object.hasOwn(y, k) && deepEqualJson(x[k], y[k]));
}

/**
 * Every field of `part` is in `whole` with the same value; objects may carry more fields,
 * lists must be equal. Undefined fields of `part` count as absent, as they are on the wire.
 */
export function containsJson(whole: JsonValue, part: JsonValue): boolean {
  if (!isJsonObject(part) || !isJsonObject(whole)) return deepEqualJson(whole, part);
  for (const key of Object.keys(part)) {
    const v = part[key];
    if (v === undefined) continue;
    if (!hasKey(whole, key) || !containsJson(whole[key]!, v)) return false;
  }
  return true;
}

/** A deep copy as JSON sees the value: undefined fields are dropped, as they are on the wire. */
export function cloneJson<T extends JsonValue>(v: T): T {
  return JSON.parse(JSON.stringify(v)) as T;
}

/**
 * Go's `%v` of a decoded JSON scalar; apimachinery sorts and matches list items by it.
 * apimachinery decodes whole numbers as int64, so only fractions get Go's float format.
 */
export function formatScalar(v: JsonValue): string {
  if (v === null) return "<nil>";
  if (typeof v === "number") return Number.isInteger(v) ? BigInt(v).toString() : formatGoFloat(v);
  if (typeof v === "string" || typeof v === "boolean") return String(v);
  return JSON.stringify(v);
}

// Go's %v prints a float64 with the shortest digits, in exponent form when the exponent is
// below -4 or at least 6 (1e+06), with at least two exponent digits.
function formatGoFloat(n: number): string {
  if (!Number.isFinite(n) || n === 0) return String(n);
  const [mantissa, e] = n.toExponential().split("e") as [string, string];
  const exp = Number(e);
  if (exp >= -4 && exp < 6) return String(n);
  const digits = String(Math.abs(exp)).padStart(2, "0");
  return `${mantissa}e${exp < 0 ? "-" : "+"}${digits}`;
}

/** Go compares strings byte-wise (UTF-8); for the keys and values found in manifests this is code-unit order. */
export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
