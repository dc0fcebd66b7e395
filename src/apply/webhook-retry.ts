// A write refused because an admission webhook cannot be reached yet (its Pod is still starting,
// often installed by the same package) is tried again with backoff until the wave's reconcile
// timeout, as kapp does; every try says which webhook it waits for. Other failures, and a
// webhook that answered and denied, pass straight through.

import { setTimeout as sleep } from "node:timers/promises";
import { webhookUnavailableOf, type WebhookUnavailableError } from "../cluster/api-error.js";
import type { WaitingEvent } from "../model/events.js";
import { refKey, type ObjRef } from "../model/ref.js";

/**
 * How long a refused write is retried when the run has no reconcile timeout: long enough for a
 * webhook's Pod to be scheduled, pull its image and pass its readiness probe in most clusters,
 * short enough that a webhook left behind by an uninstalled product fails the apply in minutes
 * instead of hanging it (--reconcile-timeout sets it).
 */
export const WEBHOOK_RETRY_WITHOUT_TIMEOUT_MS = 120_000;
const FIRST_DELAY_MS = 500;
const MAX_DELAY_MS = 8_000;

export interface WebhookRetry {
  /** When to give up (ms since epoch). */
  deadline: number;
  /** How long the retries may last, for the message when they give up: `8s (--reconcile-timeout)`. */
  limit?: string;
  /** Each refusal, before the wait for the next try; `undefined` once the write is done (or failed for good). */
  report(waiting: WebhookUnavailableError | undefined, retryInMs?: number): void;
  signal?: AbortSignal;
}

/** The delay before try `attempt + 1`: doubling from 0.5 s to 8 s, with ±25% jitter. */
export function webhookRetryDelayMs(attempt: number, random: () => number = Math.random): number {
  return Math.round(Math.min(MAX_DELAY_MS, FIRST_DELAY_MS * 2 ** (attempt - 1)) * (0.75 + random() / 2));
}

/** `write`, tried again while a webhook cannot be reached, until `retry.deadline`. */
export async function retryWhileWebhookUnavailable<T>(write: () => Promise<T>, retry: WebhookRetry | undefined): Promise<T> {
  if (!retry) return write();
  try {
    for (let attempt = 1; ; attempt++) {
      try {
        return await write();
      } catch (err) {
        const refused = webhookUnavailableOf(err);
        const delay = webhookRetryDelayMs(attempt);
        if (!refused || retry.signal?.aborted || Date.now() + delay > retry.deadline) throw err;
        retry.report(refused, delay);
        await sleep(delay, undefined, retry.signal ? { signal: retry.signal } : undefined).catch(() => undefined);
        if (retry.signal?.aborted) throw err;
      }
    }
  } finally {
    retry.report(undefined);
  }
}

/** How long refused writes are retried, as the message that gives up says it: `8s (--reconcile-timeout)`, `2m (the limit without --reconcile-timeout)`. */
export function describeRetryLimit(timeoutMs: number | undefined): string {
  return timeoutMs === undefined ? `${briefDuration(WEBHOOK_RETRY_WITHOUT_TIMEOUT_MS)} (the limit without --reconcile-timeout)` : `${briefDuration(timeoutMs)} (--reconcile-timeout)`;
}

/** `500ms`, `8s`, `2m`, `1h30m`: Go's style, as the flag is written. */
function briefDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  const h = Math.floor(ms / 3_600_000);
  const m = Math.floor((ms % 3_600_000) / 60_000);
  const s = Math.round((ms % 60_000) / 1000);
  return [h ? `${h}h` : "", m ? `${m}m` : "", s ? `${s}s` : ""].join("") || "0s";
}

/** The one line of what the object waits for: `admission webhook "x" not reachable yet (connection refused)`. */
export function describeWebhookWait(err: WebhookUnavailableError): string {
  return `admission webhook "${err.webhook}" not reachable yet (${err.why})`;
}

export interface WebhookWaitsOptions {
  wave: number;
  /** Objects in the wave, for the progress line's count. */
  total: number;
  /** The wave's reconcile timeout; undefined: WEBHOOK_RETRY_WITHOUT_TIMEOUT_MS. */
  timeoutMs?: number;
  emit(e: WaitingEvent): void;
  signal?: AbortSignal;
}

/**
 * One wave's retries: each object's WebhookRetry (all give up at the wave's reconcile timeout),
 * and a `waiting` event whenever the set of objects held by a webhook changes, so the wait line
 * names the webhook each one waits for.
 */
export function webhookWaits(o: WebhookWaitsOptions): (ref: ObjRef) => WebhookRetry {
  const started = Date.now();
  const deadline = started + (o.timeoutMs ?? WEBHOOK_RETRY_WITHOUT_TIMEOUT_MS);
  const held = new Map<string, { ref: ObjRef; message: string }>();
  const publish = () =>
    o.emit({
      type: "waiting",
      wave: o.wave,
      pending: [...held.values()].map(({ ref, message }) => ({ ref, status: "InProgress", message, reasons: [{ message }] })),
      total: o.total,
      elapsedMs: Date.now() - started,
      timeoutMs: deadline - started,
    });
  const limit = describeRetryLimit(o.timeoutMs);
  return (ref) => ({
    deadline,
    limit,
    signal: o.signal,
    report: (waiting) => {
      const key = refKey(ref);
      if (!waiting) {
        if (held.delete(key)) publish();
        return;
      }
      held.set(key, { ref, message: describeWebhookWait(waiting) });
      publish();
    },
  });
}
