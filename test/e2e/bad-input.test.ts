// Issue 3: a package with bad input fails with the "bad input" exit code (2), names file:line for
// every problem in one run, and touches nothing in the cluster: no object, no inventory.
import { describe, expect, it } from "vitest";
import { writePackage } from "../helpers/fixtures.js";
import { createNamespace, kptTs } from "../helpers/run.js";
import { clusterInventory, configMap, listObjects, printed } from "../helpers/scenario.js";

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

const cases: { name: string; files: (ns: string) => Record<string, string>; expected: RegExp[] }[] = [
  {
    name: "bad YAML",
    files: (ns) => ({ "broken.yaml": `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: broken\n  namespace: ${ns}\ndata:\n  a: [unclosed\n` }),
    expected: [/broken\.yaml:\d+: .*YAML/i],
  },
  {
    name: "a missing kind",
    files: (ns) => ({ "nokind.yaml": `apiVersion: v1\nmetadata:\n  name: nokind\n  namespace: ${ns}\n` }),
    expected: [/nokind\.yaml:1: .*kind is required/],
  },
  {
    name: "a missing name",
    files: (ns) => ({ "noname.yaml": `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  namespace: ${ns}\n` }),
    // Located at the `metadata:` that lacks the name.
    expected: [/noname\.yaml:3: .*name is required/],
  },
  {
    name: "an invalid name",
    files: (ns) => ({ "badname.yaml": configMap("Bad_Name", ns) }),
    // Located at the `name:` line.
    expected: [/badname\.yaml:4: ConfigMap\/Bad_Name: .*RFC 1123/],
  },
  {
    name: "a duplicate object",
    files: (ns) => ({ "again.yaml": configMap("good", ns) }),
    expected: [/(again|good)\.yaml:1: ConfigMap\/good: duplicate object/, /again\.yaml:1/, /good\.yaml:1/],
  },
];

describe("kpt-ts live apply on bad input", () => {
  it.each(cases)("$name: exit 2, file:line, nothing in the cluster", async ({ files, expected }) => {
    const { ns, dir } = await badPackage("e2e-bad-one", files);
    const r = await kptTs(["live", "apply", dir]);
    expect(r.code, printed(r)).toBe(BAD_INPUT);
    for (const re of expected) expect(r.stderr, printed(r)).toMatch(re);
    expect(r.stdout).toBe("");
    await expectNothingApplied(ns, dir);
  });

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

  it("a package without an inventory asks for `live init`, exit 2, nothing applied", async () => {
    const ns = await createNamespace("e2e-bad-noinv");
    const dir = await writePackage({ "cm.yaml": configMap("c", ns) });
    const r = await kptTs(["live", "apply", dir]);
    expect(r.code, printed(r)).toBe(BAD_INPUT);
    expect(r.stderr).toContain("live init");
    expect(await listObjects(ns)).toEqual([]);
  });

  it("a package with two inventories is refused, exit 2, nothing applied", async () => {
    const { ns, dir } = await badPackage("e2e-bad-twoinv", (ns) => ({
      "second-rg.yaml": `apiVersion: kpt.dev/v1alpha1\nkind: ResourceGroup\nmetadata:\n  name: inventory-other\n  namespace: ${ns}\n  labels:\n    cli-utils.sigs.k8s.io/inventory-id: other\n`,
    }));
    const r = await kptTs(["live", "apply", dir]);
    expect(r.code, printed(r)).toBe(BAD_INPUT);
    expect(r.stderr).toMatch(/ResourceGroup/);
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
