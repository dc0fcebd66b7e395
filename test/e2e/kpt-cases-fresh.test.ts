// Issue 15: kpt's live-apply cases that need a cluster without the ResourceGroup CRD
// (dry-run-with-install-rg, dry-run-without-rg, install-rg-on-apply: kpt's `requiresCleanCluster`
// and `noResourceGroup`). The shared cluster keeps the CRD for everyone, so these run on a private
// control plane: the CRD is deleted before each tool's run, the real kpt first, then kpt-ts.
// See kpt-cases.test.ts for the other cases and how kpt's runner works.
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PRIVATE_CLUSTER_HOOK_TIMEOUT, startPrivateCluster, stopPrivateCluster } from "../helpers/private-cluster.js";
import { comparableEvents, parseJsonEvents } from "../helpers/json-events.js";
import { hasBinary, kpt, kptTs, kubectl, waitUntil, type RunResult } from "../helpers/run.js";
import { inventoryRefs, printed, uniqueName, type KubeObj } from "../helpers/scenario.js";

const haveKpt = hasBinary("kpt");
if (!haveKpt) console.warn("skipping kpt's live-apply cases on a fresh cluster: the real `kpt` is not on PATH");

const CRD = "resourcegroups.kpt.dev";
const INSTALLING = "installing inventory ResourceGroup CRD.";
type Tool = "kpt" | "kpt-ts";

