// Exec credential plugins (client.authentication.k8s.io), owned end to end as client-go's
// plugin/pkg/client/auth/exec does: KUBERNETES_EXEC_INFO (with the cluster when
// provideClusterInfo is set), interactiveMode, the plugin's stderr shown to the user as it
// comes (device-code logins print their URL there), credentials cached until shortly before
// their expirationTimestamp, and fetched again after a 401. A failing plugin is named with its
// exit code and its stderr, never its stdout (which holds the credential, or part of one).
//
// How long a plugin may run: kubectl sets no limit (client-go runs it with exec.Command and no
// context; kubernetes/kubernetes#108849 decided against one, since a first login can take
// minutes), and neither does kpt-ts. What bounds it is the user: the first Ctrl-C or SIGTERM
// stops the plugin (its whole process group when it is not interactive) and ends the run, and
// a plugin still running when kpt-ts exits is killed, never left behind. A request that stops
// waiting for it (--request-timeout) fails as any request that times out. Its output is bounded
// (an ExecCredential is a few KiB).

import { spawn, type ChildProcess } from "node:child_process";
import { ClusterError } from "../model/errors.js";
import type { Credentials, CredentialSource } from "./credential-source.js";
import type { Entry } from "./kubeconfig-files.js";

interface ExecContext {
  /** Who the plugin serves, for messages: `user "x" (kubeconfig FILE)`. */
  owner: string;
  /** The cluster as the plugin may ask for it (provideClusterInfo). */
  cluster: { server: string; "tls-server-name"?: string; "insecure-skip-tls-verify"?: boolean; "certificate-authority-data"?: string; "proxy-url"?: string; "disable-compression"?: boolean; config?: unknown };
  env: NodeJS.ProcessEnv;
  /** Where the plugin's stderr goes, as it comes. */
  stderr: NodeJS.WritableStream;
  /** Standard input, passed to the plugin only when interactive (it is a terminal). */
  stdin?: NodeJS.ReadStream;
  now?: () => number;
  /** The run's cancellation: a plugin still running is stopped. */
  signal?: AbortSignal;
}

/** More than any ExecCredential holds: a plugin printing more is refused. */
const MAX_PLUGIN_OUTPUT_BYTES = 16 * 1024 * 1024;

const API_VERSIONS = ["client.authentication.k8s.io/v1", "client.authentication.k8s.io/v1beta1"];

/** How long before its expiry a credential is replaced: a tenth of its life, between 0.5 s and 60 s. */
function refreshMargin(lifetimeMs: number): number {
  return Math.min(60_000, Math.max(500, lifetimeMs / 10));
}

export function execCredentials(exec: Entry, base: Credentials, ctx: ExecContext): CredentialSource {
  const command = String(exec.command ?? "");
  const what = `the exec credential plugin "${command}" of ${ctx.owner}`;
  const now = ctx.now ?? Date.now;
  const apiVersion = String(exec.apiVersion ?? "");
  let generation = 0;
  let cached: { creds: Credentials & { generation: number }; refreshAt: number } | undefined;
  let inFlight: Promise<Credentials & { generation: number }> | undefined;

  const fail = (why: string, detail?: string): never => {
    throw new ClusterError(`cannot get credentials: ${what}: ${why}`, {
      detail: detail ?? "Run the plugin yourself to see what it says, or fix users[].user.exec in your kubeconfig.",
    });
  };

  const interactive = (): boolean => {
    const mode = exec.interactiveMode ?? (apiVersion.endsWith("/v1") ? undefined : "IfAvailable");
    const tty = Boolean(ctx.stdin?.isTTY);
    if (mode === undefined) fail("interactiveMode must be set (Never, IfAvailable or Always) for client.authentication.k8s.io/v1");
    if (mode === "Never") return false;
    if (mode === "IfAvailable") return tty;
    if (mode === "Always") return tty || fail("it needs an interactive terminal (interactiveMode: Always) and standard input is not one");
    return fail(`unknown interactiveMode ${JSON.stringify(mode)}: use Never, IfAvailable or Always`);
  };

  const fetch = async (): Promise<Credentials & { generation: number }> => {
    if (!API_VERSIONS.includes(apiVersion)) fail(`unsupported apiVersion ${JSON.stringify(apiVersion)}: use client.authentication.k8s.io/v1 or v1beta1`);
    const isInteractive = interactive();
    const info = { apiVersion, kind: "ExecCredential", spec: { interactive: isInteractive, ...(exec.provideClusterInfo ? { cluster: ctx.cluster } : {}) } };
    const env: NodeJS.ProcessEnv = { ...ctx.env, KUBERNETES_EXEC_INFO: JSON.stringify(info) };
    for (const e of Array.isArray(exec.env) ? exec.env : []) if (e && typeof e.name === "string") env[e.name] = String(e.value ?? "");
    const { code, stdout, stderrTail, spawnError, tooMuch } = await runPlugin(command, Array.isArray(exec.args) ? exec.args.map(String) : [], env, isInteractive, ctx);
    if (ctx.signal?.aborted) throw abortError();
    if (tooMuch) fail(`it printed more than ${MAX_PLUGIN_OUTPUT_BYTES / 1024 / 1024} MiB on stdout, which no ExecCredential needs`);
    if (spawnError) {
      const hint = typeof exec.installHint === "string" && exec.installHint.trim() ? exec.installHint.trim() : undefined;
      if (spawnError.code === "ENOENT") fail("the command was not found", hint);
      if (spawnError.code === "EACCES") fail("the command is not executable", hint);
      fail(`it could not be started: ${spawnError.message}`, hint);
    }
    if (code !== 0) {
      fail(`it exited with code ${code}${stderrTail ? `: ${stderrTail}` : " and printed nothing on stderr"}`);
    }
    let cred: any;
    try {
      cred = JSON.parse(stdout);
    } catch {
      fail("it did not print an ExecCredential (JSON)");
    }
    if (cred?.apiVersion !== apiVersion || cred?.kind !== "ExecCredential") {
      fail(`it printed ${cred?.kind ?? "an object"} of apiVersion ${JSON.stringify(cred?.apiVersion)}, not the ExecCredential ${apiVersion} it was asked for`);
    }
    const status = cred.status ?? {};
    const hasCert = Boolean(status.clientCertificateData) || Boolean(status.clientKeyData);
    if (hasCert && !(status.clientCertificateData && status.clientKeyData)) fail("its ExecCredential has only one of clientCertificateData and clientKeyData: both are needed");
    if (!status.token && !hasCert) fail("its ExecCredential has neither a token nor a client certificate");
    const creds: Credentials & { generation: number } = {
      headers: status.token ? { ...base.headers, authorization: `Bearer ${status.token}` } : { ...base.headers },
      cert: hasCert ? Buffer.from(String(status.clientCertificateData)) : base.cert,
      key: hasCert ? Buffer.from(String(status.clientKeyData)) : base.key,
      generation: ++generation,
    };
    let refreshAt = Infinity;
    if (status.expirationTimestamp) {
      const exp = Date.parse(String(status.expirationTimestamp));
      if (Number.isNaN(exp)) fail(`its expirationTimestamp ${JSON.stringify(status.expirationTimestamp)} is not a time (RFC 3339)`);
      const t = now();
      refreshAt = exp - refreshMargin(Math.max(0, exp - t));
    }
    cached = { creds, refreshAt };
    return creds;
  };

  return {
    runsProgram: true,
    get: async (signal) => {
      if (cached && now() < cached.refreshAt) return cached.creds;
      inFlight ??= fetch().finally(() => (inFlight = undefined));
      return untilAborted(inFlight, signal);
    },
    invalidate: (g) => {
      if (cached && cached.creds.generation === g) cached = undefined;
      return true;
    },
  };
}

