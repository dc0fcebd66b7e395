// `--output table`: kpt's apply/destroy table, one row per object of the run, redrawn every
// 500 ms on a terminal and printed once at the end otherwise. Status always shows (kpt ignores
// --show-status-events here too).
//
// Where kpt's cells are plainly broken, kpt-ts fills them: ACTION shows Failed (kpt leaves it
// blank) and Delete results (kpt shows nothing for destroy), RECONCILED shows the wait result
// (always blank in kpt), and MESSAGE shows the error of a failed apply/prune/delete.

import type { ChalkInstance } from "chalk";
import type { ActuationStatus, EngineEvent, RunStats, WaitEvent, WaitStatus } from "../model/events.js";
import { refKey } from "../model/ref.js";
import { createPalette } from "./color.js";
import { createLiveTable, type LiveTable } from "./live-table.js";
import type { PrintOptions } from "./print-options.js";
import {
  ageCell,
  compareForTable,
  conditionsCell,
  namespaceCell,
  plainCell,
  renderTable,
  resourceCell,
  statusCell,
  type Column,
  type LiveState,
} from "./table-layout.js";
import { RunTally } from "../model/run-tally.js";
import { formatTimeoutSummary } from "./waiting-line.js";
import { formatHookLine, formatReplaceLine } from "./lifecycle-lines.js";

export const TABLE_REDRAW_MS = 500;

export interface RunRow extends LiveState {
  action: "Apply" | "Prune" | "Delete";
  actionStatus: ActuationStatus;
  actionError?: string;
  waitStatus?: WaitStatus;
}

export function runTableColumns(paint: ChalkInstance, now: () => Date): Column<RunRow>[] {
  return [
    { header: "NAMESPACE", width: 10, render: namespaceCell },
    { header: "RESOURCE", width: 40, render: resourceCell },
    { header: "ACTION", width: 12, render: (r, w) => plainCell(r.actionStatus, w) },
    { header: "STATUS", width: 10, render: (r, w) => statusCell(r, w, paint) },
    { header: "RECONCILED", width: 10, render: (r, w) => plainCell(r.waitStatus ?? "", w) },
    { header: "CONDITIONS", width: 40, render: (r, w) => conditionsCell(r, w, paint) },
    { header: "AGE", width: 6, render: (r, w) => ageCell(r, w, now()) },
    { header: "MESSAGE", width: 40, render: (r, w) => plainCell(r.actionStatus === "Failed" && r.actionError ? r.actionError : r.message, w) },
  ];
}

export async function printTable(events: AsyncIterable<EngineEvent>, opts: PrintOptions): Promise<RunStats> {
  const now = opts.now ?? (() => new Date());
  const columns = runTableColumns(createPalette(opts.color), now);
  const rows = new Map<string, RunRow>();
  const tally = new RunTally();
  let table: LiveTable | undefined;
  const timedOut: WaitEvent[] = [];
  try {
    for await (const e of events) {
      tally.add(e);
      if (e.type === "init") {
        if (e.dryRun !== "none") opts.stdout.write(`Dry-run strategy: ${e.dryRun}\n`);
        const sorted = [...e.objects].sort((a, b) => compareForTable(a.ref, b.ref));
        for (const o of sorted) rows.set(refKey(o.ref), { ref: o.ref, action: o.action, actionStatus: "Pending", status: "Unknown", message: "" });
        table = createLiveTable({
          out: opts.stdout,
          tty: opts.tty,
          intervalMs: TABLE_REDRAW_MS,
          trailingNewline: true,
          draw: () => renderTable(columns, [...rows.values()]),
        });
        table.start();
      } else if (e.type === "warning") {
        opts.stderr.write(`[WARN] ${e.message}\n`);
      } else if (e.type === "hook" || e.type === "replace") {
        // Not objects of the table (hooks), or more than a row says (a replacement): lines on stderr.
        opts.stderr.write(`${e.type === "hook" ? formatHookLine(e) : formatReplaceLine(e)}\n`);
      } else {
        if (e.type === "wait" && e.status === "Timeout") timedOut.push(e);
        updateRow(rows, e);
      }
    }
  } finally {
    table?.finish();
  }
  // Beyond kpt, on stderr: what each timed-out object was last waiting on.
  const goal = (ref: WaitEvent["ref"]) => (rows.get(refKey(ref))?.action === "Apply" ? "reconcile" : "delete");
  for (const g of ["reconcile", "delete"] as const) {
    for (const line of formatTimeoutSummary(timedOut.filter((e) => goal(e.ref) === g), g)) opts.stderr.write(`${line}\n`);
  }
  return tally.stats;
}

/** Folds one event into the row of its object; events for objects outside the run are ignored. */
export function updateRow(rows: Map<string, RunRow>, e: EngineEvent): void {
  if (!("ref" in e)) return;
  const row = rows.get(refKey(e.ref));
  if (!row) return;
  switch (e.type) {
    case "apply":
    case "prune":
    case "delete":
      row.actionStatus = e.status;
      row.actionError = e.error;
      break;
    case "wait":
      row.waitStatus = e.status;
      break;
    case "status":
      row.status = e.status;
      row.message = e.message;
      row.object = e.object;
      break;
  }
}
