// The tail every engine command shares: record the run in the change history, print it in the
// chosen format (with the live wait view in a terminal), and turn failed objects into kpt's
// result error (exit 3).

import { warningLine } from "../print/terminal-text.js";
import type { Cluster } from "../cluster/types.js";
import { ResultError } from "../errors.js";
import { statsFailed, type EngineEvent } from "../events.js";
import { DEFAULT_HISTORY_LIMIT } from "../history/change-record.js";
import { recordChanges } from "../history/record-changes.js";
import { printRun } from "../print/printer.js";
import { wantsProgressView } from "../print/progress-view.js";
import type { GlobalFlags } from "./command-specs.js";
import { colorFor, type CommandIO } from "./io.js";

export interface ShowRunOptions {
  command: "apply" | "destroy";
  cluster: Cluster;
  output: "events" | "table" | "json";
  showStatusEvents: boolean;
  historyLimit?: number;
  globals: GlobalFlags;
  io: CommandIO;
}

export async function showRun(events: AsyncIterable<EngineEvent>, o: ShowRunOptions): Promise<void> {
  const { io } = o;
  const recorded = recordChanges(events, { cluster: o.cluster, keep: o.historyLimit ?? DEFAULT_HISTORY_LIMIT, onWarning: (w) => io.stderr.write(warningLine(w)) });
  const progress = wantsProgressView({ output: o.output, stderrIsTTY: Boolean(io.stderr.isTTY), env: io.env, colorFlag: o.globals.color === false ? false : undefined });
  const stats = await printRun(recorded, {
    output: o.output,
    stdout: io.stdout,
    stderr: io.stderr,
    color: colorFor(io, o.globals),
    tty: Boolean(io.stdout.isTTY),
    showStatusEvents: o.showStatusEvents,
    ...(io.env.GITHUB_ACTIONS === "true" ? { githubActions: { cwd: process.cwd() } } : {}),
    ...(progress ? { progress: { columns: io.stderr.columns ?? 80, rows: io.stderr.rows ?? 24, signal: io.signal } } : {}),
  });
  if (statsFailed(stats)) throw new ResultError(o.command === "apply" ? "some objects failed to apply, prune or reconcile" : "some objects failed to be deleted");
}
