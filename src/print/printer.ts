// The one entry point commands use to show a run: pick the printer for --output, hand it the
// engine's events, get the final stats back (the command decides the exit code from them).

import type { EngineEvent, RunStats } from "../events.js";
import { printEvents } from "./events-printer.js";
import { printJson } from "./json-printer.js";
import { printTable } from "./table-printer.js";

export type OutputFormat = "events" | "json" | "table";

export interface PrintOptions {
  output: OutputFormat;
  stdout: NodeJS.WritableStream;
  /** Where kpt-ts' own progress notes go (the events printer's "waiting for ..." lines). */
  stderr: NodeJS.WritableStream;
  /** Decided once by the caller (see resolveColor); printers never detect it themselves. */
  color: boolean;
  /** Whether stdout is a terminal: the table redraws in place only then. */
  tty: boolean;
  /** Also print kstatus changes (`<id> is <Status>: <message>`); the table always shows them. */
  showStatusEvents: boolean;
  /**
   * Set when stderr is a terminal that may show the live wait view (see progress-view.ts): its
   * size. The events output then draws the view under its lines instead of "waiting for" notes.
   */
  progress?: { columns: number; rows: number; signal?: AbortSignal };
  /** Clock for JSON timestamps and table ages; the real time by default. */
  now?: () => Date;
}

/**
 * Prints the run and resolves to its final stats: the summary event's, or the printer's own
 * count if the stream ended without one. When the stream throws, the printer finishes its output
 * (JSON: an `error` line; table: the final table) and the error propagates.
 */
export function printRun(events: AsyncIterable<EngineEvent>, opts: PrintOptions): Promise<RunStats> {
  switch (opts.output) {
    case "json":
      return printJson(events, opts);
    case "table":
      return printTable(events, opts);
    case "events":
      return printEvents(events, opts);
  }
}
