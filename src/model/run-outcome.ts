// How a run ended, for the library's callers: the run's events drained and folded (run-tally.ts)
// into what the CLI would exit with, the counts of its summary line, and each object that failed;
// an error that stopped the run early (bad input, cluster access, Ctrl-C) is part of the outcome,
// never thrown, so one check tells a caller whether the run did what it asked.

import { EXIT, exitCodeFor, type ExitCode } from "./errors.js";
import type { EngineEvent, RunStats } from "./events.js";
import { RunTally, type RunFailure } from "./run-tally.js";

export interface RunOutcome {
  /**
   * What `kpt-ts live apply` (or `destroy`) would exit with: 0 success (skips included); 3 some
   * object failed to apply, prune or delete, or failed or timed out reconciling, or a hook or a
   * replacement failed (kpt's result code; docs/lifecycle.md); and for a run stopped by `error`: 2 bad input (nothing written), 1 the run could not
   * proceed (cluster access, for example), 130 interrupted (its `signal` aborted).
   */
  exitCode: ExitCode;
  /** The counts of kpt's summary lines, as far as the run got. */
  stats: RunStats;
  /** Each object whose write or wait failed (a timeout included), in the order they were reported. */
  failures: RunFailure[];
  /** The error that stopped the run before its end (a PackageError, UsageError, ClusterError, CancelledError...); absent when it ran to its end. */
  error?: Error;
}

/** An error of the caller's own `onEvent`: it is the caller's, so it is thrown, not an outcome. */
class CallerError {
  constructor(readonly cause: unknown) {}
}

/**
 * Reads a run (`apply()`, `destroy()`) to its end and resolves to its outcome; `onEvent` sees
 * each event on the way (to print progress). An error that ended the run is the outcome's
 * `error`, with its exit code: only an error thrown by `onEvent` itself rejects.
 */
export async function runOutcome(run: AsyncIterable<EngineEvent>, o: { onEvent?: (e: EngineEvent) => void } = {}): Promise<RunOutcome> {
  const tally = new RunTally();
  try {
    for await (const e of run) {
      tally.add(e);
      try {
        o.onEvent?.(e);
      } catch (err) {
        throw new CallerError(err);
      }
    }
  } catch (err) {
    if (err instanceof CallerError) throw err.cause;
    const error = err instanceof Error ? err : new Error(String(err));
    // A request cut by the run's own signal surfaces as the platform's AbortError.
    return { exitCode: error.name === "AbortError" ? EXIT.cancelled : exitCodeFor(error), stats: tally.stats, failures: tally.failures, error };
  }
  return { exitCode: tally.failed ? EXIT.result : EXIT.ok, stats: tally.stats, failures: tally.failures };
}
