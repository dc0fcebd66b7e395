// HTTP to the API server: one keep-alive agent per run, JSON in and out, and the retries that
// retry-policy.ts decides: 429 (API Priority and Fairness) honours Retry-After; connection
// failures and 5xx are retried with backoff, for a bounded time, where repeating is safe.

import { setLongTimeout } from "../util/long-timer.js";
import { Agent, request as httpsRequest } from "node:https";
import { request as httpRequest, Agent as HttpAgent, type IncomingHttpHeaders, type IncomingMessage } from "node:http";
import type { Socket } from "node:net";
import { connect as tlsConnect, createSecureContext } from "node:tls";
import type { Readable } from "node:stream";
import { setTimeout as sleep } from "node:timers/promises";
import { createGunzip } from "node:zlib";
import { ClusterError } from "../model/errors.js";
import { AnswerTooLargeError, parseJsonAnswer } from "./answer-check.js";
import { apiErrorFrom, ApiError, WebhookUnavailableError } from "./api-error.js";
import type { Credentials } from "./credential-source.js";
import type { ClusterConnection } from "./kubeconfig.js";
import { openTunnel, parseProxyUrl, proxyFromEnvironment } from "./proxy.js";
import { isIdempotent, retryDelayMs } from "./retry-policy.js";

interface RequestOptions {
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

interface TransportStats {
  requests: number;
  retries: number;
  throttled: number;
  /** Bytes received on the wire (compressed when the server compressed them) and after decompression. */
  wireBytes: number;
  bodyBytes: number;
}

/** A response whose body is already decompressed. */
interface Response {
  statusCode: number;
  headers: IncomingHttpHeaders;
  body: Readable;
  /** Whether the server sent it gzip-compressed. */
  compressed: boolean;
  destroy(): void;
}

/** --request-timeout ran out: not retried (kubectl gives up on the request). */
class RequestTimeoutError extends ClusterError {}

/**
 * The largest answer read (after decompression): no real one comes near it (a list page is 500
 * objects of at most 1.5 MiB each in etcd, and real ones are a few MiB), and Node could not hold
 * a much larger text anyway. Above it the request fails (exit 1) with memory bounded.
 */
const MAX_ANSWER_BYTES = 256 * 1024 * 1024;

/** kubectl's (Go's net/http) limits on opening a connection: 30 s to connect, then 10 s for the TLS handshake. */
const CONNECT_TIMEOUT_MS = 30_000;
const TLS_HANDSHAKE_TIMEOUT_MS = 10_000;

/** A client certificate and key as one string, made once per pair of buffers (every request asks). */
const identities = new WeakMap<Buffer, Map<Buffer | undefined, string>>();

function identityOf(cert: Buffer, key: Buffer | undefined): string {
  let byKey = identities.get(cert);
  if (!byKey) identities.set(cert, (byKey = new Map()));
  let id = byKey.get(key);
  if (id === undefined) byKey.set(key, (id = `${cert.toString("base64")}|${key?.toString("base64") ?? ""}`));
  return id;
}

export class Transport {
  readonly stats: TransportStats = { requests: 0, retries: 0, throttled: 0, wireBytes: 0, bodyBytes: 0 };
  private readonly agents = new Map<string, Agent | HttpAgent>();
  private readonly url: URL;
  /** The server URL's path (a kubeconfig may put the API server below one), without its last '/'. */
  private readonly prefix: string;
  private readonly proxy?: URL;
  /** Whether the server has answered once: until then, a refused connection is soon reported. */
  private reached = false;

  constructor(
    readonly conn: ClusterConnection,
    private readonly maxSockets = 64,
    readonly userAgent = "kpt-ts",
  ) {
    this.url = new URL(conn.server);
    this.prefix = this.url.pathname.replace(/\/$/, "");
    // The cluster's proxy-url wins; without it, the environment decides (kubectl's rule).
    this.proxy = conn.proxyUrl ? parseProxyUrl(conn.proxyUrl) : proxyFromEnvironment(this.url, conn.env);
    if (conn.proxyUrl && !this.proxy) throw new ClusterError(`the cluster's proxy-url ${JSON.stringify(conn.proxyUrl)} is not a URL`, { detail: "Use http://, https:// or socks5:// HOST:PORT." });
  }

  close(): void {
    for (const a of this.agents.values()) a.destroy();
  }

