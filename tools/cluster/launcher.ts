// Starts and stops a real control plane on 127.0.0.1: etcd, kube-apiserver, kube-controller-manager,
// kube-scheduler and KWOK (fake kubelets), each a detached process group whose pid is recorded
// before anything else happens, so `down` can always clean up what `up` started.

import { spawn } from "node:child_process";
import { closeSync, existsSync, openSync } from "node:fs";
import { mkdir, readFile, readdir, rename, rm, writeFile } from "node:fs/promises";
import { request } from "node:https";
import { join, resolve } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { DEFAULT_K8S_VERSION, ensureBinaries, VERSIONS, type Binaries } from "./binaries.js";
import { createPki } from "./pki.js";
import { isPortFree, releasePorts, reservePorts } from "./ports.js";

const REPO = resolve(import.meta.dirname, "../..");

/**
 * A cluster's name (KPT_TS_CLUSTER_NAME): its state directory's suffix and its kubeconfig's one
 * context, so it must be a DNS label (it never looks like a version: those hold dots).
 */
export function checkClusterName(name: string): string {
  if (!/^[a-z0-9]([a-z0-9-]{0,38}[a-z0-9])?$/.test(name)) {
    throw new Error(`KPT_TS_CLUSTER_NAME=${JSON.stringify(name)} is not a valid cluster name: use lower-case letters, digits and '-' (at most 40, starting and ending with a letter or digit), e.g. prod-eu`);
  }
  return name;
}

/** The name from KPT_TS_CLUSTER_NAME, checked; undefined for the default cluster. */
export function clusterNameFromEnv(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const name = env.KPT_TS_CLUSTER_NAME;
  return name ? checkClusterName(name) : undefined;
}

/**
 * `.cluster` for the default Kubernetes, `.cluster-v1.34.4` for K8S_VERSION=v1.34.4: each version
 * its own cluster. A named cluster (KPT_TS_CLUSTER_NAME=prod-eu) lives in `.cluster-prod-eu`,
 * whatever its version.
 */
export function stateDirFor(name: string | undefined, version: string = VERSIONS.kubernetes): string {
  if (name) return resolve(REPO, `.cluster-${checkClusterName(name)}`);
  return resolve(REPO, version === DEFAULT_K8S_VERSION ? ".cluster" : `.cluster-${version}`);
}

/** The state directory `npm run cluster:up` uses: KPT_TS_CLUSTER_NAME's, else K8S_VERSION's. */
export function defaultStateDir(): string {
  return stateDirFor(clusterNameFromEnv());
}

/** The kubeconfig's cluster, user and context entries of the default cluster. */
const DEFAULT_CONTEXT = "kpt-ts-local";
const NODE_COUNT = 3;

interface Proc {
  name: string;
  pid: number;
}

export interface ClusterState {
  dir: string;
  /** The kubeconfig's one context (KPT_TS_CLUSTER_NAME, or kpt-ts-local). */
  context?: string;
  /** The Kubernetes version it runs. */
  kubernetes?: string;
  kubeconfig: string;
  server: string;
  ports: Record<string, number>;
  procs: Proc[];
}

export interface UpResult {
  state: ClusterState;
  /** False when an already running cluster was reused. */
  started: boolean;
}

type Log = (line: string) => void;

const statePath = (dir: string) => join(dir, "state.json");

async function readState(dir: string): Promise<ClusterState | undefined> {
  try {
    return JSON.parse(await readFile(statePath(dir), "utf8")) as ClusterState;
  } catch {
    return undefined;
  }
}

