// The fleet's scheduler: each wave's clusters run with at most `maxAtOnce` at a time; the next
// wave starts only when every cluster of this one succeeded. A cluster's failure never stops the
// others of its wave (each job runs on its own connection, and its error is its own result);
// what a failed wave or an interruption leaves unstarted is reported as not run, with why.

import { formatNames } from "./select-contexts.js";
import { forEachLimited } from "../util/pool.js";

export type WaveOutcome<R> =
  | { cluster: string; wave: number; status: "done"; value: R; tookMs: number }
  | { cluster: string; wave: number; status: "error"; error: unknown; tookMs: number }
  | { cluster: string; wave: number; status: "not-run"; because: string };

export interface RunWavesOptions<R> {
  /** Clusters of one wave run at once at most (at least 1). */
  maxAtOnce: number;
  /** Once aborted, no cluster starts; the ones running are the job's to stop. */
  signal?: AbortSignal;
  /** Whether a finished cluster counts as succeeded (its wave may be followed). */
  succeeded(value: R): boolean;
  onStart?(cluster: string, wave: number): void;
  /** Every cluster's outcome, as it is known (not-run ones at the end). */
  onOutcome?(outcome: WaveOutcome<R>): void;
}

/** Runs `job` for each cluster, wave after wave; resolves to every cluster's outcome in rollout order. */
export async function runWaves<R>(waves: readonly (readonly string[])[], job: (cluster: string, wave: number) => Promise<R>, o: RunWavesOptions<R>): Promise<WaveOutcome<R>[]> {
  const outcomes = new Map<string, WaveOutcome<R>>();
  const settle = (out: WaveOutcome<R>) => {
    outcomes.set(out.cluster, out);
    o.onOutcome?.(out);
  };
  let stopped: string | undefined;
  for (const [i, clusters] of waves.entries()) {
    const wave = i + 1;
    if (stopped === undefined) {
      await forEachLimited(
        clusters,
        Math.max(1, o.maxAtOnce),
        async (cluster) => {
          const started = performance.now();
          o.onStart?.(cluster, wave);
          try {
            const value = await job(cluster, wave);
            settle({ cluster, wave, status: "done", value, tookMs: performance.now() - started });
          } catch (error) {
            settle({ cluster, wave, status: "error", error, tookMs: performance.now() - started });
          }
        },
        o.signal,
      );
      const failed = clusters.filter((c) => {
        const out = outcomes.get(c);
        return out?.status !== "done" || !o.succeeded(out.value);
      });
      if (o.signal?.aborted) stopped = "interrupted before it started";
      else if (failed.length > 0 && wave < waves.length) stopped = `wave ${wave} did not succeed (${formatNames(failed)})`;
    }
    for (const cluster of clusters) if (!outcomes.has(cluster)) settle({ cluster, wave, status: "not-run", because: stopped ?? "interrupted before it started" });
  }
  return waves.flat().map((c) => outcomes.get(c)!);
}
