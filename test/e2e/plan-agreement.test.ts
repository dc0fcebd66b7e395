// Issue 15: `live diff`, `live apply --dry-run` and `live apply` read one plan, so they agree object
// by object: what diff calls create / update / noop / delete / skipped, the dry run reports as
// created / configured / unchanged / pruned / skipped, in the same apply and prune waves as the
// apply, and the apply then does exactly that to the cluster (seen in resourceVersions).
// Issue 25: they are one executor's runs (diff and the Markdown preview read a dry run's plan and
// events), so `live apply --dry-run --output markdown` says the same too.
import { readdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { writePackage } from "../helpers/fixtures.js";
import { parseMarkdownPreview } from "../helpers/markdown.js";
import { comparableEvents, parseJsonEvents } from "../helpers/json-events.js";
import { createNamespace, kptTs } from "../helpers/run.js";
import { clusterInventory, getObject, inventoryRefs, printed, resourceVersions } from "../helpers/scenario.js";

type Files = Record<string, string>;

const cm = (name: string, ns: string, data: Record<string, string>, annotations: Record<string, string> = {}): string =>
  JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace: ns, annotations }, data }) + "\n";
const dependsOn = (ns: string, name: string) => ({ "config.kubernetes.io/depends-on": `/namespaces/${ns}/ConfigMap/${name}` });

/** v1 is applied first; v2 is what diff, the dry run and the apply are asked about. */
const v1 = (ns: string): Files => ({
  "changed.yaml": cm("changed", ns, { x: "1" }),
  "same.yaml": cm("same", ns, { x: "1" }),
  "gone.yaml": cm("gone", ns, { x: "1" }),
  "gone-dependent.yaml": cm("gone-dependent", ns, { x: "1" }, dependsOn(ns, "gone")),
  "kept.yaml": cm("kept", ns, { x: "1" }, { "cli-utils.sigs.k8s.io/on-remove": "keep" }),
});
const v2 = (ns: string): Files => ({
  "changed.yaml": cm("changed", ns, { x: "2" }),
  "same.yaml": cm("same", ns, { x: "1" }),
  "new.yaml": cm("new", ns, { x: "1" }, dependsOn(ns, "changed")),
});

/** Per object: diff's operation, the dry run's event line, the JSON event, and what the apply does to the cluster. */
const EXPECTED: Record<string, { diff: string; line: string; json: string; effect: "created" | "changed" | "untouched" | "deleted" | "detached" }> = {
  new: { diff: "create", line: "created", json: "apply Successful", effect: "created" },
  changed: { diff: "update", line: "configured", json: "apply Successful", effect: "changed" },
  same: { diff: "noop", line: "unchanged", json: "apply Successful", effect: "untouched" },
  gone: { diff: "delete", line: "pruned", json: "prune Successful", effect: "deleted" },
  "gone-dependent": { diff: "delete", line: "pruned", json: "prune Successful", effect: "deleted" },
  // Kept, but it leaves the inventory: its owning-inventory annotation is removed (kpt's abandon).
  kept: { diff: "delete skipped", line: "prune skipped", json: "prune Skipped", effect: "detached" },
};

async function setFiles(dir: string, files: Files): Promise<void> {
  for (const f of await readdir(dir)) if (f !== "resourcegroup.yaml") await rm(join(dir, f));
  for (const [name, text] of Object.entries(files)) await writeFile(join(dir, name), text);
}

interface DiffChange {
  kind: string;
  name: string;
  operation: string;
  skip?: string;
}

/** The JSON events' object lines and group boundaries, waits left out (a dry run waits for nothing). */
const actuations = (stdout: string, ns: string): string[] =>
  comparableEvents(parseJsonEvents(stdout), { [ns]: "<NS>" }).filter((l) => !l.startsWith("wait ") && !/^group Wait /.test(l) && !l.startsWith("summary Wait"));

