// cli-utils' table columns (pkg/print/table): fixed widths, two-space gutters, cells cut to
// their width, STATUS and CONDITIONS coloured, AGE as `Ns`/`Nm`/`Nh`. Pure: rows in, lines out.

import type { ChalkInstance } from "chalk";
import type { KStatus } from "../model/events.js";
import type { ObjRef } from "../model/ref.js";
import type { KubeObject } from "../model/kube-object.js";

/** A cell: what to print (maybe with colour codes) and how many columns it takes on screen. */
interface Cell {
  text: string;
  width: number;
}

export interface Column<Row> {
  header: string;
  width: number;
  render: (row: Row, width: number) => Cell;
}

export function plainCell(text: string, width: number): Cell {
  const cut = text.length > width ? text.slice(0, width) : text;
  return { text: cut, width: cut.length };
}

/** The header line and one line per row, each cell padded to its column's width. */
export function renderTable<Row>(columns: Column<Row>[], rows: Row[]): string[] {
  const headers = columns.map((c) => c.header.padEnd(c.width)).join("  ");
  const lines = rows.map((row) =>
    columns
      .map((c) => {
        const cell = c.render(row, c.width);
        return cell.text + " ".repeat(Math.max(0, c.width - cell.width));
      })
      .join("  "),
  );
  return [headers, ...lines];
}

/** What the table knows about an object's live state; `object` is absent until one was seen. */
export interface LiveState {
  ref: ObjRef;
  status: KStatus;
  message: string;
  object?: KubeObject;
}

export function namespaceCell(s: LiveState, width: number): Cell {
  return plainCell(s.ref.namespace, width);
}

/** `Deployment/web`: kind and name only, as cli-utils prints it. */
export function resourceCell(s: LiveState, width: number): Cell {
  return plainCell(`${s.ref.kind}/${s.ref.name}`, width);
}

export function statusCell(s: LiveState, width: number, paint: ChalkInstance): Cell {
  const cell = plainCell(s.status, width);
  const colour = s.status === "Current" ? paint.green : s.status === "InProgress" ? paint.yellow : s.status === "Failed" ? paint.red : undefined;
  return colour ? { text: colour(cell.text), width: cell.width } : cell;
}

/**
 * Condition types coloured by their status (True green, False red, else yellow), joined by commas
 * while more than two columns remain; `<None>` without conditions, `-` before the object is known.
 */
export function conditionsCell(s: LiveState, width: number, paint: ChalkInstance): Cell {
  if (!s.object) return plainCell("-", width);
  const raw = (s.object.status as { conditions?: unknown } | undefined)?.conditions;
  const conditions = Array.isArray(raw) ? (raw as { type?: unknown; status?: unknown }[]) : [];
  if (conditions.length === 0) return plainCell("<None>", width);
  let text = "";
  let used = 0;
  conditions.forEach((c, i) => {
    const type = String(c.type ?? "").slice(0, Math.max(0, width - used));
    const colour = c.status === "True" ? paint.green : c.status === "False" ? paint.red : paint.yellow;
    if (type) text += colour(type);
    used += type.length;
    if (i < conditions.length - 1 && width - used > 2) {
      text += ",";
      used++;
    }
  });
  return { text, width: used };
}

/** The object's age from metadata.creationTimestamp, or `-`. */
export function ageCell(s: LiveState, width: number, now: Date): Cell {
  const created = s.object?.metadata.creationTimestamp;
  const t = created ? Date.parse(created) : NaN;
  if (Number.isNaN(t)) return plainCell("-", width);
  return plainCell(formatAge(now.getTime() - t), width);
}

/** `45s` up to 90 seconds, `12m` up to 90 minutes, then `3h`, each rounded to the nearest unit. */
export function formatAge(ms: number): string {
  const seconds = ms / 1000;
  if (seconds <= 90) return `${roundHalfAway(seconds)}s`;
  if (seconds / 60 <= 90) return `${roundHalfAway(seconds / 60)}m`;
  return `${roundHalfAway(seconds / 3600)}h`;
}

function roundHalfAway(x: number): number {
  return Math.sign(x) * Math.round(Math.abs(x));
}

/** Sorted as cli-utils sorts table rows: namespace, group, kind, name. */
export function compareForTable(a: ObjRef, b: ObjRef): number {
  for (const key of ["namespace", "group", "kind", "name"] as const) {
    if (a[key] !== b[key]) return a[key] < b[key] ? -1 : 1;
  }
  return 0;
}
