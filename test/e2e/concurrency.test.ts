// Issues 8 and 33: users at the same time. Two runs of one package at once:
// - with the lock (issue 33: a Lease beside the inventory), the second stops before it writes
//   anything, exit 2 naming the holder; with --lock-timeout it waits and then runs: both succeed;
// - without it (an identity that may not write Leases, kpt, an older kpt-ts), the inventory's
//   guarded writes still decide: both succeed or one stops with a clear message (issue 8).
// Either way the inventory lists every object the package owns in the cluster, and the next
// apply converges. Two packages with different inventories, applied at once with prunes, never
// prune each other's objects. KPT_TS_LONG=1 runs more rounds.
import { afterAll, describe, expect, it } from "vitest";
import { startKptTs } from "../helpers/background.js";
import { createServiceAccount, serviceAccountKubeconfig } from "../helpers/credentials.js";
import { writePackage } from "../helpers/fixtures.js";
import { ownership } from "../helpers/ownership.js";
import { createNamespace, kptTs, type RunResult } from "../helpers/run.js";
import { configMap, docs, printed, service } from "../helpers/scenario.js";

const LONG = process.env.KPT_TS_LONG === "1";
const ROUNDS = LONG ? 10 : 3;
const KINDS = "configmaps,services";
/** What a run that lost the race says (exit 1). */
const RACE_MESSAGE = /changed while this (apply|destroy) ran: another apply or destroy of this package is running at the same time/;
/** What a run that found the lock held says (exit 2). */
const LOCKED_MESSAGE = /^error: the inventory ResourceGroup \S+ is locked by another run: \S+@\S+ pid \d+ \(kpt-ts live (apply|destroy)\) since /;

/**
 * How the racing runs are made: as the admin (they take the lock), as the admin with
 * --lock-timeout (they wait for each other), or as an identity that may do everything but write
 * Leases (no lock: the inventory's guarded writes decide).
 */
interface Mode {
  name: string;
  rounds: number;
  /** Extra arguments of every run, once the namespace exists (its kubeconfig, for the last). */
  args: (ns: string) => Promise<string[]>;
  /** What each run of a race may end with. */
  expect: (r: RunResult, what: string) => void;
}

const noLeaseRights = async (ns: string): Promise<string[]> => {
  const all = ["get", "list", "watch", "create", "update", "patch", "delete"];
  await createServiceAccount(ns, "no-leases", [
    { apiGroups: [""], resources: ["configmaps", "services"], verbs: all },
    { apiGroups: ["kpt.dev"], resources: ["resourcegroups", "resourcegroups/status"], verbs: all },
  ]);
  return ["--kubeconfig", await serviceAccountKubeconfig(ns, "no-leases")];
};

const MODES: Mode[] = [
  {
    name: "with the lock: the second run stops before it writes (exit 2, naming the holder)",
    rounds: Math.max(2, ROUNDS - 1),
    args: async () => [],
    expect: (r, what) => {
      expect([0, 2], `${what}\n${printed(r)}`).toContain(r.code);
      if (r.code === 2) {
        expect(r.stderr, `${what}\n${printed(r)}`).toMatch(LOCKED_MESSAGE);
        expect(r.stdout, `${what}\n${printed(r)}`).toBe("");
        samples.set(`exit 2 (${what.replace(/round \d+, /, "")}, with the lock)`, r.stderr.trim().split("\n")[0]!);
      }
    },
  },
  {
    name: "with --lock-timeout: the second run waits for the first, then runs",
    rounds: Math.max(2, ROUNDS - 1),
    args: async () => ["--lock-timeout=3m"],
    expect: (r, what) => expect(r.code, `${what}\n${printed(r)}`).toBe(0),
  },
  {
    name: "without the lock (an identity that may not write Leases): the inventory's guarded writes decide",
    rounds: ROUNDS,
    args: noLeaseRights,
    expect: (r, what) => {
      // The lock is taken when the plan writes: a run that found the other's work done may write nothing and ask for none.
      const wroteNothing = /\b0 created, \d+ unchanged, 0 configured\b/.test(r.stdout) && /^0 resource\(s\) pruned/m.test(r.stdout);
      if (!wroteNothing) expect(r.stderr, `${what}\n${printed(r)}`).toContain("does not hold the lock");
      expectCleanOutcome(r, what);
    },
  },
];

function inventoryYaml(name: string, ns: string): string {
  return `apiVersion: kpt.dev/v1alpha1\nkind: ResourceGroup\nmetadata:\n  name: ${name}\n  namespace: ${ns}\n  labels: {cli-utils.sigs.k8s.io/inventory-id: ${name}-id}\n`;
}

