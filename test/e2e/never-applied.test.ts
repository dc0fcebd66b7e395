// Issue 36: "nothing there" says so. `live destroy` of a package never applied deletes nothing
// and exits 0, and `live status` before any apply prints kpt's `no resources found in the
// inventory`, as kpt 1.0.0-beta.56 does (checked beside it); both then say on stderr that the
// package's inventory is not in the cluster, naming it and the cluster asked, so a wrong context
// does not look like an empty package. stdout (`--output json` too) stays as kpt's.
import { describe, expect, it } from "vitest";
import { writePackage } from "../helpers/fixtures.js";
import { createNamespace, hasBinary, kpt, kptTs, kubeconfig, type RunResult } from "../helpers/run.js";
import { configMap, printed, readInventoryFile } from "../helpers/scenario.js";
import { readFileSync } from "node:fs";
import { parse } from "yaml";

const haveKpt = hasBinary("kpt");
if (!haveKpt) console.warn("skipping the kpt side of the never-applied tests: the real `kpt` is not on PATH");

/** The kubeconfig's current context and server, as the line names them. */
function asked(): string {
  const kc = parse(readFileSync(kubeconfig(), "utf8")) as { "current-context": string; clusters: { cluster: { server: string } }[] };
  return `context "${kc["current-context"]}", ${kc.clusters[0]!.cluster.server}`;
}

/** kpt's JSON lines without their timestamps. */
const jsonEvents = (r: RunResult) =>
  r.stdout
    .split("\n")
    .filter(Boolean)
    .map((l) => {
      const { timestamp: _t, ...rest } = JSON.parse(l) as Record<string, unknown>;
      return rest;
    });

async function neverApplied(prefix: string): Promise<{ ns: string; dir: string; inventory: string }> {
  const ns = await createNamespace(prefix);
  const dir = await writePackage({ "cm.yaml": configMap("cm", ns) });
  const init = await kptTs(["live", "init", dir]);
  expect(init.code, printed(init)).toBe(0);
  const inv = await readInventoryFile(dir);
  return { ns, dir, inventory: `${inv.namespace}/${inv.name}` };
}

describe("a package never applied", () => {
  it("live destroy: deletes nothing, exit 0 as kpt, and says the inventory is not in the cluster", async () => {
    const { dir, inventory } = await neverApplied("e2e-never-destroy");
    const line = `nothing to delete: the inventory ResourceGroup ${inventory} is not in the cluster (${asked()}): this package was never applied there, or was destroyed already; if it was applied to another cluster, pass that cluster's --context\n`;
    const events = await kptTs(["live", "destroy", dir]);
    expect(events.code, printed(events)).toBe(0);
    expect(events.stderr).toBe(line);
    const json = await kptTs(["live", "destroy", "--output", "json", dir]);
    expect(json.code, printed(json)).toBe(0);
    expect(json.stderr).toBe(line);
    if (haveKpt) {
      const theirs = await kpt(["live", "destroy", "--output", "json", dir]);
      expect(theirs.code, printed(theirs)).toBe(json.code);
      expect(jsonEvents(json)).toEqual(jsonEvents(theirs));
      expect((await kpt(["live", "destroy", dir])).code).toBe(events.code);
    }

    // Applied, then destroyed: the second destroy finds nothing again, and says so.
    expect((await kptTs(["live", "apply", dir])).code).toBe(0);
    const first = await kptTs(["live", "destroy", dir]);
    expect(first.code, printed(first)).toBe(0);
    expect(first.stderr).toBe("");
    const again = await kptTs(["live", "destroy", dir]);
    expect([again.code, again.stderr]).toEqual([0, line]);
  });

  it("live status: kpt's line on stdout (every format, exit 0 as kpt), and on stderr that the inventory is not in the cluster", async () => {
    const { dir, inventory } = await neverApplied("e2e-never-status");
    const line = `the inventory ResourceGroup ${inventory} is not in the cluster (${asked()}): this package was never applied there; if it was applied to another cluster, pass that cluster's --context\n`;
    for (const output of ["events", "json", "table"]) {
      const ours = await kptTs(["live", "status", "--output", output, dir]);
      expect(ours.code, printed(ours)).toBe(0);
      expect(ours.stdout).toBe("no resources found in the inventory\n");
      expect(ours.stderr).toBe(line);
      if (haveKpt) {
        const theirs = await kpt(["live", "status", "--output", output, dir]);
        expect([theirs.code, theirs.stdout], output).toEqual([ours.code, ours.stdout]);
      }
    }
    // Once applied, its objects: no such line.
    expect((await kptTs(["live", "apply", dir])).code).toBe(0);
    const applied = await kptTs(["live", "status", dir]);
    expect(applied.stdout).toMatch(/^configmap\/cm is Current/m);
    expect(applied.stderr).toBe("");
    expect((await kptTs(["live", "destroy", dir])).code).toBe(0);
  });
});
