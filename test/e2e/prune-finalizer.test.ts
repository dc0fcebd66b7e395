// Issue 15: a prune in reverse dependency order waits for the dependent to be gone before it
// deletes what the dependent depended on. When a finalizer nobody removes holds the dependent,
// the real kpt keeps the dependency (`dependent delete reconcile timeout`, exit 3), and so must
// kpt-ts. Both tools run the same steps on the same cluster, each in its own namespace.
import { mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { comparableEvents, eventErrors, parseJsonEvents, type JsonEvent } from "../helpers/json-events.js";
import { createNamespace, hasBinary, kpt, kptTs, kubectl, waitUntil, type RunResult } from "../helpers/run.js";
import { getObject, inventoryRefs, printed } from "../helpers/scenario.js";

const haveKpt = hasBinary("kpt");
if (!haveKpt) console.warn("skipping the finalizer-held prune comparison: the real `kpt` is not on PATH");

const FINALIZER = "example.com/hold";
type Files = Record<string, string>;
type Tool = "kpt" | "kpt-ts";

const cm = (name: string, ns: string, annotations: Record<string, string> = {}, finalizers: string[] = []): string =>
  JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace: ns, annotations, ...(finalizers.length ? { finalizers } : {}) }, data: { v: name } }) + "\n";

/** v1: a, b (b depends on a and carries a finalizer nobody removes), and c, which stays. */
const v1 = (ns: string): Files => ({
  "a.yaml": cm("a", ns),
  "b.yaml": cm("b", ns, { "config.kubernetes.io/depends-on": `/namespaces/${ns}/ConfigMap/a` }, [FINALIZER]),
  "c.yaml": cm("c", ns),
});
/** v2: a and b left the package. */
const v2 = (ns: string): Files => ({ "c.yaml": cm("c", ns) });

async function setFiles(dir: string, files: Files): Promise<void> {
  for (const f of await readdir(dir)) if (f !== "resourcegroup.yaml") await rm(join(dir, f));
  for (const [name, text] of Object.entries(files)) await writeFile(join(dir, name), text);
}

interface Step {
  run: RunResult;
  events: JsonEvent[];
}

interface Outcome {
  ns: string;
  /** The v2 apply with --output json, then again with the default event lines, then after the finalizer is removed. */
  steps: { json: Step; lines: Step; released: Step };
  /** After the first v2 apply. */
  aExists: boolean;
  bTerminating: boolean;
  inventoryHeld: string[];
  inventoryAfter: string[];
}

async function scenario(tool: Tool): Promise<Outcome> {
  const run = (args: string[]) => (tool === "kpt" ? kpt(args) : kptTs(args));
  const ns = await createNamespace(`e2e-fin-${tool === "kpt" ? "kpt" : "ts"}`);
  const dir = await mkdtemp(join(tmpdir(), "kpt-ts-fin-"));
  await writeFile(
    join(dir, "resourcegroup.yaml"),
    `apiVersion: kpt.dev/v1alpha1\nkind: ResourceGroup\nmetadata:\n  name: inventory\n  namespace: ${ns}\n  labels:\n    cli-utils.sigs.k8s.io/inventory-id: ${ns}\n`,
  );
  await setFiles(dir, v1(ns));
  const first = await run(["live", "apply", dir]);
  if (first.code !== 0) throw new Error(`${tool}: applying v1 failed\n${printed(first)}`);

  await setFiles(dir, v2(ns));
  const step = async (args: string[]): Promise<Step> => {
    const r = await run(["live", "apply", "--prune-timeout=5s", ...args, dir]);
    return { run: r, events: args.includes("--output=json") ? parseJsonEvents(r.stdout) : [] };
  };
  const json = await step(["--output=json"]);
  const a = await getObject("configmaps", "a", ns);
  const b = await getObject("configmaps", "b", ns);
  const inventoryHeld = inventoryRefs(await getObject("resourcegroups.kpt.dev", "inventory", ns));
  // The same apply again: b is still held, so a is kept again; this time the event lines.
  const lines = await step([]);

  // Released: once nobody holds b, the next apply prunes a too.
  const patch = await kubectl(["patch", "configmap", "b", "-n", ns, "--type=json", "-p", '[{"op":"remove","path":"/metadata/finalizers"}]']);
  if (patch.code !== 0) throw new Error(`removing the finalizer: ${patch.stderr}`);
  await waitUntil("b to be gone", async () => (await getObject("configmaps", "b", ns)) === undefined);
  const released = await step(["--output=json"]);
  return {
    ns,
    steps: { json, lines, released },
    aExists: a !== undefined && a.metadata.deletionTimestamp === undefined,
    bTerminating: b !== undefined && typeof b.metadata.deletionTimestamp === "string",
    inventoryHeld,
    inventoryAfter: inventoryRefs(await getObject("resourcegroups.kpt.dev", "inventory", ns)),
  };
}

