// Issue 34: one package on many clusters, on two real control planes this file starts (`east`
// and `west`, each its own etcd, API server, controllers and KWOK nodes; their kubeconfigs merged
// as a user's KUBECONFIG=a:b). Both converge; an unreachable cluster fails alone; a failed canary
// wave leaves the next untouched; the Markdown preview has a section per cluster; destroy empties
// both; Ctrl-C mid-run loses nothing on either; the guard refuses the wrong cluster.
import { createServer } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startKptTs } from "../helpers/background.js";
import { writePackage } from "../helpers/fixtures.js";
import { ownership } from "../helpers/ownership.js";
import { PRIVATE_CLUSTER_HOOK_TIMEOUT, startPrivateClusters, type PrivateClusters } from "../helpers/private-cluster.js";
import { kptTs, kubectl } from "../helpers/run.js";
import { configMap, deployment, docs, printed, service, uniqueName } from "../helpers/scenario.js";

const NAMES = ["east", "west"] as const;
type Name = (typeof NAMES)[number];

let fleet: PrivateClusters;
beforeAll(async () => {
  fleet = await startPrivateClusters(NAMES);
}, PRIVATE_CLUSTER_HOOK_TIMEOUT);
afterAll(async () => {
  await fleet?.stop();
}, 120_000);

/** Every cluster's kubeconfig, as a user merges them. */
const everywhere = () => ({ env: { KUBECONFIG: fleet.kubeconfigList } });
/** One cluster's own kubeconfig (for kubectl's view of it). */
const on = (name: Name) => ({ KUBECONFIG: fleet.clusters.get(name)!.kubeconfig });

async function kubectlOn(name: Name, args: string[]) {
  const r = await kubectl(args, { env: on(name) });
  if (r.code !== 0) throw new Error(`kubectl ${args.join(" ")} on ${name}: ${r.stderr}`);
  return r.stdout;
}

/** A namespace of the same name on each cluster (the package leaves its namespace to the cluster, as a platform team would). */
async function namespaceOnBoth(prefix: string): Promise<string> {
  const ns = uniqueName(prefix);
  for (const name of NAMES) await kubectlOn(name, ["create", "namespace", ns]);
  return ns;
}

function inventory(ns: string, annotations = ""): string {
  return `apiVersion: kpt.dev/v1alpha1\nkind: ResourceGroup\nmetadata:\n  name: inv-${ns}\n  namespace: ${ns}\n  labels: {cli-utils.sigs.k8s.io/inventory-id: id-${ns}}\n${annotations}`;
}

function app(ns: string, o: { value?: string; annotations?: string } = {}): Record<string, string> {
  return {
    "resourcegroup.yaml": inventory(ns, o.annotations),
    "app.yaml": docs(configMap("settings", ns, { color: o.value ?? "blue" }), service("web", ns), deployment("web", ns)),
  };
}

/** What the package left in a namespace: its objects and its inventory (the namespace's own ConfigMap and kpt-ts' change records aside). */
async function left(name: Name, ns: string): Promise<string[]> {
  const out = await kubectlOn(name, ["get", "configmaps,services,deployments.apps,resourcegroups.kpt.dev", "-n", ns, "-l", "!kpt-ts.dev/change-of-inventory", "-o", "name"]);
  return out.split("\n").filter((l) => l && l !== "configmap/kube-root-ca.crt");
}

const PACKAGE_OBJECTS = ["configmap/settings", "service/web", "deployment.apps/web", `resourcegroup.kpt.dev/inv-`];

function expectApplied(objects: string[], ns: string): void {
  expect(objects.sort()).toEqual(PACKAGE_OBJECTS.map((o) => (o.endsWith("inv-") ? `${o}${ns}` : o)).sort());
}

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((resolve) => srv.listen(0, "127.0.0.1", resolve));
  const port = (srv.address() as { port: number }).port;
  await new Promise((resolve) => srv.close(resolve));
  return port;
}

describe("the launcher's named clusters", () => {
  it("each kubeconfig has one context named after its cluster; KUBECONFIG=a:b holds both", async () => {
    for (const name of NAMES) expect((await kubectl(["config", "get-contexts", "-o", "name"], { env: on(name) })).stdout.trim()).toBe(name);
    expect((await kubectl(["config", "get-contexts", "-o", "name"], everywhere())).stdout.trim().split("\n").sort()).toEqual(["east", "west"]);
    const servers = new Set(NAMES.map((n) => fleet.clusters.get(n)!.server));
    expect(servers.size).toBe(2);
  });
});

