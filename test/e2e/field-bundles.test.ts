// Issue 22, the field suite: real bundles as their projects publish them (fixtures/field/, see its
// README), applied as a new user would, with default flags and with --server-side: init, apply,
// a re-apply that writes nothing (every object `unchanged`), live diff, --dry-run, status,
// destroy, each exit 0. The objects too large for client-side apply's last-applied copy (Argo
// CD's applicationsets CRD, six of prometheus-operator's CRDs) are applied server-side on their
// own with one notice line each. The real kpt runs the same steps where it can (with default
// flags it fails on those CRDs, exit 3, as issue 22 found). Wall times are logged for
// docs/benchmark.md.
//
// The bundles own cluster-scoped objects (CRDs, ClusterRoles) under fixed names, so every tool and
// mode runs in turn and destroys what it applied before the next one starts.
import { cp, mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import { createNamespace, hasBinary, kpt, kptTs, kubectl, REPO, type RunResult } from "../helpers/run.js";
import { kubeconfigWithNamespace, printed } from "../helpers/scenario.js";

const haveKpt = hasBinary("kpt");
if (!haveKpt) console.warn("skipping kpt's side of the field suite: the real `kpt` is not on PATH");

type Tool = typeof kptTs;
const TIMEOUT = ["--reconcile-timeout=2m"];
const timings: string[] = [];

interface Bundle {
  name: string;
  /** Folder under fixtures/field/, and files of it left out (none: the whole folder). */
  folder: string;
  leaveOut?: string[];
  /** The inventory's namespace; objects without one go to the kubeconfig's context namespace. */
  inventoryNamespace?: string;
  objects: number;
  /** The objects too large for client-side apply, as the notice names them. */
  tooLarge: string[];
}

const BUNDLES: Bundle[] = [
  { name: "argocd", folder: "argocd", objects: 59, tooLarge: ["customresourcedefinition.apiextensions.k8s.io/applicationsets.argoproj.io"] },
  {
    name: "prometheus-operator",
    folder: "prometheus-operator",
    inventoryNamespace: "default",
    objects: 16,
    tooLarge: ["alertmanagerconfigs", "alertmanagers", "prometheusagents", "prometheuses", "scrapeconfigs", "thanosrulers"].map((n) => `customresourcedefinition.apiextensions.k8s.io/${n}.monitoring.coreos.com`),
  },
  // Without its APIService: on a cluster without real Pods its backend never serves, which blocks
  // every namespace deletion in the cluster this suite shares (unavailable-api.test.ts runs that
  // case on a private one). Here: the Deployment's strategy patch ($retainKeys), which kubectl
  // and kpt write on every apply, is `unchanged`.
  { name: "metrics-server", folder: "metrics-server", leaveOut: ["apiservice.yaml"], inventoryNamespace: "kube-system", objects: 8, tooLarge: [] },
  // A fourth, chosen for the suite: 5 CRDs of 150 to 200 KB (each fits client-side apply's copy),
  // a controller Deployment, RBAC and a Secret, as `kubectl apply -n argo-rollouts -f install.yaml`.
  { name: "argo-rollouts", folder: "argo-rollouts", objects: 15, tooLarge: [] },
];

async function packageOf(b: Bundle): Promise<string> {
  const dir = join(await mkdtemp(join(tmpdir(), "kpt-ts-field-")), b.name);
  await cp(join(REPO, "fixtures/field", b.folder), dir, { recursive: true });
  for (const f of b.leaveOut ?? []) await rm(join(dir, f));
  return dir;
}

async function timed(label: string, step: () => Promise<RunResult>): Promise<RunResult> {
  const start = performance.now();
  const r = await step();
  timings.push(`${label}: ${((performance.now() - start) / 1000).toFixed(1)} s (exit ${r.code})`);
  return r;
}

const ok = (r: RunResult) => expect(r.code, printed(r)).toBe(0);
const notices = (r: RunResult) => r.stderr.split("\n").filter((l) => / is applied server-side: too large for client-side apply: /.test(l));

/** The same bundle applied by `tool`: what every run sees, whatever the tool. */
async function setUp(tool: Tool, b: Bundle) {
  const ns = await createNamespace(`e2e-field-${b.name.slice(0, 8)}`);
  const env = { KUBECONFIG: await kubeconfigWithNamespace(ns) };
  const dir = await packageOf(b);
  ok(await tool(["live", "init", "--namespace", b.inventoryNamespace ?? ns, "--name", `field-${b.name}`, dir], { env }));
  return { env, dir };
}

/**
 * Reads every custom resource kind the package defines (one kubectl for all of them), as the
 * bundle's own operator would by watching them. On Kubernetes 1.34+ the first request for a kind
 * meets "storage is (re)initializing" while its watch cache is built; when that first request is
 * the CRD finalizer's, it backs off for minutes (issue 30). kpt-ts reads before deleting a CRD;
 * kpt does not, so its destroys here are given the cluster a running operator would leave, not
 * that back-off. Only the package's own kinds: the other test files' CRDs are not kpt's to delete.
 */
async function readCustomResources(env: Record<string, string>, dir: string): Promise<void> {
  const names: string[] = [];
  for (const file of (await readdir(dir)).filter((f) => /\.ya?ml$/.test(f))) {
    for (const doc of parseAllDocuments(await readFile(join(dir, file), "utf8")).map((d) => d.toJS() as { kind?: string; metadata?: { name?: string } } | null)) {
      if (doc?.kind === "CustomResourceDefinition" && doc.metadata?.name) names.push(doc.metadata.name);
    }
  }
  if (names.length) await kubectl(["get", names.join(","), "-A", "--chunk-size=1", "-o", "name"], { env });
}

/**
 * Runs `steps`; when one fails, destroys what the package applied before the error is reported, so
 * that the next tool or mode does not find these cluster-scoped objects owned by this inventory.
 */
async function cleaningUp(tool: Tool, env: Record<string, string>, dir: string, steps: () => Promise<void>): Promise<void> {
  try {
    await steps();
  } catch (err) {
    await tool(["live", "destroy", dir], { env });
    throw err;
  }
}

describe.each(BUNDLES)("$name", (b) => {
  it.each([
    { mode: "default flags", flags: [] as string[] },
    { mode: "--server-side", flags: ["--server-side"] },
  ])("kpt-ts, $mode: apply, a re-apply that writes nothing, diff, dry run, status, destroy", async ({ mode, flags }) => {
    const { env, dir } = await setUp(kptTs, b);
    const label = `${b.name}, kpt-ts ${mode}`;
    const wantNotices = flags.length ? [] : b.tooLarge;
    await cleaningUp(kptTs, env, dir, async () => {
      const apply = await timed(`${label}, apply`, () => kptTs(["live", "apply", ...TIMEOUT, ...flags, dir], { env }));
      ok(apply);
      expect(notices(apply).map((l) => l.split(" ")[0])).toEqual(wantNotices);
      expect(apply.stdout).toContain(`${b.objects} resource(s) applied. ${b.objects} created, 0 unchanged, 0 configured, 0 failed`);
      expect(apply.stdout).toContain(`${b.objects} resource(s) reconciled, 0 skipped, 0 failed to reconcile, 0 timed out`);

      const again = await timed(`${label}, re-apply`, () => kptTs(["live", "apply", ...TIMEOUT, ...flags, dir], { env }));
      ok(again);
      expect(notices(again).map((l) => l.split(" ")[0])).toEqual(wantNotices);
      expect(again.stdout).toContain(`${b.objects} resource(s) applied. 0 created, ${b.objects} unchanged, 0 configured, 0 failed`);

      const diff = await kptTs(["live", "diff", ...flags, dir], { env });
      expect(diff.code, printed(diff)).toBe(0);
      expect(diff.stdout).toContain(`Op: 0 create, 0 update, 0 delete, ${b.objects} noop`);
      for (const ref of wantNotices) expect(diff.stdout).toMatch(new RegExp(`${ref.split("/")[1]!.replace(/\./g, "\\.")}\\s+CustomResourceDefinition\\s+noop\\s+applied server-side: too large for client-side apply`));

      const dry = await kptTs(["live", "apply", "--dry-run", ...flags, dir], { env });
      ok(dry);
      expect(notices(dry).map((l) => l.split(" ")[0])).toEqual(wantNotices);

      ok(await timed(`${label}, status`, () => kptTs(["live", "status", dir], { env })));
      const destroy = await timed(`${label}, destroy`, () => kptTs(["live", "destroy", dir], { env }));
      ok(destroy);
      expect(destroy.stdout).toContain(`${b.objects} resource(s) deleted, 0 skipped`);
    });
  });

  it.skipIf(!haveKpt)("kpt beside it: --server-side applies, re-applies and destroys; default flags as kpt 1.0.0-beta.56 does them", async () => {
    const { env, dir } = await setUp(kpt, b);
    await cleaningUp(kpt, env, dir, async () => {
      ok(await timed(`${b.name}, kpt --server-side, apply`, () => kpt(["live", "apply", ...TIMEOUT, "--server-side", dir], { env })));
      ok(await timed(`${b.name}, kpt --server-side, re-apply`, () => kpt(["live", "apply", ...TIMEOUT, "--server-side", dir], { env })));
      ok(await timed(`${b.name}, kpt --server-side, status`, () => kpt(["live", "status", dir], { env })));
      await readCustomResources(env, dir);
      ok(await timed(`${b.name}, kpt --server-side, destroy`, () => kpt(["live", "destroy", dir], { env })));

      // kpt's client-side apply cannot store the last-applied copy of the large CRDs. Its exit is 3
      // whatever its wait finds then (at times it waits out the timeout for a ServiceMonitor whose
      // kind its cache has not seen yet), so that case waits 20 s, not 2 minutes.
      const plainTimeout = b.tooLarge.length ? ["--reconcile-timeout=20s"] : TIMEOUT;
      const plain = await timed(`${b.name}, kpt default flags, apply`, () => kpt(["live", "apply", ...plainTimeout, dir], { env }));
      if (b.tooLarge.length) {
        expect(plain.code, printed(plain)).toBe(3);
        expect(plain.stdout + plain.stderr).toContain("Too long");
      } else ok(plain);
      await readCustomResources(env, dir);
      ok(await timed(`${b.name}, kpt default flags, destroy`, () => kpt(["live", "destroy", dir], { env })));
    });
  });
});

it("wall times (logged for docs/benchmark.md)", () => {
  console.log(`field suite wall times:\n${timings.join("\n")}`);
  // Cluster-scoped leftovers would make the next run's apply refuse them (inventory policy).
  return kubectl(["get", "crd", "applicationsets.argoproj.io", "--ignore-not-found", "-o", "name"]).then((r) => expect(r.stdout.trim()).toBe(""));
});
