// Issue 32, on the real control plane (KWOK completes a Job's Pods; a Job whose Pod can never be
// scheduled fails at its activeDeadlineSeconds): the example of docs/lifecycle.md read from the
// page and run as it says, a migration that fails before the app changes, a no-op that runs no hook
// and writes nothing, a run killed during a hook that orphans nothing, Jobs that must complete,
// waits per object, replacements of immutable objects, and the same package beside the real kpt.

import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { startKptTs } from "../helpers/background.js";
import { writePackage } from "../helpers/fixtures.js";
import { createNamespace, hasBinary, kpt, kptTs, kubectlJson, REPO, waitUntil } from "../helpers/run.js";
import { clusterInventory, getObject, inventoryRefs, printed, ref } from "../helpers/scenario.js";

const KINDS = "jobs.batch,deployments.apps,services,configmaps,resourcegroups.kpt.dev";

/** `Kind/name` -> resourceVersion of every object of KINDS in the namespace (change records included). */
async function allResourceVersions(ns: string): Promise<Record<string, string>> {
  const list = await kubectlJson<{ items: { kind: string; metadata: { name: string; resourceVersion: string } }[] }>(["get", KINDS, "-n", ns]);
  return Object.fromEntries(list.items.map((o) => [`${o.kind}/${o.metadata.name}`, o.metadata.resourceVersion]));
}

/** The example's files, as docs/lifecycle.md has them, in namespace `ns`. */
async function exampleFiles(ns: string): Promise<Record<string, string>> {
  const page = await readFile(join(REPO, "docs/lifecycle.md"), "utf8");
  const files: Record<string, string> = {};
  for (const m of page.matchAll(/```yaml\n# file: (\S+)\n([\s\S]*?)```/g)) files[m[1]!] = m[2]!.replace(/namespace: shop$/gm, `namespace: ${ns}`);
  expect(Object.keys(files).sort()).toEqual(["app.yaml", "backup.yaml", "migrate.yaml", "smoke-test.yaml"]);
  return files;
}

async function initialized(files: Record<string, string>, ns: string): Promise<string> {
  const dir = await writePackage(files);
  const r = await kptTs(["live", "init", "--namespace", ns, dir]);
  expect(r.code, printed(r)).toBe(0);
  return dir;
}

/** The index of the first line containing `text` (fails the test when there is none). */
function lineOf(stdout: string, text: string): number {
  const i = stdout.split("\n").findIndex((l) => l.includes(text));
  expect(i, `no line with ${JSON.stringify(text)} in:\n${stdout}`).toBeGreaterThanOrEqual(0);
  return i;
}

const jobNames = async (ns: string) => ((await kubectlJson<{ items: { metadata: { name: string } }[] }>(["get", "jobs.batch", "-n", ns])).items.map((j) => j.metadata.name).sort());

/** A Job's Pod can never be scheduled, and the Job fails once `seconds` have passed. */
function failing(yaml: string, seconds: number): string {
  return yaml.replace(/(\nspec:\n)/, `$1  activeDeadlineSeconds: ${seconds}\n`).replace(/(\n    spec:\n)/, `$1      nodeSelector: {kpt-ts.dev/no-such-node: "true"}\n`);
}

