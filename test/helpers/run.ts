// Runs the built CLI, the real peers and kubectl against the test cluster.
import { spawn, spawnSync } from "node:child_process";
import { readFileSync, statSync } from "node:fs";
import { request } from "node:https";
import { constants } from "node:os";
import { resolve } from "node:path";
import { inject } from "vitest";
import { parse } from "yaml";

export const REPO = resolve(import.meta.dirname, "../..");
export const CLI = resolve(REPO, "dist/cli.cjs");

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

export function kubeconfig(): string {
  return inject("kubeconfig");
}

export function run(cmd: string, args: string[], opts: { cwd?: string; input?: string | Buffer; env?: Record<string, string>; timeoutMs?: number } = {}): Promise<RunResult> {
  return new Promise((resolveRun, reject) => {
    const child = spawn(cmd, args, {
      cwd: opts.cwd ?? REPO,
      // Not GitHub's variables of a CI run of these tests: a test that wants them sets them.
      env: { ...process.env, KUBECONFIG: kubeconfig(), NO_COLOR: "1", GITHUB_ACTIONS: "", GITHUB_STEP_SUMMARY: "", ...opts.env },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (c: string) => (stdout += c));
    child.stderr.setEncoding("utf8").on("data", (c: string) => (stderr += c));
    const timer = setTimeout(() => child.kill("SIGKILL"), opts.timeoutMs ?? 240_000);
    child.on("error", reject);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      // Killed by a signal: reported as a shell does, 128 + the signal's number (SIGTERM: 143).
      resolveRun({ code: code ?? (signal ? 128 + (constants.signals[signal] ?? 0) : 1), stdout, stderr });
    });
    // A command that exits without reading its input closes the pipe (EPIPE): its exit code says the rest.
    child.stdin.on("error", () => undefined);
    child.stdin.end(opts.input ?? "");
  });
}

export const kptTs = (args: string[], opts: Parameters<typeof run>[2] = {}) => run(process.execPath, [CLI, ...args], opts);
export const kpt = (args: string[], opts: Parameters<typeof run>[2] = {}) => run("kpt", args, opts);
export const kubectl = (args: string[], opts: Parameters<typeof run>[2] = {}) => run("kubectl", args, opts);

export async function kubectlJson<T = any>(args: string[]): Promise<T> {
  const r = await kubectl([...args, "-o", "json"]);
  if (r.code !== 0) throw new Error(`kubectl ${args.join(" ")} failed: ${r.stderr}`);
  return JSON.parse(r.stdout) as T;
}

/** True when a binary is on PATH; tests of the real peers skip with a message when it is not. */
export function hasBinary(name: string): boolean {
  return spawnSync("sh", ["-c", `command -v ${name}`]).status === 0;
}

/**
 * A fresh namespace per test, so tests can share the one cluster. One request from this process,
 * not a kubectl: the suite makes hundreds, and each kubectl start costs a fifth of a CPU second.
 */
export async function createNamespace(prefix: string): Promise<string> {
  const name = `${prefix}-${Math.random().toString(36).slice(2, 8)}`;
  const r = await adminRequest("POST", "/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name } });
  if (r.status !== 201) throw new Error(`creating namespace ${name}: HTTP ${r.status} ${r.body}`);
  return name;
}

export interface ClusterAccess {
  server: string;
  /** Base64 PEM, as kubeconfig holds them. */
  caData: string;
  certData: string;
  keyData: string;
}

let access: { path: string; mtimeMs: number; value: ClusterAccess } | undefined;

/** The test cluster's server, CA and admin client certificate, from its kubeconfig (read again only when the file changes). */
export function clusterAccess(): ClusterAccess {
  const path = kubeconfig();
  const { mtimeMs } = statSync(path);
  if (access?.path !== path || access.mtimeMs !== mtimeMs) {
    const kc = parse(readFileSync(path, "utf8")) as { clusters: { cluster: Record<string, string> }[]; users: { user: Record<string, string> }[] };
    const cluster = kc.clusters[0]!.cluster;
    const user = kc.users[0]!.user;
    const value = { server: cluster.server!, caData: cluster["certificate-authority-data"]!, certData: user["client-certificate-data"]!, keyData: user["client-key-data"]! };
    access = { path, mtimeMs, value };
  }
  return access.value;
}

/** One request to the test cluster as its admin. */
export function adminRequest(method: string, path: string, body?: unknown): Promise<{ status: number; body: string }> {
  const { server, caData, certData, keyData } = clusterAccess();
  const pem = (b64: string) => Buffer.from(b64, "base64");
  const data = body === undefined ? "" : JSON.stringify(body);
  return new Promise((done, fail) => {
    const req = request(new URL(path, server), {
      method,
      ca: pem(caData),
      cert: pem(certData),
      key: pem(keyData),
      headers: { "content-type": "application/json", "content-length": Buffer.byteLength(data) },
      timeout: 60_000,
    }, (res) => {
      let text = "";
      res.setEncoding("utf8").on("data", (c: string) => (text += c)).on("end", () => done({ status: res.statusCode ?? 0, body: text }));
    });
    req.on("timeout", () => req.destroy(new Error(`${method} ${path}: no answer in 60 s`)));
    req.on("error", fail);
    req.end(data);
  });
}

export async function waitUntil<T>(what: string, probe: () => Promise<T | undefined | false>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe().catch(() => undefined);
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}
