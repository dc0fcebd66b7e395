// Issue 5: `live apply` waits for each wave to reconcile before the next one, fails early on
// what cannot reconcile, times out naming what it waits for, and skips the dependents of both.
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startKptTs } from "../helpers/background.js";
import { copyWordpress, writePackage } from "../helpers/fixtures.js";
import { at, conditionOf, deleteQuietly, getObject, jsonLines, lineIndex, linesOf, randomSuffix } from "../helpers/objects.js";
import { createNamespace, kptTs, kubectl, waitUntil } from "../helpers/run.js";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** The WordPress demo under its own namespace; whatever a failed test leaves behind is removed. */
async function wordpress(prefix: string): Promise<{ ns: string; dir: string }> {
  const ns = `${prefix}-${randomSuffix()}`;
  const dir = await copyWordpress(ns);
  cleanups.push(async () => {
    await deleteQuietly("namespace", ns);
    await deleteQuietly("pv", `${ns}-mysql-pv`, `${ns}-wp-pv`);
  });
  const init = await kptTs(["live", "init", dir]);
  expect(init.code, init.stderr).toBe(0);
  return { ns, dir };
}

async function namespace(prefix: string): Promise<string> {
  const ns = await createNamespace(prefix);
  cleanups.push(() => deleteQuietly("namespace", ns));
  return ns;
}

/** A Deployment whose Pod no node accepts, and a ConfigMap that depends on it. */
function stuckPackage(ns: string, opts: { deployment: string; dependent: string; progressDeadlineSeconds?: number }): Record<string, string> {
  return {
    "deployment.yaml": `apiVersion: apps/v1
kind: Deployment
metadata:
  name: ${opts.deployment}
  namespace: ${ns}
spec:
  replicas: 1
${opts.progressDeadlineSeconds ? `  progressDeadlineSeconds: ${opts.progressDeadlineSeconds}\n` : ""}  selector:
    matchLabels: {app: ${opts.deployment}}
  template:
    metadata:
      labels: {app: ${opts.deployment}}
    spec:
      nodeSelector:
        e2e.kpt-ts.dev/no-such-node: "true"
      containers:
      - name: app
        image: nginx:1.25
`,
    "dependent.yaml": `apiVersion: v1
kind: ConfigMap
metadata:
  name: ${opts.dependent}
  namespace: ${ns}
  annotations:
    config.kubernetes.io/depends-on: apps/namespaces/${ns}/Deployment/${opts.deployment}
data:
  greeting: hello
`,
  };
}

