// Defensive readers over an object's parsed JSON. Two flavours, mirroring kstatus:
// lenient readers (GetIntField/GetStringField) fall back to a default on a missing or
// mistyped field; strict readers (NestedInt64/NestedString) throw MalformedStatusError,
// which computeStatus turns into Unknown.

import { isRecord } from "../model/kube-object.js";

export class MalformedStatusError extends Error {
  override readonly name = "MalformedStatusError";
}

/** A short name for a JSON value's type, for error messages. */
export function typeName(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "list";
  if (typeof v === "object") return "map";
  if (typeof v === "number" && !Number.isInteger(v)) return "non-integer number";
  return typeof v;
}

/** "reading <where>: expected <want>, got a <type>" */
export function unexpectedType(where: string, want: string, got: unknown): MalformedStatusError {
  return new MalformedStatusError(`reading ${where}: expected ${want}, got a ${typeName(got)}`);
}

/**
 * Walks a dotted path; `found: false` when a step is missing or null, throws when a step is not a map.
 * An explicit null leaf reads as missing (Go's NestedInt64 would error); API servers omit, not null, fields.
 */
function lookup(obj: unknown, path: string): { found: boolean; value?: unknown } {
  let cur: unknown = obj;
  const steps = path.split(".");
  for (const [i, step] of steps.entries()) {
    if (cur === undefined || cur === null) return { found: false };
    if (!isRecord(cur)) {
      throw new MalformedStatusError(`.${steps.slice(0, i).join(".")} is a ${typeName(cur)}, expected a map`);
    }
    cur = cur[step];
  }
  return cur === undefined || cur === null ? { found: false } : { found: true, value: cur };
}

function lookupLenient(obj: unknown, path: string): unknown {
  try {
    return lookup(obj, path).value;
  } catch {
    return undefined;
  }
}

/** GetIntField: the integer at `path`, or `fallback` when missing or not an integer. */
export function intField(obj: unknown, path: string, fallback: number): number {
  const v = lookupLenient(obj, path);
  return typeof v === "number" && Number.isInteger(v) ? v : fallback;
}

/** GetStringField: the string at `path`, or `fallback` when missing or not a string. */
export function stringField(obj: unknown, path: string, fallback: string): string {
  const v = lookupLenient(obj, path);
  return typeof v === "string" ? v : fallback;
}

function strictField<T>(obj: unknown, path: string, want: string, ok: (v: unknown) => v is T): T | undefined {
  let res: { found: boolean; value?: unknown };
  try {
    res = lookup(obj, path);
  } catch (e) {
    throw new MalformedStatusError(`looking up ${path} from resource: ${(e as Error).message}`);
  }
  if (!res.found) return undefined;
  if (!ok(res.value)) {
    const got = typeName(res.value);
    throw new MalformedStatusError(`looking up ${path} from resource: .${path} is a ${got}, expected ${want}`);
  }
  return res.value;
}

/** NestedInt64: undefined when missing; throws when present but not an integer. */
export function strictInt(obj: unknown, path: string): number | undefined {
  return strictField(obj, path, "an integer", (v): v is number => typeof v === "number" && Number.isInteger(v));
}

/** NestedString: undefined when missing; throws when present but not a string. */
export function strictString(obj: unknown, path: string): string | undefined {
  return strictField(obj, path, "a string", (v): v is string => typeof v === "string");
}

/** NestedBool: undefined when missing; throws when present but not a boolean. */
export function strictBool(obj: unknown, path: string): boolean | undefined {
  return strictField(obj, path, "a boolean", (v): v is boolean => typeof v === "boolean");
}
