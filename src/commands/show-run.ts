// The tail every engine command shares: print the run in the chosen format (with the live wait
// view in a terminal), and turn failed objects into kpt's result error (exit 3). The change
// history is the engine's own observer, not a step here.

import { ResultError } from "../model/errors.js";
import type { EngineEvent } from "../model/events.js";
import { statsFailed } from "../model/run-tally.js";
import { printRun } from "../print/printer.js";
import { wantsProgressView } from "../print/progress-view.js";
import type { GlobalFlags } from "./command-specs.js";
import { colorFor, type CommandIO } from "./io.js";

export interface ShowRunOptions {
  command: "apply" | "destroy";
  output: "events" | "table" | "json";
  showStatusEvents: boolean;
  globals: GlobalFlags;
  io: CommandIO;
  /** The cluster asked, for the line that says the inventory is not there. */
  cluster?: { context?: string; server: string };
}

export async function showRun(events: AsyncIterable<EngineEvent>, o: ShowRunOptions): Promise<void> {
  const { io } = o;
  const progress = wantsProgressView({ output: o.output, stderrIsTTY: Boolean(io.stderr.isTTY), env: io.env, colorFlag: o.globals.color === false ? false : undefined });
  const stats = await printRun(events, {
    output: o.output,
    stdout: io.stdout,
    stderr: io.stderr,
    color: colorFor(io, o.globals),
    tty: Boolean(io.stdout.isTTY),
    showStatusEvents: o.showStatusEvents,
    ...(o.cluster ? { cluster: { ...(o.cluster.context ? { context: o.cluster.context } : {}), server: o.cluster.server } } : {}),
    ...(io.env.GITHUB_ACTIONS === "true" ? { githubActions: { cwd: process.cwd() } } : {}),
    ...(progress ? { progress: { columns: io.stderr.columns ?? 80, rows: io.stderr.rows ?? 24, signal: io.signal } } : {}),
  });
  if (statsFailed(stats)) throw new ResultError(o.command === "apply" ? "some objects failed to apply, prune or reconcile" : "some objects failed to be deleted");
}
