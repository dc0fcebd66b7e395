// Issue 22: switching a package between client-side and server-side apply. A ConfigMap with keys
// a and b is applied, b is removed from the package, and the next apply uses the other mode. The
// same sequence is run by kubectl (and the real kpt where it applies) on a twin ConfigMap, and
// the results are compared: the data left, and which field managers own each key afterwards.
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { writePackage } from "../helpers/fixtures.js";
import { createNamespace, hasBinary, kpt, kptTs, kubectl, type RunResult } from "../helpers/run.js";
import { configMap, getObject, lines, printed, type KubeObj } from "../helpers/scenario.js";

const haveKpt = hasBinary("kpt");
if (!haveKpt) console.warn("skipping the kpt side of the mode-switch tests: the real `kpt` is not on PATH");

type Mode = "csa" | "ssa";
const AB = { a: "1", b: "2" };
const A = { a: "1" };

/** `manager (Operation)` of every managedFields entry that owns `data.<key>`, sorted. */
function ownersOf(obj: KubeObj | undefined, key: string): string[] {
  const entries = (obj?.metadata.managedFields ?? []) as { manager: string; operation: string; fieldsV1?: any }[];
  return entries.filter((e) => e.fieldsV1?.["f:data"]?.[`f:${key}`] !== undefined).map((e) => `${e.manager} (${e.operation})`).sort();
}

/** The managers that own anything at all, with their operations, sorted. */
function managers(obj: KubeObj | undefined): string[] {
  return ((obj?.metadata.managedFields ?? []) as { manager: string; operation: string }[]).map((e) => `${e.manager} (${e.operation})`).sort();
}

const ok = (r: RunResult) => expect(r.code, printed(r)).toBe(0);

/** kubectl apply of one ConfigMap, client-side or server-side. */
async function kubectlApply(dir: string, name: string, ns: string, data: Record<string, string>, mode: Mode): Promise<RunResult> {
  const file = join(dir, `${name}.yaml`);
  await writeFile(file, configMap(name, ns, data));
  return kubectl(["apply", ...(mode === "ssa" ? ["--server-side"] : []), "-f", file]);
}

/** A package tool (kpt or kpt-ts) applying a one-ConfigMap package. */
async function packageApply(tool: typeof kptTs, dir: string, name: string, ns: string, data: Record<string, string>, mode: Mode): Promise<RunResult> {
  await writeFile(join(dir, "cm.yaml"), configMap(name, ns, data));
  return tool(["live", "apply", "--reconcile-timeout=1m", ...(mode === "ssa" ? ["--server-side"] : []), dir]);
}

async function newPackage(tool: typeof kptTs, ns: string): Promise<string> {
  const dir = await writePackage({});
  ok(await tool(["live", "init", "--namespace", ns, dir]));
  return dir;
}

/** Runs `steps` (data, mode) with kubectl, kpt-ts and (when present) kpt, each on its own twin ConfigMap. */
async function runAll(ns: string, steps: [Record<string, string>, Mode][]) {
  const scratch = await writePackage({});
  for (const [data, mode] of steps) ok(await kubectlApply(scratch, "by-kubectl", ns, data, mode));
  const ours = await newPackage(kptTs, ns);
  let last: RunResult | undefined;
  for (const [data, mode] of steps) ok((last = await packageApply(kptTs, ours, "by-kpt-ts", ns, data, mode)));
  if (haveKpt) {
    const theirs = await newPackage(kpt, ns);
    for (const [data, mode] of steps) ok(await packageApply(kpt, theirs, "by-kpt", ns, data, mode));
  }
  const get = (name: string) => getObject("configmap", name, ns, { managedFields: true });
  return { kubectl: await get("by-kubectl"), kptTs: await get("by-kpt-ts"), kpt: haveKpt ? await get("by-kpt") : undefined, ours, last: last! };
}