interface PluginRun {
  code: number | null;
  stdout: string;
  stderrTail: string;
  spawnError?: NodeJS.ErrnoException;
  /** It printed more than MAX_PLUGIN_OUTPUT_BYTES on stdout (and was stopped). */
  tooMuch?: boolean;
}

/** Plugins running now: killed at exit, so none outlives kpt-ts (even after a second Ctrl-C). */
const running = new Set<{ child: ChildProcess; group: boolean }>();
let exitHookArmed = false;

function stop(p: { child: ChildProcess; group: boolean }, signal: NodeJS.Signals): void {
  try {
    // Not interactive, it leads its own process group: what it started goes with it.
    if (p.group && p.child.pid) process.kill(-p.child.pid, signal);
    else p.child.kill(signal);
  } catch {
    /* already gone */
  }
}

function runPlugin(command: string, args: string[], env: NodeJS.ProcessEnv, interactive: boolean, ctx: ExecContext): Promise<PluginRun> {
  return new Promise((resolve) => {
    // An interactive plugin stays in the terminal's process group (it reads the terminal).
    const group = !interactive && process.platform !== "win32";
    const child = spawn(command, args, { env, stdio: [interactive ? "inherit" : "ignore", "pipe", "pipe"], detached: group });
    const entry = { child, group };
    running.add(entry);
    if (!exitHookArmed) {
      exitHookArmed = true;
      process.once("exit", () => {
        for (const p of running) stop(p, "SIGKILL");
      });
    }
    const onAbort = () => {
      stop(entry, "SIGTERM");
      setTimeout(() => stop(entry, "SIGKILL"), 2000).unref();
    };
    if (ctx.signal?.aborted) onAbort();
    else ctx.signal?.addEventListener("abort", onAbort, { once: true });
    const out: Buffer[] = [];
    let outBytes = 0;
    let tooMuch = false;
    let err = "";
    let spawnError: NodeJS.ErrnoException | undefined;
    child.stdout.on("data", (c: Buffer) => {
      outBytes += c.length;
      if (outBytes > MAX_PLUGIN_OUTPUT_BYTES) {
        if (!tooMuch) stop(entry, "SIGKILL");
        tooMuch = true;
        out.length = 0;
        return;
      }
      out.push(c);
    });
    child.stderr.on("data", (c: Buffer) => {
      // Shown as it comes: a device-code login waits for the user to act on what it printed.
      ctx.stderr.write(c);
      err = (err + c.toString("utf8")).slice(-4096);
    });
    child.on("error", (e: NodeJS.ErrnoException) => (spawnError = e));
    child.on("close", (code) => {
      running.delete(entry);
      ctx.signal?.removeEventListener("abort", onAbort);
      const lastLines = err.trim().split("\n").slice(-3).join(" / ").trim();
      resolve({ code, stdout: Buffer.concat(out).toString("utf8"), stderrTail: lastLines, spawnError, tooMuch });
    });
  });
}

function abortError(): Error {
  return new DOMException("The operation was aborted", "AbortError");
}

/** `p`, unless `signal` fires first (then an AbortError; `p` goes on for whoever else waits). */
function untilAborted<T>(p: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return p;
  if (signal.aborted) return Promise.reject(abortError());
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(abortError());
    signal.addEventListener("abort", onAbort, { once: true });
    p.then(
      (v) => (signal.removeEventListener("abort", onAbort), resolve(v)),
      (e) => (signal.removeEventListener("abort", onAbort), reject(e)),
    );
  });
}