  /**
   * One keep-alive agent per client identity: a plugin that hands out a new client certificate
   * gets a new agent (with the same TLS settings and proxy).
   */
  private agentFor(creds: Credentials): Agent | HttpAgent {
    const id = creds.cert ? identityOf(creds.cert, creds.key) : "";
    let agent = this.agents.get(id);
    if (agent) return agent;
    const common = { keepAlive: true, maxSockets: this.maxSockets, keepAliveMsecs: 30_000 };
    const proxy = this.proxy;
    const ca = this.conn.ca;
    const tls = this.url.protocol !== "http:";
    // One TLS context for every connection of the agent: without it, Node builds a new one
    // (parsing the CA and the client key) for each connection, a few ms apiece.
    agent = tls
      ? new Agent({ ...common, secureContext: createSecureContext({ ca, cert: creds.cert, key: creds.key }), rejectUnauthorized: !this.conn.insecureSkipTlsVerify, servername: this.conn.tlsServerName })
      : new HttpAgent(common);
    armConnectTimeouts(agent, tls);
    if (proxy) {
      (agent as any).createConnection = (options: any, cb: (err: Error | null, s?: unknown) => void) => {
        openTunnel(proxy, options.host, Number(options.port), { ca }).then((socket) => {
          if (!tls) return cb(null, socket);
          // TLS to the API server inside the tunnel, with the agent's own TLS options.
          const tlsSocket = tlsConnect({ ...options, socket, servername: options.servername || this.conn.tlsServerName || (/^[\d.]+$|:/.test(options.host) ? undefined : options.host) });
          limitHandshake(tlsSocket, false);
          cb(null, tlsSocket);
        }, cb);
        return undefined;
      };
    }
    // Agents of earlier certificates stay until close(): a watch opened with one keeps running.
    this.agents.set(id, agent);
    return agent;
  }

  /** The full URL of a path on this server, for messages. */
  urlOf(path: string): string {
    return `${this.url.origin}${this.path(path)}`;
  }

  private path(path: string, query?: RequestOptions["query"]): string {
    // Every request and every message names its path: without a query, no URLSearchParams.
    if (!query) return this.prefix + path;
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(query)) if (v !== undefined) q.set(k, String(v));
    const qs = q.toString();
    return `${this.prefix}${path}${qs ? `?${qs}` : ""}`;
  }

  private headersFor(creds: Credentials, opts: RequestOptions, body: string | undefined): Record<string, string | string[]> {
    const headers: Record<string, string | string[]> = {
      accept: opts.accept ?? "application/json",
      "user-agent": this.userAgent,
      ...opts.headers,
      ...creds.headers,
    };
    // As kubectl (Go's transport): ask for gzip unless disabled; the server compresses large answers.
    if (!this.conn.disableCompression) headers["accept-encoding"] = "gzip";
    const imp = this.conn.impersonate;
    if (imp) {
      if (imp.user) headers["impersonate-user"] = imp.user;
      if (imp.uid) headers["impersonate-uid"] = imp.uid;
      if (imp.groups.length) headers["impersonate-group"] = imp.groups;
      for (const [k, v] of Object.entries(imp.extra)) headers[`impersonate-extra-${encodeURIComponent(k)}`] = v;
    }
    if (body !== undefined) {
      headers["content-type"] = opts.contentType ?? "application/json";
      headers["content-length"] = String(Buffer.byteLength(body));
    }
    return headers;
  }

  /**
   * Opens a request and resolves with the response (its body decompressed) once headers arrive.
   * A 401 to credentials that can be fetched again (a plugin's, a token file's) fetches them
   * once and sends the request once more.
   */
  async open(method: string, path: string, opts: RequestOptions = {}): Promise<Response> {
    for (let tries = 0; ; tries++) {
      const creds = await this.conn.credentials.get(opts.signal);
      const res = await this.send(method, path, opts, creds);
      if (res.statusCode === 401 && tries === 0 && this.conn.credentials.invalidate(creds.generation)) {
        res.destroy();
        continue;
      }
      return res;
    }
  }

