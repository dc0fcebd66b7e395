// Issue 5: a custom resource whose controller follows the kstatus convention (observedGeneration,
// Reconciling=True while working, Ready=True when done, Stalled=True when it gives up) is waited
// for correctly. The controller is this test: it patches the status subresource.
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startKptTs } from "../helpers/background.js";
import { writePackage } from "../helpers/fixtures.js";
import { at, deleteQuietly, getObject, lineIndex, linesOf, randomSuffix, sleep } from "../helpers/objects.js";
import { createNamespace, kptTs, kubectl, waitUntil } from "../helpers/run.js";
import { widgetCrd } from "../helpers/scenario.js";

// Cluster-scoped, so unique per run: the CRD's group.
const GROUP = `w${randomSuffix()}.e2e.kpt-ts.dev`;
const CRD = `widgets.${GROUP}`;
const widgetId = (name: string) => `widget.${GROUP}/${name}`;

beforeAll(async () => {
  const crd = widgetCrd(GROUP);
  const r = await kubectl(["apply", "-f", "-"], { input: crd });
  expect(r.code, r.stderr).toBe(0);
  const established = await kubectl(["wait", "--for=condition=Established", `crd/${CRD}`, "--timeout=60s"]);
  expect(established.code, established.stderr).toBe(0);
});
afterAll(() => deleteQuietly("crd", CRD));

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function widget(ns: string, name: string, size: number): string {
  return `apiVersion: ${GROUP}/v1
kind: Widget
metadata:
  name: ${name}
  namespace: ${ns}
spec:
  size: ${size}
`;
}

function dependentConfigMap(ns: string, name: string, on: string): string {
  return `apiVersion: v1
kind: ConfigMap
metadata:
  name: ${name}
  namespace: ${ns}
  annotations:
    config.kubernetes.io/depends-on: ${GROUP}/namespaces/${ns}/Widget/${on}
data:
  a: b
`;
}

interface Cond {
  type: string;
  status: "True" | "False";
  reason: string;
  message: string;
}

/** What the widget controller does: report the generation it has seen and its conditions. */
async function setStatus(ns: string, name: string, observedGeneration: number, conditions: Cond[]): Promise<void> {
  const now = new Date().toISOString().replace(/\.\d+Z$/, "Z");
  const status = { observedGeneration, conditions: conditions.map((c) => ({ ...c, lastTransitionTime: now })) };
  const r = await kubectl(["patch", "widget." + GROUP, name, "-n", ns, "--subresource=status", "--type=merge", "-p", JSON.stringify({ status })]);
  expect(r.code, r.stderr).toBe(0);
}

/** A namespace with widget `name` applied at size 1 and marked Ready by the "controller". */
async function readyWidget(name: string): Promise<{ ns: string; dir: string }> {
  const ns = await createNamespace("e2e-cr");
  cleanups.push(() => deleteQuietly("namespace", ns));
  const dir = await writePackage({ "widget.yaml": widget(ns, name, 1) });
  expect((await kptTs(["live", "init", dir])).code).toBe(0);
  // A new widget without status is Current at once (kstatus: nothing says otherwise).
  const first = await kptTs(["live", "apply", "--reconcile-timeout=1m", dir]);
  expect(first.code, first.stdout + first.stderr).toBe(0);
  expect(first.stdout).toContain(`${widgetId(name)} reconciled\n`);
  await setStatus(ns, name, 1, [{ type: "Ready", status: "True", reason: "Ready", message: "1 widget(s) ready" }]);
  return { ns, dir };
}

