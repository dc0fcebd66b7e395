// HTTP to the API server: one keep-alive agent per run, JSON in and out, and the retries that
// retry-policy.ts decides: 429 (API Priority and Fairness) honours Retry-After; connection
// failures and 5xx are retried with backoff, for a bounded time, where repeating is safe.

import { Agent, request as httpsRequest } from "node:https";
import { request as httpRequest, Agent as HttpAgent, type IncomingMessage } from "node:http";
import { setTimeout as sleep } from "node:timers/promises";
import { ClusterError } from "../errors.js";
import { apiErrorFrom, ApiError } from "./api-error.js";
import type { ClusterConnection } from "./kubeconfig.js";
import { isIdempotent, retryDelayMs } from "./retry-policy.js";

export interface RequestOptions {
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  contentType?: string;
  accept?: string;
  signal?: AbortSignal;
  /** What the request is about, for error messages (e.g. `deployment.apps/web`). */
  what?: string;
  /** Whether sending it twice is harmless (see retry-policy.ts); by default from the method. */
  idempotent?: boolean;
  /** Extra request headers (If-None-Match). */
  headers?: Record<string, string>;
}

/** A cached answer: its body and the ETag the server gave it. */
export interface CachedBody {
  etag?: string;
  body: string;
}

export interface TransportStats {
  requests: number;
  retries: number;
  throttled: number;
}

export class Transport {
  readonly stats: TransportStats = { requests: 0, retries: 0, throttled: 0 };
  private readonly agent: Agent | HttpAgent;
  private readonly url: URL;
  /** Whether the server has answered once: until then, a refused connection is soon reported. */
  private reached = false;
  private auth?: Promise<{ headers: Record<string, string>; cert?: Buffer; key?: Buffer }>;

  constructor(
    readonly conn: ClusterConnection,
    maxSockets = 64,
    readonly userAgent = "kpt-ts",
  ) {
    this.url = new URL(conn.server);
    const common = { keepAlive: true, maxSockets, keepAliveMsecs: 30_000 };
    this.agent =
      this.url.protocol === "http:"
        ? new HttpAgent(common)
        : new Agent({
            ...common,
            ca: conn.ca,
            cert: conn.cert,
            key: conn.key,
            rejectUnauthorized: !conn.insecureSkipTlsVerify,
            servername: conn.tlsServerName,
          });
  }

  close(): void {
    this.agent.destroy();
  }

  private async credentials(): Promise<{ headers: Record<string, string>; cert?: Buffer; key?: Buffer }> {
    if (!this.conn.refreshAuth) return { headers: this.conn.headers };
    this.auth ??= this.conn.refreshAuth();
    return this.auth;
  }

