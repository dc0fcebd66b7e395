// Which clusters a fleet run targets: kubeconfig context names and globs (`prod-*`), matched
// against the contexts the kubeconfig holds. Pure.

import { UsageError } from "../model/errors.js";

/** True when the pattern holds a wildcard: `*` (any run of characters) or `?` (one). */
export function isGlob(pattern: string): boolean {
  return /[*?]/.test(pattern);
}

/** The pattern as a test: `*` any run of characters, `?` one; everything else literal (`.`, `:`, `/` in ARNs too). */
export function globMatcher(pattern: string): (name: string) => boolean {
  const source = pattern.replace(/[.+^${}()|[\]\\]/g, "\\$&").replace(/\*/g, ".*").replace(/\?/g, ".");
  const re = new RegExp(`^${source}$`, "s");
  return (name) => re.test(name);
}

/** "a, b and c", for messages; a long list is cut after `max`. */
export function formatNames(names: readonly string[], max = 20): string {
  if (names.length === 0) return "(none)";
  const shown = names.slice(0, max);
  const more = names.length - shown.length;
  return `${shown.join(", ")}${more > 0 ? ` and ${more} more` : ""}`;
}

/**
 * The contexts `patterns` select, in the order given; a glob's matches sorted by name; each once.
 * A name the kubeconfig does not hold, or a glob matching none, is an error naming the contexts
 * that exist (`where`: the kubeconfig files, for the message).
 */
export function selectContexts(patterns: readonly string[], known: readonly string[], flag = "--contexts", where = "the kubeconfig"): string[] {
  const chosen: string[] = [];
  const add = (name: string) => void (chosen.includes(name) ? undefined : chosen.push(name));
  const existing = `its contexts are ${formatNames(known)}`;
  for (const raw of patterns) {
    const p = raw.trim();
    if (!p) continue;
    if (!isGlob(p)) {
      if (!known.includes(p)) throw new UsageError(`${flag} names context "${p}", which ${where} does not hold; ${existing}`);
      add(p);
      continue;
    }
    const matches = known.filter(globMatcher(p)).sort();
    if (matches.length === 0) throw new UsageError(`${flag} pattern "${p}" matches no context of ${where}; ${existing}`);
    matches.forEach(add);
  }
  if (chosen.length === 0) throw new UsageError(`${flag} names no context: give context names or patterns, e.g. ${flag} prod-eu,prod-us or ${flag} 'prod-*'`);
  return chosen;
}