  private send(method: string, path: string, opts: RequestOptions, creds: Credentials): Promise<Response> {
    const body = opts.body === undefined ? undefined : typeof opts.body === "string" ? opts.body : JSON.stringify(opts.body);
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
          headers: this.headersFor(creds, opts, body),
          agent: this.agentFor(creds),
          signal: opts.signal,
        },
        (res: IncomingMessage) => {
          const gz = /gzip/i.test(String(res.headers["content-encoding"] ?? ""));
          let out: Readable = res;
          if (gz) {
            res.on("data", (c: Buffer) => (this.stats.wireBytes += c.length));
            out = res.pipe(createGunzip());
            res.on("error", (e) => out.destroy(e));
          }
          resolve({ statusCode: res.statusCode ?? 0, headers: res.headers, body: out, compressed: gz, destroy: () => (res.destroy(), out.destroy()) });
        },
      );
      req.on("error", reject);
      req.end(body);
    });
  }

  /** Runs `fn` with a signal that also fires when --request-timeout runs out. */
  private async timed<T>(opts: RequestOptions, what: string, fn: (signal: AbortSignal | undefined) => Promise<T>): Promise<T> {
    const ms = this.conn.requestTimeoutMs;
    if (!ms) return fn(opts.signal);
    const ctl = new AbortController();
    const onAbort = () => ctl.abort(opts.signal?.reason);
    opts.signal?.addEventListener("abort", onAbort, { once: true });
    let timedOut = false;
    const timer = setLongTimeout(() => {
      timedOut = true;
      ctl.abort();
    }, ms);
    try {
      return await fn(ctl.signal);
    } catch (err) {
      if (timedOut) {
        throw new RequestTimeoutError(`the request to ${this.conn.server} (${what}) did not finish within --request-timeout=${formatMs(ms)}`, {
          cause: err,
          detail: "The API server (or a proxy in front of it) is slow or stuck: try again, or raise --request-timeout (0: no limit).",
        });
      }
      throw err;
    } finally {
      timer.clear();
      opts.signal?.removeEventListener("abort", onAbort);
    }
  }

  /** Opens a long-running request (a watch): --request-timeout bounds the wait for its answer's headers. */
  async openStream(method: string, path: string, opts: RequestOptions = {}): Promise<Response> {
    if (!this.conn.requestTimeoutMs) return this.open(method, path, opts);
    const outer = opts.signal;
    const ctl = new AbortController();
    outer?.addEventListener("abort", () => ctl.abort(outer.reason), { once: true });
    return this.timed({ ...opts, signal: undefined }, opts.what ?? `${method} ${path}`, (s) => {
      s?.addEventListener("abort", () => ctl.abort(), { once: true });
      return this.open(method, path, { ...opts, signal: ctl.signal });
    });
  }

  /**
   * A JSON request with the retry policy; throws ApiError for API failures (its `attempts` says
   * whether an earlier try may have taken effect), ClusterError when the server cannot be reached.
   */
  async request<T = any>(method: string, path: string, opts: RequestOptions = {}): Promise<T> {
    const { text } = await this.exchange(method, path, opts);
    return (text ? parseJsonAnswer(text, this.urlOf(path)) : undefined) as T;
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
      let res: Response;
      let text: string;
      try {
        [res, text] = await this.timed(opts, what, async (signal) => {
          const r = await this.open(method, path, { ...opts, signal });
          const t = await readAnswer(r, this.urlOf(path));
          this.stats.bodyBytes += Buffer.byteLength(t);
          if (!r.compressed) this.stats.wireBytes += Buffer.byteLength(t);
          return [r, t] as const;
        });
      } catch (err) {
        if (opts.signal?.aborted) throw err;
        if (err instanceof ClusterError) throw err; // a credential plugin's failure or a timeout, already worded
        const code = (err as NodeJS.ErrnoException).code ?? "";
        const delay = retryDelayMs({ kind: "network", code, reachedBefore: this.reached }, attempt, idempotent);
        if (delay !== undefined) {
          this.stats.retries++;
          await sleep(delay, undefined, { signal: opts.signal });
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
      const delay = retryDelayMs({ kind: "http", status, retryAfterSeconds: err.retryAfterSeconds, tooLarge: err.tooLarge, webhookUnavailable: err instanceof WebhookUnavailableError }, attempt, idempotent);
      if (delay === undefined) throw err;
      if (status === 429) this.stats.throttled++;
      else this.stats.retries++;
      await sleep(delay, undefined, { signal: opts.signal });
    }
  }
}

