// Issue 16: health rules in CEL. A package carries a CRD, a custom resource whose operator
// reports `status.phase` (no kstatus conditions), a dependent of it, and a HealthRules
// local-config object. The operator is this test: it writes status.phase through the status
// subresource.
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startKptTs } from "../helpers/background.js";
import { writePackage } from "../helpers/fixtures.js";
import { at, deleteQuietly, getObject, jsonLines, lineIndex, linesOf, randomSuffix, sleep } from "../helpers/objects.js";
import { createNamespace, hasBinary, kpt, kptTs, kubectl, kubectlJson, waitUntil } from "../helpers/run.js";
import { widgetCrd } from "../helpers/scenario.js";

const haveKpt = hasBinary("kpt");

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function widget(group: string, ns: string, name: string): string {
  return `apiVersion: ${group}/v1
kind: Widget
metadata:
  name: ${name}
  namespace: ${ns}
spec:
  size: 1
`;
}

function dependent(group: string, ns: string, on: string): string {
  return `apiVersion: v1
kind: ConfigMap
metadata:
  name: after-${on}
  namespace: ${ns}
  annotations:
    config.kubernetes.io/depends-on: ${group}/namespaces/${ns}/Widget/${on}
data:
  a: b
`;
}

function healthRules(group: string): string {
  return `apiVersion: kpt-ts.dev/v1alpha1
kind: HealthRules
metadata:
  name: operators
  annotations:
    config.kubernetes.io/local-config: "true"
spec:
  rules:
  - apiVersion: ${group}/v1
    kind: Widget
    current: "status.phase == 'Ready'"
    failed: "has(status.phase) && status.phase == 'Failed'"
`;
}

/** A package with its own CRD group (cluster-scoped, so unique per test), initialised by kpt-ts. */
async function widgetPackage(prefix: string): Promise<{ ns: string; dir: string; group: string; id: string }> {
  const group = `h${randomSuffix()}.e2e.kpt-ts.dev`;
  const ns = await createNamespace(prefix);
  const dir = await writePackage({
    "crd.yaml": widgetCrd(group),
    "widget.yaml": widget(group, ns, "w"),
    "after.yaml": dependent(group, ns, "w"),
    "health.yaml": healthRules(group),
  });
  const init = await kptTs(["live", "init", dir]);
  expect(init.code, init.stderr).toBe(0);
  cleanups.push(async () => {
    await kptTs(["live", "destroy", "--delete-timeout=30s", dir]);
    await deleteQuietly("crd", `widgets.${group}`);
    await deleteQuietly("namespace", ns);
  });
  return { ns, dir, group, id: `widget.${group}/w` };
}

