// The one entry point commands use to show a run: pick the printer for --output, hand it the
// engine's events, get the final stats back (the command decides the exit code from them).

import type { EngineEvent, RunStats } from "../events.js";
import { printEvents } from "./events-printer.js";
import { printJson } from "./json-printer.js";
import { printTable } from "./table-printer.js";
import type { PrintOptions } from "./print-options.js";

export type { OutputFormat, PrintOptions } from "./print-options.js";

/**
 * Prints the run and resolves to its final stats: the summary event's, or the printer's own
 * count if the stream ended without one. When the stream throws, the printer finishes its output
 * (JSON: an `error` line; table: the final table) and the error propagates.
 */
export function printRun(stream: AsyncIterable<EngineEvent>, opts: PrintOptions): Promise<RunStats> {
  const events = noteCrdInstall(stream, opts.stderr);
  switch (opts.output) {
    case "json":
      return printJson(events, opts);
    case "table":
      return printTable(events, opts);
    case "events":
      return printEvents(events, opts);
  }
}

/**
 * kpt's one stderr line, whatever the output format, when an apply is about to install the
 * ResourceGroup CRD (kpt's install-rg-on-apply case). A dry run installs nothing, so says nothing.
 */
async function* noteCrdInstall(events: AsyncIterable<EngineEvent>, stderr: NodeJS.WritableStream): AsyncGenerator<EngineEvent> {
  for await (const e of events) {
    if (e.type === "init" && e.dryRun === "none" && e.plan?.command === "apply" && e.plan.installCrd) stderr.write("installing inventory ResourceGroup CRD.\n");
    yield e;
  }
}