  private path(path: string, query?: RequestOptions["query"]): string {
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined) q.set(k, String(v));
    const qs = q.toString();
    return `${this.url.pathname.replace(/\/$/, "")}${path}${qs ? `?${qs}` : ""}`;
  }

  /** Opens a request and resolves with the response stream (for watches) once headers arrive. */
  async open(method: string, path: string, opts: RequestOptions = {}): Promise<IncomingMessage> {
    const creds = await this.credentials();
    const body = opts.body === undefined ? undefined : typeof opts.body === "string" ? opts.body : JSON.stringify(opts.body);
    const headers: Record<string, string> = {
      accept: opts.accept ?? "application/json",
      "user-agent": this.userAgent,
      ...opts.headers,
      ...creds.headers,
    };
    if (body !== undefined) {
      headers["content-type"] = opts.contentType ?? "application/json";
      headers["content-length"] = String(Buffer.byteLength(body));
    }
    const reqFn = this.url.protocol === "http:" ? httpRequest : httpsRequest;
    this.stats.requests++;
    return new Promise((resolve, reject) => {
      const req = reqFn(
        {
          protocol: this.url.protocol,
          hostname: this.url.hostname,
          port: this.url.port,
          method,
          path: this.path(path, opts.query),
          headers,
          agent: creds.cert ? undefined : this.agent,
          ...(creds.cert ? { cert: creds.cert, key: creds.key, ca: this.conn.ca, rejectUnauthorized: !this.conn.insecureSkipTlsVerify } : {}),
          signal: opts.signal,
        },
        resolve,
      );
      req.on("error", reject);
      req.end(body);
    });
  }

  /**
   * A JSON request with the retry policy; throws ApiError for API failures (its `attempts` says
   * whether an earlier try may have taken effect), ClusterError when the server cannot be reached.
   */
  async request<T = any>(method: string, path: string, opts: RequestOptions = {}): Promise<T> {
    const { text } = await this.exchange(method, path, opts);
    return (text ? JSON.parse(text) : undefined) as T;
  }

  /**
   * A GET revalidated against a cached copy: sent with its ETag, a 304 answer means the cached
   * body is current. Returns the current body and, when it changed, the new entry to cache.
   */
  async revalidate(path: string, cached: CachedBody | undefined, opts: RequestOptions = {}): Promise<{ body: string; changed?: CachedBody }> {
    const headers = cached?.etag ? { ...opts.headers, "if-none-match": cached.etag } : opts.headers;
    const { status, text, etag } = await this.exchange("GET", path, { ...opts, ...(headers ? { headers } : {}) });
    if (status === 304 && cached) return { body: cached.body };
    return { body: text, changed: { ...(etag ? { etag } : {}), body: text } };
  }

  private async exchange(method: string, path: string, opts: RequestOptions): Promise<{ status: number; text: string; etag?: string }> {
    const what = opts.what ?? `${method} ${path}`;
    const idempotent = opts.idempotent ?? isIdempotent(method, opts.contentType);
    for (let attempt = 1; ; attempt++) {
      let res: IncomingMessage;
      let text: string;
      try {
        res = await this.open(method, path, opts);
        text = await readBody(res);
      } catch (err) {
        if (opts.signal?.aborted) throw err;
        if (err instanceof ClusterError) throw err; // a credential plugin's failure, already worded
        const code = (err as NodeJS.ErrnoException).code ?? "";
        const delay = retryDelayMs({ kind: "network", code, reachedBefore: this.reached }, attempt, idempotent);
        if (delay !== undefined) {
          this.stats.retries++;
          await this.pause(delay, opts.signal);
          continue;
        }
        throw connectionError(err as Error, this.conn.server, attempt);
      }
      this.reached = true;
      const status = res.statusCode ?? 0;
      const etag = typeof res.headers.etag === "string" ? res.headers.etag : undefined;
      if ((status >= 200 && status < 300) || (status === 304 && opts.headers?.["if-none-match"])) return { status, text, ...(etag ? { etag } : {}) };
      const retryAfter = res.headers["retry-after"];
      const err = apiErrorFrom(status, text, what, Array.isArray(retryAfter) ? retryAfter[0] : retryAfter);
      err.attempts = attempt;
      const delay = retryDelayMs({ kind: "http", status, retryAfterSeconds: err.retryAfterSeconds, tooLarge: err.tooLarge }, attempt, idempotent);
      if (delay === undefined) throw err;
      if (status === 429) this.stats.throttled++;
      else this.stats.retries++;
      await this.pause(delay, opts.signal);
    }
  }

  /** Waits between tries; a request that can be cancelled stops waiting when it is. */
  private async pause(ms: number, signal?: AbortSignal): Promise<void> {
    await sleep(ms, undefined, signal ? { signal } : undefined);
  }
}

function readBody(res: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    res.on("data", (c: Buffer) => chunks.push(c));
    res.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    res.on("error", reject);
  });
}

export function connectionError(err: Error, server: string, attempts = 1): ClusterError & { attempts: number } {
  const code = (err as NodeJS.ErrnoException).code ?? "";
  const hints: Record<string, string> = {
    ECONNREFUSED: "nothing listens there: is the cluster running, and is this the right server in your kubeconfig?",
    ECONNRESET: "the connection was cut before an answer came: the API server (or a proxy in front of it) is failing or restarting; run the command again once it is healthy",
    EPIPE: "the connection was cut before an answer came: the API server (or a proxy in front of it) is failing or restarting; run the command again once it is healthy",
    ENOTFOUND: "the host name does not resolve: check the server address in your kubeconfig",
    ETIMEDOUT: "the connection timed out: check the network path to the cluster",
    DEPTH_ZERO_SELF_SIGNED_CERT: "the server's certificate is not trusted: check certificate-authority in your kubeconfig",
    UNABLE_TO_VERIFY_LEAF_SIGNATURE: "the server's certificate is not trusted: check certificate-authority in your kubeconfig",
    SELF_SIGNED_CERT_IN_CHAIN: "the server's certificate is not trusted: check certificate-authority in your kubeconfig",
    ERR_TLS_CERT_ALTNAME_INVALID: "the server's certificate does not name this address: check the server in your kubeconfig",
  };
  const tries = attempts > 1 ? ` (${attempts} tries)` : "";
  return Object.assign(new ClusterError(`cannot reach the cluster at ${server}${tries}: ${hints[code] ?? err.message}`, { cause: err, detail: `${code} ${err.message}` }), { attempts });
}

export { ApiError };