describe("docs/lifecycle.md's example", () => {
  it("runs the migration before the app and the smoke test after it; a no-op runs no hook and writes nothing; destroy backs up first and leaves nothing", async () => {
    const ns = await createNamespace("e2e-lifecycle");
    const dir = await initialized(await exampleFiles(ns), ns);

    let r = await kptTs(["live", "apply", dir]);
    expect(r.code, printed(r)).toBe(0);
    const order = [
      "job.batch/db-migrate pre-apply hook created",
      "job.batch/db-migrate pre-apply hook completed",
      "deployment.apps/shop created",
      "deployment.apps/shop reconciled",
      "job.batch/smoke-test post-apply hook created",
      "job.batch/smoke-test post-apply hook completed",
      "job.batch/smoke-test post-apply hook deleted (hook-succeeded)",
      "2 hook(s) run: 2 completed, 0 failed, 0 timed out",
    ].map((l) => lineOf(r.stdout, l));
    expect(order).toEqual([...order].sort((a, b) => a - b));
    expect(r.stdout).toContain("2 resource(s) applied. 2 created, 0 unchanged, 0 configured, 0 failed");
    // The migration had completed when the Deployment was created; the smoke test is gone, the backup never ran.
    const migration = (await getObject("jobs.batch", "db-migrate", ns))!;
    const app = (await getObject("deployments.apps", "shop", ns))!;
    expect(Date.parse(migration.status.completionTime)).toBeLessThanOrEqual(Date.parse(app.metadata.creationTimestamp as string));
    expect(await jobNames(ns)).toEqual(["db-migrate"]);
    expect(inventoryRefs(await clusterInventory(dir))).toEqual([ref("", "Service", ns, "shop"), ref("apps", "Deployment", ns, "shop"), ref("batch", "Job", ns, "db-migrate")]);

    // Unchanged: no hook runs, nothing is written (objects, inventory, change records).
    const before = await allResourceVersions(ns);
    r = await kptTs(["live", "apply", dir]);
    expect(r.code, printed(r)).toBe(0);
    expect(r.stdout).not.toContain("hook");
    expect(await allResourceVersions(ns)).toEqual(before);

    r = await kptTs(["live", "history", dir]);
    expect(r.stdout).toContain(`hook: pre-apply job.batch/db-migrate completed`);
    expect(r.stdout).toContain(`hook: post-apply job.batch/smoke-test completed`);

    r = await kptTs(["live", "destroy", dir]);
    expect(r.code, printed(r)).toBe(0);
    expect(lineOf(r.stdout, "job.batch/backup pre-destroy hook completed")).toBeLessThan(lineOf(r.stdout, "deployment.apps/shop deleted"));
    expect(r.stdout).toContain("job.batch/backup pre-destroy hook deleted (the destroy leaves nothing behind)");
    expect(await jobNames(ns)).toEqual([]);
    expect(await getObject("deployments.apps", "shop", ns)).toBeUndefined();
    expect(await clusterInventory(dir)).toBeUndefined();
  });

  it("a failing migration stops the run before the app changes (exit 3, the Job's reason and its Pod's state)", async () => {
    const ns = await createNamespace("e2e-lifecycle-fail");
    const files = await exampleFiles(ns);
    const dir = await initialized(files, ns);
    expect((await kptTs(["live", "apply", dir])).code).toBe(0);

    // Version 1.5.0, whose migration cannot run: its Pod is never scheduled, and the Job fails at its deadline.
    await writeFile(join(dir, "migrate.yaml"), failing(files["migrate.yaml"]!.replace("migrate:1.4.0", "migrate:1.5.0"), 6));
    await writeFile(join(dir, "app.yaml"), files["app.yaml"]!.replace("shop:1.4.0", "shop:1.5.0"));
    // The previews show the hooks that would run, in their place.
    const diff = await kptTs(["live", "diff", dir]);
    expect(diff.code, printed(diff)).toBe(1);
    expect(diff.stdout).toContain(
      `Hooks, in the order they run:\n  pre-apply hook 1 (before the first apply wave): job.batch/db-migrate in ${ns}, create (the one an earlier run left is deleted first)\n  post-apply hook 1 (after the last apply and prune wave): job.batch/smoke-test in ${ns}, create`,
    );
    const md = await kptTs(["live", "apply", "--dry-run", "--output", "markdown", dir]);
    expect(md.code, printed(md)).toBe(0);
    expect(md.stdout).toContain(`| pre-apply 1 (recreate) | Job | ${ns} | db-migrate | before the first apply wave |  |`);
    expect(md.stdout).toMatch(/subgraph preapply1 \["pre-apply hooks 1"\][\s\S]*subgraph apply1[\s\S]*subgraph postapply1/);

    const r = await kptTs(["live", "apply", dir]);
    expect(r.code, printed(r)).toBe(3);
    expect(r.stdout).toMatch(/job\.batch\/db-migrate pre-apply hook failed: Job failed: DeadlineExceeded: Job was active longer than specified deadline; pod state: pod\/db-migrate-\w+: Pending: Unschedulable/);
    expect(r.stdout).not.toContain("deployment.apps/shop");
    expect(r.stdout).not.toContain("smoke-test");
    const app = (await getObject("deployments.apps", "shop", ns))!;
    expect(app.spec.template.spec.containers[0].image).toBe("example.com/shop:1.4.0");
    expect(inventoryRefs(await clusterInventory(dir))).toContain(ref("batch", "Job", ns, "db-migrate"));
    const history = await kptTs(["live", "history", dir, "--output", "json"]);
    const last = JSON.parse(history.stdout).changes[0];
    expect([last.result, last.hooks]).toEqual(["failed", [{ phase: "pre-apply", group: "batch", kind: "Job", namespace: ns, name: "db-migrate", result: "failed" }]]);
    expect((await kptTs(["live", "destroy", dir])).code).toBe(0);
  });

  it("a run killed while a hook runs leaves no hook object that nothing tracks: the inventory lists it, and destroy deletes it", async () => {
    const ns = await createNamespace("e2e-lifecycle-kill");
    const hook = failing(
      `apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: long-migration\n  namespace: ${ns}\n  annotations:\n    kpt-ts.dev/hook: pre-apply\nspec:\n  template:\n    spec:\n      restartPolicy: Never\n      containers:\n      - name: m\n        image: example.com/migrate:2\n`,
      600,
    );
    const dir = await initialized({ "hook.yaml": hook, "cm.yaml": `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings, namespace: ${ns}}\ndata: {a: "1"}\n` }, ns);
    const run = startKptTs(["live", "apply", dir]);
    await run.waitForOutput(/long-migration pre-apply hook created/);
    run.kill(); // SIGKILL: nothing runs after it
    await run.done;
    expect(await jobNames(ns)).toEqual(["long-migration"]);
    expect(inventoryRefs(await clusterInventory(dir))).toContain(ref("batch", "Job", ns, "long-migration"));
    // The killed run still holds its lock until the lease expires (issue 33): the destroy waits for it.
    const r = await kptTs(["live", "destroy", "--lock-timeout=1m", dir]);
    expect(r.code, printed(r)).toBe(0);
    expect(r.stdout).toContain("job.batch/long-migration deleted");
    await waitUntil("the Job to be gone", async () => (await jobNames(ns)).length === 0);
    expect(await clusterInventory(dir)).toBeUndefined();
  });
});

