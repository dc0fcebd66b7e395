// The run's lock, its pure half: the Lease's name beside each inventory kind, what a run does on
// finding one (take it, or wait for whom and how long), the body it writes, and what it says.

import { describe, expect, it } from "vitest";
import { applySetFromFlag } from "../../src/inventory/applyset.js";
import { decideLease, heldMessage, holderIdentity, leaseBody, LEASE_DURATION_SECONDS, lockRef, microTime, RENEW_EVERY_MS } from "../../src/inventory/run-lock.js";
import type { InventoryInfo, KubeObject } from "../../src/model/kube-object.js";

const RG: InventoryInfo = { name: "inv", namespace: "app", id: "inv-id", labels: {}, annotations: {}, origin: "resourcegroup", source: { file: "rg.yaml", line: 1 } };
const NOW = new Date("2026-11-27T12:00:00.000Z");
const ago = (s: number) => microTime(new Date(NOW.getTime() - s * 1000));
const lease = (spec: Record<string, unknown>): KubeObject => ({ apiVersion: "coordination.k8s.io/v1", kind: "Lease", metadata: { name: "l", namespace: "app" }, spec });

describe("the Lease's name", () => {
  it.each([
    [RG, "kpt-ts-lock.resourcegroup.inv"],
    [applySetFromFlag("web", "app"), "kpt-ts-lock.applyset-secret.web"],
    [applySetFromFlag("configmaps/web", "app"), "kpt-ts-lock.applyset-configmap.web"],
  ])("%j: %s, in the inventory's namespace", (info, name) => {
    expect(lockRef(info)).toEqual({ group: "coordination.k8s.io", kind: "Lease", namespace: "app", name });
  });

  it("stays a valid, distinct name for the longest inventory names", () => {
    const a = lockRef({ ...RG, name: `${"a".repeat(250)}1` });
    const b = lockRef({ ...RG, name: `${"a".repeat(250)}2` });
    for (const r of [a, b]) {
      expect(r.name.length).toBeLessThanOrEqual(253);
      expect(r.name).toMatch(/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/);
    }
    expect(a.name).not.toBe(b.name);
  });
});

describe("what a run does on finding the Lease", () => {
  const me = "alice@laptop pid 1 (kpt-ts live apply)";
  it.each([
    ["none", undefined, { action: "take" }],
    ["released (no holder)", lease({ holderIdentity: "", renewTime: ago(1) }), { action: "take" }],
    ["its own (a retried run of this process)", lease({ holderIdentity: me, renewTime: ago(1) }), { action: "take" }],
    ["held, renewed 5 s ago", lease({ holderIdentity: "bob", leaseDurationSeconds: 20, acquireTime: ago(60), renewTime: ago(5) }), { action: "wait", expiresInMs: 15_000 }],
    ["held by a run killed 21 s ago (no renewal since)", lease({ holderIdentity: "bob", leaseDurationSeconds: 20, renewTime: ago(21) }), { action: "take" }],
    ["held, its own duration longer", lease({ holderIdentity: "bob", leaseDurationSeconds: 60, renewTime: ago(30) }), { action: "wait", expiresInMs: 30_000 }],
    ["held, saying nothing of when", lease({ holderIdentity: "bob" }), { action: "take" }],
  ])("%s", (_, l, want) => {
    expect(decideLease(l, NOW, me)).toMatchObject(want);
  });

  it("renews at a third of the duration, which is what a killed run blocks the next for at most", () => {
    expect(LEASE_DURATION_SECONDS).toBe(20);
    expect(RENEW_EVERY_MS * 3).toBe(LEASE_DURATION_SECONDS * 1000);
  });
});

describe("the Lease written and the refusal", () => {
  it("names the holder (user, host, pid, command) and when it started, in the server's MicroTime", () => {
    const identity = holderIdentity({ user: "alice", host: "ci-7", pid: 4242, command: "apply" });
    expect(identity).toBe("alice@ci-7 pid 4242 (kpt-ts live apply)");
    const body = leaseBody(lockRef(RG), identity, new Date("2026-11-27T11:59:00.123Z"), NOW);
    expect(body.spec).toEqual({ holderIdentity: identity, leaseDurationSeconds: 20, acquireTime: "2026-11-27T11:59:00.123000Z", renewTime: "2026-11-27T12:00:00.000000Z" });
    // Taken over from another holder: one more transition.
    expect(leaseBody(lockRef(RG), identity, NOW, NOW, lease({ holderIdentity: "bob", leaseTransitions: 2 })).spec).toMatchObject({ leaseTransitions: 3 });
  });

  it("says who holds the lock, since when, and when it expires at the latest", () => {
    const holder = { identity: "bob@ci-7 pid 42 (kpt-ts live apply)", acquired: ago(75), renewed: ago(5), durationSeconds: 20 };
    expect(heldMessage(RG, holder, 15_000, NOW)).toBe(
      "the inventory ResourceGroup app/inv is locked by another run: bob@ci-7 pid 42 (kpt-ts live apply) since 2026-11-27T11:58:45Z (75s ago); the lock (Lease app/kpt-ts-lock.resourcegroup.inv) is released when that run ends, or expires 15s from now if it stopped renewing it",
    );
    expect(heldMessage(RG, holder, 15_000, NOW, 30_000)).toContain(", still after waiting 30s (--lock-timeout);");
  });
});
