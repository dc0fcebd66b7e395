// What a package leaves to others on an object that exists, written on the object itself:
//   kpt-ts.dev/ignore-fields: spec.replicas            (fields another controller owns: an HPA's replicas)
//   kpt-ts.dev/create-only: "true"                     (created when missing, never written again)
// Paths are dotted keys; `["a.b/c"]` is a key with dots or slashes in it; `[name=app]` is the
// item of a list whose field `name` is `app`. Several paths are separated by commas or new lines.
// A path reaches only the object's own fields: `__proto__`, `constructor` and `prototype` (the
// members every JavaScript object inherits) are refused as keys and as selector fields, and every
// walk below reads own properties only, so no path follows or creates an inherited member.
// Client-side apply leaves the fields out of the configuration and out of the last-applied copy
// it compares with, so its three-way patch neither sets nor removes them; server-side apply does
// not send them, and first gives up (releases) the ones its field manager owned, so the server
// keeps their values instead of removing them. docs/other-controllers.md. Pure.

import { LAST_APPLIED_ANNOTATION, type KubeObject } from "../model/kube-object.js";
import { OWNING_INVENTORY_ANNOTATION } from "../model/inventory-keys.js";
import { managedFieldsOf, type ManagedFieldsEntry } from "../model/managed-fields.js";

export const IGNORE_FIELDS_ANNOTATION = "kpt-ts.dev/ignore-fields";
export const CREATE_ONLY_ANNOTATION = "kpt-ts.dev/create-only";

/** One step of a field path: a map key, or the items of a list whose field `field` is `value`. */
export type PathStep = { key: string } | { field: string; value: string };

export interface FieldPath {
  /** As written in the annotation, for messages. */
  text: string;
  steps: PathStep[];
}

export interface LeftAloneRules {
  createOnly: boolean;
  fields: FieldPath[];
}

/** The object's rules, or the problems with its annotations (each a sentence naming the annotation). */
export function leftAloneRules(obj: KubeObject): { rules: LeftAloneRules; problems: string[] } {
  const annotations = obj.metadata.annotations ?? {};
  const problems: string[] = [];
  let createOnly = false;
  const flag = annotations[CREATE_ONLY_ANNOTATION];
  if (flag !== undefined) {
    if (flag === "true") createOnly = true;
    else if (flag !== "false") problems.push(`${CREATE_ONLY_ANNOTATION} must be "true" or "false", not ${JSON.stringify(flag)}`);
  }
  const fields: FieldPath[] = [];
  const list = annotations[IGNORE_FIELDS_ANNOTATION];
  if (list !== undefined) {
    const parsed = parseFieldPaths(list);
    if ("error" in parsed) problems.push(`${IGNORE_FIELDS_ANNOTATION}: ${parsed.error}`);
    else {
      for (const path of parsed.paths) {
        const why = protectedPath(path);
        if (why) problems.push(`${IGNORE_FIELDS_ANNOTATION}: "${path.text}" ${why}`);
        else fields.push(path);
      }
    }
  }
  return { rules: { createOnly, fields }, problems };
}

/** True when the object has no rules at all: the cheap test every object of every run takes. */
export function hasLeftAloneAnnotations(obj: KubeObject): boolean {
  const a = obj.metadata.annotations;
  return a !== undefined && (a[IGNORE_FIELDS_ANNOTATION] !== undefined || a[CREATE_ONLY_ANNOTATION] !== undefined);
}

/** Keys no path may name: what every JavaScript object inherits, never a field a package holds. */
const INHERITED_NAMES: ReadonlySet<string> = new Set(["__proto__", "constructor", "prototype"]);

