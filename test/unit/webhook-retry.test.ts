// A write refused because an admission webhook cannot be reached: which API answers count as
// that (the server's own wording), and how the write is tried again.

import { describe, expect, it } from "vitest";
import { apiErrorFrom, webhookUnavailableOf, WebhookUnavailableError } from "../../src/cluster/api-error.js";
import { retryDelayMs } from "../../src/cluster/retry-policy.js";
import { describeRetryLimit, retryWhileWebhookUnavailable, webhookRetryDelayMs, webhookWaits } from "../../src/apply/webhook-retry.js";
import type { WaitingEvent } from "../../src/model/events.js";

const status = (code: number, message: string) => JSON.stringify({ kind: "Status", apiVersion: "v1", status: "Failure", message, reason: code === 500 ? "InternalError" : "BadRequest", code });
const internal = (cause: string) => apiErrorFrom(500, status(500, `Internal error occurred: failed calling webhook "validate.demo.kpt-ts.dev": ${cause}`), "create ConfigMap c");

describe("webhookUnavailableOf", () => {
  it.each<[string, string, string | undefined]>([
    ["connection refused", 'failed to call webhook: Post "https://127.0.0.1:9443/validate?timeout=10s": dial tcp 127.0.0.1:9443: connect: connection refused', "connection refused"],
    ["no endpoints", 'failed to call webhook: Post "https://hook.app.svc:443/validate?timeout=10s": no endpoints available for service "hook"', 'no endpoints available for service "hook"'],
    ["no Service", 'failed to call webhook: Post "https://hook.app.svc:443/validate?timeout=10s": service "hook" not found', 'service "hook" not found'],
    ["a timeout", 'failed to call webhook: Post "https://hook.app.svc:443/validate?timeout=10s": context deadline exceeded', "timed out"],
    ["the connection closed", 'failed to call webhook: Post "https://127.0.0.1:9443/validate?timeout=10s": EOF', "connection closed"],
    ["a certificate the server does not trust is not a start-up delay", 'failed to call webhook: Post "https://127.0.0.1:9443/validate?timeout=10s": tls: failed to verify certificate: x509: certificate signed by unknown authority', undefined],
  ])("%s", (_name, cause, why) => {
    const err = internal(cause);
    expect(webhookUnavailableOf(err)?.why).toBe(why);
    if (why) {
      expect(err).toBeInstanceOf(WebhookUnavailableError);
      expect((err as WebhookUnavailableError).webhook).toBe("validate.demo.kpt-ts.dev");
    }
  });

  it("a webhook that answered and denied is not unavailable", () => {
    const err = apiErrorFrom(400, status(400, 'admission webhook "validate.demo.kpt-ts.dev" denied the request: no'), "create ConfigMap c");
    expect(webhookUnavailableOf(err)).toBeUndefined();
  });

  it("the transport leaves its retries to the apply (which says which webhook it waits for)", () => {
    expect(retryDelayMs({ kind: "http", status: 500, webhookUnavailable: true }, 1, true)).toBeUndefined();
    expect(retryDelayMs({ kind: "http", status: 500 }, 1, true)).toBeDefined();
  });
});

describe("retryWhileWebhookUnavailable", () => {
  it("tries again until the webhook serves, reporting each refusal, then clears the report", async () => {
    const reports: (string | undefined)[] = [];
    let calls = 0;
    const result = await retryWhileWebhookUnavailable(
      async () => {
        if (++calls < 3) throw internal('failed to call webhook: Post "https://127.0.0.1:1/": dial tcp 127.0.0.1:1: connect: connection refused');
        return "written";
      },
      { deadline: Date.now() + 60_000, report: (w) => reports.push(w?.webhook) },
    );
    expect(result).toBe("written");
    expect(calls).toBe(3);
    expect(reports).toEqual(["validate.demo.kpt-ts.dev", "validate.demo.kpt-ts.dev", undefined]);
  });

  it("gives up at the deadline with the server's error", async () => {
    const err = internal('failed to call webhook: Post "https://127.0.0.1:1/": dial tcp 127.0.0.1:1: connect: connection refused');
    await expect(retryWhileWebhookUnavailable(async () => Promise.reject(err), { deadline: Date.now() + 100, report: () => undefined })).rejects.toBe(err);
  });

  it("does not retry any other failure", async () => {
    let calls = 0;
    const err = apiErrorFrom(422, status(422, "ConfigMap \"c\" is invalid"), "create ConfigMap c");
    await expect(retryWhileWebhookUnavailable(async () => (calls++, Promise.reject(err)), { deadline: Date.now() + 60_000, report: () => undefined })).rejects.toBe(err);
    expect(calls).toBe(1);
  });

  it.each([
    [1, 500],
    [2, 1000],
    [4, 4000],
    [10, 8000],
  ])("waits %i: %i ms (without jitter)", (attempt, ms) => {
    expect(webhookRetryDelayMs(attempt, () => 0.5)).toBe(ms);
  });
});

describe("webhookWaits", () => {
  it("says in the wave's waiting line which webhook each held object waits for", () => {
    const events: WaitingEvent[] = [];
    const forRef = webhookWaits({ wave: 1, total: 3, timeoutMs: 60_000, emit: (e) => events.push(e) });
    const ref = { group: "", kind: "ConfigMap", namespace: "app", name: "c" };
    const retry = forRef(ref);
    retry.report(webhookUnavailableOf(internal('failed to call webhook: Post "https://127.0.0.1:1/": dial tcp 127.0.0.1:1: connect: connection refused')));
    retry.report(undefined);
    expect(events.map((e) => e.pending.map((p) => p.message))).toEqual([['admission webhook "validate.demo.kpt-ts.dev" not reachable yet (connection refused)'], []]);
    expect(events[0]).toMatchObject({ wave: 1, total: 3, timeoutMs: 60_000 });
  });
});

describe("the limit the message that gives up names (issue 36: it said 2m when --reconcile-timeout=8s was given)", () => {
  it.each([
    [8_000, "8s (--reconcile-timeout)"],
    [90_000, "1m30s (--reconcile-timeout)"],
    [5_400_000, "1h30m (--reconcile-timeout)"],
    [500, "500ms (--reconcile-timeout)"],
    [undefined, "2m (the limit without --reconcile-timeout)"],
  ])("%s ms: %s", (timeoutMs, text) => {
    expect(describeRetryLimit(timeoutMs)).toBe(text);
    expect(webhookWaits({ wave: 0, total: 1, timeoutMs, emit: () => undefined })({ group: "", kind: "ConfigMap", namespace: "app", name: "c" }).limit).toBe(text);
  });
});