describe("live diff, live apply --dry-run and live apply agree object by object", () => {
  it("on a create, an update, an unchanged object, prunes in dependency order, a protected object and a depends-on edge", async () => {
    const ns = await createNamespace("e2e-agree");
    const dir = await writePackage(v1(ns));
    expect((await kptTs(["live", "init", dir])).code).toBe(0);
    const first = await kptTs(["live", "apply", dir]);
    expect(first.code, printed(first)).toBe(0);
    const before = await resourceVersions(ns, "configmaps");
    await setFiles(dir, v2(ns));

    // 1. live diff.
    const diff = await kptTs(["live", "diff", "--output", "json", dir]);
    expect(diff.code, printed(diff)).toBe(1);
    const changes = (JSON.parse(diff.stdout) as { changes: DiffChange[] }).changes.filter((c) => c.kind === "ConfigMap");
    const diffOps = Object.fromEntries(changes.map((c) => [c.name, c.skip ? `${c.operation} skipped` : c.operation]));
    expect(diffOps).toEqual(Object.fromEntries(Object.entries(EXPECTED).map(([n, e]) => [n, e.diff])));
    expect(changes.find((c) => c.name === "kept")?.skip).toMatch(/on-remove/);

    // 1b. live apply --dry-run --output markdown: its table (noops left out) and its chart (every object).
    const md = await kptTs(["live", "apply", "--dry-run", "--output", "markdown", dir]);
    expect(md.code, printed(md)).toBe(0);
    const preview = parseMarkdownPreview(md.stdout);
    const mdOps: Record<string, string> = {};
    for (const l of preview.mermaid) {
      const m = new RegExp(`\\["(\\w+): ConfigMap ${ns}/([\\w-]+)"\\]`).exec(l);
      if (m) mdOps[m[2]!] = m[1] === "unchanged" ? "noop" : m[1] === "skipped" ? "delete skipped" : m[1]!;
    }
    for (const r of preview.rows) if (r.kind === "ConfigMap") mdOps[r.name] = r.operation.replace(" (skipped)", " skipped");
    expect(mdOps, md.stdout).toEqual(diffOps);

    // 2. live apply --dry-run, as event lines (they carry the operation) and as JSON (the waves).
    const dryLines = await kptTs(["live", "apply", "--dry-run", dir]);
    expect(dryLines.code, printed(dryLines)).toBe(0);
    expect(dryLines.stdout.split("\n")[0]).toBe("Dry-run strategy: client");
    for (const [name, e] of Object.entries(EXPECTED)) {
      expect(dryLines.stdout, `${name}\n${printed(dryLines)}`).toMatch(new RegExp(`^configmap/${name} ${e.line}\\b`, "m"));
    }
    const dryJson = await kptTs(["live", "apply", "--dry-run", "--output", "json", dir]);
    expect(dryJson.code, printed(dryJson)).toBe(0);
    // Nothing changed so far.
    expect(await resourceVersions(ns, "configmaps")).toEqual(before);

    // 3. live apply.
    const apply = await kptTs(["live", "apply", "--output", "json", dir]);
    expect(apply.code, printed(apply)).toBe(0);
    const applied = actuations(apply.stdout, ns);
    expect(actuations(dryJson.stdout, ns), `--- dry run\n${dryJson.stdout}\n--- apply\n${apply.stdout}`).toEqual(applied);
    for (const [name, e] of Object.entries(EXPECTED)) expect(applied, name).toContain(`${e.json} /ConfigMap/<NS>/${name}`);
    // The waves: changed and same, then new (it depends on changed); gone-dependent, then gone; kept is skipped.
    const objectLines = applied.filter((l) => !l.startsWith("group ") && !l.startsWith("summary "));
    const applyWaves = applied.filter((l) => l === "group Apply Started").length;
    const pruneWaves = applied.filter((l) => l === "group Prune Started").length;
    expect({ applyWaves, pruneWaves }).toEqual({ applyWaves: 2, pruneWaves: 2 });
    const at = (l: string) => objectLines.indexOf(l);
    expect(at("apply Successful /ConfigMap/<NS>/changed")).toBeLessThan(at("apply Successful /ConfigMap/<NS>/new"));
    expect(at("prune Successful /ConfigMap/<NS>/gone-dependent")).toBeLessThan(at("prune Successful /ConfigMap/<NS>/gone"));

    // What the apply did to the cluster is what the three said.
    const after = await resourceVersions(ns, "configmaps");
    const owned = async (name: string) => (await getObject("configmaps", name, ns))?.metadata.annotations?.["config.k8s.io/owning-inventory"] !== undefined;
    for (const [name, e] of Object.entries(EXPECTED)) {
      const key = `ConfigMap/${name}`;
      let effect = !(key in before) ? (key in after ? "created" : "absent") : !(key in after) ? "deleted" : after[key] === before[key] ? "untouched" : "changed";
      if (effect === "changed" && !(await owned(name))) effect = "detached";
      expect(effect, name).toBe(e.effect);
    }
    expect(inventoryRefs(await clusterInventory(dir))).toEqual(["changed", "new", "same"].map((n) => `/ConfigMap/${ns}/${n}`));
  });
});
