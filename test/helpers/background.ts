// A CLI run that goes on while the test acts on the cluster (plays a controller, holds a
// finalizer, runs a destroy elsewhere) and watches what the run has printed so far.
import { spawn } from "node:child_process";
import { constants } from "node:os";
import { CLI, kubeconfig, REPO, type RunResult } from "./run.js";

export interface BackgroundRun {
  /** What the run printed so far. */
  readonly stdout: string;
  readonly stderr: string;
  /** True until the process has exited. */
  readonly running: boolean;
  /** Resolves when the process exits; elapsedMs is measured from the spawn. */
  readonly done: Promise<RunResult & { elapsedMs: number }>;
  /** Resolves once stdout (or stderr, with `stream`) matches; rejects if the run ends first or after timeoutMs. */
  waitForOutput(pattern: RegExp, opts?: { stream?: "stdout" | "stderr"; timeoutMs?: number }): Promise<RegExpMatchArray>;
  kill(): void;
  /** Ctrl-C: SIGINT, as a terminal sends it. */
  interrupt(): void;
  /** Sends a signal (SIGINT, SIGTERM) to the process. */
  signal(sig: NodeJS.Signals): void;
}

export interface BackgroundOptions {
  cwd?: string;
  killAfterMs?: number;
  /** Extra environment (e.g. KUBECONFIG of another cluster or of a fault proxy). */
  env?: Record<string, string>;
}

export function startKptTs(args: string[], opts: BackgroundOptions = {}): BackgroundRun {
  return startBackground(process.execPath, [CLI, ...args], opts);
}

export function startBackground(cmd: string, args: string[], opts: BackgroundOptions = {}): BackgroundRun {
  const started = Date.now();
  const child = spawn(cmd, args, {
    cwd: opts.cwd ?? REPO,
    env: { ...process.env, KUBECONFIG: kubeconfig(), NO_COLOR: "1", ...opts.env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  let running = true;
  const listeners = new Set<() => void>();
  const notify = () => listeners.forEach((l) => l());
  child.stdout.setEncoding("utf8").on("data", (c: string) => ((stdout += c), notify()));
  child.stderr.setEncoding("utf8").on("data", (c: string) => ((stderr += c), notify()));
  const timer = setTimeout(() => child.kill("SIGKILL"), opts.killAfterMs ?? 280_000);
  const done = new Promise<RunResult & { elapsedMs: number }>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      running = false;
      notify();
      // Killed by a signal: reported as a shell does, 128 + the signal's number (SIGTERM: 143).
      resolve({ code: code ?? (signal ? 128 + (constants.signals[signal] ?? 0) : 1), stdout, stderr, elapsedMs: Date.now() - started });
    });
  });

  return {
    get stdout() {
      return stdout;
    },
    get stderr() {
      return stderr;
    },
    get running() {
      return running;
    },
    done,
    kill: () => child.kill("SIGKILL"),
    interrupt: () => child.kill("SIGINT"),
    signal: (sig) => void child.kill(sig),
    waitForOutput(pattern, o = {}) {
      const read = () => (o.stream === "stderr" ? stderr : stdout);
      return new Promise((resolve, reject) => {
        const check = () => {
          const m = read().match(pattern);
          if (m) return finish(() => resolve(m));
          if (!running) finish(() => reject(new Error(`the run ended without printing ${pattern}:\n${stdout}\n${stderr}`)));
        };
        const t = setTimeout(() => finish(() => reject(new Error(`no ${pattern} after ${o.timeoutMs ?? 120_000}ms:\n${stdout}\n${stderr}`))), o.timeoutMs ?? 120_000);
        const finish = (f: () => void) => {
          clearTimeout(t);
          listeners.delete(check);
          f();
        };
        listeners.add(check);
        check();
      });
    },
  };
}
