// When a failed request to the API server is tried again, and after how long. Pure: the
// transport asks it after each failed attempt, so the whole policy is one table of cases.
//
// What is safe to repeat: a request that never reached the server (connection refused), or one
// the server turned away unprocessed (429, or 503 with Retry-After), always; after an answer
// that may hide a done write (a reset connection, a timeout, 500/502/503/504), only an idempotent
// request: reads, PUT (a full object with its resourceVersion: a repeat after success gets 409),
// DELETE (a repeat after success gets 404, i.e. gone), merge/strategic/apply patches (the same
// patch twice gives the same object), and creates with a fixed name (a repeat after success gets
// 409 AlreadyExists, which callers read as "it exists": patch it, or compare). JSON patches
// (`add` to a list) and creates with generateName are not repeated. A request the server found
// too large (413, or etcd's "request is too large" as a 500) is never repeated: it cannot succeed.

export type Outcome =
  /**
   * The request failed before an HTTP answer: ECONNRESET, ECONNREFUSED, ETIMEDOUT... `reachedBefore`:
   * whether the server answered any request of this run (a server never reached is more likely a
   * wrong address than a restart, so it gets fewer tries).
   */
  | { kind: "network"; code: string; reachedBefore?: boolean }
  /** An HTTP error answer. */
  | { kind: "http"; status: number; retryAfterSeconds?: number; tooLarge?: boolean; webhookUnavailable?: boolean };

interface RetryLimits {
  /** Tries in all for failures (network errors, 5xx), the first included. */
  attempts: number;
  /** Tries in all for network errors while the server has not answered once in this run. */
  unreachedAttempts: number;
  /** Tries in all while the server throttles (429): waiting is the right answer, not failing. */
  throttledAttempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** Retry-After longer than this is cut to it. */
  maxRetryAfterSeconds: number;
}

/** About 22 seconds of backoff in all before a failure is reported: long enough to ride out an API server restart. */
export const RETRY_LIMITS: RetryLimits = { attempts: 10, unreachedAttempts: 3, throttledAttempts: 40, baseDelayMs: 200, maxDelayMs: 4000, maxRetryAfterSeconds: 30 };

/** Network errors that say nothing reached the server: repeating is always safe. */
const NOT_SENT = new Set(["ECONNREFUSED", "EAI_AGAIN"]);
/** Network errors after which the request may or may not have been processed. */
const MAYBE_SENT = new Set(["ECONNRESET", "EPIPE", "ETIMEDOUT", "ECONNABORTED", "EHOSTUNREACH", "ENETUNREACH", "ERR_STREAM_PREMATURE_CLOSE", "UND_ERR_SOCKET"]);
const SERVER_TROUBLE = new Set([500, 502, 503, 504]);
const IDEMPOTENT_METHODS = new Set(["GET", "HEAD", "PUT", "DELETE"]);

/** Whether a request may be sent twice without doing more than once (see the file comment). */
export function isIdempotent(method: string, contentType?: string): boolean {
  if (method === "PATCH") return contentType !== "application/json-patch+json";
  return IDEMPOTENT_METHODS.has(method);
}

/**
 * The delay before the next try, or undefined when the failure is final. `attempt` counts the
 * tries made so far (1 after the first failure).
 */
export function retryDelayMs(outcome: Outcome, attempt: number, idempotent: boolean, limits: RetryLimits = RETRY_LIMITS, random: () => number = Math.random): number | undefined {
  const jitter = 0.75 + random() / 2;
  const backoff = Math.round(Math.min(limits.maxDelayMs, limits.baseDelayMs * 2 ** (attempt - 1)) * jitter);
  if (outcome.kind === "network") {
    if (attempt >= (outcome.reachedBefore === false ? limits.unreachedAttempts : limits.attempts)) return undefined;
    if (NOT_SENT.has(outcome.code)) return backoff;
    if (MAYBE_SENT.has(outcome.code) && idempotent) return backoff;
    return undefined;
  }
  // Larger than the server (or etcd behind it) takes: the same request can never succeed.
  if (outcome.tooLarge || outcome.status === 413) return undefined;
  // An admission webhook not serving yet: the write is retried where it is made, for as long
  // as the run waits (apply/webhook-retry.ts), and says so; quick tries here would only hide it.
  if (outcome.webhookUnavailable) return undefined;
  const afterSeconds = outcome.retryAfterSeconds;
  const serverSays = afterSeconds !== undefined ? Math.round(Math.min(limits.maxRetryAfterSeconds, Math.max(1, afterSeconds)) * 1000 * jitter) : undefined;
  if (outcome.status === 429) {
    // Priority and fairness turned it away unprocessed: any request may wait and go again.
    return attempt < limits.throttledAttempts ? (serverSays ?? backoff) : undefined;
  }
  if (attempt >= limits.attempts) return undefined;
  // A 503 with Retry-After is the server saying "not now" before doing anything.
  if (outcome.status === 503 && serverSays !== undefined) return serverSays;
  if (SERVER_TROUBLE.has(outcome.status) && idempotent) return serverSays ?? backoff;
  return undefined;
}