/** What the operator does: write status.phase through the status subresource. */
async function setPhase(group: string, ns: string, phase: string): Promise<void> {
  const r = await kubectl(["patch", `widget.${group}`, "w", "-n", ns, "--subresource=status", "--type=merge", "-p", JSON.stringify({ status: { phase } })]);
  expect(r.code, r.stderr).toBe(0);
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

describe("live apply waits for a custom resource as its health rule says", () => {
  it("still waits after the resource is created, finishes within seconds of status.phase: Ready, and only then creates its dependent; live status shows the rule's verdict", async () => {
    const { ns, dir, group, id } = await widgetPackage("e2e-health");
    const apply = startKptTs(["live", "apply", "--reconcile-timeout=1m", "--show-status-events", dir]);
    try {
      // No status yet: the rule cannot be evaluated, which reads as in progress, with the reason.
      await apply.waitForOutput(new RegExp(`^${escape(id)} is InProgress: rule widget current: status.phase == 'Ready' cannot be evaluated yet: No such key: phase$`, "m"));
      await setPhase(group, ns, "Provisioning");
      await apply.waitForOutput(new RegExp(`^${escape(id)} is InProgress: rule widget current: status.phase == 'Ready' is false; status.phase is "Provisioning"$`, "m"));
      await sleep(2_000);
      expect(apply.running).toBe(true);
      expect(apply.stdout).not.toContain(`${id} reconciled`);
      expect(await getObject("configmap", "after-w", ns)).toBeUndefined();

      await setPhase(group, ns, "Ready");
      const readyAt = Date.now();
      const r = await apply.done;
      expect(r.code, r.stdout + r.stderr).toBe(0);
      expect(Date.now() - readyAt).toBeLessThan(10_000);
      expect(r.stdout).toContain(`${id} is Current: rule widget current: status.phase == 'Ready'\n`);
      const reconciled = lineIndex(r.stdout, `${id} reconciled`);
      expect(reconciled, r.stdout).toBeGreaterThanOrEqual(0);
      expect(lineIndex(r.stdout, "configmap/after-w created")).toBeGreaterThan(reconciled);
      expect(linesOf(r.stdout).at(-1)).toBe("3 resource(s) reconciled, 0 skipped, 0 failed to reconcile, 0 timed out");
      // The HealthRules object is local config: never applied, never in the inventory.
      expect(r.stdout).not.toMatch(/healthrules/i);

      // On the cluster's clock: the dependent was created after the operator's status write.
      const w = await getObject(`widget.${group}`, "w", ns, { managedFields: true });
      const statusWrites = w!.metadata.managedFields!.filter((f) => f.subresource === "status").map((f) => at(f.time));
      const cm = await getObject("configmap", "after-w", ns);
      expect(at(cm!.metadata.creationTimestamp)).toBeGreaterThanOrEqual(Math.max(...statusWrites));
    } finally {
      apply.kill();
    }

    const status = await kptTs(["live", "status", dir]);
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toMatch(new RegExp(`^${escape(id)} is Current: rule widget current: status.phase == 'Ready'$`, "m"));
    const json = await kptTs(["live", "status", "--output", "json", dir]);
    const widgetEvent = jsonLines<{ kind?: string; status?: string; message?: string }>(json.stdout).find((e) => e.kind === "Widget");
    expect(widgetEvent, json.stdout).toMatchObject({ status: "Current", message: "rule widget current: status.phase == 'Ready'" });

    // A --health-rules file wins over the package's rule for the same kind.
    const stricter = join(dir, "..", `stricter-${randomSuffix()}.yaml`);
    await writeFile(stricter, `apiVersion: kpt-ts.dev/v1alpha1\nkind: HealthRules\nmetadata:\n  name: stricter\nspec:\n  rules:\n  - group: ${group}\n    kind: Widget\n    name: stricter\n    current: "status.phase == 'Ready' && has(status.endpoint)"\n`);
    const overridden = await kptTs(["live", "status", "--health-rules", stricter, dir]);
    expect(overridden.stdout).toMatch(new RegExp(`^${escape(id)} is InProgress: rule stricter current: .* is false; status.phase is "Ready", status.endpoint is not set$`, "m"));
  });

  it("status.phase: Failed stops the apply with exit 3 well before the timeout, naming the object and the rule, and skips the dependent", async () => {
    const { ns, dir, group, id } = await widgetPackage("e2e-health-fail");
    const apply = startKptTs(["live", "apply", "--reconcile-timeout=1m", "--output", "json", "--show-status-events", dir]);
    try {
      await waitUntil("the widget", async () => (await getObject(`widget.${group}`, "w", ns)) !== undefined);
      await setPhase(group, ns, "Failed");
      const failedAt = Date.now();
      const r = await apply.done;
      expect(Date.now() - failedAt).toBeLessThan(15_000);
      expect(r.code, r.stdout + r.stderr).toBe(3);
      const events = jsonLines<Record<string, unknown>>(r.stdout);
      const failed = events.find((e) => e.type === "status" && e.kind === "Widget" && e.status === "Failed");
      expect(failed, r.stdout).toMatchObject({ name: "w", namespace: ns, message: `rule widget failed: has(status.phase) && status.phase == 'Failed'; status.phase is "Failed"` });
      expect(await getObject("configmap", "after-w", ns)).toBeUndefined();
    } finally {
      apply.kill();
    }
    // The same in the default output: the object, the rule, and the dependent skipped.
    const again = await kptTs(["live", "apply", "--reconcile-timeout=1m", dir]);
    expect(again.code, again.stdout + again.stderr).toBe(3);
    expect(again.stdout).toContain(`${id} reconcile failed: rule widget failed: has(status.phase) && status.phase == 'Failed'; status.phase is "Failed"\n`);
    expect(again.stdout).toContain(`configmap/after-w apply skipped: dependency apply reconcile failed: ${ns}_w_${group}_Widget\n`);
  });

  it.skipIf(!haveKpt)("the real kpt live apply accepts the same package (it leaves the local-config HealthRules alone)", async () => {
    const group = `k${randomSuffix()}.e2e.kpt-ts.dev`;
    const ns = await createNamespace("e2e-health-kpt");
    const dir = await writePackage({ "crd.yaml": widgetCrd(group), "widget.yaml": widget(group, ns, "w"), "health.yaml": healthRules(group) });
    cleanups.push(async () => {
      await kpt(["live", "destroy", dir]);
      await deleteQuietly("crd", `widgets.${group}`);
      await deleteQuietly("namespace", ns);
    });
    expect((await kpt(["live", "init", "--namespace", ns, dir])).code).toBe(0);
    const r = await kpt(["live", "apply", "--reconcile-timeout=1m", dir]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain(`widget.${group}/w apply successful\n`);
    // Two objects, the CRD and the widget: the HealthRules document was left out.
    expect(r.stdout).toContain("apply result: 2 attempted, 2 successful, 0 skipped, 0 failed\n");
    expect(r.stdout).not.toMatch(/healthrules/i);
    // kpt-ts reads the package kpt applied, with the rule: the widget has no phase yet.
    const status = await kptTs(["live", "status", dir]);
    expect(status.stdout).toMatch(new RegExp(`^widget.${escape(group)}/w is InProgress: rule widget current: status.phase == 'Ready' cannot be evaluated yet`, "m"));
  });
});

/** Ten malformed rules, one per problem; `at`: the line of the rule (0 = its first) the problem is reported at. */
const MALFORMED: { rule: string; at: number; message: string }[] = [
  { rule: `  - apiVersion: x.example.com/v1\n    kind: A\n    current: "status.phase =="\n`, at: 2, message: `current: "status.phase ==" does not compile` },
  { rule: `  - apiVersion: x.example.com/v1\n    kind: B\n    current: "size(status.conditions)"\n`, at: 2, message: "gives an int, not a boolean" },
  { rule: `  - apiVersion: x.example.com/v1\n    kind: C\n    current: "status.phase + '!'"\n`, at: 2, message: "gives a string, not a boolean" },
  { rule: `  - apiVersion: x.example.com/v1\n    kind: D\n    current: "phase == 'Ready'"\n`, at: 2, message: "Unknown variable: phase" },
  { rule: `  - apiVersion: x.example.com/v1\n    current: "status.phase == 'Ready'"\n`, at: 0, message: "the rule names no kind" },
  { rule: `  - apiVersion: x.example.com/v1\n    kind: "not a kind"\n    current: "status.phase == 'Ready'"\n`, at: 1, message: `kind "not a kind" is not a kind name` },
  { rule: `  - apiVersion: x.example.com/v1\n    kind: G\n    current: "true"\n    readyWhen: "status.ready"\n`, at: 3, message: `unknown field "readyWhen" in a rule` },
  { rule: `  - apiVersion: x.example.com/v1\n    kind: H\n    current: true\n`, at: 2, message: "current must be a CEL expression in a string" },
  { rule: `  - kind: I\n    current: "status.phase == 'Ready'"\n`, at: 0, message: "the rule names no apiVersion or group" },
  { rule: `  - apiVersion: x.example.com/v1\n    kind: J\n`, at: 0, message: "the rule has no expression" },
];

describe("malformed rules are bad input", () => {
  it("ten malformed rules are refused before any write, each with file:line, exit 2", async () => {
    const ns = await createNamespace("e2e-health-bad");
    cleanups.push(() => deleteQuietly("namespace", ns));
    const head = `apiVersion: kpt-ts.dev/v1alpha1\nkind: HealthRules\nmetadata:\n  name: bad\n  annotations:\n    config.kubernetes.io/local-config: "true"\nspec:\n  rules:\n`;
    const lines: number[] = [];
    let text = head;
    for (const m of MALFORMED) {
      lines.push(text.split("\n").length + m.at); // the rule starts on the line after the text so far
      text += m.rule;
    }
    const dir = await writePackage({ "cm.yaml": `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: untouched\n  namespace: ${ns}\ndata:\n  a: b\n`, "health.yaml": text });
    expect((await kptTs(["live", "init", dir])).code).toBe(0);

    const r = await kptTs(["live", "apply", dir]);
    expect(r.code, r.stdout + r.stderr).toBe(2);
    expect(r.stderr).toContain("10 problems in the package:");
    for (const [i, m] of MALFORMED.entries()) {
      expect(r.stderr, `rule ${i + 1}`).toMatch(new RegExp(`^- ${escape(`${dir}/health.yaml:${lines[i]}: HealthRules/bad: `)}.*${escape(m.message)}`, "m"));
    }
    // Nothing written: neither the object nor the inventory.
    expect(await getObject("configmap", "untouched", ns)).toBeUndefined();
    const groups = await kubectlJson<{ items: unknown[] }>(["get", "resourcegroups.kpt.dev", "-n", ns]).catch(() => ({ items: [] }));
    expect(groups.items).toEqual([]);

    // status and destroy refuse the same rules, and so does a --health-rules file.
    for (const command of ["status", "destroy"]) {
      const c = await kptTs(["live", command, dir]);
      expect(c.code, command).toBe(2);
      expect(c.stderr).toContain("10 problems in the package:");
    }
  });

  it("a bad --health-rules file is refused before the cluster is reached (an unreachable cluster does not change the answer)", async () => {
    const dir = await writePackage({
      "cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  namespace: default\n",
      "rg.yaml": "apiVersion: kpt.dev/v1alpha1\nkind: ResourceGroup\nmetadata:\n  name: inv\n  namespace: default\n  labels:\n    cli-utils.sigs.k8s.io/inventory-id: health-unreachable\n",
    });
    const rules = join(dir, "..", `rules-${randomSuffix()}.yaml`);
    await writeFile(rules, `apiVersion: kpt-ts.dev/v1alpha1\nkind: HealthRules\nmetadata:\n  name: mine\nspec:\n  rules:\n  - group: acc.example.com\n    kind: Widget\n    current: "status.phase = 'Ready'"\n`);
    const unreachable = join(dir, "..", `kubeconfig-${randomSuffix()}`);
    await writeFile(unreachable, "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster: {server: 'https://127.0.0.1:1'}\ncontexts:\n- name: c\n  context: {cluster: c, user: u}\ncurrent-context: c\nusers:\n- name: u\n  user: {token: t}\n");
    const good = join(dir, "..", `good-${randomSuffix()}.yaml`);
    await writeFile(good, `apiVersion: kpt-ts.dev/v1alpha1\nkind: HealthRules\nmetadata:\n  name: fine\nspec:\n  rules:\n  - group: acc.example.com\n    kind: Gadget\n    current: "status.ok"\n`);
    for (const command of ["apply", "status", "destroy"]) {
      // Repeated: every file is read (the bad one is the second).
      const r = await kptTs(["live", command, "--health-rules", good, "--health-rules", rules, dir], { env: { KUBECONFIG: unreachable } });
      expect(r.code, `${command}: ${r.stderr}`).toBe(2);
      expect(r.stderr).toMatch(new RegExp(`^error: ${escape(rules)}:9: HealthRules/mine: current: "status.phase = 'Ready'" does not compile`, "m"));
    }
  });
});