describe("waits per object", () => {
  const job = (ns: string, name: string, annotations: string) =>
    `apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: ${name}\n  namespace: ${ns}\n  annotations:\n${annotations}spec:\n  backoffLimit: 0\n  template:\n    spec:\n      restartPolicy: Never\n      containers:\n      - name: main\n        image: example.com/${name}:1\n`;
  const cm = (ns: string, name: string, dependsOn?: string) =>
    `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n  namespace: ${ns}\n${dependsOn ? `  annotations:\n    config.kubernetes.io/depends-on: ${dependsOn}\n` : ""}data: {a: "1"}\n`;

  it("kpt-ts.dev/wait: complete holds a Job's dependents until it completes, and skips them when it fails", async () => {
    const ns = await createNamespace("e2e-wait-complete");
    const dir = await initialized({ "job.yaml": job(ns, "seed", "    kpt-ts.dev/wait: complete\n"), "cm.yaml": cm(ns, "after-seed", `batch/namespaces/${ns}/Job/seed`) }, ns);
    let r = await kptTs(["live", "apply", dir]);
    expect(r.code, printed(r)).toBe(0);
    expect(lineOf(r.stdout, "job.batch/seed reconciled")).toBeLessThan(lineOf(r.stdout, "configmap/after-seed created"));
    expect((await getObject("jobs.batch", "seed", ns))!.status.conditions.some((c: { type: string }) => c.type === "Complete")).toBe(true);
    r = await kptTs(["live", "status", dir]);
    expect(r.stdout).toContain("job.batch/seed is Current: Job completed. succeeded: 1/1");

    const ns2 = await createNamespace("e2e-wait-complete-fail");
    const dir2 = await initialized({ "job.yaml": failing(job(ns2, "seed", "    kpt-ts.dev/wait: complete\n"), 4), "cm.yaml": cm(ns2, "after-seed", `batch/namespaces/${ns2}/Job/seed`) }, ns2);
    r = await kptTs(["live", "apply", dir2]);
    expect(r.code, printed(r)).toBe(3);
    expect(r.stdout).toContain("job.batch/seed reconcile failed: Job failed: DeadlineExceeded: Job was active longer than specified deadline");
    expect(r.stdout).toContain(`configmap/after-seed apply skipped: dependency apply reconcile failed: ${ns2}_seed_batch_Job`);
    expect(await getObject("configmaps", "after-seed", ns2)).toBeUndefined();
    // live status reads the annotation: the Job is Failed, not Current.
    r = await kptTs(["live", "status", dir2]);
    expect(r.stdout).toMatch(/job\.batch\/seed is Failed: Job failed: DeadlineExceeded/);
  });

  it("wait: none and reconcile-timeout change only their own object", async () => {
    const ns = await createNamespace("e2e-wait-own");
    const stuck = (annotation: string) =>
      `apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: stuck\n  namespace: ${ns}\n  annotations:\n    ${annotation}\nspec:\n  selector: {matchLabels: {app: stuck}}\n  template:\n    metadata: {labels: {app: stuck}}\n    spec:\n      nodeSelector: {kpt-ts.dev/no-such-node: "true"}\n      containers: [{name: main, image: example.com/stuck:1}]\n`;
    const web = `apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  namespace: ${ns}\nspec:\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec:\n      containers: [{name: main, image: example.com/web:1}]\n`;
    const files = { "stuck.yaml": stuck("kpt-ts.dev/wait: none"), "web.yaml": web, "cm.yaml": cm(ns, "after-stuck", `apps/namespaces/${ns}/Deployment/stuck`) };
    const dir = await initialized(files, ns);
    let r = await kptTs(["live", "apply", dir]);
    expect(r.code, printed(r)).toBe(0);
    expect(r.stdout).not.toMatch(/deployment\.apps\/stuck reconcile/);
    expect(r.stdout).toContain("deployment.apps/web reconciled");
    expect(r.stdout).toContain("configmap/after-stuck created");
    expect(r.stdout).toContain("2 resource(s) reconciled, 0 skipped, 0 failed to reconcile, 0 timed out");

    // Its own timeout instead: only it times out, named in the output; the rest reconciles.
    await writeFile(join(dir, "stuck.yaml"), stuck("kpt-ts.dev/reconcile-timeout: 3s"));
    await writeFile(join(dir, "cm.yaml"), cm(ns, "after-stuck", `apps/namespaces/${ns}/Deployment/stuck`).replace('a: "1"', 'a: "2"'));
    r = await kptTs(["live", "apply", dir]);
    expect(r.code, printed(r)).toBe(3);
    expect(r.stdout).toMatch(/deployment\.apps\/stuck reconcile timeout: .*timed out after its own kpt-ts\.dev\/reconcile-timeout: 3s/);
    expect(r.stdout).toContain("deployment.apps/web reconciled");
    expect(r.stdout).toMatch(/configmap\/after-stuck apply skipped: dependency apply reconcile timeout/);
    expect((await kptTs(["live", "destroy", dir])).code).toBe(0);
  });
});