describe("live apply --reconcile-timeout on the WordPress package", () => {
  it("creates the MySQL StatefulSet, waits until it is Current, only then creates WordPress, and reports everything reconciled; destroy goes in reverse", async () => {
    const { ns, dir } = await wordpress("e2e-rc-wp");

    const apply = await kptTs(["live", "apply", "--reconcile-timeout=2m", dir]);
    const out = apply.stdout;
    expect(apply.code, out + apply.stderr).toBe(0);

    // The event order: MySQL is created, reconciles, and only then is WordPress created.
    const mysqlCreated = lineIndex(out, "statefulset.apps/wordpress-mysql created");
    const mysqlReconciled = lineIndex(out, "statefulset.apps/wordpress-mysql reconciled");
    const wpCreated = lineIndex(out, "deployment.apps/wordpress created");
    expect(mysqlCreated, out).toBeGreaterThanOrEqual(0);
    expect(mysqlReconciled, out).toBeGreaterThan(mysqlCreated);
    expect(wpCreated, out).toBeGreaterThan(mysqlReconciled);
    expect(lineIndex(out, "deployment.apps/wordpress reconciled"), out).toBeGreaterThan(wpCreated);
    expect(out).toContain("10 resource(s) applied. 10 created, 0 unchanged, 0 configured, 0 failed\n");
    expect(linesOf(out).at(-1)).toBe("10 resource(s) reconciled, 0 skipped, 0 failed to reconcile, 0 timed out");

    // The cluster's own clock: the Deployment was created once the MySQL Pod was Ready (timestamps
    // have second resolution, so "at or after").
    const sts = await getObject("statefulset", "wordpress-mysql", ns);
    const mysqlPod = await getObject("pod", "wordpress-mysql-0", ns);
    const wp = await getObject("deployment", "wordpress", ns);
    const podReady = conditionOf(mysqlPod, "Ready");
    expect(podReady?.status).toBe("True");
    expect(at(wp!.metadata.creationTimestamp)).toBeGreaterThanOrEqual(at(podReady!.lastTransitionTime));
    expect(at(wp!.metadata.creationTimestamp)).toBeGreaterThanOrEqual(at(sts!.metadata.creationTimestamp));
    expect(sts!.status.readyReplicas).toBe(1);
    // And the final wait means WordPress itself runs when apply returns.
    expect(wp!.status?.availableReplicas).toBe(2);

    const destroy = await kptTs(["live", "destroy", dir]);
    const dout = destroy.stdout;
    expect(destroy.code, dout + destroy.stderr).toBe(0);
    const wpDeleted = lineIndex(dout, "deployment.apps/wordpress deleted");
    const mysqlDeleted = lineIndex(dout, "statefulset.apps/wordpress-mysql deleted");
    const nsDeleted = lineIndex(dout, `namespace/${ns} deleted`);
    expect(wpDeleted, dout).toBeGreaterThanOrEqual(0);
    expect(mysqlDeleted, dout).toBeGreaterThan(wpDeleted);
    expect(nsDeleted, dout).toBeGreaterThan(mysqlDeleted);
    expect(dout).toMatch(/^10 resource\(s\) deleted, 0 skipped\b/m);
    // destroy waits for every wave to be gone, the namespace included.
    expect(await getObject("namespace", ns)).toBeUndefined();
    expect(await getObject("pv", `${ns}-mysql-pv`)).toBeUndefined();
    expect(await getObject("pv", `${ns}-wp-pv`)).toBeUndefined();
  });

  it("does not create WordPress while MySQL's Pod cannot start, and says what it is waiting for", async () => {
    const { ns, dir } = await wordpress("e2e-rc-gate");
    // A scheduling gate keeps the MySQL Pod Pending until the test removes it.
    const mysqlFile = join(dir, "mysql/mysql.yaml");
    const text = await readFile(mysqlFile, "utf8");
    const gated = text.replace("      containers:\n      - name: mysql", "      schedulingGates:\n      - name: e2e.kpt-ts.dev/hold\n      containers:\n      - name: mysql");
    expect(gated).not.toBe(text);
    await writeFile(mysqlFile, gated);

    // No --reconcile-timeout: kpt waits as long as it takes; kpt-ts says what for while it does.
    const apply = startKptTs(["live", "apply", dir]);
    try {
      await apply.waitForOutput(/^statefulset\.apps\/wordpress-mysql created$/m);
      await apply.waitForOutput(/waiting for \d+ resource\(s\) to reconcile .*statefulset\.apps\/wordpress-mysql \((Ready|Replicas): 0\/1\)/, { stream: "stderr", timeoutMs: 60_000 });
      const pod = await waitUntil("the gated MySQL Pod", () => getObject("pod", "wordpress-mysql-0", ns));
      expect(pod.status?.phase).toBe("Pending");
      expect(apply.running).toBe(true);
      expect(await getObject("deployment", "wordpress", ns)).toBeUndefined();
      expect(apply.stdout).not.toContain("deployment.apps/wordpress");

      const ungate = await kubectl(["patch", "pod", "wordpress-mysql-0", "-n", ns, "--type=json", "-p", '[{"op":"remove","path":"/spec/schedulingGates"}]']);
      expect(ungate.code, ungate.stderr).toBe(0);
      const r = await apply.done;
      expect(r.code, r.stdout + r.stderr).toBe(0);
      expect(lineIndex(r.stdout, "deployment.apps/wordpress created")).toBeGreaterThan(lineIndex(r.stdout, "statefulset.apps/wordpress-mysql reconciled"));
      expect(linesOf(r.stdout).at(-1)).toBe("10 resource(s) reconciled, 0 skipped, 0 failed to reconcile, 0 timed out");

      const readyAt = at(conditionOf(await getObject("pod", "wordpress-mysql-0", ns), "Ready")?.lastTransitionTime);
      const wp = await getObject("deployment", "wordpress", ns);
      expect(at(wp!.metadata.creationTimestamp)).toBeGreaterThanOrEqual(readyAt);
    } finally {
      apply.kill();
    }
    const destroy = await kptTs(["live", "destroy", dir]);
    expect(destroy.code, destroy.stdout + destroy.stderr).toBe(0);
  });
});

