// What every run printer is told: the output format, where to write, and how the terminal looks.

import type { AskedCluster } from "./absent-inventory.js";

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
  /** In a GitHub Actions job (GITHUB_ACTIONS=true): failures traced to a file and line also go to stderr as annotations, paths relative to `cwd`. */
  githubActions?: { cwd: string };
  /** The cluster the run asked: named by the line that says its inventory is not there (absent-inventory.ts). */
  cluster?: AskedCluster;
  /** Clock for JSON timestamps and table ages; the real time by default. */
  now?: () => Date;
}
