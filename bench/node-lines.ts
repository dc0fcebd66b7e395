// `npx tsx bench/node-lines.ts [--reps 11] [--size 500] [VERSION...]`: the built kpt-ts under each
// Node line (default: this Node, 22.23.3 and 24.21.0; others come from the npm registry through
// scripts/node-line.sh): `node -e 0`, `kpt-ts --help`, and the no-op apply of a 500-object package
// (the benchmark's mixed package, applied once first), each with the launcher's code cache warm.
// Runs alternate between the lines, so whatever else loads the machine loads every line alike.
// Prints a Markdown table of medians (and min-max) for docs/benchmark.md.

import { execFileSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { createNamespace, deleteNamespace, startCluster } from "./cluster.js";
import { runTimed, summarize, type Stats } from "./measure.js";
import { generatePackage, writePackage } from "./package.js";

const repo = resolve(import.meta.dirname, "..");
const { values, positionals } = parseArgs({ allowPositionals: true, options: { reps: { type: "string", default: "11" }, size: { type: "string", default: "500" } } });
const reps = Number(values.reps);
const size = Number(values.size);
const log = (line: string) => process.stderr.write(`[node-lines] ${line}\n`);
const cli = join(repo, "dist", "cli.js");

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
  const kinds = { floor: (n: string) => [n, "-e", "0"], help: (n: string) => [n, cli, "--help"], noop: (n: string) => [n, cli, "live", "apply", dir, "--reconcile-timeout=10m"] };
  const samples = new Map<string, number[]>();
  // One warm-up of each (fills the launcher's code cache and the parse and HTTP caches of this Node).
  for (const l of lines) for (const make of Object.values(kinds)) await must(make(l.node));
  for (let i = 0; i < reps; i++) {
    for (const l of lines) {
      for (const [kind, make] of Object.entries(kinds)) {
        const key = `${l.version} ${kind}`;
        samples.set(key, [...(samples.get(key) ?? []), await must(make(l.node))]);
      }
    }
    log(`round ${i + 1}/${reps}`);
  }
  await must([process.execPath, cli, "live", "destroy", dir]);
  await deleteNamespace(env, namespace);

  const cell = (s: Stats | undefined) => (s ? `${Math.round(s.median * 1000)} ms (${Math.round(s.min * 1000)}-${Math.round(s.max * 1000)})` : "-");
  const stat = (v: string, k: string) => summarize(samples.get(`${v} ${k}`) ?? []);
  const out = [
    `| Node | node -e 0 | kpt-ts --help | ${size}-object no-op apply | no-op minus node -e 0 |`,
    "|---|--:|--:|--:|--:|",
    ...lines.map((l) => {
      const floor = stat(l.version, "floor");
      const noop = stat(l.version, "noop");
      return `| ${l.version} | ${cell(floor)} | ${cell(stat(l.version, "help"))} | ${cell(noop)} | ${floor && noop ? `${Math.round((noop.median - floor.median) * 1000)} ms` : "-"} |`;
    }),
  ];
  process.stdout.write(`${out.join("\n")}\n\n${reps} runs each, medians (min-max), ${new Date().toISOString()}\n`);
}

await main();
