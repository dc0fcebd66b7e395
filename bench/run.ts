// `npm run bench [-- --quick | --reps N --sizes 100,500 --tools kpt-ts,kpt ...]`
// Starts (or reuses) the local cluster, then times kpt-ts against kpt, kubectl's applyset, kapp and a
// bare server-side apply loop on the same cluster, each tool in its own namespace, and prints and
// writes the results (bench/results/<timestamp>.json).

import { execFile } from "node:child_process";
import { copyFile, mkdir, mkdtemp, rm } from "node:fs/promises";
import { cpus, release, tmpdir, totalmem } from "node:os";
import { join, resolve } from "node:path";
import { promisify, parseArgs } from "node:util";
import { createNamespace, deleteLeftoverNamespaces, deleteNamespace, kubectl, startCluster } from "./cluster.js";
import { ensureKapp } from "./kapp.js";
import { runSteps, runTimed, runWithPeakMemory, summarize, type Command } from "./measure.js";
import { generatePackage, writePackage } from "./package.js";
import { buildReport, formatReport, writeJson, type Measurement, type MemoryResult, type Report } from "./report.js";
import { buildBareLoop, createTools, PHASES, type PackageDirs, type Tool, type ToolId } from "./tools.js";

const BENCH = import.meta.dirname;
const REPO = resolve(BENCH, "..");
const exec = promisify(execFile);
const log = (line: string) => process.stderr.write(`[bench] ${line}\n`);

const USAGE = `usage: npm run bench -- [options]
  --quick                 1 repetition, 100 and 500 objects only, 10 --help runs
  --reps N                repetitions per measurement (default 3)
  --sizes A,B,...         package sizes (default 100,500,2000)
  --tools a,b,...         kpt-ts,kpt-ts-ssa,kpt,kubectl,kapp,bare (default: all that are available)
  --max-size t=N,...      run tool t only up to N objects (e.g. kubectl=500: its 2,000-object
                          cycle takes ~24 minutes per repetition here)
  --concurrency N         kpt-ts's --concurrency and the bare loop's (default 16)
  --reconcile-timeout D   for kpt and kpt-ts applies, and kubectl wait (default 10m)
  --memory-objects N      package size for kpt-ts's peak memory; 0 skips it (default 5000)
  --help-runs N           runs of kpt-ts --help (default 30)
  --keep                  keep the generated packages and logs`;