describe("live apply waiting for a custom resource", () => {
  it("waits while the generation is unobserved and while Reconciling=True, and finishes when it is Ready", async () => {
    const { ns, dir } = await readyWidget("w1");
    await writeFile(join(dir, "widget.yaml"), widget(ns, "w1", 2));
    await writeFile(join(dir, "after.yaml"), dependentConfigMap(ns, "after-w1", "w1"));

    const apply = startKptTs(["live", "apply", "--reconcile-timeout=2m", "--show-status-events", dir]);
    try {
      // The new spec (generation 2) is not yet seen by the controller.
      await apply.waitForOutput(new RegExp(`^${widgetId("w1")} is InProgress: Widget generation is 2, but latest observed generation is 1$`, "m"));
      // The controller sees it and starts working on it; Ready=True is still there from the last
      // round, and Reconciling=True must win over it.
      await setStatus(ns, "w1", 2, [
        { type: "Reconciling", status: "True", reason: "Resizing", message: "resizing to 2" },
        { type: "Ready", status: "True", reason: "Ready", message: "1 widget(s) ready" },
      ]);
      await apply.waitForOutput(new RegExp(`^${widgetId("w1")} is InProgress: resizing to 2$`, "m"));
      await sleep(2_000);
      expect(apply.running).toBe(true);
      expect(apply.stdout).not.toContain(`${widgetId("w1")} reconciled`);
      expect(await getObject("configmap", "after-w1", ns)).toBeUndefined();

      // Done.
      await setStatus(ns, "w1", 2, [
        { type: "Reconciling", status: "False", reason: "Resized", message: "" },
        { type: "Ready", status: "True", reason: "Resized", message: "2 widget(s) ready" },
      ]);
      const r = await apply.done;
      expect(r.code, r.stdout + r.stderr).toBe(0);
      const reconciled = lineIndex(r.stdout, `${widgetId("w1")} reconciled`);
      expect(reconciled, r.stdout).toBeGreaterThanOrEqual(0);
      expect(lineIndex(r.stdout, "configmap/after-w1 created")).toBeGreaterThan(reconciled);
      expect(linesOf(r.stdout).at(-1)).toBe("2 resource(s) reconciled, 0 skipped, 0 failed to reconcile, 0 timed out");

      // On the cluster's clock: the dependent was created after the controller's last status write.
      const w = await getObject(`widget.${GROUP}`, "w1", ns, { managedFields: true });
      const statusWrite = w!.metadata.managedFields!.filter((f) => f.subresource === "status").map((f) => at(f.time));
      const cm = await getObject("configmap", "after-w1", ns);
      expect(at(cm!.metadata.creationTimestamp)).toBeGreaterThanOrEqual(Math.max(...statusWrite));
    } finally {
      apply.kill();
    }
  });

  it("fails it as soon as it reports Stalled=True, well before the timeout, and skips its dependents", async () => {
    const { ns, dir } = await readyWidget("w2");
    await writeFile(join(dir, "widget.yaml"), widget(ns, "w2", 99));
    await writeFile(join(dir, "after.yaml"), dependentConfigMap(ns, "after-w2", "w2"));

    const apply = startKptTs(["live", "apply", "--reconcile-timeout=5m", dir]);
    try {
      await waitUntil("generation 2", async () => (await getObject(`widget.${GROUP}`, "w2", ns))?.metadata.generation === 2);
      await setStatus(ns, "w2", 2, [
        { type: "Reconciling", status: "False", reason: "QuotaExceeded", message: "" },
        { type: "Stalled", status: "True", reason: "QuotaExceeded", message: "size 99 exceeds the quota of 10" },
        { type: "Ready", status: "False", reason: "QuotaExceeded", message: "size 99 exceeds the quota of 10" },
      ]);
      const stalledAt = Date.now();
      const r = await Promise.race([apply.done, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`still waiting:\n${apply.stdout}`)), 120_000))]);
      expect(Date.now() - stalledAt).toBeLessThan(120_000);
      expect(r.code, r.stdout + r.stderr).toBe(3);
      expect(r.stdout).toContain(`${widgetId("w2")} reconcile failed: size 99 exceeds the quota of 10\n`);
      expect(r.stdout).toContain(`configmap/after-w2 apply skipped: dependency apply reconcile failed: ${ns}_w2_${GROUP}_Widget\n`);
      expect(linesOf(r.stdout).at(-1)).toBe("0 resource(s) reconciled, 1 skipped, 1 failed to reconcile, 0 timed out");
      expect(await getObject("configmap", "after-w2", ns)).toBeUndefined();
    } finally {
      apply.kill();
    }
  });

  it("a Ready=False condition without Reconciling keeps it waiting until the reconcile timeout", async () => {
    const { ns, dir } = await readyWidget("w3");
    await writeFile(join(dir, "widget.yaml"), widget(ns, "w3", 3));
    const apply = startKptTs(["live", "apply", "--reconcile-timeout=6s", dir]);
    try {
      await waitUntil("generation 2", async () => (await getObject(`widget.${GROUP}`, "w3", ns))?.metadata.generation === 2);
      await setStatus(ns, "w3", 2, [{ type: "Ready", status: "False", reason: "Waiting", message: "waiting for capacity" }]);
      const r = await apply.done;
      expect(r.code, r.stdout + r.stderr).toBe(3);
      expect(r.stdout).toContain(`${widgetId("w3")} reconcile timeout: waiting for capacity\n`);
      expect(linesOf(r.stdout).at(-1)).toBe("0 resource(s) reconciled, 0 skipped, 0 failed to reconcile, 1 timed out");
    } finally {
      apply.kill();
    }
  });
});
