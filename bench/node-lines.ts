// `npx tsx bench/node-lines.ts [--reps 11] [--size 500] [VERSION...]`: the built kpt-ts under each
// Node line (default: this Node, 22.23.3 and 24.21.0; others come from the npm registry through
// scripts/node-line.sh): `node -e 0`, `kpt-ts --help`, and the no-op apply of a 500-object package
// (the benchmark's mixed package, applied once first), each started three ways:
//   launcher       the bin (dist/cli.cjs), as installed: the bundle through vm.Script with V8's code cache (warm)
//   no cache       node dist/cli-program.cjs: the bundle compiled afresh each run
//   compile cache  NODE_COMPILE_CACHE=DIR node dist/cli-program.cjs: Node's own cache (22.1 and later; warm)
// Runs alternate between lines and ways, so whatever else loads the machine loads all alike.
// Prints a Markdown table of medians (and min-max) of wall time, and medians of CPU time (user +
// system, which a busy machine disturbs far less), for docs/benchmark.md.

import { execFileSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { createNamespace, deleteNamespace, startCluster } from "./cluster.js";
import { kptTsBin, runTimed, runTimedCpu, summarize, type Stats } from "./measure.js";
import { generatePackage, writePackage } from "./package.js";

const repo = resolve(import.meta.dirname, "..");
const { values, positionals } = parseArgs({ allowPositionals: true, options: { reps: { type: "string", default: "11" }, size: { type: "string", default: "500" } } });
const reps = Number(values.reps);
const size = Number(values.size);
const log = (line: string) => process.stderr.write(`[node-lines] ${line}\n`);
const cli = kptTsBin(repo);

const lines = (positionals.length ? positionals : [process.versions.node, "22.23.3", "24.21.0"]).map((v) => ({
  version: v,
  node: v === process.versions.node ? process.execPath : join(execFileSync("bash", [join(repo, "scripts", "node-line.sh"), v], { encoding: "utf8" }).trim(), "node"),
}));

async function main(): Promise<void> {
  const cluster = await startCluster(log);
  const work = mkdtempSync(join(tmpdir(), "kpt-ts-node-lines-"));
  const namespace = `bench-node-lines-${process.pid}`;
  const cacheRoot = mkdtempSync(join(tmpdir(), "kpt-ts-node-lines-cache-"));
  const env = { ...process.env, KUBECONFIG: cluster.kubeconfig, XDG_CACHE_HOME: cacheRoot };
  await createNamespace(env, namespace);
  const dir = join(work, "pkg");
  await writePackage(dir, generatePackage(size, namespace).base, { kptfile: true });
  const must = async (argv: string[]) => {
    const r = await runTimed({ argv }, { env, timeoutMs: 600_000 });
    if (!r.ok) throw new Error(`${argv.join(" ")} failed:\n${r.tail}`);
    return r.seconds;
  };
  await must([process.execPath, cli, "live", "init", dir, "--quiet"]);
  log(`applying ${size} objects once`);
  await must([process.execPath, cli, "live", "apply", dir, "--reconcile-timeout=10m"]);
  const program = join(repo, "dist", "cli-program.cjs");
  const args = { help: ["--help"], noop: ["live", "apply", dir, "--reconcile-timeout=10m"] };
  const compileCache = join(cacheRoot, "node-compile-cache");
  const ways = {
    launcher: (n: string, a: string[]) => ({ argv: [n, cli, ...a] }),
    "no cache": (n: string, a: string[]) => ({ argv: [n, program, ...a] }),
    "compile cache": (n: string, a: string[]) => ({ argv: [n, program, ...a], env: { NODE_COMPILE_CACHE: compileCache } }),
  };
  type Run = { key: string; argv: string[]; env?: Record<string, string> };
  const runs: Run[] = lines.flatMap((l) => [
    { key: `${l.version} floor`, argv: [l.node, "-e", "0"] },
    ...Object.entries(ways).flatMap(([way, make]) =>
      way === "compile cache" && Number(l.version.split(".")[0]) < 22 ? [] : Object.entries(args).map(([kind, a]) => ({ key: `${l.version} ${way} ${kind}`, ...make(l.node, a) })),
    ),
  ]);
  const time = async (r: Run) => {
    const t = await runTimedCpu({ argv: r.argv, ...(r.env ? { env: r.env } : {}) }, { env, timeoutMs: 600_000 });
    if (!t.ok) throw new Error(`${r.argv.join(" ")} failed:\n${t.tail}`);
    return t;
  };
  const samples = new Map<string, number[]>();
  const cpu = new Map<string, number[]>();
  // One warm-up of each (fills the code caches and the parse and HTTP caches of this Node).
  for (const r of runs) await time(r);
  for (let i = 0; i < reps; i++) {
    for (const r of runs) {
      const t = await time(r);
      samples.set(r.key, [...(samples.get(r.key) ?? []), t.seconds]);
      cpu.set(r.key, [...(cpu.get(r.key) ?? []), t.cpuSeconds]);
    }
    log(`round ${i + 1}/${reps}`);
  }
  await must([process.execPath, cli, "live", "destroy", dir]);
  await deleteNamespace(env, namespace);

  const cell = (s: Stats | undefined) => (s ? `${Math.round(s.median * 1000)} ms (${Math.round(s.min * 1000)}-${Math.round(s.max * 1000)})` : "-");
  const stat = (key: string) => summarize(samples.get(key) ?? []);
  const cpuCell = (key: string) => {
    const s = summarize(cpu.get(key) ?? []);
    return s ? `${Math.round(s.median * 1000)} ms` : "-";
  };
  const out = [
    `| Node | node -e 0 | started as | --help | ${size}-object no-op apply | --help CPU | no-op CPU |`,
    "|---|--:|---|--:|--:|--:|--:|",
    ...lines.flatMap((l) =>
      Object.keys(ways)
        .filter((way) => samples.has(`${l.version} ${way} help`))
        .map((way, i) => `| ${i ? "" : l.version} | ${i ? "" : cell(stat(`${l.version} floor`))} | ${way} | ${cell(stat(`${l.version} ${way} help`))} | ${cell(stat(`${l.version} ${way} noop`))} | ${cpuCell(`${l.version} ${way} help`)} | ${cpuCell(`${l.version} ${way} noop`)} |`),
    ),
  ];
  process.stdout.write(`${out.join("\n")}\n\n${reps} runs each, medians (min-max), ${new Date().toISOString()}\n`);
}

await main();
