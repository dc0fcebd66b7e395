// Issue 33: one run at a time per inventory, for a ResourceGroup and an ApplySet alike. While an
// apply runs (a Deployment that never becomes ready keeps it waiting), a second apply of the
// package exits 2 within a second or two naming the holder and when it started; with
// --lock-timeout it waits, then runs; dry runs, live diff and live status take no lock. A holder
// killed with SIGKILL blocks the next run for at most the lease's 20 seconds.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { startKptTs, type BackgroundRun } from "../helpers/background.js";
import { writePackage } from "../helpers/fixtures.js";
import { createNamespace, kpt, kptTs, kubectlJson } from "../helpers/run.js";
import { configMap, docs, getObject, printed } from "../helpers/scenario.js";

const LEASE_SECONDS = 20;

function stuckDeployment(ns: string): string {
  return `apiVersion: apps/v1
kind: Deployment
metadata: {name: stuck, namespace: ${ns}}
spec:
  replicas: 1
  selector: {matchLabels: {app: stuck}}
  template:
    metadata: {labels: {app: stuck}}
    spec:
      nodeSelector: {no-such-node: "true"}
      containers: [{name: c, image: nginx}]
`;
}

const kinds = [
  { kind: "ResourceGroup", init: [] as string[], lease: "kpt-ts-lock.resourcegroup.locked" },
  { kind: "ApplySet", init: ["--inventory-kind", "applyset"], lease: "kpt-ts-lock.applyset-secret.locked" },
];

/** A package whose apply waits on a Deployment that never becomes ready, applied in the background until it is waiting. */
async function holdingRun(kind: (typeof kinds)[number], prefix: string): Promise<{ ns: string; dir: string; holder: BackgroundRun }> {
  const ns = await createNamespace(prefix);
  const dir = await writePackage({ "objects.yaml": docs(configMap("one", ns), stuckDeployment(ns)) });
  const init = await kptTs(["live", "init", ...kind.init, "--name", "locked", dir]);
  expect(init.code, printed(init)).toBe(0);
  const holder = startKptTs(["live", "apply", "--reconcile-timeout=2m", dir]);
  await holder.waitForOutput(/deployment\.apps\/stuck created/, { timeoutMs: 60_000 });
  return { ns, dir, holder };
}

describe.each(kinds)("one run at a time: a $kind package", (kind) => {
  it("a second apply exits 2 at once naming the holder; dry runs, diff and status go ahead; --lock-timeout waits for the holder to finish", async () => {
    const { ns, dir, holder } = await holdingRun(kind, `e2e-lock-${kind.kind.toLowerCase()}`);
    try {
      const lease = await kubectlJson<{ spec: { holderIdentity: string; acquireTime: string; leaseDurationSeconds: number } }>(["get", "lease", kind.lease, "-n", ns]);
      expect(lease.spec.holderIdentity).toMatch(/^\S+@\S+ pid \d+ \(kpt-ts live apply\)$/);
      expect(lease.spec.leaseDurationSeconds).toBe(LEASE_SECONDS);

      const started = Date.now();
      const second = await kptTs(["live", "apply", dir]);
      const tookMs = Date.now() - started;
      console.log(`${kind.kind}: the second apply exited ${second.code} after ${tookMs} ms`);
      expect(second.code, printed(second)).toBe(2);
      expect(tookMs).toBeLessThan(3_000);
      expect(second.stdout).toBe("");
      const holderName = lease.spec.holderIdentity.replace(/[()]/g, "\\$&");
      expect(second.stderr).toMatch(new RegExp(`^error: the inventory ${kind.kind} ${ns}/(secrets/)?locked is locked by another run: ${holderName} since ${lease.spec.acquireTime.replace(/\.\d+Z$/, "Z")} \\(\\d+s ago\\); the lock \\(Lease ${ns}/${kind.lease}\\) is released when that run ends`));

      // Runs that write nothing take no lock.
      for (const args of [["apply", "--dry-run"], ["diff"], ["status"]]) {
        const r = await kptTs(["live", ...args, dir]);
        expect([0, 1], `${args.join(" ")}\n${printed(r)}`).toContain(r.code);
        expect(r.stderr).not.toContain("locked");
      }

      // A waiting run starts once the holder ends (interrupted here, as Ctrl-C would).
      const waiting = startKptTs(["live", "apply", "--lock-timeout=90s", "--reconcile-timeout=1s", dir]);
      await new Promise((r) => setTimeout(r, 1_500));
      expect(waiting.running).toBe(true);
      holder.interrupt();
      expect((await holder.done).code).toBe(130);
      const waited = await waiting.done;
      expect(waited.code, printed(waited)).toBe(3); // it ran: the stuck Deployment timed out
      expect(waited.stdout).toContain("deployment.apps/stuck unchanged");
      // Released: kept without a holder.
      expect((await kubectlJson<{ spec: { holderIdentity?: string } }>(["get", "lease", kind.lease, "-n", ns])).spec.holderIdentity ?? "").toBe("");
    } finally {
      holder.kill();
    }
  });
});

describe("a holder killed with SIGKILL", () => {
  it("blocks the next run for at most the lease's duration", async () => {
    const { ns, dir, holder } = await holdingRun(kinds[1]!, "e2e-lock-killed");
    holder.signal("SIGKILL");
    const killedAt = Date.now();
    await holder.done;
    // Its Lease stays behind, unrenewed: at once, the next run is refused, told when it expires.
    const refused = await kptTs(["live", "apply", dir]);
    expect(refused.code, printed(refused)).toBe(2);
    expect(refused.stderr).toMatch(/expires \d+s from now if it stopped renewing it/);
    const next = await kptTs(["live", "apply", "--lock-timeout=60s", "--reconcile-timeout=1s", dir]);
    const after = (Date.now() - killedAt) / 1000;
    console.log(`the next run went ahead ${after.toFixed(1)} s after the holder was killed (lease ${LEASE_SECONDS} s)`);
    expect(next.code, printed(next)).toBe(3);
    expect(after).toBeLessThan(LEASE_SECONDS + 8); // the lease, its last renewal's lag, and the run's own time
    // That run changed nothing (the killed one had written everything), so it took no lock: the
    // expired Lease of the killed run is all that is left, and blocks no one.
    const left = await kubectlJson<{ spec: { holderIdentity: string } }>(["get", "lease", kinds[1]!.lease, "-n", ns]);
    const again = await kptTs(["live", "apply", "--reconcile-timeout=1s", dir]);
    expect(again.code, printed(again)).toBe(3);
    expect(again.stderr).not.toContain("locked");
    expect(left.spec.holderIdentity).toMatch(/ \(kpt-ts live apply\)$/);
  });
});

describe("kpt and the lock", () => {
  it("the real kpt knows nothing of the Lease: it applies a ResourceGroup package while kpt-ts holds the lock", async () => {
    const { ns, dir, holder } = await holdingRun(kinds[0]!, "e2e-lock-kpt");
    try {
      const byKpt = await kpt(["live", "apply", "--reconcile-timeout=1s", dir]);
      expect(byKpt.stderr).not.toContain("lock");
      expect((await getObject("leases", kinds[0]!.lease, ns))?.metadata.name).toBe(kinds[0]!.lease);
      expect(await readFile(join(dir, "resourcegroup.yaml"), "utf8")).toContain("ResourceGroup");
    } finally {
      holder.kill();
      await holder.done;
    }
  });
});