describe("switching between client-side and server-side apply", () => {
  it("client-side then server-side: the dropped key goes, as with kubectl and kpt, and ownership moves as kubectl moves it", async () => {
    const ns = await createNamespace("e2e-switch-cs");
    const r = await runAll(ns, [
      [AB, "csa"],
      [A, "ssa"],
    ]);
    expect(r.kubectl?.data).toEqual(A);
    expect(r.kptTs?.data).toEqual(A);
    if (haveKpt) expect(r.kpt?.data).toEqual(A);
    // kubectl's migration: the client-side manager is gone, "kubectl" applies the data and
    // "kubectl-last-applied" keeps the annotation (which the server keeps current).
    expect(ownersOf(r.kptTs, "a")).toEqual(ownersOf(r.kubectl, "a"));
    expect(ownersOf(r.kptTs, "a")).toEqual(["kubectl (Apply)"]);
    expect(managers(r.kptTs)).toEqual(managers(r.kubectl));
    // The annotation still says what was applied last, so a switch back can remove what goes.
    expect(JSON.parse(r.kptTs?.metadata.annotations?.["kubectl.kubernetes.io/last-applied-configuration"] ?? "{}").data).toEqual(A);

    // The next server-side apply has nothing to do: nothing is written.
    const before = r.kptTs!.metadata.resourceVersion;
    const again = await kptTs(["live", "apply", "--server-side", r.ours]);
    ok(again);
    expect(lines(again)).toContain(`configmap/by-kpt-ts unchanged`);
    expect((await getObject("configmap", "by-kpt-ts", ns))?.metadata.resourceVersion).toBe(before);
  });

  it("server-side then client-side, on an object applied client-side before: the dropped key goes, as with kubectl", async () => {
    const ns = await createNamespace("e2e-switch-scc");
    const r = await runAll(ns, [
      [AB, "csa"],
      [AB, "ssa"],
      [A, "csa"],
    ]);
    expect(r.kubectl?.data).toEqual(A);
    expect(r.kptTs?.data).toEqual(A);
    if (haveKpt) expect(r.kpt?.data).toEqual(A);
    expect(ownersOf(r.kptTs, "a")).toEqual(ownersOf(r.kubectl, "a"));
    expect(managers(r.kptTs)).toEqual(managers(r.kubectl));
  });

  it("server-side then client-side, on an object only ever applied server-side: kpt-ts removes the dropped key (kubectl and kpt keep it)", async () => {
    const ns = await createNamespace("e2e-switch-sc");
    const r = await runAll(ns, [
      [AB, "ssa"],
      [A, "csa"],
    ]);
    // kubectl has no last-applied annotation to tell it what was applied: it keeps b, and warns.
    expect(r.kubectl?.data).toEqual(AB);
    if (haveKpt) expect(r.kpt?.data).toEqual(AB);
    // kpt-ts reads what its server-side field manager applied instead.
    expect(r.kptTs?.data).toEqual(A);
    // What the package still sets keeps the owner kubectl leaves it with: nobody else took it over.
    expect(ownersOf(r.kptTs, "a")).toEqual(ownersOf(r.kubectl, "a"));
    expect(ownersOf(r.kptTs, "a")).toEqual(["kubectl (Apply)"]);

    // Back to server-side: the client-side manager is migrated, the object stays {a}, and a
    // second apply in the same mode writes nothing.
    ok(await packageApply(kptTs, r.ours, "by-kpt-ts", ns, A, "ssa"));
    const back = await getObject("configmap", "by-kpt-ts", ns, { managedFields: true });
    expect(back?.data).toEqual(A);
    expect(managers(back)).toEqual(["kubectl (Apply)", "kubectl-last-applied (Apply)"]);
    const again = await kptTs(["live", "apply", "--server-side", r.ours]);
    ok(again);
    expect((await getObject("configmap", "by-kpt-ts", ns))?.metadata.resourceVersion).toBe(back?.metadata.resourceVersion);
  });

  it("a package's own server-side field manager: the migration hands the fields to it, and the annotation goes as with kubectl", async () => {
    const ns = await createNamespace("e2e-switch-fm");
    const scratch = await writePackage({});
    ok(await kubectlApply(scratch, "by-kubectl", ns, AB, "csa"));
    const file = join(scratch, "by-kubectl.yaml");
    await writeFile(file, configMap("by-kubectl", ns, A));
    ok(await kubectl(["apply", "--server-side", "--field-manager=deployer", "-f", file]));

    const ours = await newPackage(kptTs, ns);
    ok(await packageApply(kptTs, ours, "by-kpt-ts", ns, AB, "csa"));
    await writeFile(join(ours, "cm.yaml"), configMap("by-kpt-ts", ns, A));
    ok(await kptTs(["live", "apply", "--server-side", "--field-manager=deployer", ours]));

    const [k, t] = [await getObject("configmap", "by-kubectl", ns, { managedFields: true }), await getObject("configmap", "by-kpt-ts", ns, { managedFields: true })];
    expect(k?.data).toEqual(A);
    expect(t?.data).toEqual(A);
    expect(managers(t)).toEqual(managers(k));
    expect(managers(t)).toEqual(["deployer (Apply)"]);
    expect(t?.metadata.annotations?.["kubectl.kubernetes.io/last-applied-configuration"]).toBeUndefined();
  });

  it("live diff and a server-side dry run show the key the switch removes", async () => {
    const ns = await createNamespace("e2e-switch-diff");
    const ours = await newPackage(kptTs, ns);
    ok(await packageApply(kptTs, ours, "cm", ns, AB, "csa"));
    await writeFile(join(ours, "cm.yaml"), configMap("cm", ns, A));
    const diff = await kptTs(["live", "diff", "--server-side", ours]);
    expect(diff.stdout).toMatch(/^-\s+b: "2"$/m);
    const dry = await kptTs(["live", "apply", "--server-side", "--dry-run", ours]);
    ok(dry);
    expect(lines(dry).some((l) => /^configmap\/cm .*configured/.test(l)), printed(dry)).toBe(true);
    // Nothing was written by either.
    expect((await getObject("configmap", "cm", ns))?.data).toEqual(AB);
  });
});