describe("live apply --contexts", () => {
  it("converges both clusters; each line and JSON event names its cluster; the final table lists both", async () => {
    const ns = await namespaceOnBoth("fleet-apply");
    const dir = await writePackage(app(ns));
    const r = await kptTs(["live", "apply", "--contexts", "east,west", "--reconcile-timeout=2m", dir], everywhere());
    expect(r.code, printed(r)).toBe(0);
    for (const name of NAMES) {
      expect(r.stdout).toContain(`[${name}] configmap/settings created\n`);
      expect(r.stdout).toContain(`[${name}] deployment.apps/web created\n`);
      expect(r.stdout).toContain(`[${name}] deployment.apps/web reconciled\n`);
      expect(r.stdout).toMatch(new RegExp(`^\\[${name}\\] 3 resource\\(s\\) applied\\. 3 created, 0 unchanged, 0 configured, 0 failed$`, "m"));
      expectApplied(await left(name, ns), ns);
    }
    // Every line of the run names its cluster, but the final table's.
    const [events, table] = r.stdout.split("\n\nCLUSTER");
    expect(events!.split("\n").filter((l) => l && !/^\[(east|west)\] /.test(l))).toEqual([]);
    expect(`CLUSTER${table}`).toMatch(/^CLUSTER +RESULT +APPLIED +PRUNED +FAILED +RECONCILED +TOOK +EXIT\neast +succeeded +3 +0 +0 +3 +\d+\.\ds +0\nwest +succeeded +3 +0 +0 +3 +\d+\.\ds +0\n$/);

    // The same run in JSON: kpt's events, each with its cluster, then a line per cluster.
    const json = await kptTs(["live", "apply", "--contexts", "east,west", "--output", "json", dir], everywhere());
    expect(json.code, printed(json)).toBe(0);
    const lines = json.stdout.trim().split("\n").map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.every((l) => l.cluster === "east" || l.cluster === "west")).toBe(true);
    for (const name of NAMES) {
      const mine = lines.filter((l) => l.cluster === name);
      expect(mine.filter((l) => l.type === "apply").map((l) => [l.kind, l.status])).toEqual(
        expect.arrayContaining([
          ["ConfigMap", "Successful"],
          ["Service", "Successful"],
          ["Deployment", "Successful"],
        ]),
      );
      expect(mine.at(-1)).toMatchObject({ type: "cluster", cluster: name, result: "succeeded", exitCode: 0, applied: 3, failed: 0 });
    }

    // The fleet view of what is there: live status on both, by glob.
    const status = await kptTs(["live", "status", "--contexts", "*", dir], everywhere());
    expect(status.code, printed(status)).toBe(0);
    expect(status.stdout).toContain("[east] deployment.apps/web is Current:");
    expect(status.stdout).toContain("[west] deployment.apps/web is Current:");
    expect(status.stdout).toMatch(/^east +3 +3 +0 +0 +0 +0$/m);
    expect(status.stdout).toMatch(/^west +3 +3 +0 +0 +0 +0$/m);
  });

  it("an unknown context is refused before any cluster is touched, naming those that exist", async () => {
    const ns = uniqueName("fleet-unknown");
    const dir = await writePackage(app(ns));
    const r = await kptTs(["live", "apply", "--contexts", "east,north", dir], everywhere());
    expect(r.code, printed(r)).toBe(2);
    expect(r.stderr).toContain('--contexts names context "north", which kubeconfig');
    expect(r.stderr).toContain("its contexts are east, west");
    // Flags that pick one cluster, or that only a run on several takes, are refused alike.
    const both = await kptTs(["live", "apply", "--contexts", "east,west", "--context", "east", dir], everywhere());
    expect(both.code, printed(both)).toBe(2);
    expect(both.stderr).toContain("--context picks one cluster and --contexts several: drop --context");
    const bound = await kptTs(["live", "apply", "--max-clusters-at-once", "2", dir], everywhere());
    expect(bound.code, printed(bound)).toBe(2);
    expect(bound.stderr).toContain("--max-clusters-at-once only applies to a run on several clusters");
  });

  it("with one cluster unreachable, the other is still applied; the exit code is non-zero and names it", async () => {
    const ns = await namespaceOnBoth("fleet-gone");
    const dir = await writePackage(app(ns));
    const port = await closedPort();
    const merged = await fleet.mergedKubeconfig([{ name: "gone", like: "west", server: `https://127.0.0.1:${port}` }]);
    const r = await kptTs(["live", "apply", "--kubeconfig", merged, "--contexts", "east,gone", "--reconcile-timeout=2m", dir]);
    expect(r.code, printed(r)).toBe(1);
    expectApplied(await left("east", ns), ns);
    expect(r.stdout).toMatch(/^east +succeeded +3 +0 +0 +3 /m);
    expect(r.stdout).toMatch(/^gone +failed +- +- +- +- +\d+\.\ds +1$/m);
    expect(r.stdout).toMatch(new RegExp(`^gone: .*127\\.0\\.0\\.1:${port}`, "m"));
    expect(r.stderr).toContain("apply did not succeed on 1 of 2 clusters: gone (exit 1)");
  });

  it("a failing canary wave stops the rollout: the next wave's cluster is left untouched", async () => {
    const ns = await namespaceOnBoth("fleet-canary");
    // The canary refuses the package's Service (a quota of none): its apply fails there.
    const quota = `apiVersion: v1\nkind: ResourceQuota\nmetadata: {name: no-services, namespace: ${ns}}\nspec: {hard: {services: "0"}}\n`;
    expect((await kubectl(["apply", "-f", "-"], { env: on("east"), input: quota })).code).toBe(0);
    const dir = await writePackage(app(ns));
    const r = await kptTs(["live", "apply", "--contexts", "east,west", "--rollout", "east;*", "--reconcile-timeout=2m", dir], everywhere());
    expect(r.code, printed(r)).toBe(3);
    expect(r.stdout).toMatch(/^\[east\] service\/web apply failed/m);
    expect(r.stdout).toMatch(/^east +1 +failed +\d+ +0 +1 /m);
    expect(r.stdout).toMatch(/^west +2 +not run +- +- +- +- +- +-$/m);
    expect(r.stdout).toContain("west: not run: wave 1 did not succeed (east)");
    expect(r.stderr).toContain("rollout: wave 1 of 2 starts: east");
    expect(r.stderr).toContain("rollout stopped: wave 1 did not succeed (east); not touched: west");
    expect(r.stdout).not.toContain("[west]");
    // kubectl's word for it: nothing of the package on west, not even its inventory.
    expect(await left("west", ns)).toEqual([]);
  });
});

