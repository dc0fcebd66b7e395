// A command's flags, declared once: each entry says how commander shows it and how its value is
// checked (with kpt's messages) into a typed value. src/cli.ts registers the entries; the command
// receives `FlagValues<typeof spec>`, keyed as the spec is: an entry may be keyed by the option it
// sets (`reconcileTimeoutMs` for `--reconcile-timeout`), so the values go to the engine as they
// are. No zod here: this file is on the start-up path of `--help`.

import type { ValueCompletion } from "../completion/command-spec.js";
import { UsageError } from "../model/errors.js";
import { goDurationMs } from "../object/go-duration.js";

export interface FlagSpec<T> {
  /** As commander takes it: "--reconcile-timeout <duration>", "-n, --namespace <namespace>". */
  flags: string;
  description: string;
  /** The raw default commander applies (and `--help` shows). */
  default?: string | boolean;
  /** A Go-style boolean: `--x`, `--x=true|false` and a hidden `--no-x`. */
  boolean?: boolean;
  hidden?: boolean;
  /** May be given more than once: commander collects the values into a list. */
  repeatable?: boolean;
  /** What shell completion offers for the value: the very words `parse` accepts (oneOf), or what kind of thing it names. */
  completion?: ValueCompletion;
  /** Turns commander's raw value into the command's value; throws UsageError on a bad one. */
  parse(raw: unknown, flag: string): T;
}

/** The same flag, its value completed as files, directories, contexts, namespaces or inventories. */
export function completing<T>(kind: Extract<ValueCompletion, { kind: string }>["kind"], spec: FlagSpec<T>): FlagSpec<T> {
  return { ...spec, completion: { kind } };
}

export type FlagsSpec = Record<string, FlagSpec<unknown>>;
export type FlagValues<S extends FlagsSpec> = { [K in keyof S]: S[K] extends FlagSpec<infer T> ? T : never };

/** The long name of a flag spec: "reconcile-timeout". */
export function longName(spec: FlagSpec<unknown>): string {
  const m = /--([a-z0-9-]+)/.exec(spec.flags);
  if (!m) throw new Error(`flag spec without a long name: ${spec.flags}`);
  return m[1]!;
}

/** Where commander keeps a flag's value: its long name in camel case, without a `no-` (`--no-color`: `color`). */
export function attributeOf(spec: FlagSpec<unknown>): string {
  return longName(spec)
    .replace(/^no-/, "")
    .replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

/** Every flag's value, parsed; the first bad one throws a UsageError naming it. */
export function parseFlags<S extends FlagsSpec>(spec: S, raw: Record<string, unknown>): FlagValues<S> {
  const out: Record<string, unknown> = {};
  for (const [key, f] of Object.entries(spec)) out[key] = f.parse(raw[attributeOf(f)], longName(f));
  return out as FlagValues<S>;
}

export function bool(name: string, description: string, defaultValue = false): FlagSpec<boolean> {
  return { flags: `--${name}`, description, default: defaultValue, boolean: true, parse: (v) => Boolean(v ?? defaultValue) };
}

export function text(flags: string, description: string, defaultValue?: string): FlagSpec<string> {
  return { flags, description, ...(defaultValue !== undefined ? { default: defaultValue } : {}), parse: (v) => String(v ?? defaultValue ?? "") };
}

export function optionalText(flags: string, description: string): FlagSpec<string | undefined> {
  return { flags, description, parse: (v) => (v === undefined ? undefined : String(v)) };
}

/** One of a fixed set of values, with kpt's message when the value is not among them. */
export function oneOf<T extends string>(flags: string, description: string, values: readonly T[], defaultValue: T, message: string): FlagSpec<T> {
  return {
    flags,
    description,
    default: defaultValue,
    completion: { values },
    parse: (v, flag) => {
      const s = String(v ?? defaultValue);
      if (!(values as readonly string[]).includes(s)) throw new UsageError(`${message} (got --${flag}=${JSON.stringify(s)})`);
      return s as T;
    },
  };
}

/** A Go duration ("90s", "2m"); milliseconds, undefined when absent or 0 (no limit). */
export function duration(flags: string, description: string, defaultValue?: string): FlagSpec<number | undefined> {
  return {
    flags,
    description,
    ...(defaultValue !== undefined ? { default: defaultValue } : {}),
    parse: (v, flag) => {
      if (v === undefined) return undefined;
      const ms = goDurationMs(String(v));
      if (ms === undefined) throw new UsageError(`invalid duration ${JSON.stringify(String(v))} for --${flag}: use a number with a unit, like 30s, 2m or 1h30m`);
      return ms === 0 ? undefined : ms;
    },
  };
}

/** A whole number of at least `min`; undefined when absent (the engine's default applies). */
export function wholeNumber(flags: string, description: string, min: 0 | 1): FlagSpec<number | undefined> {
  return {
    flags,
    description,
    parse: (v, flag) => {
      if (v === undefined) return undefined;
      const s = String(v);
      const n = Number(s);
      if (!Number.isInteger(n) || n < min || s.trim() === "") throw new UsageError(`--${flag} must be a whole number of at least ${min} (got ${JSON.stringify(s)})`);
      return n;
    },
  };
}

/**
 * A comma-separated list, split as kpt splits it (words kept as written: `--namespaces ,app` holds
 * "" and "app", and "" is the namespace of cluster-scoped objects); undefined when absent or empty.
 * `values`: the words completion offers (any word is taken).
 */
export function list(flags: string, description: string, values?: readonly string[]): FlagSpec<string[] | undefined> {
  return {
    flags,
    description,
    ...(values ? { completion: { values } } : {}),
    parse: (v) => (v === undefined || String(v) === "" ? undefined : String(v).split(",")),
  };
}

/** A flag that may be repeated; its values in order (empty when absent). */
export function repeated(flags: string, description: string): FlagSpec<string[]> {
  return { flags, description, repeatable: true, parse: (v) => (Array.isArray(v) ? v.map(String) : v === undefined ? [] : [String(v)]) };
}

/** `-v [level]`: any level but 0 turns verbose errors on. */
export function verbosity(flags: string, description: string): FlagSpec<boolean> {
  return { flags, description, parse: (v) => v !== undefined && v !== false && v !== "0" };
}