/** True while the process exists. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function httpsGet(state: Pick<ClusterState, "dir" | "server">, path: string, timeoutMs = 3000): Promise<{ status: number; body: string }> {
  const [ca, cert, key] = await Promise.all(["ca.crt", "admin.crt", "admin.key"].map((f) => readFile(join(state.dir, "pki", f))));
  return new Promise((resolveReq, reject) => {
    const req = request(`${state.server}${path}`, { ca, cert, key, timeout: timeoutMs }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => (body += c));
      res.on("end", () => resolveReq({ status: res.statusCode ?? 0, body }));
    });
    req.on("timeout", () => req.destroy(new Error("timeout")));
    req.on("error", reject);
    req.end();
  });
}

async function apiJson(state: ClusterState, method: string, path: string, body?: unknown): Promise<{ status: number; json: any }> {
  const [ca, cert, key] = await Promise.all(["ca.crt", "admin.crt", "admin.key"].map((f) => readFile(join(state.dir, "pki", f))));
  const data = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolveReq, reject) => {
    const req = request(
      `${state.server}${path}`,
      { method, ca, cert, key, timeout: 10_000, headers: data ? { "content-type": "application/json" } : {} },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (c: string) => (text += c));
        res.on("end", () => resolveReq({ status: res.statusCode ?? 0, json: text ? JSON.parse(text) : undefined }));
      },
    );
    req.on("timeout", () => req.destroy(new Error("timeout")));
    req.on("error", reject);
    req.end(data);
  });
}

async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs: number, state: ClusterState): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    for (const p of state.procs) {
      if (!alive(p.pid)) throw new Error(`${p.name} exited while waiting for ${what}; see ${join(state.dir, "logs", `${p.name}.log`)}`);
    }
    if (await check().catch(() => false)) return;
    await sleep(250);
  }
  throw new Error(`timed out after ${timeoutMs / 1000}s waiting for ${what}; logs are in ${join(state.dir, "logs")}`);
}

/** True when the recorded cluster's processes all live and the apiserver answers /readyz. */
export async function isRunning(dir = defaultStateDir()): Promise<ClusterState | undefined> {
  const state = await readState(dir);
  if (!state || state.procs.length < 5 || !state.procs.every((p) => alive(p.pid))) return undefined;
  const ready = await httpsGet(state, "/readyz").catch(() => undefined);
  return ready?.status === 200 ? state : undefined;
}

function startProcess(state: ClusterState, name: string, bin: string, args: string[]): Proc {
  const logFile = openSync(join(state.dir, "logs", `${name}.log`), "a");
  let child;
  try {
    child = spawn(bin, args, { cwd: state.dir, detached: true, stdio: ["ignore", logFile, logFile] });
  } finally {
    closeSync(logFile);
  }
  if (child.pid === undefined) throw new Error(`could not start ${name} (${bin})`);
  child.unref();
  return { name, pid: child.pid };
}

function apiserverArgs(state: ClusterState): string[] {
  const p = (f: string) => join(state.dir, "pki", f);
  return [
    `--etcd-servers=http://127.0.0.1:${state.ports.etcdClient}`,
    "--bind-address=127.0.0.1",
    "--advertise-address=127.0.0.1",
    `--secure-port=${state.ports.apiserver}`,
    `--tls-cert-file=${p("apiserver.crt")}`,
    `--tls-private-key-file=${p("apiserver.key")}`,
    `--client-ca-file=${p("ca.crt")}`,
    "--authorization-mode=Node,RBAC",
    "--service-account-issuer=https://kubernetes.default.svc.cluster.local",
    `--service-account-key-file=${p("sa.pub")}`,
    `--service-account-signing-key-file=${p("sa.key")}`,
    "--service-cluster-ip-range=10.96.0.0/16",
    "--allow-privileged=true",
    "--profiling=false",
    ...endpointReconciler(VERSIONS.kubernetes),
  ];
}

/**
 * From v1.37 the API server refuses a loopback --advertise-address with its default endpoint
 * reconciler ("cannot use public IP 127.0.0.1 with endpoint reconciler: ... may not be in the
 * loopback range"); without one it starts, and the `kubernetes` Service has no endpoints, which
 * nothing here uses. Older versions keep their default.
 */
export function endpointReconciler(version: string): string[] {
  const minor = Number(/^v1\.(\d+)\./.exec(version)?.[1] ?? 0);
  return minor >= 37 ? ["--endpoint-reconciler-type=none"] : [];
}

/**
 * One cluster, one user, one context. A named cluster names all three after itself (`prod-eu`,
 * `prod-eu-admin`), so that several clusters' kubeconfigs merge (KUBECONFIG=a:b, where the first
 * file's entry of a name wins) into one holding every cluster.
 */
export function kubeconfigYaml(server: string, pki: { ca: string; cert: string; key: string }, name?: string): string {
  const b64 = (s: string) => Buffer.from(s).toString("base64");
  const context = name ?? DEFAULT_CONTEXT;
  const user = name ? `${name}-admin` : "kpt-ts-admin";
  return [
    "apiVersion: v1",
    "kind: Config",
    "clusters:",
    `- name: ${context}`,
    "  cluster:",
    `    server: ${server}`,
    `    certificate-authority-data: ${b64(pki.ca)}`,
    "users:",
    `- name: ${user}`,
    "  user:",
    `    client-certificate-data: ${b64(pki.cert)}`,
    `    client-key-data: ${b64(pki.key)}`,
    "contexts:",
    `- name: ${context}`,
    "  context:",
    `    cluster: ${context}`,
    `    user: ${user}`,
    "    namespace: default",
    `current-context: ${context}`,
    "",
  ].join("\n");
}

