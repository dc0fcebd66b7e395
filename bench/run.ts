// `npm run bench [-- --quick | --reps N --sizes 100,500 --tools kpt-ts,kpt --rtt 0,20ms --scale 1000,10000 ...]`
// Starts (or reuses) the local cluster, then times kpt-ts against kpt, kubectl's applyset, kapp and a
// bare server-side apply loop on the same cluster, each tool in its own namespace, then kpt-ts beside
// kpt on the real bundles of fixtures/field/ (bench/bundles.ts; `--bundles-only` runs just those),
// and prints and writes the results (bench/results/<timestamp>.json).

import { execFile } from "node:child_process";
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { cpus, release, tmpdir, totalmem } from "node:os";
import { join, resolve } from "node:path";
import { promisify, parseArgs } from "node:util";
import { createNamespace, deleteLeftoverNamespaces, deleteNamespace, kubectl, startCluster } from "./cluster.js";
import { ensureKapp } from "./kapp.js";
import { kptTsBin, runSteps, runTimed, runWithPeakMemory, summarize, type Command } from "./measure.js";
import { generateConfigMaps, generatePackage, writePackage } from "./package.js";
import { buildReport, formatReport, writeJson, type Measurement, type MemoryResult, type Report, type ScaleResult } from "./report.js";
import { drawChart } from "./chart.js";
import { parseRtt, proxiedKubeconfig, startDelayProxy } from "./delay-proxy.js";
import { buildBareLoop, createTools, PHASES, type PackageDirs, type Tool, type ToolId } from "./tools.js";
import { BUNDLE_PHASES, BUNDLES, createBundleTools, formatBundleReport, runBundleSuite, type BundleMeasurement, type BundlePhase, type BundleSpec, type BundleToolId } from "./bundles.js";

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
  --rtt A,B,...           round-trip times to run everything at: 0 is loopback, 20ms puts a TCP
                          delay proxy (10 ms each way, TLS passed through) between every tool
                          and the API server (default 0)
  --distant-tools a,b     the tools run at the RTTs above 0 (default: all selected)
  --scale A,B             also time kpt-ts on ConfigMap-only packages of A and B objects (apply,
                          no-op, prune, destroy; the peak RSS of each), on loopback
  --scale-inventory K,... the inventory kinds of the scale packages: resourcegroup, applyset
                          (default resourcegroup)
  --scale-prune N         objects the scale's prune phase drops from the package (default 1000,
                          at most a tenth of it)
  --scale-only            only the scale check (no tool table, memory run or --help timing; no
                          other namespace is touched, docs/benchmark.svg is left as it is): for a
                          large --scale on a cluster other work shares
  --bundles a,b,...       the field bundles to run (fixtures/field/: argocd, prometheus-operator,
                          metrics-server, argo-rollouts; default all; "none" skips them): every
                          phase (apply, noop, status, diff, change, destroy), wall and CPU time
  --bundles-only          only the field bundles (no ConfigMap packages, memory or --help runs)
  --bundle-tools a,b,...  kpt-ts,kpt-ts-ssa,kpt-ssa,kpt (default all four; kpt-ssa is kpt
                          --server-side, with which kpt applies the CRDs too large for its
                          client-side apply)
  --bundle-phases a,b,... only these phases of the bundles are timed (apply,noop,status,diff,change,
                          destroy; default all): the apply still runs before the others and the
                          destroy after them, untimed, e.g. "destroy" alone on a busy machine
  --bundle-base DIR       also run another build of kpt-ts (DIR's bin, dist/cli.cjs or dist/cli.js) on the bundles, as
                          "kpt-ts (base)": a before/after in the same minutes
  --kubeconfig FILE       time on this already running cluster (its current context) instead of
                          starting or reusing the local one
  --keep                  keep the generated packages and logs

The SVG chart (time per phase against size, one line per tool and RTT) is written next to the
JSON, and to docs/benchmark.svg when the run completes.`;

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
      rtt: { type: "string", default: "0" },
      "distant-tools": { type: "string" },
      scale: { type: "string" },
      "scale-inventory": { type: "string", default: "resourcegroup" },
      "scale-prune": { type: "string", default: "1000" },
      "scale-only": { type: "boolean", default: false },
      keep: { type: "boolean", default: false },
      kubeconfig: { type: "string" },
      bundles: { type: "string" },
      "bundles-only": { type: "boolean", default: false },
      "bundle-tools": { type: "string" },
      "bundle-base": { type: "string" },
      "bundle-phases": { type: "string" },
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
    rtts: values.rtt.split(",").map(parseRtt),
    distantTools: values["distant-tools"]?.split(",") as ToolId[] | undefined,
    scale: (values.scale ?? "").split(",").filter(Boolean).map(Number),
    scaleInventories: values["scale-inventory"]!.split(",").map((k) => {
      if (k !== "resourcegroup" && k !== "applyset") throw new Error(`--scale-inventory: resourcegroup or applyset, not "${k}"`);
      return k;
    }),
    scalePrune: Number(values["scale-prune"]),
    scaleOnly: values["scale-only"]!,
    keep: values.keep,
    kubeconfig: values.kubeconfig ? resolve(values.kubeconfig) : undefined,
    bundles: bundlesNamed(values.bundles),
    bundlesOnly: values["bundles-only"],
    bundleTools: values["bundle-tools"]?.split(",") as BundleToolId[] | undefined,
    bundlePhases: bundlePhasesNamed(values["bundle-phases"]),
    bundleBase: values["bundle-base"] ? kptTsBin(resolve(values["bundle-base"])) : undefined,
  };
}

function bundlePhasesNamed(list: string | undefined): BundlePhase[] | undefined {
  if (!list) return undefined;
  const names = list.split(",");
  for (const n of names) if (!(BUNDLE_PHASES as string[]).includes(n)) throw new Error(`--bundle-phases: no phase "${n}" (${BUNDLE_PHASES.join(", ")})`);
  return names as BundlePhase[];
}

function bundlesNamed(list: string | undefined): BundleSpec[] {
  if (list === "none") return [];
  if (!list) return BUNDLES;
  return list.split(",").map((name) => {
    const b = BUNDLES.find((x) => x.name === name);
    if (!b) throw new Error(`--bundles: no bundle "${name}" (${BUNDLES.map((x) => x.name).join(", ")})`);
    return b;
  });
}

/** A cluster the bench is given: used as it is, never started or stopped. */
async function givenCluster(kubeconfig: string): Promise<{ kubeconfig: string; server: string; reused: boolean }> {
  const server = (await kubectl({ ...process.env, KUBECONFIG: kubeconfig }, ["config", "view", "--minify", "-o", "jsonpath={.clusters[0].cluster.server}"])).trim();
  return { kubeconfig, server, reused: true };
}

const version = (cmd: string, args: string[]) => exec(cmd, args).then((r) => r.stdout.trim().split("\n")[0] ?? "", () => "unavailable");

/** Writes the tool's base and changed package for one size; kpt-style tools also get their inventory. */
async function preparePackage(env: NodeJS.ProcessEnv, work: string, tool: Tool, size: number, namespace: string, tag = ""): Promise<PackageDirs> {
  const dir = join(work, "packages", `${size}${tag}`, tool.id);
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
async function cycle(env: NodeJS.ProcessEnv, toolEnv: NodeJS.ProcessEnv, rtt: number, work: string, tool: Tool, size: number, rep: number, pkg: PackageDirs, out: Measurement[]): Promise<void> {
  await createNamespace(env, pkg.namespace);
  const times: string[] = [];
  try {
    let applied = true;
    for (const phase of PHASES) {
      // Without a first apply, the no-op and change runs would measure something else; destroy still cleans up.
      if (!applied && (phase === "noop" || phase === "change")) continue;
      const m = out.find((x) => x.rtt === rtt && x.size === size && x.phase === phase && x.tool === tool.id)!;
      const r = await runSteps(tool.steps(phase, pkg), { env: toolEnv, timeoutMs: 45 * 60_000, logPrefix: join(work, "logs", `${rtt}ms-${size}-${tool.id}-${rep + 1}-${phase}`) });
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
    log(`${rtt ? `${rtt} ms RTT, ` : ""}${size} objects, rep ${rep + 1}: ${tool.label.padEnd(20)} ${times.join(", ")}`);
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

/**
 * kpt-ts on ConfigMap-only packages (issues 17 and 33): apply, no-op, prune (the package less
 * `pruneCount` objects, at most a tenth) and destroy at each size, each with its peak RSS, with a
 * ResourceGroup or an ApplySet inventory.
 */
async function measureScale(env: NodeJS.ProcessEnv, work: string, tools: Tool[], sizes: number[], reps: number, out: ScaleResult[], inventory: ScaleResult["inventory"], pruneCount: number): Promise<void> {
  const tool = tools.find((t) => t.id === "kpt-ts");
  if (!tool) return;
  for (const objects of sizes) {
    const namespace = `bench-scale-${inventory === "applyset" ? "as" : "rg"}-${objects}`;
    const dir = join(work, "packages", `scale-${inventory}-${objects}`);
    const dropped = Math.min(pruneCount, Math.floor(objects / 10));
    const all = generateConfigMaps(objects, namespace);
    const pkg: PackageDirs = { namespace, base: join(dir, "base"), changed: join(dir, "pruned") };
    await writePackage(pkg.base, all, { kptfile: true });
    await writePackage(pkg.changed, all.slice(0, objects - dropped), { kptfile: true });
    const init = await runTimed(inventory === "applyset" ? { argv: [...tool.init!(pkg.base).argv, "--inventory-kind", "applyset", "--name", "bench", "-n", namespace] } : tool.init!(pkg.base), { env });
    if (!init.ok) throw new Error(`kpt-ts live init failed: ${init.tail}`);
    const file = inventory === "applyset" ? "applyset.yaml" : "resourcegroup.yaml";
    await copyFile(join(pkg.base, file), join(pkg.changed, file));
    const entry = (phase: ScaleResult["phase"]) => {
      let e = out.find((x) => x.objects === objects && x.phase === phase && x.inventory === inventory);
      if (!e) out.push((e = { objects, inventory, phase, samples: [], rssMb: [], failures: [], ...(phase === "prune" ? { pruned: dropped } : {}) }));
      return e;
    };
    for (let rep = 0; rep < reps; rep++) {
      await createNamespace(env, namespace);
      try {
        const times: string[] = [];
        const phases: [ScaleResult["phase"], Command][] = [
          ["apply", tool.steps("apply", pkg)[0]!],
          ["noop", tool.steps("noop", pkg)[0]!],
          ["prune", tool.steps("change", pkg)[0]!],
          ["destroy", tool.steps("destroy", pkg)[0]!],
        ];
        for (const [phase, cmd] of phases) {
          const r = await runWithPeakMemory(cmd, { env, timeoutMs: 90 * 60_000 });
          if (r.ok) {
            entry(phase).samples.push(r.seconds);
            entry(phase).rssMb.push(r.rssMb);
          } else entry(phase).failures.push({ seconds: r.seconds, output: r.tail });
          times.push(`${phase} ${r.ok ? `${r.seconds.toFixed(2)}s (${r.rssMb.toFixed(0)} MB)` : `FAILED\n${r.tail.slice(-600)}`}`);
          if (!r.ok) break;
        }
        log(`scale: ${objects} ConfigMaps (${inventory}), rep ${rep + 1}: ${times.join(", ")}`);
      } finally {
        await deleteNamespace(env, namespace);
      }
    }
  }
}

async function measureHelp(env: NodeJS.ProcessEnv, runs: number): Promise<Report["help"]> {
  const time = async (cmd: Command) => {
    const samples: number[] = [];
    for (let i = 0; i < runs; i++) samples.push((await runTimed(cmd, { env })).seconds);
    return summarize(samples)!;
  };
  const nodeFloor = await time({ argv: ["node", "-e", "0"] });
  const kptTs = await time({ argv: ["node", kptTsBin(REPO), "--help"] });
  return { kptTs, nodeFloor, runs };
}

async function main(): Promise<void> {
  const opts = options();
  const startedAt = new Date();
  const cluster = opts.kubeconfig ? await givenCluster(opts.kubeconfig) : await startCluster(log);
  const env = { ...process.env, KUBECONFIG: cluster.kubeconfig };
  // On a cluster the bench was given, others' runs may be under way: their namespaces stay.
  const leftovers = opts.kubeconfig || opts.scaleOnly ? [] : await deleteLeftoverNamespaces(env);
  if (leftovers.length) log(`deleted leftover namespaces: ${leftovers.join(", ")}`);
  if (opts.scaleOnly) Object.assign(opts, { sizes: [], memoryObjects: 0, tools: ["kpt-ts"] });
  await kubectl(env, ["get", "crd", "resourcegroups.kpt.dev"]).catch(() => exec("kpt", ["live", "install-resource-group"], { env }));

  const kapp = opts.bundlesOnly || (opts.tools && !opts.tools.includes("kapp")) ? undefined : await ensureKapp(log);
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
  const toolsAt = (size: number, rtt: number) => tools.filter((t) => size <= (opts.maxSize[t.id] ?? Infinity) && (rtt === 0 || !opts.distantTools || opts.distantTools.includes(t.id)));
  const sizes = opts.bundlesOnly ? [] : opts.sizes;
  const measurements: Measurement[] = opts.rtts.flatMap((rtt) => sizes.flatMap((size) => PHASES.flatMap((phase) => toolsAt(size, rtt).map((t) => ({ rtt, size, phase, tool: t.id, samples: [], failures: [] })))));
  const scale: ScaleResult[] = [];
  let bundles: BundleMeasurement[] = [];
  const bundleTools = createBundleTools({ repo: REPO, reconcileTimeout: opts.reconcileTimeout, ...(opts.bundleBase ? { baseCli: opts.bundleBase } : {}) }, opts.bundleTools);
  const packages: Record<number, ReturnType<typeof generatePackage>["counts"]> = {};
  let memory: MemoryResult[] = [];
  let help: Report["help"];
  const labels = new Map(tools.map((t) => [t.id, t.label]));
  const resultsFile = { current: "" };
  const save = async (done: boolean) => {
    const report = buildReport(measurements, memory, help, scale);
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
      bundles,
      bundleTools: bundleTools.map((t) => ({ id: t.id, label: t.label, note: t.note })),
    };
    if (resultsFile.current) await Promise.all([rm(resultsFile.current, { force: true }), rm(resultsFile.current.replace(/\.json$/, ".svg"), { force: true })]);
    resultsFile.current = await writeJson(join(BENCH, "results"), data);
    // A scale-only run has no tool table to chart: no chart then (it would say "no measurements").
    if (measurements.length) {
      const svg = drawChart(measurements, labels, `kpt-ts benchmark ${startedAt.toISOString().slice(0, 10)}: median seconds per phase against package size (log-log)`);
      await writeFile(resultsFile.current.replace(/\.json$/, ".svg"), svg);
      if (done && !opts.scaleOnly) await writeFile(join(REPO, "docs", "benchmark.svg"), svg);
    }
    return report;
  };

  const server = new URL(cluster.server);
  for (const rtt of opts.rtts) {
    // Distance: every tool talks to the API server through the delay proxy; setup and cleanup do not.
    const proxy = rtt > 0 ? await startDelayProxy({ host: server.hostname, port: Number(server.port || 443) }, rtt) : undefined;
    const toolEnv = { ...env };
    if (proxy) {
      const kubeconfig = join(work, `kubeconfig-${rtt}ms`);
      await writeFile(kubeconfig, proxiedKubeconfig(await readFile(cluster.kubeconfig, "utf8"), proxy.port));
      toolEnv.KUBECONFIG = kubeconfig;
      log(`${rtt} ms round trip: tools reach the API server through 127.0.0.1:${proxy.port}`);
    }
    try {
      for (const size of sizes) {
        const pkgs = new Map<ToolId, PackageDirs>();
        const sized = toolsAt(size, rtt);
        for (const tool of sized) pkgs.set(tool.id, await preparePackage(env, work, tool, size, `bench-${tool.id}-${size}`, `-${rtt}ms`));
        packages[size] = generatePackage(size, "x").counts;
        for (let rep = 0; rep < opts.reps; rep++) {
          // Rotate the order so that no tool always runs right after the same other one.
          const order = sized.map((_, i) => sized[(i + rep) % sized.length]!);
          for (const tool of order) await cycle(env, toolEnv, rtt, work, tool, size, rep, pkgs.get(tool.id)!, measurements);
        }
        await save(false);
      }
    } finally {
      await proxy?.close();
    }
  }
  if (opts.scale.length && !opts.bundlesOnly) {
    for (const inventory of opts.scaleInventories) await measureScale(env, work, tools, opts.scale, opts.reps, scale, inventory, opts.scalePrune);
    await save(false);
  }
  if (opts.bundles.length && !opts.scaleOnly) {
    log(`field bundles: ${opts.bundles.map((b) => b.name).join(", ")}; ${bundleTools.map((t) => t.label).join(", ")}; ${opts.reps} repetition(s)`);
    bundles = await runBundleSuite({
      env,
      work,
      repo: REPO,
      tools: bundleTools,
      bundles: opts.bundles,
      reps: opts.reps,
      ...(opts.bundlePhases ? { phases: opts.bundlePhases } : {}),
      log,
      onProgress: async (ms) => {
        bundles = ms;
        await save(false);
      },
    });
  }
  if (!opts.bundlesOnly) {
    memory = await measureMemory(env, work, tools, opts.memoryObjects);
    if (!opts.scaleOnly) help = await measureHelp(env, opts.helpRuns);
  }
  const report = await save(true);

  process.stdout.write(`\nkpt-ts benchmark: ${environment.cpus}, node ${environment.node}, cluster ${environment.cluster}\n`);
  process.stdout.write(`kpt ${environment.kpt}; ${environment.kubectl}; kapp ${environment.kapp}; kpt-ts ${environment.kptTsCommit}\n`);
  if (measurements.length) {
    for (const t of tools) process.stdout.write(`  ${t.label}: ${t.notes.join("; ")}\n`);
    process.stdout.write(`\n${formatReport(report, labels)}\n`);
  }
  if (bundles.length) {
    for (const t of bundleTools) process.stdout.write(`  ${t.note}\n`);
    process.stdout.write(`${formatBundleReport(bundles, new Map(bundleTools.map((t) => [t.id, t.label])))}\n`);
  }
  const wall = (Date.now() - startedAt.getTime()) / 1000;
  process.stdout.write(`\nwall time ${Math.floor(wall / 60)}m${Math.round(wall % 60)}s; results: ${resultsFile.current}\n`);
  if (opts.keep || measurements.some((m) => m.failures.length) || bundles.some((m) => m.failures.length)) process.stdout.write(`packages and command logs kept in ${work}\n`);
  else await rm(work, { recursive: true, force: true });
}

main().catch((err: Error) => {
  log(`error: ${err.stack ?? err.message}`);
  process.exitCode = 1;
});
