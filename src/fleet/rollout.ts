// The rollout: the selected clusters split into waves (`--rollout 'canary-*;*'`), each wave
// starting only when every cluster of the one before succeeded. Pure.

import { UsageError } from "../model/errors.js";
import { formatNames, globMatcher, isGlob } from "./select-contexts.js";

/**
 * `--rollout` as written: waves separated by `;`, each a comma-separated list of context names or
 * globs. `*` in a wave takes every selected cluster no earlier wave took.
 */
export function parseRollout(text: string): string[][] {
  const waves = text.split(";").map((w) => w.split(",").map((p) => p.trim()).filter(Boolean));
  const empty = waves.findIndex((w) => w.length === 0);
  if (empty >= 0) throw new UsageError(`--rollout "${text}": wave ${empty + 1} is empty; separate waves with ';' and the clusters of one wave with ',', e.g. --rollout 'canary-*;prod-eu,prod-us;*'`);
  return waves;
}

/**
 * The waves, each a list of selected clusters: a cluster goes to the first wave with a pattern
 * matching it. Without a rollout, one wave of every cluster. A wave that takes no cluster, a name
 * the selection lacks, or a cluster no wave takes is an error: a mistyped canary must not turn
 * into a rollout without one.
 */
export function planWaves(selected: readonly string[], rollout?: readonly (readonly string[])[]): string[][] {
  if (!rollout) return [[...selected]];
  const left = new Set(selected);
  const waves = rollout.map((patterns, i) => {
    const wave: string[] = [];
    for (const p of patterns) {
      if (!isGlob(p) && !selected.includes(p)) throw new UsageError(`--rollout wave ${i + 1} names "${p}", which is not among the clusters of the run (${formatNames(selected)})`);
      for (const name of selected.filter(globMatcher(p))) {
        if (left.delete(name)) wave.push(name);
      }
    }
    if (wave.length === 0) throw new UsageError(`--rollout wave ${i + 1} (${patterns.join(",")}) takes no cluster: earlier waves took every cluster it matches, or it matches none of ${formatNames(selected)}`);
    return wave;
  });
  if (left.size > 0) throw new UsageError(`--rollout puts ${formatNames([...left])} in no wave: name ${left.size === 1 ? "it" : "them"} in a wave, or end the rollout with '*'`);
  return waves;
}

/** Every pattern of the rollout, in order: the clusters a run selects when --contexts is not given. */
export function rolloutPatterns(rollout: readonly (readonly string[])[]): string[] {
  return rollout.flat();
}
