// Which failed requests kpt-ts tries again, and for how long: safe repeats only, always bounded.
import { describe, expect, it } from "vitest";
import { isIdempotent, retryDelayMs, RETRY_LIMITS, type Outcome } from "../../src/cluster/retry-policy.js";
import { mergeConcurrent, sameRefs } from "../../src/inventory/next-inventory.js";

const noJitter = () => 0.5; // jitter factor 1

describe("isIdempotent", () => {
  it.each<[string, string | undefined, boolean]>([
    ["GET", undefined, true],
    ["PUT", "application/json", true],
    ["DELETE", undefined, true],
    ["PATCH", "application/apply-patch+yaml", true],
    ["PATCH", "application/strategic-merge-patch+json", true],
    ["PATCH", "application/merge-patch+json", true],
    ["PATCH", "application/json-patch+json", false],
    ["POST", "application/json", false],
  ])("%s %s -> %s", (method, type, expected) => {
    expect(isIdempotent(method, type)).toBe(expected);
  });
});

describe("retryDelayMs", () => {
  const net = (code: string): Outcome => ({ kind: "network", code });
  const http = (status: number, retryAfterSeconds?: number): Outcome => ({ kind: "http", status, retryAfterSeconds });

  it.each<[string, Outcome, number, boolean, number | undefined]>([
    ["a refused connection never reached the server: even a POST goes again", net("ECONNREFUSED"), 1, false, 200],
    ["a reset may hide a done write: an idempotent request goes again", net("ECONNRESET"), 1, true, 200],
    ["a reset of a non-idempotent request is final", net("ECONNRESET"), 1, false, undefined],
    ["backoff doubles", net("ECONNRESET"), 3, true, 800],
    ["backoff is capped", net("ECONNRESET"), 9, true, RETRY_LIMITS.maxDelayMs],
    ["the tries are bounded", net("ECONNRESET"), RETRY_LIMITS.attempts, true, undefined],
    ["an unknown network error is final", net("CERT_HAS_EXPIRED"), 1, true, undefined],
    ["a name that does not resolve is final (a wrong address, not a hiccup)", net("ENOTFOUND"), 1, true, undefined],
    ["a server never reached in this run gets few tries (a wrong port fails fast)", { kind: "network", code: "ECONNREFUSED", reachedBefore: false }, RETRY_LIMITS.unreachedAttempts, true, undefined],
    ["a server that answered before gets all the tries (it is restarting)", { kind: "network", code: "ECONNREFUSED", reachedBefore: true }, RETRY_LIMITS.unreachedAttempts, true, 800],
    ["429 waits as long as Retry-After says, for any request", http(429, 3), 1, false, 3000],
    ["429 without Retry-After backs off", http(429), 2, false, 400],
    ["429 goes on longer than failures do", http(429, 1), RETRY_LIMITS.attempts + 5, true, 1000],
    ["429 is bounded too", http(429, 1), RETRY_LIMITS.throttledAttempts, true, undefined],
    ["Retry-After is capped", http(429, 3600), 1, true, RETRY_LIMITS.maxRetryAfterSeconds * 1000],
    ["500 on an idempotent request goes again", http(500), 1, true, 200],
    ["500 on a POST is final (it may have been done)", http(500), 1, false, undefined],
    ["503 with Retry-After: the server did nothing, any request waits", http(503, 2), 1, false, 2000],
    ["503 without Retry-After on an idempotent request", http(503), 2, true, 400],
    ["504 on an idempotent request", http(504), 1, true, 200],
    ["5xx bounded", http(503), RETRY_LIMITS.attempts, true, undefined],
    ["409 is an answer, not a fault", http(409), 1, true, undefined],
    ["404 is an answer", http(404), 1, true, undefined],
    ["422 is an answer", http(422), 1, true, undefined],
    ["403 is an answer", http(403), 1, true, undefined],
  ])("%s", (_name, outcome, attempt, idempotent, expected) => {
    expect(retryDelayMs(outcome, attempt, idempotent, RETRY_LIMITS, noJitter)).toBe(expected);
  });

  it("keeps the whole backoff of failures within half a minute", () => {
    let total = 0;
    for (let attempt = 1; ; attempt++) {
      const d = retryDelayMs(net("ECONNRESET"), attempt, true, RETRY_LIMITS, () => 1);
      if (d === undefined) break;
      total += d;
    }
    expect(total).toBeGreaterThan(15_000); // long enough to ride out an API server restart
    expect(total).toBeLessThan(30_000);
  });
});

describe("inventories written by two runs at once", () => {
  const r = (name: string) => ({ group: "", kind: "ConfigMap", namespace: "app", name });
  it.each<[string, string[], string[], string[]]>([
    ["disjoint lists are both kept", ["a"], ["b"], ["a", "b"]],
    ["overlap counted once", ["a", "b"], ["b", "c"], ["a", "b", "c"]],
    ["theirs empty (a destroy ran)", [], ["a"], ["a"]],
    ["ours empty", ["a"], [], ["a"]],
  ])("%s", (_n, theirs, ours, expected) => {
    const merged = mergeConcurrent(theirs.map(r), ours.map(r));
    expect(merged.map((x) => x.name).sort()).toEqual(expected);
  });

  it.each<[string, string[], string[], boolean]>([
    ["same objects in another order", ["a", "b"], ["b", "a"], true],
    ["one more", ["a"], ["a", "b"], false],
    ["both empty", [], [], true],
    ["different", ["a"], ["b"], false],
  ])("sameRefs: %s", (_n, a, b, expected) => {
    expect(sameRefs(a.map(r), b.map(r))).toBe(expected);
  });
});
