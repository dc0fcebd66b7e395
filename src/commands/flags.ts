// Flag values checked once, with kpt's messages, into typed options.

import { z } from "zod";
import { UsageError } from "../errors.js";
import { parseDuration } from "./duration.js";

export interface GlobalFlags {
  kubeconfig?: string;
  context?: string;
  namespace?: string;
  v?: string | boolean;
  color?: boolean;
}

const oneOf = <T extends string>(values: readonly [T, ...T[]], message: string) =>
  z.string().refine((v): v is T => (values as readonly string[]).includes(v), { message }) as unknown as z.ZodType<T>;

export const outputFlag = oneOf(["events", "table", "json"] as const, "unknown output type: use events, table or json");
export const inventoryPolicyFlag = oneOf(["strict", "adopt", "force-adopt"] as const, "inventory policy must be one of strict, adopt");
export const propagationFlag = oneOf(["Background", "Foreground", "Orphan"] as const, "prune propagation policy must be one of Background, Foreground, Orphan");
export const statusPolicyFlag = oneOf(["all", "none"] as const, "status policy must be one of all, none");
export const pollUntilFlag = oneOf(["known", "current", "deleted", "forever"] as const, "pollUntil must be one of known,current,deleted,forever");

/** Parses one flag's value, turning a zod failure into kpt's one-line usage error. */
export function parseFlag<T>(schema: z.ZodType<T>, value: unknown, flag: string): T {
  const r = schema.safeParse(value);
  if (!r.success) {
    const msg = r.error.issues[0]?.message ?? "invalid value";
    throw new UsageError(`${msg} (got --${flag}=${JSON.stringify(value)})`);
  }
  return r.data;
}

export function durationFlag(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  try {
    return parseDuration(value, `--${flag}`);
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

export function positiveIntFlag(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new UsageError(`--${flag} must be a whole number of at least 1 (got ${JSON.stringify(value)})`);
  return n;
}

export function nonNegativeIntFlag(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || value.trim() === "") throw new UsageError(`--${flag} must be a whole number of at least 0 (got ${JSON.stringify(value)})`);
  return n;
}

export function verbose(g: GlobalFlags): boolean {
  return g.v !== undefined && g.v !== false && g.v !== "0";
}
