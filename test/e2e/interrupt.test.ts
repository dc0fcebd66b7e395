// "Nothing lost": an apply or destroy interrupted half way (Ctrl-C: 130, SIGTERM: 143) leaves no
// object that the inventory does not list, saves the final inventory, and the next apply converges.
import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import { startKptTs } from "../helpers/background.js";
import { writePackage } from "../helpers/fixtures.js";
import { ownership } from "../helpers/ownership.js";
import { CLI, createNamespace, kptTs, kubeconfig, kubectl, kubectlJson } from "../helpers/run.js";
import { printed } from "../helpers/scenario.js";

const OWNER = "config.k8s.io/owning-inventory";

function inventoryYaml(ns: string): string {
  return `apiVersion: kpt.dev/v1alpha1\nkind: ResourceGroup\nmetadata:\n  name: inv-${ns}\n  namespace: ${ns}\n  labels: {cli-utils.sigs.k8s.io/inventory-id: id-${ns}}\n`;
}

function stuckDeployment(ns: string): string {
  // Never schedulable and no progress deadline: it stays InProgress for as long as we wait.
  return `apiVersion: apps/v1
kind: Deployment
metadata: {name: stuck, namespace: ${ns}}
spec:
  replicas: 1
  selector: {matchLabels: {app: stuck}}
  template:
    metadata: {labels: {app: stuck}}
    spec:
      nodeSelector: {no-such-node: "true"}
      containers: [{name: c, image: nginx}]
`;
}

describe("interrupting an apply", () => {
  it("keeps every object it may have created in the inventory and exits 130", async () => {
    const ns = await createNamespace("e2e-int");
    const rg = `apiVersion: kpt.dev/v1alpha1
kind: ResourceGroup
metadata:
  name: inv-${ns}
  namespace: ${ns}
  labels: {cli-utils.sigs.k8s.io/inventory-id: id-${ns}}
`;
    // First run: an object that the second run will want to prune.
    const dir = await writePackage({ "rg.yaml": rg, "old.yaml": `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: old, namespace: ${ns}}\ndata: {a: "1"}\n` });
    expect((await kptTs(["live", "apply", dir])).code).toBe(0);

    // Second run: wave 1 has a ConfigMap and a Deployment that never becomes ready; wave 2 waits on it.
    const dir2 = await writePackage({
      "rg.yaml": rg,
      "a.yaml": `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: first, namespace: ${ns}}\ndata: {a: "1"}\n`,
      "stuck.yaml": stuckDeployment(ns),
      "b.yaml": `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: after\n  namespace: ${ns}\n  annotations: {config.kubernetes.io/depends-on: apps/namespaces/${ns}/Deployment/stuck}\ndata: {a: "1"}\n`,
    });
    const child = spawn(process.execPath, [CLI, "live", "apply", dir2], { env: { ...process.env, KUBECONFIG: kubeconfig(), NO_COLOR: "1" } });
    let stdout = "";
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (c: string) => (stderr += c));
    const code = await new Promise<number>((resolve) => {
      child.stdout.setEncoding("utf8").on("data", (c: string) => {
        stdout += c;
        if (stdout.includes("deployment.apps/stuck reconcile pending") && !child.killed) child.kill("SIGINT");
      });
      child.on("close", (c) => resolve(c ?? -1));
    });
    expect(code, stdout + stderr).toBe(130);
    expect(stderr).toMatch(/interrupted/);
    expect(stdout).not.toContain("configmap/after created");

    const inv = await kubectlJson(["get", "resourcegroups.kpt.dev", `inv-${ns}`, "-n", ns]);
    const listed = new Set((inv.spec?.resources ?? []).map((r: { kind: string; name: string }) => `${r.kind}/${r.name}`));
    // Everything this inventory owns in the cluster is listed...
    for (const kind of ["configmaps", "deployments"]) {
      const list = await kubectlJson(["get", kind, "-n", ns]);
      for (const o of list.items) {
        if (o.metadata.annotations?.[OWNER] === `id-${ns}`) expect(listed.has(`${o.kind ?? (kind === "configmaps" ? "ConfigMap" : "Deployment")}/${o.metadata.name}`), `${kind}/${o.metadata.name} exists but is not in the inventory`).toBe(true);
      }
    }
    // ...including what the interrupted run created and what it never got to prune.
    expect(listed.has("ConfigMap/first")).toBe(true);
    expect(listed.has("Deployment/stuck")).toBe(true);
    expect(listed.has("ConfigMap/old")).toBe(true);
    // The object never created is not listed.
    expect(listed.has("ConfigMap/after")).toBe(false);
  });
});

