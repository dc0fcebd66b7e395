// Finds the control plane's binaries: KUBEBUILDER_ASSETS first (the envtest convention), else the
// Go-built cache that scripts/cluster/build-binaries.sh fills once per version.

import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

/** The Kubernetes the tests run on unless K8S_VERSION names another (README: "Kubernetes versions"). */
export const DEFAULT_K8S_VERSION = "v1.35.4";

export const VERSIONS = {
  kubernetes: process.env.K8S_VERSION || DEFAULT_K8S_VERSION,
  etcd: process.env.ETCD_VERSION ?? "v3.6.10",
  kwok: process.env.KWOK_VERSION ?? "v0.8.0",
} as const;

export interface Binaries {
  etcd: string;
  kubeApiserver: string;
  kubeControllerManager: string;
  kubeScheduler: string;
  kwok: string;
  /** Directory of kwok's Stage manifests (how fake kubelets move Pods and Nodes along). */
  kwokStages: string;
}

export function cacheDir(): string {
  return process.env.KPT_TS_CACHE ?? join(process.env.XDG_CACHE_HOME ?? join(homedir(), ".cache"), "kpt-ts", "cluster");
}

function cached(): Binaries {
  const c = cacheDir();
  const k8s = join(c, `kubernetes-${VERSIONS.kubernetes}`, "bin");
  return {
    etcd: join(c, `etcd-${VERSIONS.etcd}`, "bin", "etcd"),
    kubeApiserver: join(k8s, "kube-apiserver"),
    kubeControllerManager: join(k8s, "kube-controller-manager"),
    kubeScheduler: join(k8s, "kube-scheduler"),
    kwok: join(c, `kwok-${VERSIONS.kwok}`, "bin", "kwok"),
    kwokStages: join(c, `kwok-${VERSIONS.kwok}`, "stages"),
  };
}

/** envtest ships etcd and kube-apiserver (sometimes more); whatever it has replaces our builds. */
function fromAssets(base: Binaries): Binaries {
  const dir = process.env.KUBEBUILDER_ASSETS;
  if (!dir) return base;
  const pick = (name: string, fallback: string) => (existsSync(join(dir, name)) ? join(dir, name) : fallback);
  return {
    ...base,
    etcd: pick("etcd", base.etcd),
    kubeApiserver: pick("kube-apiserver", base.kubeApiserver),
    kubeControllerManager: pick("kube-controller-manager", base.kubeControllerManager),
    kubeScheduler: pick("kube-scheduler", base.kubeScheduler),
    kwok: pick("kwok", base.kwok),
  };
}

function missing(b: Binaries): string[] {
  return Object.entries(b)
    .filter(([, path]) => !existsSync(path))
    .map(([name]) => name);
}

/** Returns the binaries, building the missing ones from their Go modules first (minutes, once). */
export async function ensureBinaries(log: (line: string) => void = () => {}): Promise<Binaries> {
  let bins = fromAssets(cached());
  if (missing(bins).length === 0) return bins;
  log(`building the local control plane from Go modules (${missing(bins).join(", ")}); only the first run pays for this`);
  const script = resolve(import.meta.dirname, "../../scripts/cluster/build-binaries.sh");
  try {
    await run("bash", [script, "all"], {
      env: { ...process.env, K8S_VERSION: VERSIONS.kubernetes, ETCD_VERSION: VERSIONS.etcd, KWOK_VERSION: VERSIONS.kwok, KPT_TS_CACHE: cacheDir() },
      maxBuffer: 256 * 1024 * 1024,
    });
  } catch (err) {
    const e = err as { code?: number; stderr?: string };
    const tail = (e.stderr ?? "").trim().split("\n").slice(-15).join("\n");
    if (e.code === 127) throw new Error(`cannot build the local control plane: ${tail || "'go' not found"}`);
    throw new Error(`building the local control plane failed (script ${script}):\n${tail}`);
  }
  bins = fromAssets(cached());
  const still = missing(bins);
  if (still.length > 0) throw new Error(`the build finished but these binaries are missing: ${still.join(", ")} (cache: ${cacheDir()})`);
  return bins;
}