describe.skipIf(!haveKpt)("a dependent held by a finalizer keeps its dependency from being pruned, as with the real kpt", () => {
  it("exit 3, the dependency kept with kpt's reason, the dependent terminating; pruned once released", async () => {
    const [real, ours] = await Promise.all([scenario("kpt"), scenario("kpt-ts")]);
    const show = (o: Outcome, k: keyof Outcome["steps"]) => printed(o.steps[k].run);
    const context = (k: keyof Outcome["steps"]) => `step ${k}\n--- kpt\n${show(real, k)}\n--- kpt-ts\n${show(ours, k)}`;
    const names = (o: Outcome) => ({ [o.ns]: "<NS>" });

    for (const o of [real, ours]) {
      expect(o.steps.json.run.code, context("json")).toBe(3);
      expect(o.aExists, context("json")).toBe(true);
      expect(o.bTerminating, context("json")).toBe(true);
      // Both stay listed: a was kept, b still exists.
      expect(o.inventoryHeld, context("json")).toEqual([`/ConfigMap/${o.ns}/a`, `/ConfigMap/${o.ns}/b`, `/ConfigMap/${o.ns}/c`]);
    }

    // The JSON events: b pruned, its wait timed out, a skipped with kpt's reason, in kpt's groups.
    const ourJson = comparableEvents(ours.steps.json.events, names(ours));
    expect(ourJson, context("json")).toEqual(comparableEvents(real.steps.json.events, names(real)));
    expect(ourJson).toEqual(
      expect.arrayContaining(["prune Successful /ConfigMap/<NS>/b", "wait Timeout /ConfigMap/<NS>/b", "prune Skipped /ConfigMap/<NS>/a"]),
    );
    expect(ourJson.indexOf("wait Timeout /ConfigMap/<NS>/b")).toBeLessThan(ourJson.indexOf("prune Skipped /ConfigMap/<NS>/a"));
    const reasons = eventErrors(ours.steps.json.events, names(ours));
    expect(reasons, context("json")).toEqual(eventErrors(real.steps.json.events, names(real)));
    expect(reasons).toEqual(["prune ConfigMap/a: dependent delete reconcile timeout: <NS>_b__ConfigMap"]);

    // The event lines name the skip the same way.
    for (const o of [real, ours]) expect(o.steps.lines.run.code, context("lines")).toBe(3);
    const skipLine = (r: RunResult) => r.stdout.split("\n").find((l) => l.includes("configmap/a") && l.includes("dependent delete reconcile timeout"));
    expect(skipLine(real.steps.lines.run)?.replace(real.ns, "<NS>"), context("lines")).toBe("configmap/a prune skipped: dependent delete reconcile timeout: <NS>_b__ConfigMap");
    expect(skipLine(ours.steps.lines.run)?.replace(ours.ns, "<NS>"), context("lines")).toBe(skipLine(real.steps.lines.run)?.replace(real.ns, "<NS>"));

    // Released: a is pruned and the inventory lists only c.
    for (const o of [real, ours]) {
      expect(o.steps.released.run.code, context("released")).toBe(0);
      expect(await getObject("configmaps", "a", o.ns)).toBeUndefined();
      expect(o.inventoryAfter).toEqual([`/ConfigMap/${o.ns}/c`]);
    }
    expect(comparableEvents(ours.steps.released.events, names(ours)), context("released")).toEqual(comparableEvents(real.steps.released.events, names(real)));
  });
});
