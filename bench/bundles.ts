// The field bundles in the benchmark (issue 30): Argo CD, prometheus-operator, metrics-server and
// Argo Rollouts as their projects publish them (fixtures/field/), each tool in turn through every
// phase a user runs: apply, a no-op re-apply, status, diff (of a changed package), the change
// (which prunes), destroy. Wall time and CPU time (user + system, GNU time) of every run: CPU time
// is what the machine's other load disturbs least.
//
// The bundles own cluster-scoped objects under fixed names (CRDs, ClusterRoles), so the tools run
// one after another, each destroying what it applied before the next starts.

import { cp, mkdir, readFile, readdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { parseAllDocuments, stringify } from "yaml";
import { createNamespace, deleteNamespace, kubectl } from "./cluster.js";
import { kptTsBin, runTimedCpu, summarize, type Command, type Stats } from "./measure.js";

export interface BundleSpec {
  name: string;
  /** Folder under fixtures/field/. */
  folder: string;
  /** Files left out (metrics-server's APIService: on KWOK its backend never serves, which blocks namespace deletion). */
  leaveOut?: string[];
  /** The inventory's namespace when the bundle's objects name one (else the run's own namespace). */
  inventoryNamespace?: string;
}

export const BUNDLES: BundleSpec[] = [
  { name: "argocd", folder: "argocd" },
  { name: "prometheus-operator", folder: "prometheus-operator", inventoryNamespace: "default" },
  { name: "metrics-server", folder: "metrics-server", leaveOut: ["apiservice.yaml"], inventoryNamespace: "kube-system" },
  { name: "argo-rollouts", folder: "argo-rollouts" },
];

export type BundlePhase = "apply" | "noop" | "status" | "diff" | "change" | "destroy";
export const BUNDLE_PHASES: BundlePhase[] = ["apply", "noop", "status", "diff", "change", "destroy"];

export type BundleToolId = "kpt-ts" | "kpt-ts-ssa" | "kpt-ssa" | "kpt" | "kpt-ts-base";

export interface BundleDirs {
  base: string;
  /** The same bundle with every fifth object annotated and every tenth removed (pruned by the change). */
  changed: string;
}

export interface BundleTool {
  id: BundleToolId;
  label: string;
  init: (dir: string, namespace: string, name: string) => Command;
  command: (phase: BundlePhase, dirs: BundleDirs) => Command;
  /** Exit codes that are not failures (`live diff` exits 1 when the package would change something). */
  okCodes: (phase: BundlePhase) => number[];
  note: string;
}

export interface BundleMeasurement {
  bundle: string;
  phase: BundlePhase;
  tool: BundleToolId;
  wall: number[];
  cpu: number[];
  failures: { seconds: number; output: string }[];
}

export interface BundleToolOptions {
  repo: string;
  reconcileTimeout: string;
  /** Another build's launcher (`--bundle-base`: its bin, or dist/cli.js), run beside this one as "kpt-ts (base)". */
  baseCli?: string;
}

function kptTsTool(cli: string, id: BundleToolId, label: string, serverSide: boolean, timeout: string): BundleTool {
  const live = ["node", cli, "live"];
  const ssa = serverSide ? ["--server-side"] : [];
  return {
    id,
    label,
    init: (dir, namespace, name) => ({ argv: [...live, "init", dir, "--quiet", "--namespace", namespace, "--name", name] }),
    command: (phase, dirs) => {
      switch (phase) {
        case "status":
          return { argv: [...live, "status", dirs.base] };
        case "diff":
          return { argv: [...live, "diff", ...ssa, dirs.changed] };
        case "destroy":
          return { argv: [...live, "destroy", dirs.changed] };
        default:
          return { argv: [...live, "apply", `--reconcile-timeout=${timeout}`, ...ssa, phase === "change" ? dirs.changed : dirs.base] };
      }
    },
    okCodes: (phase) => (phase === "diff" ? [0, 1] : [0]),
    note: `${label}: live apply --reconcile-timeout=${timeout}${serverSide ? " --server-side" : ""}; live status; live diff${serverSide ? " --server-side" : ""} of the changed package; live destroy`,
  };
}

function kptTool(serverSide: boolean, timeout: string): BundleTool {
  const ssa = serverSide ? ["--server-side"] : [];
  const label = serverSide ? "kpt --server-side" : "kpt";
  return {
    id: serverSide ? "kpt-ssa" : "kpt",
    label,
    init: (dir, namespace, name) => ({ argv: ["kpt", "live", "init", dir, "--namespace", namespace, "--name", name] }),
    command: (phase, dirs) => {
      switch (phase) {
        case "status":
          return { argv: ["kpt", "live", "status", dirs.base] };
        case "diff":
          // kpt has no diff: its preview of the next apply is a dry run (the server's with --server-side).
          return { argv: ["kpt", "live", "apply", "--dry-run", ...ssa, dirs.changed] };
        case "destroy":
          return { argv: ["kpt", "live", "destroy", dirs.changed] };
        default:
          return { argv: ["kpt", "live", "apply", `--reconcile-timeout=${timeout}`, ...ssa, phase === "change" ? dirs.changed : dirs.base] };
      }
    },
    okCodes: () => [0],
    note: `${label}: kpt live apply --reconcile-timeout=${timeout}${serverSide ? " --server-side" : ""}; kpt live status; diff = kpt live apply --dry-run${serverSide ? " --server-side" : ""} of the changed package (kpt has no diff); kpt live destroy`,
  };
}

export function createBundleTools(opts: BundleToolOptions, only?: BundleToolId[]): BundleTool[] {
  const cli = kptTsBin(opts.repo);
  const all = [
    kptTsTool(cli, "kpt-ts", "kpt-ts", false, opts.reconcileTimeout),
    kptTsTool(cli, "kpt-ts-ssa", "kpt-ts --server-side", true, opts.reconcileTimeout),
    kptTool(true, opts.reconcileTimeout),
    kptTool(false, opts.reconcileTimeout),
    ...(opts.baseCli ? [kptTsTool(opts.baseCli, "kpt-ts-base", "kpt-ts (base)", false, opts.reconcileTimeout)] : []),
  ];
  return only ? all.filter((t) => only.includes(t.id)) : all;
}

const CHANGE_ANNOTATION = "bench.kpt-ts.dev/changed";

/**
 * The changed variant of a bundle's files: every fifth object (CRDs aside: their size would make
 * the change phase a test of the API server) gets an annotation, every tenth is removed. Files
 * with nothing changed keep their text, as a user's unchanged files do.
 */
export function changeBundle(files: { name: string; text: string }[]): { name: string; text: string }[] {
  let index = 0;
  return files.map(({ name, text }) => {
    const docs = parseAllDocuments(text);
    let touched = false;
    const kept: unknown[] = [];
    for (const doc of Array.isArray(docs) ? docs : [docs]) {
      const value = doc.toJS() as { kind?: string; metadata?: { annotations?: Record<string, string> } } | null;
      if (!value) continue;
      if (value.kind === "CustomResourceDefinition" || value.kind === "Namespace") {
        kept.push(value);
        continue;
      }
      const i = index++;
      if (i % 10 === 3) {
        touched = true;
        continue;
      }
      if (i % 5 === 0) {
        touched = true;
        value.metadata = { ...value.metadata, annotations: { ...value.metadata?.annotations, [CHANGE_ANNOTATION]: "true" } };
      }
      kept.push(value);
    }
    return { name, text: touched ? kept.map((v) => stringify(v, { lineWidth: 0 })).join("---\n") : text };
  });
}

/** The bundle's base and changed packages for one tool, with the tool's inventory in both. */
export async function prepareBundle(env: NodeJS.ProcessEnv, work: string, repo: string, tool: BundleTool, bundle: BundleSpec, namespace: string): Promise<BundleDirs> {
  const dir = join(work, "bundles", tool.id, bundle.name);
  const dirs = { base: join(dir, "base"), changed: join(dir, "changed") };
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  await cp(join(repo, "fixtures", "field", bundle.folder), dirs.base, { recursive: true });
  for (const f of bundle.leaveOut ?? []) await rm(join(dirs.base, f));
  const names = (await readdir(dirs.base)).filter((f) => f.endsWith(".yaml")).sort();
  const files = await Promise.all(names.map(async (name) => ({ name, text: await readFile(join(dirs.base, name), "utf8") })));
  await mkdir(dirs.changed);
  for (const f of changeBundle(files)) await writeFile(join(dirs.changed, f.name), f.text);
  const init = await runTimedCpu(tool.init(dirs.base, bundle.inventoryNamespace ?? namespace, `bench-${bundle.name}`), { env });
  if (!init.ok) throw new Error(`${tool.label}: live init of ${bundle.name} failed: ${init.tail}`);
  await cp(join(dirs.base, "resourcegroup.yaml"), join(dirs.changed, "resourcegroup.yaml"));
  for (const f of ["Kptfile"]) await cp(join(dirs.base, f), join(dirs.changed, f)).catch(() => undefined);
  return dirs;
}

/** A copy of the kubeconfig whose context namespace is `namespace` (where objects without one go). */
async function kubeconfigIn(env: NodeJS.ProcessEnv, work: string, namespace: string): Promise<string> {
  const path = join(work, `kubeconfig-${namespace}`);
  await writeFile(path, await readFile(env.KUBECONFIG!, "utf8"));
  await kubectl({ ...env, KUBECONFIG: path }, ["config", "set-context", "--current", `--namespace=${namespace}`]);
  return path;
}

export interface BundleSuiteOptions {
  env: NodeJS.ProcessEnv;
  work: string;
  repo: string;
  tools: BundleTool[];
  bundles: BundleSpec[];
  reps: number;
  /** The phases timed (default all); apply and destroy run anyway, untimed when left out. */
  phases?: BundlePhase[];
  log: (line: string) => void;
  /** Called after each bundle, with everything measured so far (the bench saves its results). */
  onProgress?: (ms: BundleMeasurement[]) => Promise<void>;
}

/**
 * Every bundle, every repetition, each tool in turn (the order rotating between repetitions) in a
 * fresh namespace of its own. A tool whose first apply of a bundle fails (kpt's client-side apply
 * of a CRD too large for its last-applied annotation) has its other phases left out (its destroy
 * only cleans up what was applied) and is not run on that bundle again.
 */
export async function runBundleSuite(o: BundleSuiteOptions): Promise<BundleMeasurement[]> {
  const out: BundleMeasurement[] = [];
  const entry = (bundle: string, phase: BundlePhase, tool: BundleToolId) => {
    let m = out.find((x) => x.bundle === bundle && x.phase === phase && x.tool === tool);
    if (!m) out.push((m = { bundle, phase, tool, wall: [], cpu: [], failures: [] }));
    return m;
  };
  for (const bundle of o.bundles) {
    const given = new Set<BundleToolId>();
    const dirs = new Map<BundleToolId, BundleDirs>();
    for (let rep = 0; rep < o.reps; rep++) {
      const order = o.tools.map((_, i) => o.tools[(i + rep) % o.tools.length]!).filter((t) => !given.has(t.id));
      for (const tool of order) {
        const namespace = `bench-b-${tool.id}-${bundle.name}`.slice(0, 63);
        await createNamespace(o.env, namespace);
        const times: string[] = [];
        try {
          if (!dirs.has(tool.id)) dirs.set(tool.id, await prepareBundle(o.env, o.work, o.repo, tool, bundle, namespace));
          const env = { ...o.env, KUBECONFIG: await kubeconfigIn(o.env, o.work, namespace) };
          let applied = true;
          for (const phase of BUNDLE_PHASES) {
            if (o.phases && !o.phases.includes(phase)) {
              // Not timed; what the timed phases need still happens.
              if (phase === "apply" || phase === "destroy") {
                const r = await runTimedCpu(tool.command(phase, dirs.get(tool.id)!), { env, timeoutMs: 30 * 60_000 });
                if (!r.ok && phase === "apply") applied = false;
              }
              continue;
            }
            if (!applied) {
              // Only what the failed apply left is destroyed: cleaning up, not a measurement of the phase.
              if (phase === "destroy") await runTimedCpu(tool.command(phase, dirs.get(tool.id)!), { env, timeoutMs: 30 * 60_000 });
              continue;
            }
            const m = entry(bundle.name, phase, tool.id);
            const r = await runTimedCpu(tool.command(phase, dirs.get(tool.id)!), { env, timeoutMs: 30 * 60_000, logFile: join(o.work, "logs", `${bundle.name}-${tool.id}-${rep + 1}-${phase}.log`) });
            const ok = r.ok || (r.exitCode !== undefined && tool.okCodes(phase).includes(r.exitCode));
            if (ok) {
              m.wall.push(r.seconds);
              m.cpu.push(r.cpuSeconds);
              times.push(`${phase} ${r.seconds.toFixed(2)}s/${r.cpuSeconds.toFixed(2)}cpu`);
            } else {
              m.failures.push({ seconds: r.seconds, output: r.tail });
              times.push(`${phase} FAILED`);
              if (phase === "apply") {
                applied = false;
                if (rep === 0) given.add(tool.id);
              }
            }
          }
        } finally {
          o.log(`${bundle.name}, rep ${rep + 1}: ${tool.label.padEnd(22)} ${times.join(", ")}`);
          await deleteNamespace(o.env, namespace);
        }
      }
    }
    await o.onProgress?.(out);
  }
  return out;
}

export interface BundleRow extends BundleMeasurement {
  wallStats?: Stats;
  cpuStats?: Stats;
}

export function bundleRows(ms: BundleMeasurement[]): BundleRow[] {
  return ms.map((m) => ({ ...m, wallStats: summarize(m.wall), cpuStats: summarize(m.cpu) }));
}

/** One table per bundle: each phase's median wall and CPU seconds per tool, and each peer's ratio to kpt-ts. */
export function formatBundleReport(ms: BundleMeasurement[], labels: Map<BundleToolId, string>): string {
  const rows = bundleRows(ms);
  const tools = [...new Set(rows.map((r) => r.tool))];
  const out = ["\n== field bundles (fixtures/field/) ==\n", "Median seconds, wall / CPU (user + system); x = that tool's median / kpt-ts's (above 1: kpt-ts is faster); FAILED = every run failed\n"];
  for (const bundle of [...new Set(rows.map((r) => r.bundle))]) {
    const body = BUNDLE_PHASES.map((phase) => {
      const ours = rows.find((r) => r.bundle === bundle && r.phase === phase && r.tool === "kpt-ts");
      return [
        phase,
        ...tools.map((t) => {
          const r = rows.find((x) => x.bundle === bundle && x.phase === phase && x.tool === t);
          if (!r?.wallStats || !r.cpuStats) return r?.failures.length ? "FAILED" : "-";
          const ratio = (a: Stats | undefined, b: Stats) => (t === "kpt-ts" || !a ? "" : ` x${(b.median / a.median).toFixed(2)}`);
          return `${r.wallStats.median.toFixed(2)}${ratio(ours?.wallStats, r.wallStats)} / ${r.cpuStats.median.toFixed(2)}${ratio(ours?.cpuStats, r.cpuStats)}${r.failures.length ? "!" : ""}`;
        }),
      ];
    });
    const header = ["phase", ...tools.map((t) => labels.get(t) ?? t)];
    const widths = header.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
    const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join("  ");
    out.push(`${bundle}\n${[line(header), line(widths.map((w) => "-".repeat(w))), ...body.map(line)].join("\n")}\n`);
  }
  return out.join("\n");
}