async function writeKwokConfig(bins: Binaries, file: string): Promise<void> {
  const files = (await readdir(bins.kwokStages)).filter((f) => f.endsWith(".yaml")).sort();
  const docs = await Promise.all(files.map((f) => readFile(join(bins.kwokStages, f), "utf8")));
  await writeFile(file, docs.map((d) => d.trim()).join("\n---\n") + "\n");
}

async function launch(dir: string, name: string | undefined, bins: Binaries, log: Log): Promise<ClusterState> {
  await mkdir(join(dir, "pki"), { recursive: true });
  await mkdir(join(dir, "logs"), { recursive: true });
  const names = ["etcdClient", "etcdPeer", "apiserver", "controllerManager", "scheduler", "kwok"];
  // Reserved machine-wide until `down`: clusters started at the same moment never pick the same port.
  const chosen = await reservePorts(names.length, dir);
  const ports: Record<string, number> = Object.fromEntries(names.map((n, i) => [n, chosen[i]!]));
  const server = `https://127.0.0.1:${ports.apiserver}`;
  const state: ClusterState = { dir, context: name ?? DEFAULT_CONTEXT, kubernetes: VERSIONS.kubernetes, kubeconfig: join(dir, "kubeconfig"), server, ports, procs: [] };
  const record = async (p: Proc) => {
    state.procs.push(p);
    await writeFile(statePath(dir), JSON.stringify(state, null, 2));
  };
  await writeFile(statePath(dir), JSON.stringify(state, null, 2));

  await createPki(join(dir, "pki"));
  const pki = {
    ca: await readFile(join(dir, "pki", "ca.crt"), "utf8"),
    cert: await readFile(join(dir, "pki", "admin.crt"), "utf8"),
    key: await readFile(join(dir, "pki", "admin.key"), "utf8"),
  };
  await writeFile(state.kubeconfig, kubeconfigYaml(server, pki, name), { mode: 0o600 });
  await writeKwokConfig(bins, join(dir, "kwok.yaml"));

  const etcdUrl = `http://127.0.0.1:${ports.etcdClient}`;
  const peerUrl = `http://127.0.0.1:${ports.etcdPeer}`;
  await record(
    startProcess(state, "etcd", bins.etcd, [
      "--name=kpt-ts",
      `--data-dir=${join(dir, "etcd")}`,
      `--listen-client-urls=${etcdUrl}`,
      `--advertise-client-urls=${etcdUrl}`,
      `--listen-peer-urls=${peerUrl}`,
      `--initial-advertise-peer-urls=${peerUrl}`,
      `--initial-cluster=kpt-ts=${peerUrl}`,
      "--unsafe-no-fsync=true",
      "--quota-backend-bytes=8589934592",
      "--auto-compaction-retention=1",
      "--log-level=warn",
    ]),
  );
  log(`etcd on ${etcdUrl}`);

  const p = (f: string) => join(dir, "pki", f);
  await record(startProcess(state, "kube-apiserver", bins.kubeApiserver, apiserverArgs(state)));
  const kubeconfigFile = state.kubeconfig;
  await waitFor("kube-apiserver /readyz", async () => (await httpsGet(state, "/readyz")).status === 200, 90_000, state);
  log(`kube-apiserver on ${server}`);

  const common = [`--kubeconfig=${kubeconfigFile}`, "--bind-address=127.0.0.1", "--leader-elect=false", "--kube-api-qps=5000", "--kube-api-burst=10000"];
  await record(
    startProcess(state, "kube-controller-manager", bins.kubeControllerManager, [
      ...common,
      `--secure-port=${ports.controllerManager}`,
      `--root-ca-file=${p("ca.crt")}`,
      `--service-account-private-key-file=${p("sa.key")}`,
      "--use-service-account-credentials=false",
      "--node-monitor-period=25s",
      "--node-monitor-grace-period=3m20s",
      // Bind PVCs to matching PVs within seconds instead of the default 15s resync.
      "--pvclaimbinder-sync-period=2s",
      "--authorization-always-allow-paths=/healthz,/readyz,/livez,/metrics",
    ]),
  );
  await record(
    startProcess(state, "kube-scheduler", bins.kubeScheduler, [
      ...common,
      `--secure-port=${ports.scheduler}`,
      "--authorization-always-allow-paths=/healthz,/readyz,/livez,/metrics",
    ]),
  );
  await record(
    startProcess(state, "kwok", bins.kwok, [
      `--kubeconfig=${kubeconfigFile}`,
      `--config=${join(dir, "kwok.yaml")}`,
      "--manage-all-nodes=true",
      `--server-address=127.0.0.1:${ports.kwok}`,
      "--node-ip=127.0.0.1",
      "--node-name=localhost",
      `--node-port=${ports.kwok}`,
    ]),
  );

  const NODE_CAPACITY = { cpu: "1k", memory: "1Ti", pods: "1M", "ephemeral-storage": "1Ti" };
  for (let i = 0; i < NODE_COUNT; i++) {
    const name = `kwok-node-${i}`;
    const res = await apiJson(state, "POST", "/api/v1/nodes", {
      apiVersion: "v1",
      kind: "Node",
      metadata: {
        name,
        annotations: { "kwok.x-k8s.io/node": "fake", "node.alpha.kubernetes.io/ttl": "0" },
        labels: { "kubernetes.io/hostname": name, "kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64", type: "kwok" },
      },
      // Loopback only: kwok's default 192.0.2.x addresses would make the apiserver dial off the box.
      // Capacity as kwok's defaults, plus ephemeral storage, which real nodes report and bundles'
      // Pods request (Argo Rollouts' controller: without it the Pod is never scheduled).
      status: { addresses: [{ type: "InternalIP", address: "127.0.0.1" }], capacity: NODE_CAPACITY, allocatable: NODE_CAPACITY },
    });
    if (res.status !== 201 && res.status !== 409) throw new Error(`creating node ${name} failed: HTTP ${res.status} ${JSON.stringify(res.json)}`);
  }
  await waitFor(
    `${NODE_COUNT} Ready nodes`,
    async () => {
      const { json } = await apiJson(state, "GET", "/api/v1/nodes");
      const ready = (json?.items ?? []).filter((n: any) => n.status?.conditions?.some((c: any) => c.type === "Ready" && c.status === "True"));
      return ready.length >= NODE_COUNT;
    },
    60_000,
    state,
  );
  // Pods are rejected until the controller manager has made the namespace's default ServiceAccount.
  await waitFor("the default ServiceAccount", async () => (await apiJson(state, "GET", "/api/v1/namespaces/default/serviceaccounts/default")).status === 200, 60_000, state);
  log(`${NODE_COUNT} kwok nodes Ready; kubeconfig: ${state.kubeconfig}`);
  return state;
}