describe("live diff and live destroy --contexts", () => {
  it("the Markdown preview has a summary on top and a section per cluster, open where it would change; destroy empties both", async () => {
    const ns = await namespaceOnBoth("fleet-diff");
    const dir = await writePackage(app(ns));
    expect((await kptTs(["live", "apply", "--contexts", "east,west", dir], everywhere())).code).toBe(0);
    // east already has the next version; west does not.
    const next = await writePackage(app(ns, { value: "green" }));
    const one = await kptTs(["live", "apply", "--context", "east", next], everywhere());
    expect(one.code, printed(one)).toBe(0);

    const md = await kptTs(["live", "diff", "--contexts", "east,west", "--output", "markdown", next], everywhere());
    expect(md.code, printed(md)).toBe(1);
    expect(md.stdout.split("\n")[0]).toBe("### kpt-ts live diff: 2 clusters: 1 with changes");
    expect(md.stdout).toContain("| east | no changes | 0 | 0 | 0 | 3 |");
    expect(md.stdout).toContain("| west | 1 change | 0 | 1 | 0 | 2 |");
    expect(md.stdout.match(/^<summary><b>/gm)).toHaveLength(2);
    expect(md.stdout).toContain("<details>\n<summary><b>east</b>: no changes</summary>");
    expect(md.stdout).toContain("<details open>\n<summary><b>west</b>: 1 change</summary>");
    expect(md.stdout).toContain('-  color: blue\n+  color: green');
    // The sections come in the order of the clusters, after the summary.
    expect(md.stdout.indexOf("<b>east</b>")).toBeLessThan(md.stdout.indexOf("<b>west</b>"));

    const json = await kptTs(["live", "diff", "--contexts", "east,west", "--output", "json", next], everywhere());
    expect(json.code).toBe(1);
    const doc = JSON.parse(json.stdout) as { clusters: { cluster: string; exitCode: number; summary: { update: number } }[] };
    expect(doc.clusters.map((c) => [c.cluster, c.exitCode, c.summary.update])).toEqual([
      ["east", 0, 0],
      ["west", 1, 1],
    ]);

    const gone = await kptTs(["live", "destroy", "--contexts", "east,west", next], everywhere());
    expect(gone.code, printed(gone)).toBe(0);
    expect(gone.stdout).toMatch(/^CLUSTER +RESULT +DELETED +FAILED +RECONCILED +TOOK +EXIT$/m);
    expect(gone.stdout).toMatch(/^east +succeeded +3 +0 /m);
    expect(gone.stdout).toMatch(/^west +succeeded +3 +0 /m);
    for (const name of NAMES) expect(await left(name, ns)).toEqual([]);
  });
});

