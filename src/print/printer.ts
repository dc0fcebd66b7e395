// The one entry point commands use to show a run: pick the printer for --output, hand it the
// engine's events, get the final stats back (the command decides the exit code from them).

import type { EngineEvent, RunStats } from "../model/events.js";
import { formatRef } from "../model/ref.js";
import type { ApplyPlan } from "../model/plan.js";
import { absentInventoryLine } from "./absent-inventory.js";
import { formatHookLine } from "./lifecycle-lines.js";
import { githubAnnotation } from "./error-report.js";
import { printEvents } from "./events-printer.js";
import { printJson } from "./json-printer.js";
import { printTable } from "./table-printer.js";
import { escapeDeep } from "./terminal-text.js";
import type { PrintOptions } from "./print-options.js";

export type { OutputFormat, PrintOptions } from "./print-options.js";

/**
 * Prints the run and resolves to its final stats: the summary event's, or the printer's own
 * count if the stream ended without one. When the stream throws, the printer finishes its output
 * (JSON: an `error` line; table: the final table) and the error propagates.
 */
export function printRun(stream: AsyncIterable<EngineEvent>, opts: PrintOptions): Promise<RunStats> {
  const events = withSideNotes(escapeEvents(stream), opts);
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
 * Every event's text (names, the server's and controllers' messages) escaped for the terminal
 * (terminal-text.ts), once, before any printer sees it. The init event's plan and an apply's
 * before/after objects are data no printer prints (diffs come from change sets, escaped where
 * they are printed): they are passed on as they are, not walked (a 500-object no-op spent 20 ms
 * of CPU walking them).
 */
async function* escapeEvents(events: AsyncIterable<EngineEvent>): AsyncIterable<EngineEvent> {
  for await (const e of events) {
    if (e.type === "init") {
      const { plan, ...rest } = e;
      yield { ...escapeDeep(rest), ...(plan ? { plan } : {}) };
    } else if (e.type === "apply" && (e.before || e.after)) {
      const { before, after, ...rest } = e;
      yield { ...escapeDeep(rest), ...(before ? { before } : {}), ...(after ? { after } : {}) };
    } else yield escapeDeep(e);
  }
}

/** kpt's notice, on stderr in every output format, just before apply installs the ResourceGroup CRD. */
export const CRD_NOTICE = "installing inventory ResourceGroup CRD.";

/**
 * One line per object applied otherwise than the run's way (too large for client-side apply, so
 * applied server-side), on every run that applies it, dry runs included.
 */
export function methodNotices(plan: ApplyPlan): string[] {
  return plan.applies.filter((p) => p.methodReason && !p.skip).map((p) => `${formatRef(p.ref)} is applied server-side: ${p.methodReason}.`);
}

/**
 * Passes the events through, writing to stderr what no output format has a place for: kpt's notice
 * that apply installs the ResourceGroup CRD; which objects are applied server-side and why; once, the line saying a dry run was computed locally
 * (a read-only identity); and under GitHub Actions an annotation for each apply failure traced to a
 * file and line.
 */
async function* withSideNotes(events: AsyncIterable<EngineEvent>, opts: PrintOptions): AsyncIterable<EngineEvent> {
  let localSaid = false;
  for await (const e of events) {
    if (e.type === "init" && e.dryRun === "none" && e.plan?.command === "apply" && e.plan.installCrd) opts.stderr.write(`${CRD_NOTICE}\n`);
    if (e.type === "init" && e.plan?.command === "apply") for (const line of methodNotices(e.plan)) opts.stderr.write(`${line}\n`);
    // kpt prints nothing more for a destroy that finds no inventory; a person learns why.
    if (e.type === "init" && e.plan?.command === "destroy" && !e.plan.inventory.stored && opts.cluster) opts.stderr.write(absentInventoryLine("destroy", e.plan.inventory.info, opts.cluster));
    if (e.type === "apply" && e.local && !localSaid) {
      localSaid = true;
      opts.stderr.write(`${e.local}\n`);
    }
    if (e.type === "apply" && e.status === "Failed" && e.source && opts.githubActions) {
      opts.stderr.write(`${githubAnnotation(e.source.file, e.source.line, `${formatRef(e.ref)} apply failed: ${e.error ?? ""}`, opts.githubActions.cwd)}\n`);
    }
    if (e.type === "hook" && (e.status === "Failed" || e.status === "Timeout") && e.source && opts.githubActions) {
      opts.stderr.write(`${githubAnnotation(e.source.file, e.source.line, formatHookLine(e), opts.githubActions.cwd)}\n`);
    }
    yield e;
  }
}