describe("live apply on what cannot reconcile", () => {
  it("fails a Deployment at its progress deadline, well before --reconcile-timeout=5m, naming it and the reason", async () => {
    const ns = await namespace("e2e-rc-pd");
    const dir = await writePackage(stuckPackage(ns, { deployment: "never", dependent: "after-never", progressDeadlineSeconds: 10 }));
    expect((await kptTs(["live", "init", dir])).code).toBe(0);

    const started = Date.now();
    const apply = await kptTs(["live", "apply", "--reconcile-timeout=5m", dir]);
    const finished = Date.now();
    const out = apply.stdout;
    expect(apply.code, out + apply.stderr).toBe(3);
    // Generous: the deadline is 10s; the point is that it does not wait out the 5 minutes.
    expect(finished - started).toBeLessThan(120_000);
    expect(out).toContain("deployment.apps/never reconcile failed: Progress deadline exceeded\n");
    expect(out).toContain(`configmap/after-never apply skipped: dependency apply reconcile failed: ${ns}_never_apps_Deployment\n`);
    expect(linesOf(out).at(-1)).toBe("0 resource(s) reconciled, 1 skipped, 1 failed to reconcile, 0 timed out");

    // The cluster agrees, and said so before kpt-ts gave up.
    const progressing = conditionOf(await getObject("deployment", "never", ns), "Progressing");
    expect(progressing?.reason).toBe("ProgressDeadlineExceeded");
    expect(finished).toBeGreaterThanOrEqual(at(progressing!.lastTransitionTime));
    expect(await getObject("configmap", "after-never", ns)).toBeUndefined();
  });

  it("on --reconcile-timeout names each object still waiting and what for, skips its dependents, exits 3", async () => {
    const ns = await namespace("e2e-rc-to");
    const dir = await writePackage(stuckPackage(ns, { deployment: "stuck", dependent: "after-stuck" }));
    expect((await kptTs(["live", "init", dir])).code).toBe(0);

    const started = Date.now();
    const apply = await kptTs(["live", "apply", "--reconcile-timeout=5s", dir]);
    const elapsed = Date.now() - started;
    const out = apply.stdout;
    expect(apply.code, out + apply.stderr).toBe(3);
    expect(elapsed).toBeGreaterThanOrEqual(5_000); // it did wait the 5 seconds
    expect(out).toMatch(/^deployment\.apps\/stuck reconcile pending$/m);
    expect(out).toMatch(/^deployment\.apps\/stuck reconcile timeout: (Available|Ready|Replicas): 0\/1$/m);
    expect(out).toContain(`configmap/after-stuck apply skipped: dependency apply reconcile timeout: ${ns}_stuck_apps_Deployment\n`);
    expect(linesOf(out).at(-1)).toBe("0 resource(s) reconciled, 1 skipped, 0 failed to reconcile, 1 timed out");
    expect(await getObject("configmap", "after-stuck", ns)).toBeUndefined();
    expect(await getObject("deployment", "stuck", ns)).toBeDefined();
  });

  it("reports the timeout in kpt's JSON events, and a dependent skipped again never enters the inventory", async () => {
    const ns = await namespace("e2e-rc-inv");
    const dir = await writePackage(stuckPackage(ns, { deployment: "stuck", dependent: "first" }));
    expect((await kptTs(["live", "init", dir])).code).toBe(0);
    const first = await kptTs(["live", "apply", "--reconcile-timeout=3s", dir]);
    expect(first.code, first.stdout + first.stderr).toBe(3);

    // The next version of the package renames the dependent; it is skipped again.
    await writeFile(join(dir, "dependent.yaml"), stuckPackage(ns, { deployment: "stuck", dependent: "second" })["dependent.yaml"]!);
    const second = await kptTs(["live", "apply", "--reconcile-timeout=3s", "--output=json", dir]);
    expect(second.code, second.stdout + second.stderr).toBe(3);
    const events = jsonLines<Record<string, unknown>>(second.stdout);
    expect(events).toContainEqual(expect.objectContaining({ type: "wait", kind: "Deployment", name: "stuck", namespace: ns, group: "apps", status: "Timeout" }));
    expect(events).toContainEqual(
      expect.objectContaining({ type: "apply", kind: "ConfigMap", name: "second", status: "Skipped", error: `dependency apply reconcile timeout: ${ns}_stuck_apps_Deployment` }),
    );
    expect(events.at(-1)).toMatchObject({ type: "summary", action: "Wait", count: 2, successful: 0, skipped: 1, failed: 0, timeout: 1 });

    // As kpt: an object never applied (and not in the inventory before) is not recorded.
    const status = await kptTs(["live", "status", dir]);
    expect(status.code, status.stderr).toBe(0);
    expect(linesOf(status.stdout)).toEqual([expect.stringMatching(/^deployment\.apps\/stuck is InProgress: /)]);
    const rg = await waitUntil("the inventory", async () => (await kubectl(["get", "resourcegroups.kpt.dev", "-n", ns, "-o", "json"])).stdout);
    const resources = (JSON.parse(rg).items[0]?.spec?.resources ?? []) as { kind: string; name: string }[];
    expect(resources.map((r) => `${r.kind}/${r.name}`)).toEqual(["Deployment/stuck"]);
  });
});