describe.skipIf(!haveKpt)("kpt's live-apply cases on a cluster without the ResourceGroup CRD", () => {
  let env: Record<string, string>;
  let stateDir: string;

  beforeAll(async () => {
    stateDir = join(await mkdtemp(join(tmpdir(), "kpt-ts-cases-")), "state");
    const state = await startPrivateCluster(stateDir);
    env = { KUBECONFIG: state.kubeconfig };
  }, PRIVATE_CLUSTER_HOOK_TIMEOUT);
  afterAll(async () => {
    await stopPrivateCluster(stateDir);
  });

  const kc = (args: string[]) => kubectl(args, { env });
  const tool = (t: Tool, args: string[], cwd: string): Promise<RunResult> => (t === "kpt" ? kpt(args, { cwd, env }) : kptTs(args, { cwd, env }));

  async function getJson(args: string[]): Promise<KubeObj | undefined> {
    const r = await kc(["get", ...args, "--ignore-not-found", "-o", "json"]);
    if (r.code !== 0) throw new Error(r.stderr);
    return r.stdout.trim() ? (JSON.parse(r.stdout) as KubeObj) : undefined;
  }
  const crd = () => getJson(["crd", CRD]);

  async function withoutCrd(): Promise<void> {
    if (!(await crd())) return;
    expect((await kc(["delete", "crd", CRD, "--wait=true"])).code).toBe(0);
    await waitUntil("the ResourceGroup CRD to be gone", async () => (await crd()) === undefined);
  }

  /** kpt's nginx-deployment package, its inventory named after the case, in a new namespace. */
  async function nginxPackage(caseName: string): Promise<{ ns: string; dir: string }> {
    const ns = uniqueName(caseName);
    expect((await kc(["create", "namespace", ns])).code).toBe(0);
    const dir = await mkdtemp(join(tmpdir(), "kpt-ts-case-"));
    await writeFile(
      join(dir, "resourcegroup.yaml"),
      `apiVersion: kpt.dev/v1alpha1\nkind: ResourceGroup\nmetadata:\n  name: ${caseName}\n  namespace: ${ns}\n  labels:\n    cli-utils.sigs.k8s.io/inventory-id: ${ns}\n`,
    );
    await writeFile(
      join(dir, "deployment.yaml"),
      [
        "apiVersion: apps/v1",
        "kind: Deployment",
        "metadata:",
        "  name: nginx-deployment",
        `  namespace: ${ns}`,
        "spec:",
        "  replicas: 1",
        "  selector: {matchLabels: {app: nginx}}",
        "  template:",
        "    metadata: {labels: {app: nginx}}",
        "    spec:",
        "      containers: [{name: nginx, image: 'nginx:1.14.2', ports: [{containerPort: 80}]}]",
        "",
      ].join("\n"),
    );
    return { ns, dir };
  }

  interface FreshRun {
    ns: string;
    run: RunResult;
    /** Whether the CRD exists after the run. */
    crdAfter: boolean;
    deploymentAfter: boolean;
    inventory: string[] | undefined;
  }

  /** One tool's run of a case, from a cluster without the CRD. */
  async function runFresh(t: Tool, caseName: string, args: string[]): Promise<FreshRun> {
    await withoutCrd();
    const { ns, dir } = await nginxPackage(caseName);
    const run = await tool(t, ["live", "apply", ...args], dir);
    const crdAfter = (await crd()) !== undefined;
    const deploymentAfter = (await getJson(["deployments.apps", "nginx-deployment", "-n", ns])) !== undefined;
    const rg = crdAfter ? await getJson(["resourcegroups.kpt.dev", caseName, "-n", ns]) : undefined;
    return { ns, run, crdAfter, deploymentAfter, inventory: rg ? inventoryRefs(rg) : undefined };
  }

  const both = async (caseName: string, args: string[]) => {
    const real = await runFresh("kpt", caseName, args);
    const ours = await runFresh("kpt-ts", caseName, args);
    return { real, ours, context: `case ${caseName} ${args.join(" ")}\n--- kpt\n${printed(real.run)}\n--- kpt-ts\n${printed(ours.run)}` };
  };

  it("install-rg-on-apply: apply installs the CRD, applies, and records the inventory", async () => {
    const { real, ours, context } = await both("install-rg-on-apply", ["--reconcile-timeout=1m"]);
    for (const r of [real, ours]) {
      expect(r.run.code, context).toBe(0);
      expect(r.run.stderr, context).toContain(INSTALLING);
      expect(r.crdAfter, context).toBe(true);
      expect(r.deploymentAfter, context).toBe(true);
      expect(r.inventory, context).toEqual([`apps/Deployment/${r.ns}/nginx-deployment`]);
    }
  });

  it("dry-run-with-install-rg: --dry-run --install-resource-group previews the create; same JSON events as kpt", async () => {
    const { real, ours, context } = await both("dry-run-with-install-rg", ["--dry-run", "--install-resource-group", "--output=json"]);
    expect(real.run.code, context).toBe(0);
    expect(ours.run.code, context).toBe(0);
    const names = (r: FreshRun) => ({ [r.ns]: "<NS>" });
    expect(comparableEvents(parseJsonEvents(ours.run.stdout), names(ours)), context).toEqual(comparableEvents(parseJsonEvents(real.run.stdout), names(real)));
    for (const r of [real, ours]) {
      expect(r.deploymentAfter, context).toBe(false);
      expect(r.inventory ?? [], context).toEqual([]);
    }
    // The real kpt installs the CRD even in a dry run (kpt's case expects its `installing` line);
    // kpt-ts' dry run needs no CRD and writes nothing, not even that (README: where kpt-ts differs).
    expect(real.run.stderr, context).toContain(INSTALLING);
    expect(real.crdAfter, context).toBe(true);
    expect(ours.crdAfter, context).toBe(false);
  });

  it("dry-run-without-rg: a dry run on a cluster without the CRD previews the create and installs nothing", async () => {
    // kpt's case expects exit 1 (`The ResourceGroup CRD was not found in the cluster...`), from an
    // older kpt; 1.0.0-beta.56 previews without the CRD, as kpt-ts does. Run as the case has it
    // (`--dry-run` alone) and with the CRD's install turned off explicitly.
    for (const args of [["--dry-run"], ["--dry-run", "--install-resource-group=false"]]) {
      const { real, ours, context } = await both("dry-run-without-rg", args);
      expect(real.run.code, context).toBe(0);
      expect(ours.run.code, context).toBe(0);
      for (const r of [real, ours]) {
        expect(r.run.stdout.split("\n")[0], context).toBe("Dry-run strategy: client");
        expect(r.crdAfter, context).toBe(false);
        expect(r.deploymentAfter, context).toBe(false);
      }
      // kpt-ts prints the book's lines, beta.56 its phase lines (README: where kpt-ts differs).
      expect(real.run.stdout, context).toContain("deployment.apps/nginx-deployment apply successful");
      expect(ours.run.stdout, context).toContain("deployment.apps/nginx-deployment created\n1 resource(s) applied. 1 created, 0 unchanged, 0 configured, 0 failed");
    }
  });
});
