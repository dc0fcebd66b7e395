// The engine as a library: a TypeScript program imports `kpt-ts` by its package name (the
// package's own `exports`, as a dependent project resolves it) and deploys without a CLI.
import { afterAll, describe, expect, it } from "vitest";
import { apply, destroy, plan, runOutcome, status, PackageError, type EngineEvent, type RunOutcome } from "kpt-ts";
import { writePackage } from "../helpers/fixtures.js";
import { createNamespace, kptTs, kubeconfig, kubectl } from "../helpers/run.js";
import { configMap, deployment, docs, getObject, inventoryRefs, printed, ref } from "../helpers/scenario.js";

async function collect<T>(events: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const e of events) out.push(e);
  return out;
}

const namespaces: string[] = [];
afterAll(async () => {
  for (const ns of namespaces) await kubectl(["delete", "namespace", ns, "--wait=false"]);
});

describe("import { apply, status, destroy } from \"kpt-ts\"", () => {
  it("applies a package, reports its status and destroys it, as typed events", async () => {
    const ns = await createNamespace("e2e-lib");
    namespaces.push(ns);
    const dir = await writePackage({
      "rg.yaml": `apiVersion: kpt.dev/v1alpha1\nkind: ResourceGroup\nmetadata:\n  name: inv\n  namespace: ${ns}\n  labels: {cli-utils.sigs.k8s.io/inventory-id: lib-${ns}}\n`,
      "app.yaml": docs(configMap("settings", ns), deployment("web", ns)),
    });

    const applied = await collect<EngineEvent>(apply({ path: dir, kubeconfig: kubeconfig(), reconcileTimeoutMs: 120_000 }));
    const applyEvents = applied.flatMap((e) => (e.type === "apply" ? [`${e.ref.kind}/${e.ref.name} ${e.status} ${e.operation}`] : []));
    expect(applyEvents.sort()).toEqual(["ConfigMap/settings Successful created", "Deployment/web Successful created"]);
    const summary = applied.at(-1);
    expect(summary?.type).toBe("summary");
    if (summary?.type === "summary") expect(summary.stats.wait).toMatchObject({ successful: 2, failed: 0, timeout: 0 });
    const inv = await getObject("resourcegroups.kpt.dev", "inv", ns);
    expect(inventoryRefs(inv)).toEqual([ref("", "ConfigMap", ns, "settings"), ref("apps", "Deployment", ns, "web")]);

    const statuses = await collect(status({ path: dir, kubeconfig: kubeconfig() }));
    expect(statuses.map((s) => `${s.ref.kind}/${s.ref.name} ${s.status}`).sort()).toEqual(["ConfigMap/settings Current", "Deployment/web Current"]);

    const destroyed = await collect<EngineEvent>(destroy({ path: dir, kubeconfig: kubeconfig() }));
    expect(destroyed.filter((e) => e.type === "delete").map((e) => (e.type === "delete" ? `${e.ref.kind}/${e.ref.name} ${e.status}` : "")).sort()).toEqual([
      "ConfigMap/settings Successful",
      "Deployment/web Successful",
    ]);
    expect(await getObject("configmaps", "settings", ns)).toBeUndefined();
    expect(await getObject("resourcegroups.kpt.dev", "inv", ns)).toBeUndefined();
  });

  it("plan() says what the next apply would do, object by object, and writes nothing", async () => {
    const ns = await createNamespace("e2e-lib-plan");
    namespaces.push(ns);
    const rg = `apiVersion: kpt.dev/v1alpha1\nkind: ResourceGroup\nmetadata:\n  name: inv\n  namespace: ${ns}\n  labels: {cli-utils.sigs.k8s.io/inventory-id: plan-${ns}}\n`;
    const first = await writePackage({ "rg.yaml": rg, "app.yaml": docs(configMap("kept", ns), configMap("dropped", ns)) });
    await collect(apply({ path: first, kubeconfig: kubeconfig() }));
    const next = await writePackage({ "rg.yaml": rg, "app.yaml": docs(configMap("kept", ns), configMap("new", ns)) });
    const before = (await getObject("resourcegroups.kpt.dev", "inv", ns))?.metadata.resourceVersion;

    const p = await plan({ path: next, kubeconfig: kubeconfig() });
    if (p.command !== "apply") throw new Error("expected an apply plan");
    expect(p.applies.map((a) => `${a.ref.name} ${a.operation}`).sort()).toEqual(["kept unchanged", "new create"]);
    expect(p.deletes.map((d) => `${d.ref.name} ${d.decision.action}`)).toEqual(["dropped delete"]);
    expect(await getObject("configmaps", "new", ns)).toBeUndefined();
    expect(await getObject("configmaps", "dropped", ns)).toBeDefined();
    expect((await getObject("resourcegroups.kpt.dev", "inv", ns))?.metadata.resourceVersion).toBe(before);
  });

  it("leaves the same change record as the CLI: a CLI apply then a library apply are two records in live history; history: false leaves none", async () => {
    const ns = await createNamespace("e2e-lib-history");
    namespaces.push(ns);
    const rg = `apiVersion: kpt.dev/v1alpha1\nkind: ResourceGroup\nmetadata:\n  name: inv\n  namespace: ${ns}\n  labels: {cli-utils.sigs.k8s.io/inventory-id: hist-${ns}}\n`;
    const dir = await writePackage({ "rg.yaml": rg, "app.yaml": docs(configMap("settings", ns)) });
    const cli = await kptTs(["live", "apply", dir]);
    expect(cli.code, printed(cli)).toBe(0);

    // The library changes the package (a second ConfigMap), as a deploy program would.
    const next = await writePackage({ "rg.yaml": rg, "app.yaml": docs(configMap("settings", ns), configMap("extra", ns)) });
    const events = await collect<EngineEvent>(apply({ path: next, kubeconfig: kubeconfig() }));
    expect(events.filter((e) => e.type === "warning")).toEqual([]);
    const listed = async () => {
      const r = await kptTs(["live", "history", dir, "--output", "json"]);
      expect(r.code, printed(r)).toBe(0);
      return (JSON.parse(r.stdout) as { changes: { command: string; result: string; description: string }[] }).changes;
    };
    expect(await listed()).toEqual([
      expect.objectContaining({ command: "apply", result: "succeeded", description: "Op: 1 create, 0 delete, 0 update, 1 noop" }),
      expect.objectContaining({ command: "apply", result: "succeeded", description: "Op: 1 create, 0 delete, 0 update, 0 noop" }),
    ]);

    // history: false (or a limit of 0): the run leaves no record.
    const last = await writePackage({ "rg.yaml": rg, "app.yaml": docs(configMap("settings", ns)) });
    await collect(apply({ path: last, kubeconfig: kubeconfig(), history: false }));
    expect(await getObject("configmaps", "extra", ns)).toBeUndefined();
    expect(await listed()).toHaveLength(2);
  });

  // Issue 36: a caller learns that a run failed without reading its events.
  it("runOutcome: the CLI's exit code, the counts, each failed object, and the error that stopped a run early", async () => {
    const ns = await createNamespace("e2e-lib-outcome");
    namespaces.push(ns);
    const rg = `apiVersion: kpt.dev/v1alpha1\nkind: ResourceGroup\nmetadata:\n  name: inv\n  namespace: ${ns}\n  labels: {cli-utils.sigs.k8s.io/inventory-id: outcome-${ns}}\n`;
    // The server refuses the Service (an unknown type): the run goes on and ends with kpt's result code.
    const bad = `apiVersion: v1\nkind: Service\nmetadata:\n  name: bad\n  namespace: ${ns}\nspec:\n  type: Bogus\n  ports: [{port: 80}]\n`;
    const dir = await writePackage({ "rg.yaml": rg, "app.yaml": docs(configMap("settings", ns), bad) });
    const seen: string[] = [];
    const out: RunOutcome = await runOutcome(apply({ path: dir, kubeconfig: kubeconfig(), reconcileTimeoutMs: 60_000 }), { onEvent: (e) => seen.push(e.type) });
    expect(out.exitCode).toBe(3);
    expect(out.error).toBeUndefined();
    expect(out.stats.apply).toMatchObject({ successful: 1, failed: 1, created: 1 });
    expect(out.failures).toEqual([{ ref: { group: "", kind: "Service", namespace: ns, name: "bad" }, action: "apply", error: expect.stringMatching(/Unsupported value: "Bogus"/) }]);
    expect(seen.at(-1)).toBe("summary");
    // The CLI exits with the same code.
    const cli = await kptTs(["live", "apply", dir]);
    expect(cli.code, printed(cli)).toBe(out.exitCode);

    // A run stopped before its first write: the error, with the CLI's exit code; nothing thrown.
    const elsewhere = await writePackage({ "rg.yaml": rg, "app.yaml": configMap("settings", `${ns}-missing`) });
    const stopped = await runOutcome(apply({ path: elsewhere, kubeconfig: kubeconfig() }));
    expect(stopped.exitCode).toBe(2);
    expect(stopped.error).toBeInstanceOf(PackageError);
    expect(stopped.error?.message).toContain(`namespace "${ns}-missing" does not exist in the cluster`);
    const cliStopped = await kptTs(["live", "apply", elsewhere]);
    expect(cliStopped.code, printed(cliStopped)).toBe(stopped.exitCode);

    const gone = await runOutcome(destroy({ path: dir, kubeconfig: kubeconfig() }));
    expect([gone.exitCode, gone.stats.delete.successful, gone.failures]).toEqual([0, 1, []]);
  });

  it("throws the typed PackageError for a bad package, before touching the cluster", async () => {
    const ns = await createNamespace("e2e-lib-bad");
    namespaces.push(ns);
    const dir = await writePackage({ "bad.yaml": `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  namespace: ${ns}\n` });
    const err = await collect(apply({ path: dir, kubeconfig: kubeconfig() })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PackageError);
    expect((err as PackageError).issues[0]?.source?.file).toMatch(/bad\.yaml$/);
  });
});