function formatMs(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000}s` : `${ms}ms`;
}

/**
 * A response's body as text, at most `limit` bytes after decompression: past it the response is
 * dropped (memory stays bounded, whatever a gzip bomb expands to) and AnswerTooLargeError names
 * the URL.
 */
export function readAnswer(res: Response, url: string, limit = MAX_ANSWER_BYTES): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (c: Buffer) => {
      size += c.length;
      if (size > limit) {
        res.body.off("data", onData);
        chunks.length = 0;
        res.destroy();
        reject(answerTooLarge(url, limit, res.compressed));
        return;
      }
      chunks.push(c);
    };
    res.body.on("data", onData);
    res.body.on("end", () => resolve(Buffer.concat(chunks, size).toString("utf8")));
    res.body.on("error", (e) => (size > limit ? undefined : reject(e)));
  });
}

/** The largest watch event (one object and its framing): objects are at most 3 MiB as the API server takes them. */
const MAX_WATCH_EVENT_BYTES = 64 * 1024 * 1024;

/** A streamed answer (a watch) line by line, each line at most `limit` bytes (else AnswerTooLargeError). */
export async function* answerLines(res: Response, url: string, limit = MAX_WATCH_EVENT_BYTES): AsyncIterable<string> {
  let parts: Buffer[] = [];
  let size = 0;
  for await (const chunk of res.body as AsyncIterable<Buffer>) {
    let start = 0;
    for (let nl = chunk.indexOf(10); nl !== -1; nl = chunk.indexOf(10, start)) {
      parts.push(chunk.subarray(start, nl));
      yield Buffer.concat(parts).toString("utf8");
      parts = [];
      size = 0;
      start = nl + 1;
    }
    if (start < chunk.length) {
      size += chunk.length - start;
      if (size > limit) {
        res.destroy();
        throw answerTooLarge(url, limit, res.compressed);
      }
      parts.push(chunk.subarray(start));
    }
  }
  if (size > 0) yield Buffer.concat(parts).toString("utf8");
}

function answerTooLarge(url: string, limit: number, compressed: boolean): AnswerTooLargeError {
  const mib = Math.round(limit / 1024 / 1024);
  return new AnswerTooLargeError(`the answer of ${url} is larger than ${mib} MiB${compressed ? " once decompressed" : ""}, more than any Kubernetes API server sends: the request was stopped`, {
    detail: "Check that the server in your kubeconfig is a Kubernetes API server, not a proxy or something else in front of one.",
  });
}

/**
 * kubectl's limits on opening a connection (Go's net/http): a listener that accepts and never
 * answers, or never speaks TLS, fails after 30 s (connect) or 10 s (TLS handshake) instead of
 * hanging the run for ever.
 */
function armConnectTimeouts(agent: Agent | HttpAgent, tls: boolean): void {
  const create = (agent as any).createConnection as (options: unknown, cb?: unknown) => Socket | undefined;
  (agent as any).createConnection = function (this: unknown, options: unknown, cb?: unknown) {
    const socket = create.call(this, options, cb);
    if (socket) limitHandshake(socket, !tls ? "connect-only" : true);
    return socket;
  };
}

function limitHandshake(socket: Socket, phase: boolean | "connect-only"): void {
  let timer: NodeJS.Timeout | undefined;
  const fail = (code: string, message: string) => {
    const err = Object.assign(new Error(message), { code });
    socket.destroy(err);
  };
  const handshake = () => {
    clearTimeout(timer);
    if (phase === "connect-only") return;
    timer = setTimeout(() => fail("ETLSHANDSHAKETIMEOUT", `TLS handshake timeout (${TLS_HANDSHAKE_TIMEOUT_MS / 1000}s)`), TLS_HANDSHAKE_TIMEOUT_MS);
    timer.unref();
  };
  const done = () => clearTimeout(timer);
  // A socket handed over already connected (inside a proxy's tunnel) goes straight to its handshake.
  if (phase === false || !socket.connecting) handshake();
  else {
    timer = setTimeout(() => fail("ETIMEDOUT", `connect timeout (${CONNECT_TIMEOUT_MS / 1000}s)`), CONNECT_TIMEOUT_MS);
    timer.unref();
    socket.once("connect", handshake);
  }
  socket.once("secureConnect", done);
  socket.once("close", done);
}

function connectionError(err: Error, server: string, attempts = 1): ClusterError & { attempts: number } {
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
    ETLSHANDSHAKETIMEOUT: `it accepted the connection but its TLS handshake did not finish within ${TLS_HANDSHAKE_TIMEOUT_MS / 1000} s (kubectl's limit too): is this the API server's address and port, and does it speak TLS?`,
  };
  const tries = attempts > 1 ? ` (${attempts} tries)` : "";
  return Object.assign(new ClusterError(`cannot reach the cluster at ${server}${tries}: ${hints[code] ?? err.message}`, { cause: err, detail: `${code} ${err.message}` }), { attempts });
}

export { ApiError };
