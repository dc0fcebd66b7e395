// `npm run bench:ab -- --base REF [--size 500] [--reps 5]`: kpt-ts at REF against the working tree,
// on one cluster, each phase (apply, noop, change, destroy) alternating between the two builds.
// Alternating means whatever else loads the machine loads both sides alike, so a refactor's
// before/after can be told apart from noise even on a busy 2-core machine.

import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, symlinkSync } from "node:fs";
import { copyFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { createNamespace, deleteNamespace, startCluster } from "./cluster.js";
import { kptTsBin, runSteps, runTimed, summarize } from "./measure.js";
import { generatePackage, writePackage } from "./package.js";
import { createTools, PHASES, type PackageDirs, type Phase, type Tool } from "./tools.js";

const repo = resolve(import.meta.dirname, "..");
const { values } = parseArgs({ options: { base: { type: "string" }, size: { type: "string", default: "500" }, reps: { type: "string", default: "5" } } });
if (!values.base) throw new Error("usage: npm run bench:ab -- --base REF [--size 500] [--reps 5]");
const size = Number(values.size);
const reps = Number(values.reps);
const log = (line: string) => process.stderr.write(`${line}\n`);

/** A build of kpt-ts at `ref` in a temporary worktree that shares this checkout's node_modules. */
function buildAt(ref: string): string {
  const dir = mkdtempSync(join(tmpdir(), "kpt-ts-ab-"));
  execFileSync("git", ["worktree", "add", "--detach", dir, ref], { cwd: repo, stdio: "ignore" });
  symlinkSync(join(repo, "node_modules"), join(dir, "node_modules"));
  execFileSync("npm", ["run", "build"], { cwd: dir, stdio: "ignore" });
  return dir;
}

async function preparePackage(env: NodeJS.ProcessEnv, work: string, tool: Tool, side: string): Promise<PackageDirs> {
  const namespace = `ab-${side}-${process.pid}`;
  const dir = join(work, side);
  const pkg = { namespace, base: join(dir, "base"), changed: join(dir, "changed") };
  const { base, changed } = generatePackage(size, namespace);
  await writePackage(pkg.base, base, { kptfile: true });
  await writePackage(pkg.changed, changed, { kptfile: true });
  const r = await runTimed(tool.init!(pkg.base), { env });
  if (!r.ok) throw new Error(`live init failed: ${r.tail}`);
  await copyFile(join(pkg.base, "resourcegroup.yaml"), join(pkg.changed, "resourcegroup.yaml"));
  return pkg;
}

async function main(): Promise<void> {
  const { kubeconfig } = await startCluster(log);
  const env = { ...process.env, KUBECONFIG: kubeconfig };
  const baseDir = buildAt(values.base!);
  const work = mkdtempSync(join(tmpdir(), "kpt-ts-ab-work-"));
  try {
    const ctx = (dir: string) => ({ repo: dir, concurrency: 16, reconcileTimeout: "10m", bareLoop: "" });
    const sides = [
      { name: "base", dir: baseDir, tool: createTools(ctx(baseDir), ["kpt-ts"])[0]! },
      { name: "head", dir: repo, tool: createTools(ctx(repo), ["kpt-ts"])[0]! },
    ];
    const samples = new Map<string, number[]>();
    for (let rep = 0; rep < reps; rep++) {
      // The order rotates, so neither side always runs first.
      const order = rep % 2 === 0 ? sides : [...sides].reverse();
      const pkgs = await Promise.all(order.map((s) => preparePackage(env, join(work, String(rep)), s.tool, s.name)));
      for (const p of pkgs) await createNamespace(env, p.namespace);
      for (const phase of PHASES) {
        for (const [i, s] of order.entries()) {
          const r = await runSteps(s.tool.steps(phase as Phase, pkgs[i]!), { env, timeoutMs: 30 * 60_000 });
          if (!r.ok) throw new Error(`${s.name} ${phase} failed:\n${r.tail}`);
          const key = `${phase} ${s.name}`;
          samples.set(key, [...(samples.get(key) ?? []), r.seconds]);
        }
      }
      for (const p of pkgs) await deleteNamespace(env, p.namespace);
      log(`rep ${rep + 1}/${reps} done`);
    }
    // Start-up: `--help` loads the CLI and nothing else.
    for (let i = 0; i < 10 * reps; i++) {
      for (const s of i % 2 === 0 ? sides : [...sides].reverse()) {
        const r = await runTimed({ argv: ["node", kptTsBin(s.dir), "--help"] }, { env });
        if (!r.ok) throw new Error(`${s.name} --help failed:\n${r.tail}`);
        samples.set(`--help ${s.name}`, [...(samples.get(`--help ${s.name}`) ?? []), r.seconds]);
      }
    }
    const head = execFileSync("git", ["rev-parse", "--short", "HEAD"], { cwd: repo }).toString().trim();
    const base = execFileSync("git", ["rev-parse", "--short", values.base!], { cwd: repo }).toString().trim();
    process.stdout.write(`kpt-ts ${base} (base) vs ${head} (working tree), ${size} objects, median of ${reps} (min-max), seconds\n\n`);
    process.stdout.write(`| phase | base ${base} | head ${head} | head / base |\n|---|---:|---:|---:|\n`);
    for (const phase of [...PHASES, "--help"]) {
      const b = summarize(samples.get(`${phase} base`) ?? [])!;
      const h = summarize(samples.get(`${phase} head`) ?? [])!;
      const cell = (s: typeof b) => `${s.median.toFixed(2)} (${s.min.toFixed(2)}-${s.max.toFixed(2)})`;
      process.stdout.write(`| ${phase} | ${cell(b)} | ${cell(h)} | ${(h.median / b.median).toFixed(2)} |\n`);
    }
  } finally {
    await rm(work, { recursive: true, force: true });
    execFileSync("git", ["worktree", "remove", "--force", baseDir], { cwd: repo, stdio: "ignore" });
    if (existsSync(baseDir)) await rm(baseDir, { recursive: true, force: true });
  }
}

await main();