/**
 * Starts the cluster, or reuses the one already running from the same state directory. `name`
 * (default: KPT_TS_CLUSTER_NAME) names its kubeconfig's context, and, without `dir`, its state
 * directory (`.cluster-NAME`).
 */
export async function up(opts: { dir?: string; name?: string; log?: Log } = {}): Promise<UpResult> {
  const name = opts.name !== undefined ? checkClusterName(opts.name) : opts.dir === undefined ? clusterNameFromEnv() : undefined;
  const dir = opts.dir ?? stateDirFor(name);
  const log = opts.log ?? (() => {});
  const running = await isRunning(dir);
  if (running) {
    const context = running.context ?? DEFAULT_CONTEXT;
    if (running.kubernetes && running.kubernetes !== VERSIONS.kubernetes) {
      throw new Error(`the cluster in ${dir} runs Kubernetes ${running.kubernetes}, not ${VERSIONS.kubernetes}: stop it first (cluster:down with the same KPT_TS_CLUSTER_NAME), or choose another name`);
    }
    if (context !== (name ?? DEFAULT_CONTEXT)) throw new Error(`the cluster in ${dir} is named ${context}, not ${name ?? DEFAULT_CONTEXT}: stop it first, or use another directory`);
    log(`reusing the running cluster at ${running.server}`);
    return { state: running, started: false };
  }
  await down({ dir }); // leftovers of a crashed run
  const bins = await ensureBinaries(log);
  // Twice: a port chosen free can still be taken by another process before a component binds it.
  for (let attempt = 1; ; attempt++) {
    try {
      return { state: await launch(dir, name, bins, log), started: true };
    } catch (err) {
      await down({ dir, keepLogs: true });
      if (attempt >= 2) throw err;
      log(`start failed (${(err as Error).message.split("\n")[0]}); trying once more with other ports`);
      await saveFailedLogs(dir);
    }
  }
}

