// A fleet run's exit code: each cluster's, as a run on that cluster alone would end, and the
// worst of them for the run. Pure.

import { EXIT, exitCodeFor, type ExitCode } from "../model/errors.js";
import type { RunStats } from "../model/events.js";
import { statsFailed } from "../model/run-tally.js";

/**
 * From least to most severe, for apply, destroy and status: an object failed (3) is less than a
 * run refused before its first write (2: bad input, the wrong cluster), which is less than a run
 * stopped (1: unreachable, refused by the server); an interrupted run (130, 143) wins over all.
 */
export const RUN_SEVERITY: readonly ExitCode[] = [EXIT.ok, EXIT.result, EXIT.badInput, EXIT.error, EXIT.terminated, EXIT.cancelled];

/** `live diff`'s codes: 0 no changes, 1 changes, 2 trouble (diff(1)'s); interrupted wins. */
export const DIFF_SEVERITY: readonly ExitCode[] = [0, 1, 2, EXIT.terminated, EXIT.cancelled];

/** The worst of the codes by `severity` (0 when there are none). */
export function worstExitCode(codes: Iterable<ExitCode>, severity: readonly ExitCode[] = RUN_SEVERITY): ExitCode {
  let worst: ExitCode = EXIT.ok;
  for (const c of codes) if (severity.indexOf(c) > severity.indexOf(worst)) worst = c;
  return worst;
}

/**
 * How one cluster's run ends: the error that stopped it (a platform AbortError once the run was
 * interrupted counts as the interruption), else kpt's 3 when an object failed, else 0.
 */
export function clusterExitCode(r: { stats?: RunStats; error?: unknown; interrupted?: boolean }): ExitCode {
  if (r.error !== undefined) return r.interrupted && (r.error as Error | undefined)?.name === "AbortError" ? EXIT.cancelled : exitCodeFor(r.error);
  return r.stats && statsFailed(r.stats) ? EXIT.result : EXIT.ok;
}