function options() {
  const { values } = parseArgs({
    options: {
      quick: { type: "boolean", default: false },
      reps: { type: "string" },
      sizes: { type: "string" },
      tools: { type: "string" },
      "max-size": { type: "string" },
      concurrency: { type: "string", default: "16" },
      "reconcile-timeout": { type: "string", default: "10m" },
      "memory-objects": { type: "string", default: "5000" },
      "help-runs": { type: "string" },
      keep: { type: "boolean", default: false },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    process.exit(0);
  }
  const q = values.quick;
  return {
    quick: q,
    reps: Number(values.reps ?? (q ? 1 : 3)),
    sizes: (values.sizes ?? (q ? "100,500" : "100,500,2000")).split(",").map(Number),
    tools: values.tools?.split(",") as ToolId[] | undefined,
    maxSize: Object.fromEntries((values["max-size"] ?? "").split(",").filter(Boolean).map((kv) => {
      const [tool, n] = kv.split("=");
      if (!tool || !Number(n)) throw new Error(`--max-size: expected tool=N, got "${kv}"`);
      return [tool, Number(n)];
    })) as Partial<Record<ToolId, number>>,
    concurrency: Number(values.concurrency),
    reconcileTimeout: values["reconcile-timeout"],
    memoryObjects: Number(values["memory-objects"]),
    helpRuns: Number(values["help-runs"] ?? (q ? 10 : 30)),
    keep: values.keep,
  };
}

const version = (cmd: string, args: string[]) => exec(cmd, args).then((r) => r.stdout.trim().split("\n")[0] ?? "", () => "unavailable");

/** Writes the tool's base and changed package for one size; kpt-style tools also get their inventory. */
async function preparePackage(env: NodeJS.ProcessEnv, work: string, tool: Tool, size: number, namespace: string): Promise<PackageDirs> {
  const dir = join(work, "packages", `${size}`, tool.id);
  const pkg = { namespace, base: join(dir, "base"), changed: join(dir, "changed") };
  const { base, changed } = generatePackage(size, namespace);
  await writePackage(pkg.base, base, { kptfile: tool.kptPackage });
  await writePackage(pkg.changed, changed, { kptfile: tool.kptPackage });
  if (tool.init) {
    const r = await runTimed(tool.init(pkg.base), { env });
    if (!r.ok) throw new Error(`${tool.label}: live init failed: ${r.tail}`);
    await copyFile(join(pkg.base, "resourcegroup.yaml"), join(pkg.changed, "resourcegroup.yaml"));
  }
  return pkg;
}

/** apply, noop, change, destroy in a fresh namespace, which is gone again before this returns. */
async function cycle(env: NodeJS.ProcessEnv, work: string, tool: Tool, size: number, rep: number, pkg: PackageDirs, out: Measurement[]): Promise<void> {
  await createNamespace(env, pkg.namespace);
  const times: string[] = [];
  try {
    let applied = true;
    for (const phase of PHASES) {
      // Without a first apply, the no-op and change runs would measure something else; destroy still cleans up.
      if (!applied && (phase === "noop" || phase === "change")) continue;
      const m = out.find((x) => x.size === size && x.phase === phase && x.tool === tool.id)!;
      const r = await runSteps(tool.steps(phase, pkg), { env, timeoutMs: 45 * 60_000, logPrefix: join(work, "logs", `${size}-${tool.id}-${rep + 1}-${phase}`) });
      if (r.ok) {
        m.samples.push(r.seconds);
        times.push(`${phase} ${r.seconds.toFixed(2)}s`);
      } else {
        m.failures.push({ seconds: r.seconds, output: r.tail });
        times.push(`${phase} FAILED`);
        log(`${tool.label} ${phase} of ${size} failed after ${r.seconds.toFixed(1)}s (logs: ${join(work, "logs")}):\n${r.tail.slice(-600)}`);
        if (phase === "apply") applied = false;
      }
    }
  } finally {
    log(`${size} objects, rep ${rep + 1}: ${tool.label.padEnd(20)} ${times.join(", ")}`);
    await deleteNamespace(env, pkg.namespace);
  }
}

async function measureMemory(env: NodeJS.ProcessEnv, work: string, tools: Tool[], objects: number): Promise<MemoryResult[]> {
  const tool = tools.find((t) => t.id === "kpt-ts");
  if (!tool || objects <= 0) return [];
  const pkg = await preparePackage(env, work, tool, objects, `bench-kpt-ts-mem`);
  await createNamespace(env, pkg.namespace);
  const results: MemoryResult[] = [];
  try {
    for (const phase of ["apply", "destroy"] as const) {
      const step = tool.steps(phase, pkg)[0]!;
      const r = await runWithPeakMemory(step, { env, timeoutMs: 45 * 60_000 });
      results.push({ ...r, objects, phase });
      log(`kpt-ts ${phase} of ${objects} objects: peak RSS ${r.rssMb.toFixed(1)} MB, ${r.seconds.toFixed(2)}s${r.ok ? "" : ` FAILED:\n${r.tail}`}`);
      if (!r.ok) break;
    }
  } finally {
    await deleteNamespace(env, pkg.namespace);
  }
  return results;
}

async function measureHelp(env: NodeJS.ProcessEnv, runs: number): Promise<Report["help"]> {
  const time = async (cmd: Command) => {
    const samples: number[] = [];
    for (let i = 0; i < runs; i++) samples.push((await runTimed(cmd, { env })).seconds);
    return summarize(samples)!;
  };
  const nodeFloor = await time({ argv: ["node", "-e", "0"] });
  const kptTs = await time({ argv: ["node", join(REPO, "dist", "cli.js"), "--help"] });
  return { kptTs, nodeFloor, runs };
}

async function main(): Promise<void> {
  const opts = options();
  const startedAt = new Date();
  const cluster = await startCluster(log);
  const env = { ...process.env, KUBECONFIG: cluster.kubeconfig };
  const leftovers = await deleteLeftoverNamespaces(env);
  if (leftovers.length) log(`deleted leftover namespaces: ${leftovers.join(", ")}`);
  await kubectl(env, ["get", "crd", "resourcegroups.kpt.dev"]).catch(() => exec("kpt", ["live", "install-resource-group"], { env }));

  const kapp = opts.tools && !opts.tools.includes("kapp") ? undefined : await ensureKapp(log);
  if (kapp && !kapp.ok) log(`kapp is left out: ${kapp.reason}`);
  const bareLoop = await buildBareLoop(BENCH);
  const tools = createTools(
    { repo: REPO, concurrency: opts.concurrency, reconcileTimeout: opts.reconcileTimeout, kappBin: kapp?.ok ? kapp.bin : undefined, bareLoop },
    opts.tools,
  );
  const environment = {
    node: process.version,
    cpus: `${cpus().length} x ${cpus()[0]?.model ?? "?"}`,
    memoryGb: Math.round(totalmem() / 2 ** 30),
    kernel: release(),
    kptTsCommit: await version("git", ["-C", REPO, "rev-parse", "--short", "HEAD"]),
    kpt: await version("kpt", ["version"]),
    kubectl: await version("kubectl", ["version", "--client"]),
    kapp: kapp?.ok ? kapp.version : (kapp?.reason ?? "not selected"),
    cluster: `${cluster.server} (${cluster.reused ? "reused" : "started"})`,
  };
  log(`tools: ${tools.map((t) => t.label).join(", ")}; sizes ${opts.sizes.join(", ")}; ${opts.reps} repetition(s)${Object.entries(opts.maxSize).map(([t, n]) => `; ${t} up to ${n} objects`).join("")}`);

  const work = await mkdtemp(join(tmpdir(), "kpt-ts-bench-"));
  await mkdir(join(work, "logs"));
  const toolsAt = (size: number) => tools.filter((t) => size <= (opts.maxSize[t.id] ?? Infinity));
  const measurements: Measurement[] = opts.sizes.flatMap((size) => PHASES.flatMap((phase) => toolsAt(size).map((t) => ({ size, phase, tool: t.id, samples: [], failures: [] }))));
  const packages: Record<number, ReturnType<typeof generatePackage>["counts"]> = {};
  let memory: MemoryResult[] = [];
  let help: Report["help"];
  const labels = new Map(tools.map((t) => [t.id, t.label]));
  const resultsFile = { current: "" };
  const save = async (done: boolean) => {
    const report = buildReport(measurements, memory, help);
    const data = {
      startedAt: startedAt.toISOString(),
      finishedAt: done ? new Date().toISOString() : undefined,
      wallSeconds: (Date.now() - startedAt.getTime()) / 1000,
      complete: done,
      options: opts,
      environment,
      tools: tools.map((t) => ({ id: t.id, label: t.label, notes: t.notes })),
      packages,
      ...report,
    };
    if (resultsFile.current) await rm(resultsFile.current, { force: true });
    resultsFile.current = await writeJson(join(BENCH, "results"), data);
    return report;
  };

  for (const size of opts.sizes) {
    const pkgs = new Map<ToolId, PackageDirs>();
    const sized = toolsAt(size);
    for (const tool of sized) pkgs.set(tool.id, await preparePackage(env, work, tool, size, `bench-${tool.id}-${size}`));
    packages[size] = generatePackage(size, "x").counts;
    for (let rep = 0; rep < opts.reps; rep++) {
      // Rotate the order so that no tool always runs right after the same other one.
      const order = sized.map((_, i) => sized[(i + rep) % sized.length]!);
      for (const tool of order) await cycle(env, work, tool, size, rep, pkgs.get(tool.id)!, measurements);
    }
    await save(false);
  }
  memory = await measureMemory(env, work, tools, opts.memoryObjects);
  help = await measureHelp(env, opts.helpRuns);
  const report = await save(true);

  process.stdout.write(`\nkpt-ts benchmark: ${environment.cpus}, node ${environment.node}, cluster ${environment.cluster}\n`);
  process.stdout.write(`kpt ${environment.kpt}; ${environment.kubectl}; kapp ${environment.kapp}; kpt-ts ${environment.kptTsCommit}\n`);
  for (const t of tools) process.stdout.write(`  ${t.label}: ${t.notes.join("; ")}\n`);
  process.stdout.write(`\n${formatReport(report, labels)}\n`);
  const wall = (Date.now() - startedAt.getTime()) / 1000;
  process.stdout.write(`\nwall time ${Math.floor(wall / 60)}m${Math.round(wall % 60)}s; results: ${resultsFile.current}\n`);
  if (opts.keep || measurements.some((m) => m.failures.length)) process.stdout.write(`packages and command logs kept in ${work}\n`);
  else await rm(work, { recursive: true, force: true });
}

main().catch((err: Error) => {
  log(`error: ${err.stack ?? err.message}`);
  process.exitCode = 1;
});