/** A package version: ConfigMaps `<prefix>-<i>` for the given indexes (and any `extra` names), and one Service. */
function pkgFiles(inv: string, ns: string, prefix: string, indexes: number[], data: string, extra: string[] = []): Record<string, string> {
  return {
    "rg.yaml": inventoryYaml(inv, ns),
    "cms.yaml": docs(...indexes.map((i) => configMap(`${prefix}-${i}`, ns, { v: data })), ...extra.map((n) => configMap(n, ns, { v: data }))),
    "svc.yaml": service(`${prefix}-svc`, ns),
  };
}

const owned = (ns: string, prefix: string, indexes: number[], extra: string[] = []) =>
  [...indexes.map((i) => `/ConfigMap/${ns}/${prefix}-${i}`), ...extra.map((n) => `/ConfigMap/${ns}/${n}`), `/Service/${ns}/${prefix}-svc`].sort();

const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i);

/** One message of each kind the races produced, for the report. */
const samples = new Map<string, string>();
afterAll(() => console.log(`what the runs that lost a race said:\n${[...samples].map(([k, v]) => `${k}: ${v}`).join("\n")}`));

/** A run of a race: 0, or a clear failure: 1 naming the race, or 3 naming the objects that failed. */
function expectCleanOutcome(r: RunResult, what: string): void {
  expect([0, 1, 3], `${what}\n${printed(r)}`).toContain(r.code);
  if (r.code === 1) {
    expect(r.stderr, `${what}\n${printed(r)}`).toMatch(RACE_MESSAGE);
    samples.set(`exit 1 (${what.replace(/round \d+, /, "")})`, r.stderr.trim().split("\n").slice(-2).join(" / "));
  }
  if (r.code === 3) {
    const failure = r.stdout.split("\n").find((l) => / (apply|prune|delete) failed: |deletion failed: | reconcile failed: /.test(l));
    expect(failure, `${what}\n${printed(r)}`).toBeDefined();
    samples.set(`exit 3 (${what.replace(/round \d+, /, "")})`, failure!);
  }
}

describe.each(MODES)("two runs of the same package at once, $name", (mode) => {
  it("the same version twice: both converge (or one says it lost the race), nothing lost", async () => {
    const ns = await createNamespace("e2e-conc-same");
    const as = await mode.args(ns);
    const inv = { name: `inv-${ns}`, namespace: ns, id: `inv-${ns}-id` };
    const tally: Record<string, number> = {};
    for (let round = 0; round < mode.rounds; round++) {
      const indexes = range(round * 5, round * 5 + 30); // every round adds 5 and prunes 5
      const dir = await writePackage(pkgFiles(inv.name, ns, "cm", indexes, `r${round}`));
      const runs = [startKptTs(["live", "apply", ...as, dir]), startKptTs(["live", "apply", ...as, dir])];
      const results = await Promise.all(runs.map((r) => r.done));
      for (const r of results) {
        mode.expect(r, `round ${round}`);
        tally[`exit ${r.code}`] = (tally[`exit ${r.code}`] ?? 0) + 1;
      }
      expect(results.some((r) => r.code === 0), results.map(printed).join("\n")).toBe(true);
      const seen = await ownership(inv, ns, KINDS);
      expect(seen.orphans, `round ${round}`).toEqual([]);
      // The one that won left the package exactly in place.
      expect(seen.owned).toEqual(owned(ns, "cm", indexes));
      expect(seen.listed).toEqual(seen.owned);
    }
    console.log(`same package twice at once (${mode.name}), ${mode.rounds} rounds: ${JSON.stringify(tally)}`);
  });

  it("two different versions at once: each succeeds or fails clearly, the inventory lists all they left, the next apply converges", async () => {
    const ns = await createNamespace("e2e-conc-versions");
    const as = await mode.args(ns);
    const inv = { name: `inv-${ns}`, namespace: ns, id: `inv-${ns}-id` };
    const tally: Record<string, number> = {};
    const base = await writePackage(pkgFiles(inv.name, ns, "cm", range(0, 20), "base"));
    expect((await kptTs(["live", "apply", ...as, base])).code).toBe(0);
    for (let round = 0; round < mode.rounds; round++) {
      // One version drops cm-0..9 and adds cm-20..29; the other keeps them and changes data; each
      // adds an object of its own, so both must add to the inventory before they apply.
      const v1 = range(10, 30);
      const v2 = range(0, 20);
      const own1 = [`v1-round-${round}`];
      const own2 = [`v2-round-${round}`];
      const dir1 = await writePackage(pkgFiles(inv.name, ns, "cm", v1, `v1-${round}`, own1));
      const dir2 = await writePackage(pkgFiles(inv.name, ns, "cm", v2, `v2-${round}`, own2));
      const results = await Promise.all([startKptTs(["live", "apply", ...as, dir1]).done, startKptTs(["live", "apply", ...as, dir2]).done]);
      results.forEach((r, i) => {
        mode.expect(r, `round ${round}, version ${i + 1}`);
        tally[`exit ${r.code}`] = (tally[`exit ${r.code}`] ?? 0) + 1;
      });
      const seen = await ownership(inv, ns, KINDS);
      expect(seen.orphans, `round ${round}\n${results.map(printed).join("\n")}`).toEqual([]);

      // Whatever the race left, the next apply of either version converges to exactly it.
      const target = round % 2 === 0 ? { dir: dir1, idx: v1, own: own1 } : { dir: dir2, idx: v2, own: own2 };
      const next = await kptTs(["live", "apply", ...as, target.dir]);
      expect(next.code, printed(next)).toBe(0);
      const after = await ownership(inv, ns, KINDS);
      const story = `round ${round}: after the race ${JSON.stringify(seen)}\n${results.map(printed).join("\n")}\nthe next apply:\n${printed(next)}\nafter it, listed: ${after.listed.join(" ")}`;
      expect(after.owned, story).toEqual(owned(ns, "cm", target.idx, target.own));
      expect(after.listed, story).toEqual(after.owned);
    }
    console.log(`two versions at once (${mode.name}), ${mode.rounds} rounds: ${JSON.stringify(tally)}`);
  });

  it("an apply and a destroy at once: nothing is left that the inventory does not list; the next apply converges", async () => {
    const ns = await createNamespace("e2e-conc-destroy");
    const as = await mode.args(ns);
    const inv = { name: `inv-${ns}`, namespace: ns, id: `inv-${ns}-id` };
    const tally: Record<string, number> = {};
    for (let round = 0; round < mode.rounds; round++) {
      const indexes = range(0, 25);
      const dir = await writePackage(pkgFiles(inv.name, ns, "cm", indexes, `r${round}`));
      expect((await kptTs(["live", "apply", ...as, dir])).code).toBe(0);
      const dir2 = await writePackage(pkgFiles(inv.name, ns, "cm", range(10, 35), `r${round}b`));
      const results = await Promise.all([startKptTs(["live", "destroy", ...as, dir]).done, startKptTs(["live", "apply", ...as, dir2]).done]);
      results.forEach((r, i) => {
        mode.expect(r, `round ${round}, ${i === 0 ? "destroy" : "apply"}`);
        tally[`${i === 0 ? "destroy" : "apply"} exit ${r.code}`] = (tally[`${i === 0 ? "destroy" : "apply"} exit ${r.code}`] ?? 0) + 1;
      });
      const seen = await ownership(inv, ns, KINDS);
      expect(seen.orphans, `round ${round}\n${results.map(printed).join("\n")}`).toEqual([]);
      const next = await kptTs(["live", "apply", ...as, dir2]);
      expect(next.code, printed(next)).toBe(0);
      const after = await ownership(inv, ns, KINDS);
      expect(after.owned).toEqual(owned(ns, "cm", range(10, 35)));
      expect(after.listed).toEqual(after.owned);
    }
    console.log(`apply and destroy at once (${mode.name}), ${mode.rounds} rounds: ${JSON.stringify(tally)}`);
  });
});

