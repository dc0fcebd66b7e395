// A package with bad input fails with the "bad input" exit code (2), names file:line and object
// for every problem in one run, and touches nothing in the cluster: no object, no inventory.
// The corpus (test/corpus/bad-input.ts, 40+ broken packages) runs here through the built CLI,
// each case in a namespace of its own; test/unit/bad-input-corpus.test.ts checks the same
// cases' error classes at the library level.
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { BAD_INPUT_CASES, expectedPrefix, writeBadInputCase, type BadInputCase } from "../corpus/bad-input.js";
import { writePackage } from "../helpers/fixtures.js";
import { createNamespace, kptTs, type RunResult } from "../helpers/run.js";
import { clusterAccess, writeKubeconfig } from "../helpers/credentials.js";
import { clusterInventory, configMap, getObject, listObjects, printed } from "../helpers/scenario.js";

const BAD_INPUT = 2;

/** A package in a fresh namespace, with an inventory written by kpt-ts (so only the files are wrong). */
async function badPackage(prefix: string, files: (ns: string) => Record<string, string>): Promise<{ ns: string; dir: string }> {
  const ns = await createNamespace(prefix);
  const dir = await writePackage({
    "resourcegroup.yaml": `apiVersion: kpt.dev/v1alpha1\nkind: ResourceGroup\nmetadata:\n  name: inventory-bad\n  namespace: ${ns}\n  labels:\n    cli-utils.sigs.k8s.io/inventory-id: bad-input-${ns}\n`,
    "good.yaml": configMap("good", ns),
    ...files(ns),
  });
  return { ns, dir };
}

async function expectNothingApplied(ns: string, dir: string): Promise<void> {
  expect(await listObjects(ns)).toEqual([]);
  expect(await clusterInventory(dir)).toBeUndefined();
}

/** Every kind the corpus's packages hold, and the inventory. */
const CORPUS_KINDS = "configmaps,secrets,services,deployments.apps,jobs.batch,roles.rbac.authorization.k8s.io,resourcegroups.kpt.dev";

/** Nothing in the case's namespace (no object, no ResourceGroup), nothing it names elsewhere. */
async function expectUntouched(c: BadInputCase, ns: string): Promise<void> {
  expect(await listObjects(ns, CORPUS_KINDS), "objects in the case's namespace").toEqual([]);
  for (const o of c.alsoAbsent?.(ns) ?? []) expect(await getObject(o.resource, o.name, o.namespace), `${o.resource}/${o.name}`).toBeUndefined();
}

/** Runs one corpus case through the CLI: its own namespace, kubeconfig context in it (so defaulting lands there). */
async function runCase(c: BadInputCase, command: string[]): Promise<{ ns: string; dir: string; r: Awaited<ReturnType<typeof kptTs>> }> {
  const ns = await createNamespace(`bad-${c.id}`.slice(0, 40));
  const parent = await mkdtemp(join(tmpdir(), "kpt-ts-bad-"));
  const { dir, path } = await writeBadInputCase(c, parent, ns);
  // The admin's credentials, the case's namespace as the context's (written directly: no kubectl per case).
  const { certData, keyData } = await clusterAccess();
  const kubeconfig = await writeKubeconfig({ "client-certificate-data": certData, "client-key-data": keyData }, { namespace: ns });
  const stdin = c.stdin?.(ns);
  const r = await kptTs(["live", ...command, ...(c.args?.(ns) ?? []), path], { env: { KUBECONFIG: kubeconfig }, ...(stdin !== undefined ? { input: stdin } : {}) });
  return { ns, dir, r };
}

function expectRefused(c: BadInputCase, dir: string, r: Awaited<ReturnType<typeof kptTs>>): void {
  expect(r.code, printed(r)).toBe(BAD_INPUT);
  // The one issue the case is about: `error: file:line: Kind/name: message`, or a line of the issue list.
  const prefix = expectedPrefix(c, dir);
  const lines = r.stderr.split("\n");
  const at = lines.findIndex((l) => l.replace(/^(error: |- )/, "").startsWith(prefix));
  expect(at, `no line starting with ${JSON.stringify(prefix)}\n${printed(r)}`).toBeGreaterThanOrEqual(0);
  // Messages may span lines (hints, cycles): match from the located line on.
  expect(lines.slice(at).join("\n").replace(/^(error: |- )/, ""), printed(r)).toMatch(c.expect.message);
  expect(r.stdout, printed(r)).toBe("");
}

