// `live status`: each object's kstatus as it changes, in the three output formats. Events read
// as kpt's book shows them (`deployment.apps/wordpress is Current: ...`), JSON exactly as the kpt
// binary prints it, the table as cli-utils' status table (redrawn every second on a terminal).

import type { StatusEvent } from "../model/events.js";
import { refKey, type ObjRef } from "../model/ref.js";
import { createPalette } from "./color.js";
import { formatGoJsonLine, formatRfc3339 } from "./go-json.js";
import { refContent } from "./json-printer.js";
import { formatStatusLine, statusMessage } from "./legacy-lines.js";
import { escapeDeep, escapeTerminal } from "./terminal-text.js";
import { createLiveTable, type LiveTable } from "./live-table.js";
import type { OutputFormat } from "./print-options.js";
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

export const STATUS_TABLE_REDRAW_MS = 1000;

export interface StatusPrintOptions {
  output: OutputFormat;
  stdout: NodeJS.WritableStream;
  color: boolean;
  tty: boolean;
  inventoryName: string;
  /** The inventory's objects, so the table lists them (as Unknown) before their first status. */
  objects?: ObjRef[];
  now?: () => Date;
}

export async function printLiveStatus(raw: AsyncIterable<StatusEvent>, opts: StatusPrintOptions): Promise<void> {
  const events = escapeStatusEvents(raw);
  opts = { ...opts, inventoryName: escapeTerminal(opts.inventoryName), ...(opts.objects ? { objects: escapeDeep(opts.objects) } : {}) };
  if (opts.output === "table") return printStatusTable(events, opts);
  const now = opts.now ?? (() => new Date());
  const last = new Map<string, string>();
  try {
    for await (const e of events) {
      // Like kpt's poller, say something only when an object's status or message changed.
      const key = refKey(e.ref);
      const seen = `${e.status}\n${statusMessage(e)}`;
      if (last.get(key) === seen) continue;
      last.set(key, seen);
      opts.stdout.write(opts.output === "json" ? formatStatusJson(e, opts.inventoryName, now()) : formatStatusLine(e) + "\n");
    }
  } catch (err) {
    if (opts.output === "json") {
      opts.stdout.write(formatGoJsonLine({ error: err instanceof Error ? err.message : String(err), timestamp: formatRfc3339(now()), type: "error" }));
    }
    throw err;
  }
}

/** The events' text escaped for the terminal (terminal-text.ts), before anything prints it. */
async function* escapeStatusEvents(events: AsyncIterable<StatusEvent>): AsyncIterable<StatusEvent> {
  for await (const e of events) yield escapeDeep(e);
}

/** `{"group":"apps","inventory-name":"...","kind":"Deployment","message":...,"type":"status"}` */
export function formatStatusJson(e: StatusEvent, inventoryName: string, at: Date): string {
  return formatGoJsonLine({
    ...refContent(e.ref),
    "inventory-name": inventoryName,
    status: e.status,
    message: e.message,
    timestamp: formatRfc3339(at),
    type: "status",
  });
}

export function statusTableColumns(opts: Pick<StatusPrintOptions, "color" | "inventoryName" | "now">): Column<LiveState>[] {
  const paint = createPalette(opts.color);
  const now = opts.now ?? (() => new Date());
  return [
    { header: "NAMESPACE", width: 10, render: namespaceCell },
    { header: "RESOURCE", width: 40, render: resourceCell },
    { header: "STATUS", width: 10, render: (r, w) => statusCell(r, w, paint) },
    { header: "CONDITIONS", width: 40, render: (r, w) => conditionsCell(r, w, paint) },
    { header: "AGE", width: 6, render: (r, w) => ageCell(r, w, now()) },
    { header: "MESSAGE", width: 40, render: (r, w) => plainCell(r.message, w) },
    { header: "INVENTORY_NAME", width: 30, render: (_r, w) => plainCell(opts.inventoryName, w) },
  ];
}

async function printStatusTable(events: AsyncIterable<StatusEvent>, opts: StatusPrintOptions): Promise<void> {
  const columns = statusTableColumns(opts);
  const rows = new Map<string, LiveState>();
  for (const ref of opts.objects ?? []) rows.set(refKey(ref), { ref, status: "Unknown", message: "" });
  const table: LiveTable = createLiveTable({
    out: opts.stdout,
    tty: opts.tty,
    intervalMs: STATUS_TABLE_REDRAW_MS,
    trailingNewline: false,
    draw: () => renderTable(columns, [...rows.values()].sort((a, b) => compareForTable(a.ref, b.ref))),
  });
  table.start();
  try {
    for await (const e of events) rows.set(refKey(e.ref), { ref: e.ref, status: e.status, message: statusMessage(e), object: e.object });
  } finally {
    table.finish();
  }
}