const HOLD = "e2e.kpt-ts.dev/hold";

describe("SIGTERM", () => {
  it("during an apply: exits 143 and keeps every object it may have created in the inventory", async () => {
    const ns = await createNamespace("e2e-term");
    const inv = { name: `inv-${ns}`, namespace: ns, id: `id-${ns}` };
    const dir = await writePackage({
      "rg.yaml": inventoryYaml(ns),
      "a.yaml": `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: first, namespace: ${ns}}\ndata: {a: "1"}\n`,
      "stuck.yaml": stuckDeployment(ns),
    });
    const run = startKptTs(["live", "apply", dir]);
    await run.waitForOutput(/deployment\.apps\/stuck reconcile pending/);
    run.signal("SIGTERM");
    const r = await run.done;
    expect(r.code, printed(r)).toBe(143);
    expect(r.stderr).toMatch(/^terminated: finishing the objects in flight and saving the inventory/m);
    const seen = await ownership(inv, ns, "configmaps,deployments.apps");
    expect(seen.orphans).toEqual([]);
    expect(seen.listed).toEqual([`/ConfigMap/${ns}/first`, `apps/Deployment/${ns}/stuck`]);
  });

  it("during a destroy that waits for an object to go: exits 143 and keeps the inventory while the object is still there", async () => {
    const ns = await createNamespace("e2e-term-destroy");
    const inv = { name: `inv-${ns}`, namespace: ns, id: `id-${ns}` };
    const dir = await writePackage({
      "rg.yaml": inventoryYaml(ns),
      "held.yaml": `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: held, namespace: ${ns}}\ndata: {a: "1"}\n`,
      "plain.yaml": `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: plain, namespace: ${ns}}\ndata: {a: "1"}\n`,
    });
    expect((await kptTs(["live", "apply", dir])).code).toBe(0);
    // A finalizer nobody removes keeps the deleted ConfigMap Terminating: the destroy waits for it.
    expect((await kubectl(["patch", "configmap", "held", "-n", ns, "--type=merge", "-p", JSON.stringify({ metadata: { finalizers: [HOLD] } })])).code).toBe(0);
    try {
      const run = startKptTs(["live", "destroy", dir]);
      await run.waitForOutput(/configmap\/held deleted\n[^]*configmap\/plain deleted\n|configmap\/plain deleted\n[^]*configmap\/held deleted\n/);
      run.signal("SIGTERM");
      const r = await run.done;
      expect(r.code, printed(r)).toBe(143);
      const seen = await ownership(inv, ns, "configmaps");
      expect(seen.owned).toEqual([`/ConfigMap/${ns}/held`]);
      // The inventory is not deleted while an object it tracks is still there.
      expect(seen.inventoryExists).toBe(true);
      expect(seen.listed).toContain(`/ConfigMap/${ns}/held`);
    } finally {
      await kubectl(["patch", "configmap", "held", "-n", ns, "--type=merge", "-p", '{"metadata":{"finalizers":null}}']);
    }
    const again = await kptTs(["live", "destroy", dir]);
    expect(again.code, printed(again)).toBe(0);
    const after = await ownership(inv, ns, "configmaps");
    expect(after.owned).toEqual([]);
    expect(after.inventoryExists).toBe(false);
  });
});