describe("replace-on-immutable", () => {
  const report = (ns: string, image: string, annotated: boolean) =>
    `apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: report\n  namespace: ${ns}\n${annotated ? "  annotations:\n    kpt-ts.dev/update-strategy: replace-on-immutable\n" : ""}spec:\n  backoffLimit: 0\n  template:\n    spec:\n      restartPolicy: Never\n      containers:\n      - name: main\n        image: ${image}\n`;

  it("a changed Job template is replaced in one apply; live diff says replace and why", async () => {
    const ns = await createNamespace("e2e-replace");
    const dir = await initialized({ "report.yaml": report(ns, "example.com/report:1", true) }, ns);
    expect((await kptTs(["live", "apply", dir])).code).toBe(0);
    const uid = (await getObject("jobs.batch", "report", ns))!.metadata.uid;
    await writeFile(join(dir, "report.yaml"), report(ns, "example.com/report:2", true));

    let r = await kptTs(["live", "diff", dir]);
    expect(r.code, printed(r)).toBe(1);
    expect(r.stdout).toMatch(/report\s+Job\s+replace\s+spec\.template: field is immutable: deleted, then created again/);
    r = await kptTs(["live", "apply", dir]);
    expect(r.code, printed(r)).toBe(0);
    expect(lineOf(r.stdout, "job.batch/report deleted to be replaced: spec.template: field is immutable")).toBeLessThan(lineOf(r.stdout, "job.batch/report created"));
    const live = (await getObject("jobs.batch", "report", ns))!;
    expect(live.metadata.uid).not.toBe(uid);
    expect(live.spec.template.spec.containers[0].image).toBe("example.com/report:2");
    r = await kptTs(["live", "history", dir]);
    expect(r.stdout).toContain("replaced: job.batch/report (spec.template: field is immutable)");
  });

  it("without the annotation the run fails, naming the field and the annotation", async () => {
    const ns = await createNamespace("e2e-replace-not");
    const dir = await initialized({ "report.yaml": report(ns, "example.com/report:1", false) }, ns);
    expect((await kptTs(["live", "apply", dir])).code).toBe(0);
    await writeFile(join(dir, "report.yaml"), report(ns, "example.com/report:2", false));
    const r = await kptTs(["live", "apply", dir]);
    expect(r.code, printed(r)).toBe(3);
    expect(r.stdout).toContain("job.batch/report apply failed");
    expect(r.stdout).toContain("spec.template: field is immutable, so the object cannot be updated in place");
    expect(r.stdout).toContain("kpt-ts.dev/update-strategy: replace-on-immutable");
    expect((await getObject("jobs.batch", "report", ns))!.spec.template.spec.containers[0].image).toBe("example.com/report:1");
  });

  it("a malformed annotation is bad input before the cluster is touched (exit 2, file and line)", async () => {
    const ns = await createNamespace("e2e-lifecycle-bad");
    const dir = await initialized({ "report.yaml": report(ns, "example.com/report:1", true).replace("replace-on-immutable", "recreate") }, ns);
    const r = await kptTs(["live", "apply", dir]);
    expect(r.code, printed(r)).toBe(2);
    expect(r.stderr).toMatch(/report\.yaml:7: Job\/report: kpt-ts\.dev\/update-strategy: "recreate" is not an update strategy/);
    expect(await clusterInventory(dir)).toBeUndefined();
  });
});

