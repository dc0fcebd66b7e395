// Whether to colour, decided once by the caller, and the one chalk instance printers use.
// chalk's own auto-detection is never consulted: the level comes from resolveColor().

import { Chalk, type ChalkInstance } from "chalk";

interface ResolveColorOptions {
  /** `--color` (true) / `--no-color` (false); undefined when neither was given. */
  flag?: boolean;
  env: Record<string, string | undefined>;
  isTTY: boolean;
}

/**
 * The usual conventions, most explicit first: a command-line flag; FORCE_COLOR (`0`/`false`
 * disable, any other value enables; like Node, it overrides NO_COLOR); NO_COLOR when set and
 * non-empty disables; otherwise colour exactly when the output is a terminal.
 */
export function resolveColor(opts: ResolveColorOptions): boolean {
  if (opts.flag !== undefined) return opts.flag;
  const force = opts.env.FORCE_COLOR;
  if (force !== undefined) return force !== "0" && force.toLowerCase() !== "false";
  const noColor = opts.env.NO_COLOR;
  if (noColor !== undefined && noColor !== "") return false;
  return opts.isTTY;
}

/** A chalk instance with an explicit level: basic ANSI colours, or none at all. */
export function createPalette(color: boolean): ChalkInstance {
  return new Chalk({ level: color ? 1 : 0 });
}