/**
 * The random interruption loop: apply (two versions of one package, so runs prune) and destroy,
 * each stopped by SIGINT or SIGTERM at a random moment. After every run, every object carrying
 * the package's owning-inventory annotation must be in the inventory; then an apply must converge
 * and prune exactly what the version it applies left out. 5 runs by default; KPT_TS_LONG=1: 24.
 */
describe("interrupting apply and destroy at random points", () => {
  const LONG = process.env.KPT_TS_LONG === "1";
  const RUNS = LONG ? 24 : 5;
  const KINDS = "configmaps,services,deployments.apps";

  function version(ns: string, v: "A" | "B"): Record<string, string> {
    const cm = (name: string, data: string, annotations = "") => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n  namespace: ${ns}\n${annotations}data: {v: "${data}"}\n`;
    const svc = (name: string) => `apiVersion: v1\nkind: Service\nmetadata: {name: ${name}, namespace: ${ns}}\nspec:\n  selector: {app: ${name}}\n  ports: [{port: 80}]\n`;
    const deploy = (name: string) =>
      `apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: ${name}, namespace: ${ns}}\nspec:\n  replicas: 1\n  selector: {matchLabels: {app: ${name}}}\n  template:\n    metadata: {labels: {app: ${name}}}\n    spec: {containers: [{name: c, image: nginx}]}\n`;
    const after = (dep: string) => `  annotations: {config.kubernetes.io/depends-on: apps/namespaces/${ns}/Deployment/${dep}}\n`;
    const files: Record<string, string> = { "rg.yaml": inventoryYaml(ns) };
    // A: 20 ConfigMaps, 4 Services, a Deployment and a ConfigMap waiting for it (a second wave).
    // B: keeps half the ConfigMaps (changed), drops the rest, adds others and a second Deployment.
    const names = v === "A" ? Array.from({ length: 20 }, (_, i) => `a-${i}`) : [...Array.from({ length: 10 }, (_, i) => `a-${i + 10}`), ...Array.from({ length: 15 }, (_, i) => `b-${i}`)];
    for (const n of names) files[`${n}.yaml`] = cm(n, v);
    for (const n of v === "A" ? ["s-0", "s-1", "s-2", "s-3"] : ["s-2", "s-3", "s-4"]) files[`${n}.yaml`] = svc(n);
    files["web.yaml"] = deploy(v === "A" ? "web" : "web-b");
    files["after.yaml"] = cm(`after-${v.toLowerCase()}`, v, after(v === "A" ? "web" : "web-b"));
    return files;
  }

  function expectedOwned(ns: string, files: Record<string, string>): string[] {
    return Object.entries(files)
      .filter(([f]) => f !== "rg.yaml")
      .map(([, text]) => {
        const kind = /^kind: (\w+)/m.exec(text)![1]!;
        const name = /name: ([\w-]+)/.exec(text)![1]!;
        return `${kind === "Deployment" ? "apps" : ""}/${kind}/${ns}/${name}`;
      })
      .sort();
  }

  it(`${RUNS} interrupted runs lose nothing; the apply after each converges and prunes`, async () => {
    const ns = await createNamespace("e2e-int-loop");
    const inv = { name: `inv-${ns}`, namespace: ns, id: `id-${ns}` };
    const pkgs = { A: await writePackage(version(ns, "A")), B: await writePackage(version(ns, "B")) };
    const tally: Record<string, number> = {};
    const note = (k: string) => (tally[k] = (tally[k] ?? 0) + 1);
    const log: string[] = [];

    const first = await kptTs(["live", "apply", pkgs.A]);
    expect(first.code, printed(first)).toBe(0);
    let state: "A" | "B" = "A";
    // How long each kind of run lasts in all, and after its first line, when left alone, bounds
    // the random moment of its signal: measured once here, then learnt from the runs that
    // finished before their signal.
    const duration = new Map<string, number>();
    for (const [kind, args, then] of [
      ["apply B from A", ["live", "apply", pkgs.B], undefined],
      ["apply A from B", ["live", "apply", pkgs.A], undefined],
      ["destroy from A", ["live", "destroy", pkgs.A], ["live", "apply", pkgs.A]],
    ] as const) {
      const run = startKptTs([...args]);
      const t0 = Date.now();
      const tFirst = await run.waitForOutput(/\n/).then(() => Date.now() - t0, () => 0);
      const r = await run.done;
      expect(r.code, `${kind}\n${printed(r)}`).toBe(0);
      duration.set(`${kind} true`, r.elapsedMs);
      duration.set(`${kind} false`, Math.max(50, r.elapsedMs - tFirst));
      duration.set(`${kind.replace(/from A/, "from B")} true`, r.elapsedMs); // destroy from B: about the same
      duration.set(`${kind.replace(/from A/, "from B")} false`, Math.max(50, r.elapsedMs - tFirst));
      if (then) expect((await kptTs([...then])).code).toBe(0);
    }

    for (let i = 0; i < RUNS; i++) {
      // Always a run that changes something: the other version (creates, updates and prunes) or a destroy.
      const op = Math.random() < 0.6 ? (state === "A" ? "apply B" : "apply A") : "destroy";
      const sig = Math.random() < 0.5 ? "SIGINT" : "SIGTERM";
      const args = op === "destroy" ? ["live", "destroy", pkgs.A] : ["live", "apply", op === "apply A" ? pkgs.A : pkgs.B];
      const kind = `${op} from ${state}`;
      // A third of the signals come at any moment from the start (reading, discovery, before the
      // first write); the others while the run is writing and waiting, after its first line.
      const fromStart = Math.random() < 0.33;
      const delay = Math.floor(Math.random() * (duration.get(`${kind} ${fromStart}`) ?? (fromStart ? 1500 : 800)));
      const what = `run ${i + 1}: ${kind} interrupted by ${sig} ${delay}ms after ${fromStart ? "the start" : "its first line"}`;

      const run = startKptTs(args);
      const t0 = Date.now();
      const firstLine = fromStart ? Promise.resolve() : run.waitForOutput(/\n/).then(() => undefined, () => undefined);
      await firstLine;
      const tFirst = Date.now() - t0;
      await new Promise((r) => setTimeout(r, delay));
      if (run.running) run.signal(sig);
      const r = await run.done;
      const last = r.stdout.trim().split("\n").at(-1) || "(nothing printed)";
      log.push(`${what}: exit ${r.code} after ${r.elapsedMs}ms; last line: ${last}`);
      const finished = /^\d+ resource\(s\) (applied\.|deleted,)/m.test(r.stdout) && /^\d+ resource\(s\) reconciled/m.test(r.stdout);
      if (r.code === 0) {
        expect(finished, `${what}\n${printed(r)}`).toBe(true);
        note("finished before the signal");
        duration.set(`${kind} ${fromStart}`, Math.max(50, r.elapsedMs - tFirst));
      } else {
        // A signal that comes before the CLI has set up its handler ends it as a shell would count it, with nothing done.
        expect(r.code, `${what}\n${printed(r)}`).toBe(sig === "SIGINT" ? 130 : 143);
        note(/^(interrupted|terminated): /m.test(r.stderr) ? `${op} stopped (${r.code})` : `stopped while starting (${r.code})`);
      }

      const seen = await ownership(inv, ns, KINDS);
      expect(seen.orphans, `${what}: objects the inventory lost\n${printed(r)}`).toEqual([]);

      // The next apply converges and prunes what its version left out.
      const target = Math.random() < 0.5 ? "A" : "B";
      const next = await kptTs(["live", "apply", pkgs[target]]);
      state = target;
      expect(next.code, `${what}; then apply ${target}\n${printed(next)}`).toBe(0);
      const after = await ownership(inv, ns, KINDS);
      expect(after.owned, `${what}; then apply ${target}`).toEqual(expectedOwned(ns, version(ns, target)));
      expect(after.listed).toEqual(after.owned);
    }
    console.log(`interruption figures (${RUNS} runs): ${JSON.stringify(tally)}\n${log.join("\n")}`);
  });
});
