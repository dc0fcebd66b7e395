// HTTP to the API server: one keep-alive agent per run, JSON in and out, and the retry policy
// in one place: 429 (API Priority and Fairness) honours Retry-After and is never a failure;
// connection resets and 5xx on reads are retried with backoff.

import { Agent, request as httpsRequest } from "node:https";
import { request as httpRequest, Agent as HttpAgent, type IncomingMessage } from "node:http";
import { setTimeout as sleep } from "node:timers/promises";
import { ClusterError } from "../errors.js";
import { apiErrorFrom, ApiError } from "./api-error.js";
import type { ClusterConnection } from "./kubeconfig.js";

export interface RequestOptions {
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  contentType?: string;
  accept?: string;
  signal?: AbortSignal;
  /** What the request is about, for error messages (e.g. `deployment.apps/web`). */
  what?: string;
}

export interface TransportStats {
  requests: number;
  retries: number;
  throttled: number;
}

const MAX_ATTEMPTS = 8;
const READ_METHODS = new Set(["GET", "HEAD"]);

export class Transport {
  readonly stats: TransportStats = { requests: 0, retries: 0, throttled: 0 };
  private readonly agent: Agent | HttpAgent;
  private readonly url: URL;
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

  /** A JSON request with the retry policy; throws ApiError for API failures. */
  async request<T = any>(method: string, path: string, opts: RequestOptions = {}): Promise<T> {
    const what = opts.what ?? `${method} ${path}`;
    for (let attempt = 1; ; attempt++) {
      let res: IncomingMessage;
      try {
        res = await this.open(method, path, opts);
      } catch (err) {
        if (opts.signal?.aborted) throw err;
        if (err instanceof ClusterError) throw err; // a credential plugin's failure, already worded
        const code = (err as NodeJS.ErrnoException).code ?? "";
        const transient = ["ECONNRESET", "EPIPE", "ETIMEDOUT", "EAI_AGAIN", "ECONNREFUSED"].includes(code);
        if (transient && attempt < 4 && (READ_METHODS.has(method) || code !== "ETIMEDOUT")) {
          this.stats.retries++;
          await sleep(200 * 2 ** attempt);
          continue;
        }
        throw connectionError(err as Error, this.conn.server);
      }
      const text = await readBody(res);
      const status = res.statusCode ?? 0;
      if (status >= 200 && status < 300) return (text ? JSON.parse(text) : undefined) as T;
      const retryAfter = res.headers["retry-after"];
      const err = apiErrorFrom(status, text, what, Array.isArray(retryAfter) ? retryAfter[0] : retryAfter);
      if (status === 429 && attempt < MAX_ATTEMPTS * 4) {
        // The server asked us to slow down; waiting is the correct answer, not a failure.
        this.stats.throttled++;
        await sleep(Math.min(30, Math.max(1, err.retryAfterSeconds ?? 1)) * 1000 * (0.75 + Math.random() / 2));
        continue;
      }
      const retriable = (status === 500 || status === 502 || status === 503 || status === 504) && READ_METHODS.has(method);
      if ((retriable || (status === 503 && err.retryAfterSeconds !== undefined)) && attempt < MAX_ATTEMPTS) {
        this.stats.retries++;
        await sleep(err.retryAfterSeconds !== undefined ? err.retryAfterSeconds * 1000 : 100 * 2 ** attempt);
        continue;
      }
      throw err;
    }
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

export function connectionError(err: Error, server: string): ClusterError {
  const code = (err as NodeJS.ErrnoException).code ?? "";
  const hints: Record<string, string> = {
    ECONNREFUSED: "nothing listens there: is the cluster running, and is this the right server in your kubeconfig?",
    ENOTFOUND: "the host name does not resolve: check the server address in your kubeconfig",
    ETIMEDOUT: "the connection timed out: check the network path to the cluster",
    DEPTH_ZERO_SELF_SIGNED_CERT: "the server's certificate is not trusted: check certificate-authority in your kubeconfig",
    UNABLE_TO_VERIFY_LEAF_SIGNATURE: "the server's certificate is not trusted: check certificate-authority in your kubeconfig",
    SELF_SIGNED_CERT_IN_CHAIN: "the server's certificate is not trusted: check certificate-authority in your kubeconfig",
    ERR_TLS_CERT_ALTNAME_INVALID: "the server's certificate does not name this address: check the server in your kubeconfig",
  };
  return new ClusterError(`cannot reach the cluster at ${server}: ${hints[code] ?? err.message}`, { cause: err, detail: `${code} ${err.message}` });
}

export { ApiError };