describe("interrupting a fleet run", () => {
  it("Ctrl-C while both clusters run: exit 130, and each cluster's inventory covers what exists there", async () => {
    const ns = await namespaceOnBoth("fleet-int");
    const inv = { name: `inv-${ns}`, namespace: ns, id: `id-${ns}` };
    // A Deployment that never becomes ready keeps both runs waiting.
    const stuck = `apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: stuck, namespace: ${ns}}\nspec:\n  replicas: 1\n  selector: {matchLabels: {app: stuck}}\n  template:\n    metadata: {labels: {app: stuck}}\n    spec:\n      nodeSelector: {no-such-node: "true"}\n      containers: [{name: c, image: nginx}]\n`;
    const cms = Array.from({ length: 40 }, (_, i) => configMap(`cm-${i}`, ns, { i: String(i) }));
    const dir = await writePackage({ "resourcegroup.yaml": inventory(ns), "cms.yaml": docs(...cms), "stuck.yaml": stuck });
    const run = startKptTs(["live", "apply", "--contexts", "east,west", dir], { env: { KUBECONFIG: fleet.kubeconfigList } });
    await run.waitForOutput(/\[east\] deployment\.apps\/stuck reconcile pending/);
    await run.waitForOutput(/\[west\] deployment\.apps\/stuck reconcile pending/);
    run.interrupt();
    const r = await run.done;
    expect(r.code, printed(r)).toBe(130);
    expect(r.stdout).toMatch(/^east +cancelled .* 130$/m);
    expect(r.stdout).toMatch(/^west +cancelled .* 130$/m);
    for (const name of NAMES) {
      const seen = await ownership(inv, ns, "configmaps,deployments.apps", on(name));
      expect(seen.orphans, name).toEqual([]);
      expect(seen.listed, name).toContain(`apps/Deployment/${ns}/stuck`);
      expect(seen.listed.length, name).toBe(41);
    }
  });
});

describe("the guard against the wrong cluster", () => {
  it("a package pinned by name applies where it may and refuses the other cluster before writing", async () => {
    const ns = await namespaceOnBoth("fleet-pin");
    const dir = await writePackage(app(ns, { annotations: "  annotations: {kpt-ts.dev/clusters: east}\n" }));
    const r = await kptTs(["live", "apply", "--contexts", "east,west", dir], everywhere());
    expect(r.code, printed(r)).toBe(2);
    expectApplied(await left("east", ns), ns);
    expect(r.stdout).toMatch(/^west +failed +- +- +- +- +\d+\.\ds +2$/m);
    expect(r.stdout).toContain(`west: the package may not be deployed to context "west"`);
    expect(r.stdout).toContain("kpt-ts.dev/clusters: east,");
    expect(await left("west", ns)).toEqual([]);
  });

  it("a package pinned to a cluster's identity: another context is refused, naming both; --allow-any-cluster overrides", async () => {
    const ns = await namespaceOnBoth("fleet-uid");
    const uid = (await kubectlOn("east", ["get", "namespace", "kube-system", "-o", "jsonpath={.metadata.uid}"])).trim();
    const westUid = (await kubectlOn("west", ["get", "namespace", "kube-system", "-o", "jsonpath={.metadata.uid}"])).trim();
    const dir = await writePackage(app(ns, { annotations: `  annotations: {kpt-ts.dev/clusters: "uid:${uid}"}\n` }));
    const wrong = await kptTs(["live", "apply", "--context", "west", dir], everywhere());
    expect(wrong.code, printed(wrong)).toBe(2);
    expect(wrong.stderr).toContain(`the package may not be deployed to context "west" (${fleet.clusters.get("west")!.server}, uid:${westUid}): its identity uid:${westUid} is none of uid:${uid}`);
    expect(wrong.stderr).toContain("--allow-any-cluster");
    expect(await left("west", ns)).toEqual([]);
    // A dry run is refused too: it shows what the real run would do.
    expect((await kptTs(["live", "apply", "--dry-run", "--context", "west", dir], everywhere())).code).toBe(2);

    const right = await kptTs(["live", "apply", "--context", "east", dir], everywhere());
    expect(right.code, printed(right)).toBe(0);
    const anyway = await kptTs(["live", "apply", "--context", "west", "--allow-any-cluster", dir], everywhere());
    expect(anyway.code, printed(anyway)).toBe(0);
    expectApplied(await left("west", ns), ns);
    // Destroy is guarded as apply is.
    expect((await kptTs(["live", "destroy", "--context", "west", dir], everywhere())).code).toBe(2);
    expect((await kptTs(["live", "destroy", "--contexts", "east,west", "--allow-any-cluster", dir], everywhere())).code).toBe(0);
  });
});