describe("the bad-input corpus through the CLI", () => {
  it.each(BAD_INPUT_CASES.map((c) => [`${c.id}: ${c.what}`, c] as const))("%s: exit 2, file:line and object, nothing written", async (_, c) => {
    const { ns, dir, r } = await runCase(c, ["apply"]);
    expectRefused(c, dir, r);
    await expectUntouched(c, ns);
  });

  // Every command that reads a package refuses it the same way (one case per stage that catches it).
  const sample = ["yaml-tabs", "binary", "symlink-loop", "duplicate-defaulted", "unknown-kind", "namespace-missing", "dep-cycle", "dep-missing"].map((id) => BAD_INPUT_CASES.find((c) => c.id === id)!);
  const commands = [["apply", "--dry-run"], ["apply", "--server-side"], ["diff"], ["destroy"], ["status"]];
  it.each(sample.map((c) => [c.id, c] as const))("%s: --dry-run, --server-side, diff, destroy and status refuse it too", async (_, c) => {
    for (const command of commands) {
      // status and destroy only read the inventory from the cluster: what they cannot see they need not refuse.
      if ((command[0] === "status" || command[0] === "destroy") && c.stage !== "read") continue;
      const { ns, dir, r } = await runCase(c, command);
      expectRefused(c, dir, r);
      await expectUntouched(c, ns);
    }
  });
});

