// How an error that ends a command is told: `error: <what failed>`, then one line saying what
// to do, and the detail (the server's words, the stack) only with -v. Pure: error in, lines out.

import { ApiError, briefApiError, forbiddenAdvice, NotServedError } from "../cluster/api-error.js";
import { relative, resolve, sep } from "node:path";
import { formatIssue, KptTsError, PackageError, ResultError } from "../model/errors.js";
import { escapeTerminal, escapeTerminalLines } from "./terminal-text.js";

const WEBHOOK = /admission webhook "([^"]+)" denied the request/;

/** What to do about an API error; undefined when there is nothing useful to say. */
export function apiErrorHint(err: ApiError): string | undefined {
  const webhook = WEBHOOK.exec(err.message);
  if (webhook) return `the admission webhook ${webhook[1]} refused it: change the object to satisfy its policy, or ask the webhook's owner`;
  if (err.tooLarge) return "the request is larger than the API server (or etcd behind it, 1.5 MiB by default) stores in one object: make the object smaller, or split it";
  // The first line already says who may not do what (briefApiError); this says what to do.
  if (err.status === 403) return forbiddenAdvice(err);
  if (err.status === 404) return err instanceof NotServedError ? "install the kind's CustomResourceDefinition first, or add it to the package" : undefined;
  return STATUS_HINTS.get(err.status);
}

const OVERLOADED = "the API server is overloaded or failing: try again, and check its health if this persists";
/** What to do about an API error, where its status alone says it. */
const STATUS_HINTS = new Map<number, string>([
  [401, "the cluster did not accept your credentials: log in again, or check the user of your kubeconfig context"],
  [409, "someone else changed it meanwhile: run the command again"],
  [422, "the server rejected the object as invalid: fix it in the package"],
  ...[429, 500, 502, 503, 504].map((status): [number, string] => [status, OVERLOADED]),
]);

/**
 * The lines that tell an error, escaped for the terminal (terminal-text.ts): a file name, an
 * object name or the server's words never drive the terminal or the CI log.
 */
export function formatError(err: unknown, verbose: boolean): string[] {
  return describeError(err, verbose).flatMap((l) => escapeTerminalLines(l).split("\n"));
}

function describeError(err: unknown, verbose: boolean): string[] {
  if (err instanceof KptTsError) {
    // A failed run's objects were already reported by the printer; nothing to add but the code.
    if (err instanceof ResultError) return [];
    const lines = [`error: ${err instanceof PackageError ? packageMessage(err) : err.message}`];
    const cause = err.cause;
    const detail = err.detail?.split("\n") ?? [];
    if (cause === undefined) {
      // Without a cause, the detail is advice written for this error: its first line always shows.
      lines.push(...(verbose ? detail : detail.slice(0, 1)));
      return lines;
    }
    const hint = cause instanceof ApiError ? apiErrorHint(cause) : undefined;
    if (hint) lines.push(hint);
    if (verbose) lines.push(...(detail.length ? detail : causeDetail(cause)));
    return lines;
  }
  if (err instanceof ApiError) {
    const lines = [`error: ${briefApiError(err)}`];
    const hint = apiErrorHint(err);
    if (hint) lines.push(hint);
    if (verbose) lines.push(...causeDetail(err), ...(err.stack ? [err.stack] : []));
    return lines;
  }
  const e = err as Error;
  const lines = [`error: ${e?.message ?? String(err)}`];
  if (verbose && e?.stack) lines.push(e.stack);
  else lines.push("(this looks like a bug in kpt-ts; run again with -v for the stack trace and report it)");
  return lines;
}

/**
 * A package error's message with each file and object name on one line (a file named with a line
 * break shows `\n`, and cannot start a line of its own); the rest as the message says it.
 */
function packageMessage(err: PackageError): string {
  const plain = PackageError.render(err.issues);
  const hint = err.message.startsWith(plain) ? err.message.slice(plain.length) : "";
  const issues = err.issues.map((i) => ({
    ...i,
    ...(i.source ? { source: { ...i.source, file: escapeTerminal(i.source.file) } } : {}),
    ...(i.object !== undefined ? { object: escapeTerminal(i.object) } : {}),
  }));
  return PackageError.render(issues) + hint;
}

function causeDetail(cause: unknown): string[] {
  if (cause instanceof ApiError) return [`caused by: HTTP ${cause.status} ${cause.reason}: ${cause.message}`];
  if (cause instanceof Error) return [`caused by: ${(cause as NodeJS.ErrnoException).code ?? cause.name}: ${cause.message}`];
  return [];
}

/** GitHub's escaping of a workflow command's message (and, with `:` and `,`, of its properties). */
function escapeData(s: string): string {
  return s.replace(/%/g, "%25").replace(/\r/g, "%0D").replace(/\n/g, "%0A");
}
function escapeProperty(s: string): string {
  return escapeData(s).replace(/:/g, "%3A").replace(/,/g, "%2C");
}

/** `::error file=<path relative to cwd>,line=<n>::<message>`: shown by GitHub on the pull request's diff. */
export function githubAnnotation(file: string, line: number, message: string, cwd: string): string {
  const rel = relative(cwd, resolve(cwd, file)).split(sep).join("/");
  return `::error file=${escapeProperty(escapeTerminal(rel))},line=${line}::${escapeData(escapeTerminalLines(message))}`;
}

/**
 * Under GITHUB_ACTIONS=true, every problem of an error that names a file and line (bad input,
 * depends-on problems) as a workflow annotation; the plain error is printed as well.
 */
export function githubAnnotations(err: unknown, cwd: string): string[] {
  if (!(err instanceof PackageError)) return [];
  return err.issues.filter((i) => i.source).map((i) => githubAnnotation(i.source!.file, i.source!.line, formatIssue({ ...i, source: undefined }), cwd));
}
