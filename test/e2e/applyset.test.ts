// Issue 33: ApplySet (KEP-3659) as kpt-ts's second inventory kind, on the real cluster, beside
// kubectl 1.32 (KUBECTL_APPLYSET=true) and the real kpt: `live init --inventory-kind applyset`,
// every command on such a package, kubectl's refusal naming kpt-ts's tooling, kubectl's ApplySets
// listed and adopted, `--applyset` without an inventory file, and `live migrate` to an ApplySet
// and back with every object's uid unchanged.
import { readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { startKptTs } from "../helpers/background.js";
import { writePackage } from "../helpers/fixtures.js";
import { createNamespace, kpt, kptTs, kubectl, kubectlJson } from "../helpers/run.js";
import { configMap, docs, getObject, lines, printed, service } from "../helpers/scenario.js";

const PART_OF = "applyset.kubernetes.io/part-of";
const withApplySet = { env: { KUBECTL_APPLYSET: "true" } };

interface Obj {
  metadata: { name: string; uid: string; labels?: Record<string, string>; annotations?: Record<string, string> };
}

/** name -> uid of the ConfigMaps and Services in the namespace (the change records left out). */
async function uids(ns: string): Promise<Record<string, string>> {
  const list = await kubectlJson<{ items: (Obj & { kind: string })[] }>(["get", "configmaps,services", "-n", ns]);
  return Object.fromEntries(list.items.filter((o) => !o.metadata.name.includes("-change-") && o.metadata.name !== "kube-root-ca.crt").map((o) => [`${o.kind}/${o.metadata.name}`, o.metadata.uid]));
}

describe("an ApplySet package (live init --inventory-kind applyset)", () => {
  it("applies, previews, prunes, reports, lists and destroys; kubectl recognises the parent and refuses it, naming kpt-ts; kpt refuses the package", async () => {
    const ns = await createNamespace("e2e-applyset");
    const dir = await writePackage({ "objects.yaml": docs(configMap("one", ns), configMap("two", ns), service("web", ns)) });
    const init = await kptTs(["live", "init", "--inventory-kind", "applyset", "--name", "web-set", dir]);
    expect(init.code, printed(init)).toBe(0);
    expect(init.stderr).toBe(`initializing "applyset.yaml" data (namespace: ${ns})...success\n`);
    expect(await readFile(join(dir, "applyset.yaml"), "utf8")).toContain(`apiVersion: kpt-ts.dev/v1alpha1\nkind: ApplySet\nmetadata:\n  name: web-set\n  namespace: ${ns}\n  annotations:\n    config.kubernetes.io/local-config: "true"\nspec:\n  parentKind: Secret\n`);

    const apply = await kptTs(["live", "apply", dir]);
    expect(apply.code, printed(apply)).toBe(0);
    expect(lines(apply)).toEqual(expect.arrayContaining(["configmap/one created", "configmap/two created", "service/web created"]));
    const parent = (await getObject("secrets", "web-set", ns))!;
    const id = parent.metadata.labels?.["applyset.kubernetes.io/id"];
    expect(id).toMatch(/^applyset-[A-Za-z0-9_-]{43}-v1$/);
    expect(parent.metadata.annotations).toMatchObject({ "applyset.kubernetes.io/contains-group-kinds": "ConfigMap,Service", "applyset.kubernetes.io/tooling": expect.stringMatching(/^kpt-ts\/v/) });
    for (const [kind, name] of [["configmaps", "one"], ["configmaps", "two"], ["services", "web"]] as const) expect((await getObject(kind, name, ns))?.metadata.labels?.[PART_OF]).toBe(id);
    // No ResourceGroup, no CRD needed.
    expect((await kubectl(["get", "resourcegroups.kpt.dev", "-n", ns, "-o", "name"])).stdout).toBe("");

    // kubectl's ApplySet machinery reads the parent, and refuses to take over kpt-ts's.
    const byKubectl = await kubectl(["apply", "--prune", "--applyset=web-set", "-n", ns, "-f", join(dir, "objects.yaml")], withApplySet);
    expect(byKubectl.code, printed(byKubectl)).toBe(1);
    expect(byKubectl.stderr.trim()).toBe('error: ApplySet parent object "secrets./web-set" already exists and is managed by tooling "kpt-ts" instead of "kubectl"');
    // The real kpt does not read kpt-ts's applyset.yaml (local config): it refuses, rather than start a ResourceGroup of its own.
    const byKpt = await kpt(["live", "apply", "--dry-run", dir]);
    expect(byKpt.code, printed(byKpt)).not.toBe(0);
    expect(byKpt.stderr).toContain("no ResourceGroup object was provided within the stream or package");

    // The next version drops a ConfigMap and adds one: preview it three ways, then apply.
    await writeFile(join(dir, "objects.yaml"), docs(configMap("one", ns), configMap("three", ns), service("web", ns)));
    const diff = await kptTs(["live", "diff", dir]);
    expect(diff.code, printed(diff)).toBe(1);
    expect(diff.stdout).toContain(`Inventory: ApplySet (Secret) ${ns}/web-set (in the cluster)`);
    expect(diff.stdout).toMatch(/three +ConfigMap +create/);
    expect(diff.stdout).toMatch(/two +ConfigMap +delete/);
    const dry = await kptTs(["live", "apply", "--dry-run", dir]);
    expect(dry.code, printed(dry)).toBe(0);
    expect(lines(dry)).toEqual(expect.arrayContaining(["configmap/three created", "configmap/two pruned"]));
    const markdown = await kptTs(["live", "apply", "--dry-run", "--output", "markdown", dir]);
    expect(markdown.code, printed(markdown)).toBe(0);
    expect(markdown.stdout).toContain(`: ApplySet (Secret) ${ns}/web-set`);
    expect(await getObject("configmaps", "three", ns)).toBeUndefined();
    expect(await getObject("configmaps", "two", ns)).toBeDefined();

    const prune = await kptTs(["live", "apply", dir]);
    expect(prune.code, printed(prune)).toBe(0);
    expect(lines(prune)).toEqual(expect.arrayContaining(["configmap/three created", "configmap/two pruned"]));
    expect(await getObject("configmaps", "two", ns)).toBeUndefined();
    const noop = await kptTs(["live", "apply", dir]);
    expect(lines(noop)).toContain("3 resource(s) applied. 0 created, 3 unchanged, 0 configured, 0 failed");

    const status = await kptTs(["live", "status", dir]);
    expect(status.code, printed(status)).toBe(0);
    expect(lines(status).sort()).toEqual(["configmap/one is Current: Resource is always ready", "configmap/three is Current: Resource is always ready", "service/web is Current: Service is ready"]);
    const remote = await kptTs(["live", "status", "--inv-type", "remote", "--inv-names", "web-set"]);
    expect(remote.code, printed(remote)).toBe(0);
    expect(lines(remote)).toContain(`web-set/configmap/${ns}/three is Current: Resource is always ready`);
    const history = await kptTs(["live", "history", dir]);
    expect(history.stdout).toContain(`Inventory: ApplySet (Secret) ${ns}/web-set (inventory id ${id})`);
    expect(history.stdout).toContain("2 change(s), newest first"); // the no-op records nothing
    const list = await kptTs(["live", "list", "-n", ns, "--output", "json"]);
    expect(JSON.parse(list.stdout).inventories).toEqual([expect.objectContaining({ namespace: ns, name: "web-set", kind: "ApplySet", parentKind: "Secret", id, objects: 3, lastChange: expect.objectContaining({ command: "apply", result: "succeeded" }) })]);

    const destroy = await kptTs(["live", "destroy", dir]);
    expect(destroy.code, printed(destroy)).toBe(0);
    expect(lines(destroy)).toContain("3 resource(s) deleted, 0 skipped, 0 failed to delete");
    expect(await getObject("secrets", "web-set", ns)).toBeUndefined();
    expect(await uids(ns)).toEqual({});
    expect((await kubectl(["get", "leases", "-n", ns, "-o", "name"])).stdout).toBe("");
  });

  it("a ConfigMap parent, and --applyset with -n for a package without an inventory file (kubectl's way)", async () => {
    const ns = await createNamespace("e2e-applyset-flag");
    const dir = await writePackage({ "objects.yaml": docs(configMap("a", ns), configMap("b", ns)) });
    const noNamespace = await kptTs(["live", "apply", "--applyset", "configmaps/flagged", dir]);
    expect(noNamespace.code, printed(noNamespace)).toBe(2);
    expect(noNamespace.stderr).toContain("--applyset configmaps/flagged needs --namespace");
    const apply = await kptTs(["live", "apply", "--applyset", "configmaps/flagged", "-n", ns, dir]);
    expect(apply.code, printed(apply)).toBe(0);
    const parent = await getObject("configmaps", "flagged", ns);
    expect(parent?.metadata.annotations?.["applyset.kubernetes.io/contains-group-kinds"]).toBe("ConfigMap");
    // kubectl computes the same id for the same parent: it finds the members by it and prunes one.
    const id = parent?.metadata.labels?.["applyset.kubernetes.io/id"];
    expect((await getObject("configmaps", "a", ns))?.metadata.labels?.[PART_OF]).toBe(id);
    await writeFile(join(dir, "objects.yaml"), configMap("a", ns));
    const status = await kptTs(["live", "status", "--applyset", "configmaps/flagged", "-n", ns, dir]);
    expect(lines(status).sort()).toEqual(["configmap/a is Current: Resource is always ready", "configmap/b is Current: Resource is always ready"]);
    const prune = await kptTs(["live", "apply", "--applyset", "configmaps/flagged", "-n", ns, dir]);
    expect(lines(prune)).toContain("configmap/b pruned");
    const destroy = await kptTs(["live", "destroy", "--applyset", "configmaps/flagged", "-n", ns, dir]);
    expect(destroy.code, printed(destroy)).toBe(0);
    expect(await getObject("configmaps", "flagged", ns)).toBeUndefined();
  });
});

describe("an ApplySet package's hooks (docs/lifecycle.md)", () => {
  const job = (name: string, ns: string, hook: string) =>
    `apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: ${name}\n  namespace: ${ns}\n  annotations:\n    kpt-ts.dev/hook: ${hook}\nspec:\n  backoffLimit: 0\n  template:\n    spec:\n      restartPolicy: Never\n      containers:\n      - name: main\n        image: example.com/${name}:1\n`;

  it("are members: labelled, their kind named by the parent before the first is created; the destroy's hook runs first and nothing is left", async () => {
    const ns = await createNamespace("e2e-applyset-hooks");
    const dir = await writePackage({ "objects.yaml": configMap("app", ns), "migrate.yaml": job("migrate", ns, "pre-apply"), "backup.yaml": job("backup", ns, "pre-destroy") });
    expect((await kptTs(["live", "init", "--inventory-kind", "applyset", "--name", "hooked", dir])).code).toBe(0);

    const apply = await kptTs(["live", "apply", dir]);
    expect(apply.code, printed(apply)).toBe(0);
    expect(apply.stdout).toContain("job.batch/migrate pre-apply hook completed");
    const parent = (await getObject("secrets", "hooked", ns))!;
    const id = parent.metadata.labels?.["applyset.kubernetes.io/id"];
    expect(parent.metadata.annotations?.["applyset.kubernetes.io/contains-group-kinds"]).toBe("ConfigMap,Job.batch");
    // The migration Job stays (its default policy) as a member, found by its label.
    expect((await getObject("jobs.batch", "migrate", ns))?.metadata.labels?.[PART_OF]).toBe(id);

    const destroy = await kptTs(["live", "destroy", dir]);
    expect(destroy.code, printed(destroy)).toBe(0);
    expect(lines(destroy)).toEqual(expect.arrayContaining(["job.batch/backup pre-destroy hook completed", "configmap/app deleted"]));
    expect(lines(destroy).indexOf("job.batch/backup pre-destroy hook completed")).toBeLessThan(lines(destroy).indexOf("configmap/app deleted"));
    expect(lines(destroy)).toContain("job.batch/migrate deleted");
    expect(await getObject("secrets", "hooked", ns)).toBeUndefined();
    expect((await kubectl(["get", "jobs", "-n", ns, "-o", "name"])).stdout).toBe("");
  });

  it("a first apply killed while its hook runs leaves the hook findable: the parent names its kind already, and destroy deletes it", async () => {
    const ns = await createNamespace("e2e-applyset-hook-kill");
    // A Job no node can run, for 600 s: the hook is still running when the run is killed.
    const hanging = job("long-migration", ns, "pre-apply")
      .replace(/(\nspec:\n)/, "$1  activeDeadlineSeconds: 600\n")
      .replace(/(\n    spec:\n)/, '$1      nodeSelector: {kpt-ts.dev/no-such-node: "true"}\n');
    const dir = await writePackage({ "objects.yaml": configMap("app", ns), "migrate.yaml": hanging });
    expect((await kptTs(["live", "init", "--inventory-kind", "applyset", "--name", "hooked", dir])).code).toBe(0);
    const run = startKptTs(["live", "apply", dir]);
    await run.waitForOutput(/long-migration pre-apply hook created/);
    run.kill(); // SIGKILL: nothing runs after it
    await run.done;
    const parent = (await getObject("secrets", "hooked", ns))!;
    expect(parent.metadata.annotations?.["applyset.kubernetes.io/contains-group-kinds"]).toBe("ConfigMap,Job.batch");
    expect((await getObject("jobs.batch", "long-migration", ns))?.metadata.labels?.[PART_OF]).toBe(parent.metadata.labels?.["applyset.kubernetes.io/id"]);
    // The killed run's lock expires within the lease's 20 s.
    const destroy = await kptTs(["live", "destroy", "--lock-timeout=1m", dir]);
    expect(destroy.code, printed(destroy)).toBe(0);
    expect(lines(destroy)).toContain("job.batch/long-migration deleted");
    expect(await getObject("secrets", "hooked", ns)).toBeUndefined();
  });
});

describe("an ApplySet kubectl made", () => {
  it("is listed beside kpt-ts's inventories, refused under the strict policy, and adopted with --inventory-policy adopt: same objects, same uids", async () => {
    const ns = await createNamespace("e2e-applyset-kubectl");
    const dir = await writePackage({ "objects.yaml": docs(configMap("k1", ns), configMap("k2", ns)) });
    const made = await kubectl(["apply", "--prune", "--applyset=made-by-kubectl", "-n", ns, "-f", join(dir, "objects.yaml")], withApplySet);
    expect(made.code, printed(made)).toBe(0);
    const before = await uids(ns);
    expect(Object.keys(before).sort()).toEqual(["ConfigMap/k1", "ConfigMap/k2"]);

    const list = await kptTs(["live", "list", "-n", ns]);
    expect(list.code, printed(list)).toBe(0);
    expect(lines(list)[1]).toMatch(new RegExp(`^${ns} +made-by-kubectl +ApplySet kubectl +2 +${ns} +- +-$`));
    const remote = await kptTs(["live", "status", "--inv-type", "remote", "--inv-names", "made-by-kubectl", "--namespaces", ns]);
    expect(lines(remote).sort()).toEqual([`made-by-kubectl/configmap/${ns}/k1 is Current: Resource is always ready`, `made-by-kubectl/configmap/${ns}/k2 is Current: Resource is always ready`]);
    // Completion offers it for --inv-names too (`live __names inventory` is what the scripts run).
    const names = await kptTs(["live", "__names", "inventory"]);
    expect(names.code, printed(names)).toBe(0);
    expect(names.stdout.split("\n")).toContain("made-by-kubectl");

    const strict = await kptTs(["live", "apply", "--applyset", "made-by-kubectl", "-n", ns, dir]);
    expect(strict.code, printed(strict)).toBe(1);
    expect(strict.stderr).toContain(`error: ApplySet parent ${ns}/secrets/made-by-kubectl already exists and is managed by tooling "kubectl" instead of "kpt-ts": take it over with --inventory-policy=adopt`);

    await writeFile(join(dir, "objects.yaml"), configMap("k1", ns));
    const adopt = await kptTs(["live", "apply", "--applyset", "made-by-kubectl", "-n", ns, "--inventory-policy", "adopt", dir]);
    expect(adopt.code, printed(adopt)).toBe(0);
    expect(lines(adopt)).toEqual(expect.arrayContaining(["configmap/k1 configured", "configmap/k2 pruned"]));
    expect((await uids(ns))["ConfigMap/k1"]).toBe(before["ConfigMap/k1"]);
    const parent = await getObject("secrets", "made-by-kubectl", ns);
    expect(parent?.metadata.annotations?.["applyset.kubernetes.io/tooling"]).toMatch(/^kpt-ts\//);
    const again = await kptTs(["live", "apply", "--applyset", "made-by-kubectl", "-n", ns, dir]);
    expect(lines(again)).toContain("configmap/k1 unchanged");
    // And kubectl now leaves it to kpt-ts.
    const back = await kubectl(["apply", "--prune", "--applyset=made-by-kubectl", "-n", ns, "-f", join(dir, "objects.yaml")], withApplySet);
    expect(back.stderr).toContain('is managed by tooling "kpt-ts" instead of "kubectl"');
  });
});

describe("live migrate between inventory kinds", () => {
  it("moves a ResourceGroup package to an ApplySet and back without deleting or recreating any object", async () => {
    const ns = await createNamespace("e2e-applyset-migrate");
    const dir = await writePackage({ "objects.yaml": docs(configMap("m1", ns), configMap("m2", ns), service("msvc", ns)) });
    expect((await kptTs(["live", "init", "--name", "moved", dir])).code).toBe(0);
    expect((await kptTs(["live", "apply", "--server-side", dir])).code).toBe(0);
    const before = await uids(ns);
    expect(Object.keys(before)).toHaveLength(3);

    const toSet = await kptTs(["live", "migrate", "--to", "applyset", dir]);
    expect(toSet.code, printed(toSet)).toBe(0);
    expect(toSet.stdout).toContain("label 3 objects as the ApplySet's members...success");
    expect(toSet.stdout.trimEnd().split("\n").at(-1)).toBe("inventory migration...success");
    await expect(readFile(join(dir, "resourcegroup.yaml"), "utf8")).rejects.toThrow();
    expect(await readFile(join(dir, "applyset.yaml"), "utf8")).toContain("kind: ApplySet");
    expect(await uids(ns)).toEqual(before);
    expect((await kubectl(["get", "resourcegroups.kpt.dev", "-n", ns, "-o", "name"])).stdout).toBe("");
    const setId = (await getObject("secrets", "moved", ns))?.metadata.labels?.["applyset.kubernetes.io/id"];
    expect((await getObject("configmaps", "m1", ns))?.metadata.labels?.[PART_OF]).toBe(setId);
    // kubectl recognises it as kpt-ts's; kpt-ts's next apply of the same package changes nothing.
    const byKubectl = await kubectl(["apply", "--prune", "--applyset=moved", "-n", ns, "-f", join(dir, "objects.yaml")], withApplySet);
    expect(byKubectl.stderr).toContain('is managed by tooling "kpt-ts" instead of "kubectl"');
    const applied = await kptTs(["live", "apply", "--server-side", dir]);
    expect(applied.code, printed(applied)).toBe(0);
    expect(lines(applied)).toContain("3 resource(s) applied. 0 created, 3 unchanged, 0 configured, 0 failed");

    const toRg = await kptTs(["live", "migrate", "--to", "resourcegroup", dir]);
    expect(toRg.code, printed(toRg)).toBe(0);
    await expect(readFile(join(dir, "applyset.yaml"), "utf8")).rejects.toThrow();
    expect(await uids(ns)).toEqual(before);
    expect(await getObject("secrets", "moved", ns)).toBeUndefined();
    expect((await getObject("configmaps", "m1", ns))?.metadata.labels?.[PART_OF]).toBeUndefined();
    // The real kpt reads the ResourceGroup it now has: its status lists the same three objects.
    const status = await kpt(["live", "status", dir]);
    expect(status.code, printed(status)).toBe(0);
    expect(status.stdout.trim().split("\n")).toHaveLength(3);
    const last = await kptTs(["live", "apply", "--server-side", dir]);
    expect(lines(last)).toContain("3 resource(s) applied. 0 created, 3 unchanged, 0 configured, 0 failed");
    expect(await uids(ns)).toEqual(before);
    await rm(dir, { recursive: true, force: true });
  });
});
