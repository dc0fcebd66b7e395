// Issue 9: the change history and the list of deployed packages, as kapp has them. Each
// `live apply` / `live destroy` that reaches the cluster leaves a record beside the inventory
// (a labelled ConfigMap the real kpt ignores); `live history` lists them; only the newest N are
// kept; an interrupted or killed run says so. `live list` shows every inventory in the cluster,
// kpt-ts' and the real kpt's.
import { rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { startKptTs } from "../helpers/background.js";
import { writePackage } from "../helpers/fixtures.js";
import { CHANGE_LABEL, printed, readInventoryFile } from "../helpers/scenario.js";
import { createNamespace, hasBinary, kpt, kptTs, kubectl, kubectlJson, waitUntil } from "../helpers/run.js";

const haveKpt = hasBinary("kpt");
if (!haveKpt) console.warn("skipping the checks with the real kpt in history.test.ts: `kpt` is not on PATH");

const cm = (ns: string, name: string, value: string, key = "value") => `apiVersion: v1
kind: ConfigMap
metadata:
  name: ${name}
  namespace: ${ns}
data:
  "${key}": "${value}"
`;

interface HistoryJson {
  inventory: { name: string; namespace: string; id: string };
  changes: { command: string; user: string; result: string; description: string; counts: Record<string, number>; failed: { kind: string; name: string; action: string }[]; startedAt: string; finishedAt?: string; error?: string }[];
}

async function history(dir: string): Promise<HistoryJson> {
  const r = await kptTs(["live", "history", dir, "--output", "json"]);
  expect(r.code, printed(r)).toBe(0);
  return JSON.parse(r.stdout) as HistoryJson;
}

async function kubeconfigUser(): Promise<string> {
  const r = await kubectl(["config", "view", "--minify", "-o", "jsonpath={.contexts[0].context.user}"]);
  return r.stdout.trim();
}

describe("live history", () => {
  it("records three applies and a destroy with their counts and outcomes, keeps only the newest N, and the real kpt still works on the package", async () => {
    const ns = await createNamespace("e2e-hist");
    const dir = await writePackage({ "a.yaml": cm(ns, "a", "1"), "b.yaml": cm(ns, "b", "1") });
    expect((await kptTs(["live", "init", dir])).code).toBe(0);
    const { id } = await readInventoryFile(dir);

    // 1: two new objects.
    let r = await kptTs(["live", "apply", dir]);
    expect(r.code, printed(r)).toBe(0);
    // 2: one changed, one new, one unchanged.
    await writeFile(join(dir, "a.yaml"), cm(ns, "a", "2"));
    await writeFile(join(dir, "c.yaml"), cm(ns, "c", "1"));
    r = await kptTs(["live", "apply", dir]);
    expect(r.code, printed(r)).toBe(0);
    // 3: an object the server refuses (a data key with a space): the run fails.
    await writeFile(join(dir, "bad.yaml"), cm(ns, "bad", "1", "bad key"));
    r = await kptTs(["live", "apply", dir]);
    expect(r.code, printed(r)).toBe(3);
    // A dry run changes nothing: no record.
    await kptTs(["live", "apply", "--dry-run", dir]);
    // 4: destroy.
    r = await kptTs(["live", "destroy", dir]);
    expect(r.code, printed(r)).toBe(0);

    const h = await history(dir);
    const user = await kubeconfigUser();
    expect(h.inventory.id).toBe(id);
    expect(h.changes.map((c) => [c.command, c.result, c.description, c.user])).toEqual([
      ["destroy", "succeeded", "Op: 0 create, 3 delete, 0 update, 0 noop", user],
      ["apply", "failed", "Op: 0 create, 0 delete, 0 update, 3 noop", user],
      ["apply", "succeeded", "Op: 1 create, 0 delete, 1 update, 1 noop", user],
      ["apply", "succeeded", "Op: 2 create, 0 delete, 0 update, 0 noop", user],
    ]);
    expect(h.changes[1]!.failed).toMatchObject([{ kind: "ConfigMap", name: "bad", action: "apply" }]);
    for (const c of h.changes) expect(Date.parse(c.finishedAt!)).toBeGreaterThanOrEqual(Date.parse(c.startedAt));

    const table = await kptTs(["live", "history", dir]);
    expect(table.code, printed(table)).toBe(0);
    expect(table.stdout).toMatch(/Started +Took +Command +User +Result +Changes/);
    expect(table.stdout).toMatch(/destroy +\S+ +succeeded +Op: 0 create, 3 delete, 0 update, 0 noop/);
    expect(table.stdout).toContain("failed: configmap/bad (apply: ");
    expect(table.stdout).toContain("4 change(s), newest first");

    // The records are ConfigMaps beside the inventory, with none of the keys kpt selects by.
    const records = await kubectlJson<{ items: { metadata: { labels?: Record<string, string>; annotations?: Record<string, string> } }[] }>(["get", "configmaps", "-n", ns, "-l", `${CHANGE_LABEL}=${id}`]);
    expect(records.items).toHaveLength(4);
    for (const o of records.items) {
      expect(Object.keys(o.metadata.labels ?? {})).toEqual([CHANGE_LABEL]);
      expect(Object.keys(o.metadata.annotations ?? {}).filter((k) => k.includes("config.k8s.io") || k.includes("cli-utils"))).toEqual([]);
    }

    // With a limit of 2, this apply leaves only itself and the destroy.
    await rm(join(dir, "bad.yaml"));
    r = await kptTs(["live", "apply", "--history-limit=2", dir]);
    expect(r.code, printed(r)).toBe(0);
    expect((await history(dir)).changes.map((c) => `${c.command} ${c.description}`)).toEqual(["apply Op: 3 create, 0 delete, 0 update, 0 noop", "destroy Op: 0 create, 3 delete, 0 update, 0 noop"]);

    if (!haveKpt) return;
    // The real kpt works on the same package: its ResourceGroup is untouched, the records are not its business.
    const applied = await kpt(["live", "apply", dir]);
    expect(applied.code, printed(applied)).toBe(0);
    const status = await kpt(["live", "status", dir]);
    expect(status.code, printed(status)).toBe(0);
    for (const name of ["a", "b", "c"]) expect(status.stdout).toMatch(new RegExp(`configmap/${ns}/${name} is Current`));
    expect((await kubectlJson<{ items: unknown[] }>(["get", "configmaps", "-n", ns, "-l", `${CHANGE_LABEL}=${id}`])).items).toHaveLength(2);
    // And kpt-ts on top of kpt's run (with a change: an apply that changes nothing records nothing).
    await writeFile(join(dir, "a.yaml"), cm(ns, "a", "3"));
    r = await kptTs(["live", "apply", dir]);
    expect(r.code, printed(r)).toBe(0);
    const after = (await history(dir)).changes;
    expect(after).toHaveLength(3);
    expect(after[0]).toMatchObject({ command: "apply", result: "succeeded" });
    expect(after[0]!.description).toMatch(/^Op: 0 create, 0 delete, [1-3] update, [0-2] noop$/);
  });

  it("an interrupted apply leaves a record that says so; one whose process was killed is shown running, then unknown", async () => {
    const ns = await createNamespace("e2e-hist-int");
    // Each run changes the Deployment (its revision annotation): an apply that changes nothing records nothing.
    const stuck = (rev: number) => `apiVersion: apps/v1
kind: Deployment
metadata: {name: stuck, namespace: ${ns}, annotations: {rev: "${rev}"}}
spec:
  replicas: 1
  selector: {matchLabels: {app: stuck}}
  template:
    metadata: {labels: {app: stuck}}
    spec:
      nodeSelector: {no-such-node: "true"}
      containers: [{name: c, image: nginx}]
`;
    const dir = await writePackage({ "stuck.yaml": stuck(1) });
    expect((await kptTs(["live", "init", dir])).code).toBe(0);

    // Ctrl-C while it waits.
    const interrupted = startKptTs(["live", "apply", dir]);
    await interrupted.waitForOutput(/deployment\.apps\/stuck reconcile pending/);
    await waitUntil("the running record", async () => (await history(dir)).changes[0]?.result === "running");
    interrupted.interrupt();
    const done = await interrupted.done;
    expect(done.code, `${done.stdout}\n${done.stderr}`).toBe(130);
    let h = await history(dir);
    expect(h.changes.map((c) => [c.result, c.description])).toEqual([["interrupted", "Op: 1 create, 0 delete, 0 update, 0 noop"]]);
    expect(h.changes[0]!.error).toMatch(/interrupted/);

    // Killed outright: nothing can update the record.
    await writeFile(join(dir, "stuck.yaml"), stuck(2));
    const killed = startKptTs(["live", "apply", dir]);
    await killed.waitForOutput(/deployment\.apps\/stuck reconcile pending/);
    await waitUntil("the running record", async () => (await history(dir)).changes.length === 2);
    killed.kill();
    await killed.done;
    h = await history(dir);
    expect(h.changes.map((c) => c.result)).toEqual(["running", "interrupted"]);

    // A newer change shows that it never finished. The killed run still holds the package's lock
    // until its Lease expires (issue 33: at most 20 s): the next run waits for it.
    await writeFile(join(dir, "stuck.yaml"), stuck(3));
    const r = await kptTs(["live", "apply", "--reconcile-timeout=1s", "--lock-timeout=60s", dir]);
    expect(r.code, printed(r)).toBe(3);
    h = await history(dir);
    expect(h.changes.map((c) => c.result)).toEqual(["failed", "unknown", "interrupted"]);
    const table = await kptTs(["live", "history", dir]);
    expect(table.stdout).toContain("never finished: its process was killed or lost the cluster");
  });
});

describe("live list", () => {
  it("shows packages applied by kpt-ts and by the real kpt, with their object counts and last change", async () => {
    const ns1 = await createNamespace("e2e-list-ts");
    const ns2 = await createNamespace("e2e-list-kpt");
    const other = await createNamespace("e2e-list-other");
    const ours = await writePackage({ "a.yaml": cm(ns1, "a", "1"), "b.yaml": cm(other, "b", "1") });
    expect((await kptTs(["live", "init", "--namespace", ns1, ours])).code).toBe(0);
    const r = await kptTs(["live", "apply", ours]);
    expect(r.code, printed(r)).toBe(0);
    const oursInv = await readInventoryFile(ours);

    const theirs = await writePackage({ "x.yaml": cm(ns2, "x", "1"), "y.yaml": cm(ns2, "y", "1"), "z.yaml": cm(ns2, "z", "1") });
    let theirsName: string | undefined;
    if (haveKpt) {
      const init = await kpt(["live", "init", theirs]);
      expect(init.code, printed(init)).toBe(0);
      const applied = await kpt(["live", "apply", theirs]);
      expect(applied.code, printed(applied)).toBe(0);
      theirsName = (await readInventoryFile(theirs)).name;
    }

    const list = await kptTs(["live", "list", "--output", "json"]);
    expect(list.code, printed(list)).toBe(0);
    const rows = (JSON.parse(list.stdout) as { inventories: { namespace: string; name: string; objects: number; namespaces: string[]; lastChange?: { command: string; result: string } }[] }).inventories;
    expect(rows.find((x) => x.namespace === ns1 && x.name === oursInv.name)).toMatchObject({ objects: 2, namespaces: [ns1, other].sort(), lastChange: { command: "apply", result: "succeeded" } });
    if (theirsName) {
      const row = rows.find((x) => x.namespace === ns2 && x.name === theirsName);
      expect(row).toMatchObject({ objects: 3, namespaces: [ns2] });
      expect(row?.lastChange).toBeUndefined();
    }

    const table = await kptTs(["live", "list"]);
    expect(table.code, printed(table)).toBe(0);
    expect(table.stdout).toMatch(/Namespace +Name +Kind +Objects +Namespaces +Last change +Age/);
    expect(table.stdout).toMatch(new RegExp(`${ns1} +${oursInv.name} +ResourceGroup +2 +[^ ]*${ns1}[^ ]* +apply succeeded +\\d+[smh]`));
    if (theirsName) expect(table.stdout).toMatch(new RegExp(`${ns2} +${theirsName} +ResourceGroup +3 +${ns2} +- +-`));

    // -n narrows it to one namespace.
    const one = await kptTs(["live", "list", "-n", ns1, "--output", "json"]);
    expect(one.code, printed(one)).toBe(0);
    expect((JSON.parse(one.stdout) as { inventories: { namespace: string }[] }).inventories.map((x) => x.namespace)).toEqual([ns1]);
  });
});