/** Parses a list of paths: `spec.replicas, spec.template.spec.containers[name=app].resources`. */
export function parseFieldPaths(text: string): { paths: FieldPath[] } | { error: string } {
  const paths: FieldPath[] = [];
  let i = 0;
  const skipSeparators = () => {
    while (i < text.length && /[\s,]/.test(text[i]!)) i++;
  };
  skipSeparators();
  while (i < text.length) {
    const start = i;
    const steps: PathStep[] = [];
    for (;;) {
      if (text[i] === "[") {
        const r = readBracket(text, i);
        if ("error" in r) return { error: `${r.error} in "${text.slice(start).split(/[\s,]/)[0]}"` };
        steps.push(r.step);
        i = r.end;
      } else {
        const m = /^[^.[\]\s,"=]+/.exec(text.slice(i));
        if (!m) return { error: `a field name is missing at "${text.slice(start, i + 1)}" (write paths as spec.replicas or spec.containers[name=app].image)` };
        steps.push({ key: m[0] });
        i += m[0].length;
      }
      if (text[i] === ".") {
        i++;
        continue;
      }
      if (text[i] === "[") continue;
      break;
    }
    if (i < text.length && !/[\s,]/.test(text[i]!)) return { error: `unexpected "${text[i]}" in "${text.slice(start, i + 1)}"` };
    const inherited = steps.map((s) => ("key" in s ? s.key : s.field)).find((name) => INHERITED_NAMES.has(name));
    if (inherited !== undefined) {
      return { error: `"${text.slice(start, i)}" names "${inherited}", which is not a field of the object (${[...INHERITED_NAMES].join(", ")} cannot be named): remove it from the path` };
    }
    paths.push({ text: text.slice(start, i), steps });
    skipSeparators();
  }
  if (paths.length === 0) return { error: "no field paths given" };
  return { paths };
}

/** `["key"]` or `[field=value]` (the value may be quoted) starting at text[at] === "[". */
function readBracket(text: string, at: number): { step: PathStep; end: number } | { error: string } {
  let i = at + 1;
  const quoted = (): string | undefined => {
    if (text[i] !== '"') return undefined;
    let out = "";
    for (i++; i < text.length && text[i] !== '"'; i++) out += text[i] === "\\" && i + 1 < text.length ? text[++i] : text[i];
    if (text[i] !== '"') return undefined;
    i++;
    return out;
  };
  const first = quoted();
  if (first !== undefined) {
    if (text[i] !== "]") return { error: 'expected "]" after a quoted key' };
    return { step: { key: first }, end: i + 1 };
  }
  const m = /^([^=\]"\s]+)=/.exec(text.slice(i));
  if (!m) return { error: 'expected ["key"] or [field=value]' };
  i += m[0].length;
  let value = quoted();
  if (value === undefined) {
    const v = /^[^\]"\s,]*/.exec(text.slice(i))![0];
    i += v.length;
    value = v;
  }
  if (text[i] !== "]") return { error: `expected "]" after [${m[1]}=${value}` };
  return { step: { field: m[1]!, value }, end: i + 1 };
}

/** Why a path may not be left alone: it names what identifies the object, or holds it. */
function protectedPath(path: FieldPath): string | undefined {
  const keys: (string | undefined)[] = path.steps.map((s) => ("key" in s ? s.key : undefined));
  const [a, b, c] = keys;
  if (a === "apiVersion" || a === "kind") return "names the object's kind: it cannot be left alone";
  if (a === "metadata" && (b === undefined || b === "name" || b === "namespace" || b === "generateName")) return "names the object: it cannot be left alone";
  if (a === "metadata" && b === "annotations" && (c === undefined || c === OWNING_INVENTORY_ANNOTATION || c === IGNORE_FIELDS_ANNOTATION || c === CREATE_ONLY_ANNOTATION)) {
    return "holds the annotations that say which inventory owns the object and what it leaves alone: they cannot be left alone";
  }
  // Client-side apply writes its own copy of the configuration there on every apply: it is the
  // apply's record, not a field of the package another controller could own.
  if (a === "metadata" && b === "annotations" && c === LAST_APPLIED_ANNOTATION) {
    return "is client-side apply's own record of what it applied, written on every apply: it cannot be left alone";
  }
  return undefined;
}

type Json = unknown;
const isMap = (v: Json): v is Record<string, Json> => typeof v === "object" && v !== null && !Array.isArray(v);
/** The map's own field `key` (never an inherited member), or undefined. */
const own = (map: Record<string, Json>, key: string): Json => (Object.hasOwn(map, key) ? map[key] : undefined);
const matches = (item: Json, step: { field: string; value: string }) => isMap(item) && own(item, step.field) !== undefined && String(own(item, step.field)) === step.value;

/**
 * A copy of `value` without the fields the paths name (list items matched by a selector are
 * dropped when the selector ends the path). Paths that name nothing change nothing. The input is
 * not modified; untouched branches are shared.
 */
export function withoutFields<T>(value: T, paths: readonly FieldPath[]): T {
  let out: Json = value;
  for (const p of paths) out = removePath(out, p.steps);
  return out as T;
}

function removePath(value: Json, steps: readonly PathStep[]): Json {
  const [step, ...rest] = steps;
  if (!step) return value;
  if ("key" in step) {
    if (!isMap(value) || !Object.hasOwn(value, step.key)) return value;
    const { [step.key]: child, ...others } = value;
    return rest.length === 0 ? others : { ...others, [step.key]: removePath(child, rest) };
  }
  if (!Array.isArray(value)) return value;
  if (rest.length === 0) return value.filter((item) => !matches(item, step));
  return value.map((item) => (matches(item, step) ? removePath(item, rest) : item));
}

/** The fieldsV1 tree without what the paths name; empty maps left behind go too. */
export function withoutOwnedFields(fields: Json, paths: readonly FieldPath[]): Json {
  let out = fields;
  for (const p of paths) out = removeOwned(out, p.steps) ?? {};
  return out;
}

/** undefined: nothing is left of this branch. */
function removeOwned(fields: Json, steps: readonly PathStep[]): Json | undefined {
  const [step, ...rest] = steps;
  if (!step || !isMap(fields)) return fields;
  // Entries, not assignments: a key the server sent as "__proto__" stays a plain key.
  const out: [string, Json][] = [];
  let changed = false;
  for (const [key, sub] of Object.entries(fields)) {
    if (!ownedKeyMatches(key, step)) {
      out.push([key, sub]);
      continue;
    }
    changed = true;
    if (rest.length === 0) continue;
    const kept = removeOwned(sub, rest);
    if (kept !== undefined) out.push([key, kept]);
  }
  if (!changed) return fields;
  return out.length ? Object.fromEntries(out) : undefined;
}

/** A fieldsV1 key (`f:replicas`, `k:{"name":"app"}`) is the one a path step names. */
function ownedKeyMatches(key: string, step: PathStep): boolean {
  if ("key" in step) return key === `f:${step.key}`;
  if (!key.startsWith("k:")) return false;
  try {
    return matches(JSON.parse(key.slice(2)), step);
  } catch {
    return false;
  }
}

/** True when the fieldsV1 tree owns something a path names. */
export function ownsAnyField(fields: Json, paths: readonly FieldPath[]): boolean {
  return paths.some((p) => JSON.stringify(removeOwned(fields, p.steps) ?? {}) !== JSON.stringify(fields));
}

/**
 * The managedFields after `fieldManager`'s server-side apply entry gives up the fields the paths
 * name, or undefined when it owns none of them. `base`: the entries to start from (the live
 * object's, or those a migration from client-side apply computed).
 */
export function releasedManagedFields(base: readonly ManagedFieldsEntry[], fieldManager: string, paths: readonly FieldPath[]): ManagedFieldsEntry[] | undefined {
  let changed = false;
  const out = base.map((e) => {
    if (e.manager !== fieldManager || e.operation !== "Apply" || e.subresource || !ownsAnyField(e.fieldsV1, paths)) return e;
    changed = true;
    return { ...e, fieldsV1: withoutOwnedFields(e.fieldsV1, paths) };
  });
  return changed ? out : undefined;
}

/** The paths (as written) that `fieldManager`'s server-side apply entry owns on the live object. */
export function ownedLeftAlone(live: KubeObject, fieldManager: string, paths: readonly FieldPath[]): string[] {
  const ours = managedFieldsOf(live).filter((e) => e.manager === fieldManager && e.operation === "Apply" && !e.subresource);
  return paths.filter((p) => ours.some((e) => ownsAnyField(e.fieldsV1, [p]))).map((p) => p.text);
}

/**
 * `value` with the fields the paths name set as `from` has them: what a server dry run is sent
 * for an object whose fields are released first (the dry run cannot release them, and applying
 * their current values shows the same result: they stay as they are).
 */
export function withFieldsOf<T>(value: T, from: unknown, paths: readonly FieldPath[]): T {
  let out: Json = value;
  for (const p of paths) out = copyPath(out, from, p.steps);
  return out as T;
}

function copyPath(value: Json, from: Json, steps: readonly PathStep[]): Json {
  const [step, ...rest] = steps;
  if (!step) return from;
  if ("key" in step) {
    if (!isMap(from) || !Object.hasOwn(from, step.key)) return value;
    const base = isMap(value) ? value : {};
    return { ...base, [step.key]: copyPath(own(base, step.key), from[step.key], rest) };
  }
  if (!Array.isArray(from)) return value;
  const items = Array.isArray(value) ? [...value] : [];
  for (const source of from.filter((item) => matches(item, step))) {
    const at = items.findIndex((item) => matches(item, step));
    if (at < 0) items.push(rest.length ? copyPath({ [step.field]: own(source as Record<string, Json>, step.field) }, source, rest) : source);
    else items[at] = rest.length ? copyPath(items[at], source, rest) : source;
  }
  return items;
}