describe.skipIf(!hasBinary("kpt"))("beside the real kpt", () => {
  it("kpt applies the example with its hooks as plain objects; kpt-ts and kpt take turns on one inventory without pruning or breaking the hooks", async () => {
    const ns = await createNamespace("e2e-lifecycle-kpt");
    const dir = await initialized(await exampleFiles(ns), ns);
    // kpt-ts first: the migration hook is recorded in the inventory.
    let r = await kptTs(["live", "apply", dir]);
    expect(r.code, printed(r)).toBe(0);
    // kpt reads that inventory and applies every object, hooks included, pruning nothing.
    r = await kpt(["live", "apply", dir]);
    expect(r.code, printed(r)).toBe(0);
    expect(r.stdout).not.toMatch(/prune|delete/);
    expect(await jobNames(ns)).toEqual(["backup", "db-migrate", "smoke-test"]);
    expect(inventoryRefs(await clusterInventory(dir))).toEqual(
      [ref("", "Service", ns, "shop"), ref("apps", "Deployment", ns, "shop"), ref("batch", "Job", ns, "backup"), ref("batch", "Job", ns, "db-migrate"), ref("batch", "Job", ns, "smoke-test")].sort(),
    );
    // kpt-ts after kpt: nothing changed, so no hook runs and nothing is pruned or written. (kpt
    // called its Jobs reconciled once started: the Job controller finishes them first.)
    await waitUntil("kpt's Jobs to complete", async () => {
      const jobs = await kubectlJson<{ items: { status?: { succeeded?: number } }[] }>(["get", "jobs.batch", "-n", ns]);
      return jobs.items.every((j) => j.status?.succeeded === 1);
    });
    const before = await allResourceVersions(ns);
    r = await kptTs(["live", "apply", dir]);
    expect(r.code, printed(r)).toBe(0);
    expect(r.stdout).not.toContain("hook");
    expect(r.stdout).toContain("0 resource(s) pruned, 0 skipped, 0 failed");
    expect(await allResourceVersions(ns)).toEqual(before);
    // kpt-ts' destroy deletes what kpt left too, the backup running first.
    r = await kptTs(["live", "destroy", dir]);
    expect(r.code, printed(r)).toBe(0);
    expect(r.stdout).toContain("job.batch/backup pre-destroy hook completed");
    await waitUntil("the Jobs to be gone", async () => (await jobNames(ns)).length === 0);
    expect(await clusterInventory(dir)).toBeUndefined();

    // kpt destroys what kpt-ts applied, its hook objects included.
    const ns2 = await createNamespace("e2e-lifecycle-kpt2");
    const dir2 = await initialized(await exampleFiles(ns2), ns2);
    expect((await kptTs(["live", "apply", dir2])).code).toBe(0);
    r = await kpt(["live", "destroy", dir2]);
    expect(r.code, printed(r)).toBe(0);
    expect(r.stdout).toContain("job.batch/db-migrate delete successful");
    await waitUntil("the Jobs to be gone", async () => (await jobNames(ns2)).length === 0);
  });
});