describe("kpt-ts live apply on bad input", () => {
  it("reports every problem of the package in one run, each with its file and line", async () => {
    const { ns, dir } = await badPackage("e2e-bad-all", (ns) => ({
      "broken.yaml": `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: broken\n  namespace: ${ns}\ndata:\n  a: [unclosed\n`,
      "multi.yaml": [
        configMap("fine", ns),
        `apiVersion: v1\nmetadata:\n  name: nokind\n  namespace: ${ns}\n`,
        configMap("Bad_Name", ns),
        configMap("good", ns),
      ].join("---\n"),
    }));
    const r = await kptTs(["live", "apply", dir]);
    expect(r.code, printed(r)).toBe(BAD_INPUT);
    expect(r.stderr).toMatch(/broken\.yaml:\d+: /);
    // The line on which multi.yaml's document n (from 0) starts: after the documents before it and the `---`.
    const docLine = (n: number) => [configMap("fine", ns), `apiVersion: v1\nmetadata:\n  name: nokind\n  namespace: ${ns}\n`, configMap("Bad_Name", ns)].slice(0, n).join("---\n").split("\n").length + 1;
    expect(r.stderr).toMatch(new RegExp(`multi\\.yaml:${docLine(1)}: .*kind is required`));
    expect(r.stderr).toMatch(new RegExp(`multi\\.yaml:${docLine(2) + 3}: ConfigMap/Bad_Name`)); // its name: line
    expect(r.stderr).toMatch(new RegExp(`multi\\.yaml:${docLine(3)}: ConfigMap/good: duplicate object`));
    expect(r.stderr).toContain("4 problems in the package");
    await expectNothingApplied(ns, dir);
  });

  it("--dry-run and --server-side refuse the same package the same way", async () => {
    const { ns, dir } = await badPackage("e2e-bad-verbs", (ns) => ({ "badname.yaml": configMap("Bad_Name", ns) }));
    for (const args of [["apply", "--dry-run"], ["apply", "--server-side"], ["apply", "--server-side", "--dry-run"]]) {
      const r = await kptTs(["live", ...args, dir]);
      expect(r.code, `${args.join(" ")}\n${printed(r)}`).toBe(BAD_INPUT);
      expect(r.stderr).toMatch(/badname\.yaml:4: ConfigMap\/Bad_Name/);
    }
    await expectNothingApplied(ns, dir);
  });

  it("a 400 KiB ConfigMap: too large for client-side apply's last-applied copy, found while planning and applied server-side on its own, with one notice on every run", async () => {
    const ns = await createNamespace("e2e-bad-big");
    const dir = await writePackage({
      "resourcegroup.yaml": `apiVersion: kpt.dev/v1alpha1\nkind: ResourceGroup\nmetadata:\n  name: inventory-big\n  namespace: ${ns}\n  labels:\n    cli-utils.sigs.k8s.io/inventory-id: big-${ns}\n`,
      "big.yaml": configMap("big", ns, { blob: "x".repeat(400 * 1024) }),
      "small.yaml": configMap("small", ns),
    });
    const notices = (r: RunResult) => r.stderr.split("\n").filter((l) => l.includes("is applied server-side"));
    const NOTICE = /^configmap\/big is applied server-side: too large for client-side apply: its annotations with the last-applied-configuration copy would be \d+ KiB, over the 256 KiB the API server stores\.$/;

    const dry = await kptTs(["live", "apply", "--dry-run", dir]);
    expect(dry.code, printed(dry)).toBe(0);
    expect(notices(dry)).toEqual([expect.stringMatching(NOTICE)]);

    const first = await kptTs(["live", "apply", dir]);
    expect(first.code, printed(first)).toBe(0);
    expect(first.stdout).toContain("configmap/big created");
    expect(notices(first)).toEqual([expect.stringMatching(NOTICE)]);
    // Server-side with the run's field manager and no last-applied copy; the rest stays client-side.
    const big = await getObject("configmap", "big", ns, { managedFields: true });
    expect(big?.metadata.annotations?.["kubectl.kubernetes.io/last-applied-configuration"]).toBeUndefined();
    expect((big?.metadata.managedFields as { manager: string; operation: string }[]).map((e) => `${e.manager} (${e.operation})`)).toEqual(["kubectl (Apply)"]); // the --field-manager default, as kpt's
    const small = await getObject("configmap", "small", ns);
    expect(small?.metadata.annotations?.["kubectl.kubernetes.io/last-applied-configuration"]).toBeDefined();

    const again = await kptTs(["live", "apply", dir]);
    expect(again.code, printed(again)).toBe(0);
    expect(again.stdout).toContain("configmap/big unchanged");
    expect(notices(again)).toEqual([expect.stringMatching(NOTICE)]);

    const diff = await kptTs(["live", "diff", dir]);
    expect(diff.code, printed(diff)).toBe(0);
    expect(diff.stdout).toMatch(/big\s+ConfigMap\s+noop\s+applied server-side: too large for client-side apply/);

    const ssa = await kptTs(["live", "apply", "--server-side", dir]);
    expect(ssa.code, printed(ssa)).toBe(0);
    expect(ssa.stdout).toContain("configmap/big unchanged");
    expect(notices(ssa)).toEqual([]);
  });

  it("-v before the package path takes no level from it: the package given is read, not the current directory", async () => {
    const { ns, dir } = await badPackage("e2e-bad-verbose", (ns) => ({ "badname.yaml": configMap("Bad_Name", ns) }));
    for (const args of [["-v", dir], ["-v", "3", dir], ["-v=2", dir], [dir, "-v"]]) {
      const r = await kptTs(["live", "apply", ...args]);
      expect(r.code, `${args.join(" ")}\n${printed(r)}`).toBe(BAD_INPUT);
      expect(r.stderr).toContain(`${dir}/badname.yaml:4: ConfigMap/Bad_Name`);
    }
    await expectNothingApplied(ns, dir);
  });

  it("reads a package from standard input with `-`, and refuses bad input there too", async () => {
    const ns = await createNamespace("e2e-bad-stdin");
    const rg = `apiVersion: kpt.dev/v1alpha1\nkind: ResourceGroup\nmetadata:\n  name: inventory-stdin\n  namespace: ${ns}\n  labels:\n    cli-utils.sigs.k8s.io/inventory-id: stdin-${ns}\n`;
    const bad = [rg, configMap("ok", ns), `apiVersion: v1\nmetadata:\n  name: nokind\n  namespace: ${ns}\n`].join("---\n");
    const refused = await kptTs(["live", "apply", "-"], { input: bad });
    expect(refused.code, printed(refused)).toBe(BAD_INPUT);
    expect(refused.stderr).toContain("kind is required");
    expect(await listObjects(ns)).toEqual([]);

    const good = [rg, configMap("ok", ns)].join("---\n");
    const applied = await kptTs(["live", "apply", "-"], { input: good });
    expect(applied.code, printed(applied)).toBe(0);
    expect(applied.stdout).toContain("configmap/ok created");
  });
});
