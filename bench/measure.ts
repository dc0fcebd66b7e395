// Timing whole commands (spawn to exit, as a user sees them), peak memory, and the statistics over
// repetitions.

import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";

export interface Command {
  argv: string[];
  env?: Record<string, string>;
}

export interface RunResult {
  seconds: number;
  ok: boolean;
  /** The exit code (undefined when killed by a signal or never started). */
  exitCode?: number;
  /** The end of the combined output, for error reports. */
  tail: string;
}

export interface RunOptions {
  env: NodeJS.ProcessEnv;
  /** The whole output is written here. */
  logFile?: string;
  timeoutMs?: number;
  /** Called with the child's pid right after it starts. */
  onStart?: (pid: number) => void;
}

export const formatCommand = (c: Command) =>
  [...Object.entries(c.env ?? {}).map(([k, v]) => `${k}=${v}`), ...c.argv].map((a) => (/[\s"']/.test(a) ? JSON.stringify(a) : a)).join(" ");

/** Runs one command and times it from spawn until it has exited and closed its output. */
export function runTimed(cmd: Command, opts: RunOptions): Promise<RunResult> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const start = performance.now();
    const child = spawn(cmd.argv[0]!, cmd.argv.slice(1), { env: { ...opts.env, ...cmd.env }, stdio: ["ignore", "pipe", "pipe"] });
    if (child.pid !== undefined) opts.onStart?.(child.pid);
    child.stdout.on("data", (c: Buffer) => chunks.push(c));
    child.stderr.on("data", (c: Buffer) => chunks.push(c));
    const timer = opts.timeoutMs ? setTimeout(() => child.kill("SIGKILL"), opts.timeoutMs) : undefined;
    const finish = async (ok: boolean, extra = "", exitCode?: number) => {
      const seconds = (performance.now() - start) / 1000;
      clearTimeout(timer);
      const out = Buffer.concat(chunks).toString("utf8") + extra;
      if (opts.logFile) await writeFile(opts.logFile, `$ ${formatCommand(cmd)}\n${out}`);
      resolve({ seconds, ok, ...(exitCode !== undefined ? { exitCode } : {}), tail: out.slice(-1500) });
    };
    child.on("error", (err) => void finish(false, `\n${err.message}`));
    child.on("close", (code, signal) => void finish(code === 0, signal ? `\nkilled by ${signal}` : code ? `\nexit code ${code}` : "", code ?? undefined));
  });
}

/** Runs the commands one after another; the time is their sum. Stops at the first failure. */
export async function runSteps(steps: Command[], opts: RunOptions & { logPrefix?: string }): Promise<RunResult> {
  let seconds = 0;
  for (const [i, step] of steps.entries()) {
    const logFile = opts.logPrefix ? `${opts.logPrefix}${steps.length > 1 ? `.${i + 1}` : ""}.log` : undefined;
    const r = await runTimed(step, { ...opts, logFile });
    seconds += r.seconds;
    if (!r.ok) return { seconds, ok: false, tail: `${formatCommand(step)}\n${r.tail}` };
  }
  return { seconds, ok: true, tail: "" };
}

export interface PeakMemory {
  seconds: number;
  ok: boolean;
  rssMb: number;
  method: string;
  tail: string;
}

/** Peak RSS of a command: GNU time's %M where installed, else VmHWM sampled from /proc while it runs. */
export async function runWithPeakMemory(cmd: Command, opts: RunOptions): Promise<PeakMemory> {
  if (existsSync("/usr/bin/time")) {
    const out = join(tmpdir(), `kpt-ts-bench-rss-${process.pid}.txt`);
    const r = await runTimed({ ...cmd, argv: ["/usr/bin/time", "-f", "%M", "-o", out, ...cmd.argv] }, opts);
    const kb = Number((await readFile(out, "utf8").catch(() => "")).trim().split("\n").pop());
    await rm(out, { force: true });
    return { ...r, rssMb: kb / 1024, method: "/usr/bin/time %M (max RSS)" };
  }
  let hwmKb = 0;
  let timer: NodeJS.Timeout | undefined;
  const sample = async (pid: number) => {
    const status = await readFile(`/proc/${pid}/status`, "utf8").catch(() => "");
    hwmKb = Math.max(hwmKb, Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0));
  };
  const r = await runTimed(cmd, { ...opts, onStart: (pid) => (timer = setInterval(() => void sample(pid), 20)) });
  clearInterval(timer);
  return { ...r, rssMb: hwmKb / 1024, method: "VmHWM sampled every 20 ms" };
}

export interface CpuResult extends RunResult {
  /** User plus system CPU seconds of the command and its children (GNU time's %U + %S). */
  cpuSeconds: number;
}

/**
 * Wall and CPU time of one command. CPU time moves far less than wall time when other work shares
 * the machine, so it is the figure to compare start-up paths by on a busy machine.
 */
export async function runTimedCpu(cmd: Command, opts: RunOptions): Promise<CpuResult> {
  if (!existsSync("/usr/bin/time")) throw new Error("CPU time needs GNU time (/usr/bin/time; Debian package `time`)");
  const out = join(tmpdir(), `kpt-ts-bench-cpu-${process.pid}.txt`);
  const r = await runTimed({ ...cmd, argv: ["/usr/bin/time", "-f", "%U %S", "-o", out, ...cmd.argv] }, opts);
  const [user, sys] = (await readFile(out, "utf8").catch(() => "")).trim().split("\n").pop()!.split(" ").map(Number);
  await rm(out, { force: true });
  return { ...r, cpuSeconds: (user ?? NaN) + (sys ?? NaN) };
}

export interface Stats {
  median: number;
  min: number;
  max: number;
  n: number;
}

export function summarize(samples: number[]): Stats | undefined {
  if (samples.length === 0) return undefined;
  const s = [...samples].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  const median = s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
  return { median, min: s[0]!, max: s[s.length - 1]!, n: s.length };
}

/**
 * The launcher `kpt-ts` runs in a build (its package.json's bin: dist/cli.cjs since it became a
 * CommonJS script), so the bench starts what a user's `kpt-ts` starts; an older build's dist/cli.js.
 */
export function kptTsBin(repo: string): string {
  try {
    const bin = (JSON.parse(readFileSync(join(repo, "package.json"), "utf8")) as { bin?: Record<string, string> }).bin?.["kpt-ts"];
    if (bin && existsSync(join(repo, bin))) return join(repo, bin);
  } catch {
    /* no package.json: the older name */
  }
  return join(repo, "dist", "cli.js");
}