/** Keeps the failed attempt's logs (failed-attempt-logs/) beside the next attempt's. */
async function saveFailedLogs(dir: string): Promise<void> {
  const logs = join(dir, "logs");
  const kept = join(dir, "failed-attempt-logs");
  await rm(kept, { recursive: true, force: true });
  await rename(logs, kept).catch(() => {});
}

const APISERVER = "kube-apiserver";

/**
 * Stops only the kube-apiserver of the cluster in `dir` (etcd and its data stay), as a crash
 * (SIGKILL) or a shutdown (SIGTERM) would; for tests of an API server that goes away mid-run.
 */
export async function stopApiserver(opts: { dir: string; signal?: "SIGTERM" | "SIGKILL" }): Promise<void> {
  const state = await readState(opts.dir);
  const proc = state?.procs.find((p) => p.name === APISERVER);
  if (!state || !proc) throw new Error(`no kube-apiserver recorded in ${opts.dir}`);
  try {
    process.kill(-proc.pid, opts.signal ?? "SIGKILL");
  } catch {
    /* already gone */
  }
  if (!(await waitGone(proc.pid, 15_000))) {
    process.kill(-proc.pid, "SIGKILL");
    await waitGone(proc.pid, 5_000);
  }
}

/** Starts the kube-apiserver stopped by stopApiserver again, same port and flags; resolves once it is ready. */
export async function startApiserver(opts: { dir: string; log?: Log }): Promise<void> {
  const state = await readState(opts.dir);
  const index = state?.procs.findIndex((p) => p.name === APISERVER) ?? -1;
  if (!state || index < 0) throw new Error(`no kube-apiserver recorded in ${opts.dir}`);
  if (alive(state.procs[index]!.pid)) throw new Error(`the kube-apiserver of ${opts.dir} still runs (pid ${state.procs[index]!.pid})`);
  const bins = await ensureBinaries(opts.log);
  state.procs[index] = startProcess(state, APISERVER, bins.kubeApiserver, apiserverArgs(state));
  await writeFile(statePath(opts.dir), JSON.stringify(state, null, 2));
  await waitFor("kube-apiserver /readyz", async () => (await httpsGet(state, "/readyz")).status === 200, 90_000, state);
}

async function waitGone(pid: number, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (!alive(pid)) return true;
    await sleep(100);
  }
  return !alive(pid);
}

/** Stops every process the state records (newest first), frees its ports and removes the state directory. */
export async function down(opts: { dir?: string; keepLogs?: boolean } = {}): Promise<void> {
  const dir = opts.dir ?? defaultStateDir();
  try {
    await stopProcesses(dir, opts.keepLogs);
  } finally {
    await releasePorts(dir);
  }
}

async function stopProcesses(dir: string, keepLogs: boolean | undefined): Promise<void> {
  const state = await readState(dir);
  // All at once: this cluster holds nothing worth a graceful drain, and apiserver's drain takes ~10s.
  const procs = (state?.procs ?? []).filter((p) => alive(p.pid));
  const signal = (sig: NodeJS.Signals) => {
    for (const p of procs) {
      try {
        process.kill(-p.pid, sig); // the whole process group: detached children lead their own
      } catch {
        /* already gone */
      }
    }
  };
  signal("SIGTERM");
  const gone = await Promise.all(procs.map((p) => waitGone(p.pid, 5_000)));
  if (gone.some((g) => !g)) {
    signal("SIGKILL");
    await Promise.all(procs.map((p) => waitGone(p.pid, 5_000)));
  }
  if (!existsSync(dir)) return;
  if (keepLogs) {
    for (const f of await readdir(dir)) if (f !== "logs" && f !== "failed-attempt-logs") await rm(join(dir, f), { recursive: true, force: true });
  } else {
    await rm(dir, { recursive: true, force: true });
  }
}

export async function portsFree(state: ClusterState): Promise<boolean> {
  const checks = await Promise.all(Object.values(state.ports).map((p) => isPortFree(p)));
  return checks.every(Boolean);
}
