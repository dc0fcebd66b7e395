// `live status --contexts`: after each cluster's status lines (marked with the cluster), the fleet
// view: a row per cluster counting its objects by status, or saying why it could not be read.
// Pure but for the write.

import type { ExitCode } from "../model/errors.js";
import type { KStatus } from "../model/events.js";
import { createPalette } from "./color.js";
import { formatEventLine, type JsonRecord } from "./go-json.js";
import type { OutputFormat } from "./print-options.js";
import { escapeTerminal, escapeTerminalLines } from "./terminal-text.js";

export interface ClusterStatus {
  cluster: string;
  /** Each object's last status; absent when the cluster could not be read. */
  statuses?: KStatus[];
  exitCode: ExitCode;
  message?: string;
}

function countsOf(statuses: readonly KStatus[]): { current: number; inProgress: number; failed: number; other: number } {
  const c = { current: 0, inProgress: 0, failed: 0, other: 0 };
  for (const s of statuses) {
    if (s === "Current") c.current++;
    else if (s === "InProgress") c.inProgress++;
    else if (s === "Failed") c.failed++;
    else c.other++;
  }
  return c;
}

function formatFleetStatusTable(results: readonly ClusterStatus[], color: boolean): string[] {
  const paint = createPalette(color);
  const header = ["CLUSTER", "OBJECTS", "CURRENT", "INPROGRESS", "FAILED", "OTHER", "EXIT"];
  const rows = results.map((r) => {
    const c = r.statuses ? countsOf(r.statuses) : undefined;
    const n = (v: number | undefined) => (v === undefined ? "-" : String(v));
    return [escapeTerminal(r.cluster), n(r.statuses?.length), n(c?.current), n(c?.inProgress), n(c?.failed), n(c?.other), String(r.exitCode)];
  });
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!))).join("  ");
  const lines = [paint.bold(line(header)), ...rows.map((row, i) => (results[i]!.exitCode !== 0 ? paint.red(line(row)) : line(row)))];
  const why = results.filter((r) => r.message);
  if (why.length) lines.push("", ...why.map((r) => `${escapeTerminal(r.cluster)}: ${escapeTerminalLines(r.message!)}`));
  return lines;
}

export function printFleetStatus(results: readonly ClusterStatus[], o: { output: OutputFormat; stdout: NodeJS.WritableStream; color: boolean; now?: () => Date }): void {
  if (o.output !== "json") {
    o.stdout.write(["", ...formatFleetStatusTable(results, o.color)].map((l) => `${l}\n`).join(""));
    return;
  }
  const at = (o.now ?? (() => new Date()))();
  for (const r of results) {
    const c = r.statuses ? countsOf(r.statuses) : undefined;
    const counts: JsonRecord = c ? { objects: r.statuses!.length, current: c.current, inProgress: c.inProgress, failed: c.failed, other: c.other } : {};
    o.stdout.write(formatEventLine("cluster", { cluster: r.cluster, exitCode: r.exitCode, ...counts, ...(r.message ? { error: r.message } : {}) }, at));
  }
}
