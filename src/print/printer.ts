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
  const events = withCrdNotice(stream, opts.stderr);
  switch (opts.output) {
    case "json":
      return printJson(events, opts);
    case "table":
      return printTable(events, opts);
    case "events":
      return printEvents(events, opts);
  }
}

/** kpt's notice, on stderr in every output format, just before apply installs the ResourceGroup CRD. */
export const CRD_NOTICE = "installing inventory ResourceGroup CRD.";

async function* withCrdNotice(events: AsyncIterable<EngineEvent>, stderr: NodeJS.WritableStream): AsyncIterable<EngineEvent> {
  for await (const e of events) {
    if (e.type === "init" && e.dryRun === "none" && e.plan?.command === "apply" && e.plan.installCrd) stderr.write(`${CRD_NOTICE}\n`);
    yield e;
  }
}