describe("two packages with different inventories at once", () => {
  it("never prune each other's objects, even where their packages name the same object", async () => {
    const ns = await createNamespace("e2e-conc-two");
    const one = { name: `one-${ns}`, namespace: ns, id: `one-${ns}-id` };
    const two = { name: `two-${ns}`, namespace: ns, id: `two-${ns}-id` };
    // Both packages also declare `contested`: whoever creates it first owns it; the other skips it.
    const files = (inv: string, prefix: string, indexes: number[], round: number) => ({
      ...pkgFiles(inv, ns, prefix, indexes, `r${round}`),
      "contested.yaml": configMap("contested", ns, { by: inv }),
    });
    for (let round = 0; round < ROUNDS + 1; round++) {
      // Each round each package adds 5 of its objects and prunes 5.
      const idx = range(round * 5, round * 5 + 15);
      const dir1 = await writePackage(files(one.name, "one", idx, round));
      const dir2 = await writePackage(files(two.name, "two", idx, round));
      const [r1, r2] = await Promise.all([startKptTs(["live", "apply", dir1]).done, startKptTs(["live", "apply", dir2]).done]);
      expect(r1.code, printed(r1)).toBe(0);
      expect(r2.code, printed(r2)).toBe(0);
      const s1 = await ownership(one, ns, KINDS);
      const s2 = await ownership(two, ns, KINDS);
      const contested = `/ConfigMap/${ns}/contested`;
      // Exactly one of them owns the contested object; the other reported it skipped.
      expect([s1.owned.includes(contested), s2.owned.includes(contested)].filter(Boolean)).toHaveLength(1);
      const loser = s1.owned.includes(contested) ? r2 : r1;
      expect(loser.stdout).toMatch(/configmap\/contested apply skipped: .*inventory/);
      expect(s1.owned.filter((o) => o !== contested)).toEqual(owned(ns, "one", idx));
      expect(s2.owned.filter((o) => o !== contested)).toEqual(owned(ns, "two", idx));
      expect(s1.orphans).toEqual([]);
      expect(s2.orphans).toEqual([]);
    }
  });
});
