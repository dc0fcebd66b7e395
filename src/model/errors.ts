// The error hierarchy. Each class says who must act (the user's input, their cluster access,
// or us) and maps to one exit code; src/cli.ts is the only place that turns them into an exit.

import type { SourcePos } from "./kube-object.js";

export type ExitCode = 0 | 1 | 2 | 3 | 130 | 143;

export const EXIT = {
  ok: 0,
  /** Anything that stopped the run: cluster access, an internal error (kpt's 1). */
  error: 1,
  /** Bad input caught before the cluster is touched: flags, package files, inventory. */
  badInput: 2,
  /** The run finished but an object failed to apply/prune/delete, or failed/timed out reconciling (kpt's 3). */
  result: 3,
  /** Interrupted with Ctrl-C (SIGINT). */
  cancelled: 130,
  /** Stopped with SIGTERM (128 + 15, as a shell reports it). */
  terminated: 143,
} as const satisfies Record<string, ExitCode>;

export abstract class KptTsError extends Error {
  abstract readonly exitCode: ExitCode;
  /** Extra lines shown with -v (the cause's detail). */
  detail?: string;
  constructor(message: string, options?: { cause?: unknown; detail?: string }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    if (options?.detail) this.detail = options.detail;
  }
}

/** A wrong flag or argument. */
export class UsageError extends KptTsError {
  readonly exitCode = EXIT.badInput;
}

/** One problem found in a package, located at a file and line. */
export interface PackageIssue {
  source?: SourcePos;
  /** How the object is named in the message, e.g. `Deployment/wordpress`, when known. */
  object?: string;
  message: string;
}

export function formatIssue(i: PackageIssue): string {
  const where = i.source ? `${i.source.file}:${i.source.line}: ` : "";
  const what = i.object ? `${i.object}: ` : "";
  return `${where}${what}${i.message}`;
}

/** Every problem of a package at once; nothing has touched the cluster. */
export class PackageError extends KptTsError {
  readonly exitCode = EXIT.badInput;
  constructor(
    readonly issues: PackageIssue[],
    hint?: string,
  ) {
    super(PackageError.render(issues, hint));
  }
  static render(issues: PackageIssue[], hint?: string): string {
    const head =
      issues.length === 1
        ? formatIssue(issues[0]!)
        : // An issue's own further lines (a hint, a cycle's edges) are indented under its bullet.
          `${issues.length} problems in the package:\n${issues.map((i) => `- ${formatIssue(i).replace(/\n/g, "\n  ")}`).join("\n")}`;
    return hint ? `${head}\n${hint}` : head;
  }
}

/** The cluster could not be reached or refused us (kubeconfig, TLS, 401/403, unknown kinds). */
export class ClusterError extends KptTsError {
  readonly exitCode = EXIT.error;
}

/**
 * Another run of the same inventory holds its lock (a Lease beside the inventory): nothing was
 * changed. Exit 2, as for anything refused before the cluster is touched.
 */
export class InventoryLockedError extends KptTsError {
  readonly exitCode = EXIT.badInput;
}

/** The run completed; some objects failed. The printers already reported which. */
export class ResultError extends KptTsError {
  readonly exitCode = EXIT.result;
}

export class CancelledError extends KptTsError {
  readonly exitCode = EXIT.cancelled;
  constructor(message = "interrupted") {
    super(message);
  }
}

/**
 * A run was about to write to a cluster its package does not pin (the `kpt-ts.dev/clusters`
 * annotation, docs/fleet.md); nothing was written. The user's choice of cluster is the input at fault.
 */
export class WrongClusterError extends KptTsError {
  readonly exitCode = EXIT.badInput;
}

/**
 * A run on several clusters in which some did not succeed: its exit code is the worst
 * cluster's, and the summary has already named each.
 */
export class FleetError extends KptTsError {
  constructor(
    message: string,
    readonly exitCode: ExitCode,
  ) {
    super(message);
  }
}

/** A bug in kpt-ts. */
export class InternalError extends KptTsError {
  readonly exitCode = EXIT.error;
}

export function exitCodeFor(err: unknown): ExitCode {
  return err instanceof KptTsError ? err.exitCode : EXIT.error;
}
