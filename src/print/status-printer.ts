// `live status`: each object's kstatus as it changes, in the three output formats. Events read
// as kpt's book shows them (`deployment.apps/wordpress is Current: ...`), or, with --inv-type
// remote, as the binary prints them, naming each object's inventory and namespace; JSON exactly
// as the kpt binary prints it, the table as cli-utils' status table (redrawn every second on a
// terminal). Every line and row names the inventory listing the object; --statuses hides the
// others, in every format, as cli-utils' printers do.

import type { StatusEvent } from "../model/events.js";
import type { KubeObject } from "../model/kube-object.js";
import { formatGroupKind, refKey, type ObjRef } from "../model/ref.js";
import { createPalette } from "./color.js";
import { formatEventLine } from "./go-json.js";
import { refContent } from "./json-printer.js";
import { formatStatusLine, statusMessage } from "./legacy-lines.js";
import { escapeDeep } from "./terminal-text.js";
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

const STATUS_TABLE_REDRAW_MS = 1000;

/** An object the command follows, and the name of the inventory listing it. */
interface StatusTarget {
  ref: ObjRef;
  inventoryName: string;
}

export interface StatusPrintOptions extends Pick<PrintOptions, "output" | "stdout" | "color" | "tty" | "now"> {
  /**
   * Every object followed, with its inventory (an object two inventories list comes twice): each
   * line and row names it, and the table lists each (Unknown) before its first status.
   */
  objects: readonly StatusTarget[];
  /** --statuses: only objects in one of these statuses (lower case) are shown. */
  statuses?: ReadonlySet<string>;
  /** Event lines as the binary prints them with --inv-type remote: `<inventory>/<group-kind>/<namespace>/<name> is ...`. */
  inventoryInLines?: boolean;
}

export async function printLiveStatus(raw: AsyncIterable<StatusEvent>, opts: StatusPrintOptions): Promise<void> {
  const events = escapeStatusEvents(raw);
  opts = { ...opts, objects: escapeDeep(opts.objects) };
  if (opts.output === "table") return printStatusTable(events, opts);
  const now = opts.now ?? (() => new Date());
  const inventoriesOf = inventoriesByRef(opts.objects);
  const last = new Map<string, string>();
  try {
    for await (const e of events) {
      // Like kpt's poller, say something only when an object's status or message changed.
      const key = refKey(e.ref);
      const seen = `${e.status}\n${statusMessage(e)}`;
      if (last.get(key) === seen) continue;
      last.set(key, seen);
      if (!shown(e.status, opts.statuses)) continue;
      for (const inventory of inventoriesOf(e.ref)) {
        const line =
          opts.output === "json"
            ? formatEventLine("status", { ...refContent(e.ref), "inventory-name": inventory, status: e.status, message: e.message }, now())
            : `${opts.inventoryInLines ? formatInventoryStatusLine(e, inventory) : formatStatusLine(e)}\n`;
        opts.stdout.write(line);
      }
    }
  } catch (err) {
    if (opts.output === "json") {
      opts.stdout.write(formatEventLine("error", { error: err instanceof Error ? err.message : String(err) }, now()));
    }
    throw err;
  }
}

/**
 * The binary's `live status` line (cli-utils' status printer), naming the inventory and the
 * namespace: `inv-b/deployment.apps/ns-b/web is Current: ...`, `inv-b/namespace//ns-b is ...`.
 */
function formatInventoryStatusLine(e: Pick<StatusEvent, "ref" | "status" | "message" | "heldBy">, inventoryName: string): string {
  return `${inventoryName}/${formatGroupKind(e.ref)}/${e.ref.namespace}/${e.ref.name} is ${e.status}: ${statusMessage(e)}`;
}

function shown(status: string, statuses: ReadonlySet<string> | undefined): boolean {
  return !statuses || statuses.has(status.toLowerCase());
}

/** The inventories listing each object (one line each); an object nobody listed is shown once, without one. */
function inventoriesByRef(objects: readonly StatusTarget[]): (ref: ObjRef) => readonly string[] {
  const byRef = new Map<string, string[]>();
  for (const o of objects) {
    const names = byRef.get(refKey(o.ref));
    if (names) names.push(o.inventoryName);
    else byRef.set(refKey(o.ref), [o.inventoryName]);
  }
  return (ref) => byRef.get(refKey(ref)) ?? [""];
}

/**
 * The events' text escaped for the terminal (terminal-text.ts), before anything prints it. Of an
 * event's object only what the table shows is kept (its conditions and age): walking the rest, a
 * CRD's megabytes of schema, on every event cost more than the rest of the printing.
 */
async function* escapeStatusEvents(events: AsyncIterable<StatusEvent>): AsyncIterable<StatusEvent> {
  for await (const { object, ...e } of events) yield escapeDeep(object ? { ...e, object: shownOf(object) } : e);
}

function shownOf(o: KubeObject): KubeObject {
  const conditions = (o.status as { conditions?: unknown } | undefined)?.conditions;
  const { name, namespace, creationTimestamp } = o.metadata;
  return { apiVersion: o.apiVersion, kind: o.kind, metadata: { name, namespace, creationTimestamp }, ...(conditions !== undefined ? { status: { conditions } } : {}) };
}

/** A row of the status table: an object's state, and the inventory listing it. */
type StatusRow = LiveState & { inventoryName: string };

function statusTableColumns(opts: Pick<StatusPrintOptions, "color" | "now">): Column<StatusRow>[] {
  const paint = createPalette(opts.color);
  const now = opts.now ?? (() => new Date());
  return [
    { header: "NAMESPACE", width: 10, render: namespaceCell },
    { header: "RESOURCE", width: 40, render: resourceCell },
    { header: "STATUS", width: 10, render: (r, w) => statusCell(r, w, paint) },
    { header: "CONDITIONS", width: 40, render: (r, w) => conditionsCell(r, w, paint) },
    { header: "AGE", width: 6, render: (r, w) => ageCell(r, w, now()) },
    { header: "MESSAGE", width: 40, render: (r, w) => plainCell(r.message, w) },
    { header: "INVENTORY_NAME", width: 30, render: (r, w) => plainCell(r.inventoryName, w) },
  ];
}

async function printStatusTable(events: AsyncIterable<StatusEvent>, opts: StatusPrintOptions): Promise<void> {
  const columns = statusTableColumns(opts);
  const inventoriesOf = inventoriesByRef(opts.objects);
  const rows = new Map<string, StatusRow>();
  const rowKey = (ref: ObjRef, inventoryName: string) => `${inventoryName}\n${refKey(ref)}`;
  for (const { ref, inventoryName } of opts.objects) rows.set(rowKey(ref, inventoryName), { ref, inventoryName, status: "Unknown", message: "" });
  const byTableOrder = (a: StatusRow, b: StatusRow) => compareForTable(a.ref, b.ref) || a.inventoryName.localeCompare(b.inventoryName);
  const table: LiveTable = createLiveTable({
    out: opts.stdout,
    tty: opts.tty,
    intervalMs: STATUS_TABLE_REDRAW_MS,
    trailingNewline: false,
    draw: () =>
      renderTable(
        columns,
        [...rows.values()].filter((r) => shown(r.status, opts.statuses)).sort(byTableOrder),
      ),
  });
  table.start();
  try {
    for await (const e of events) {
      for (const inventoryName of inventoriesOf(e.ref)) rows.set(rowKey(e.ref, inventoryName), { ref: e.ref, inventoryName, status: e.status, message: statusMessage(e), object: e.object });
    }
  } finally {
    table.finish();
  }
}
