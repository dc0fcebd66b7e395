// A private control plane for a test that must restart its API server or see a fresh cluster.
// One at a time across the test run's forks: each is a whole control plane on a 2-core machine
// beside the shared one, and two or three starting at once starved the shared cluster's
// controllers (Deployments stuck at 0/1 for minutes) and raced for ports.

import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { kubeconfigList, writeMergedKubeconfig, type ExtraContext } from "../../tools/cluster/kubeconfig-merge.js";
import { alive, down, up, type ClusterState } from "../../tools/cluster/launcher.js";

const LOCK = join(tmpdir(), "kpt-ts-private-cluster.lock");

/** How long a beforeAll that starts one may wait: the other private clusters' files, in turn. */
export const PRIVATE_CLUSTER_HOOK_TIMEOUT = 20 * 60_000;

async function acquire(): Promise<void> {
  for (;;) {
    try {
      await mkdir(LOCK); // atomic: exactly one fork gets it
      await writeFile(join(LOCK, "pid"), String(process.pid));
      return;
    } catch {
      // Held: by a live fork (wait), or left by one that died (take it over).
      const holder = Number(await readFile(join(LOCK, "pid"), "utf8").catch(() => ""));
      if (holder && !alive(holder)) await rm(LOCK, { recursive: true, force: true });
      await sleep(500);
    }
  }
}

/** Starts a private cluster in `dir` once no other test holds one. */
export async function startPrivateCluster(dir: string): Promise<ClusterState> {
  await acquire();
  try {
    return (await up({ dir })).state;
  } catch (err) {
    await rm(LOCK, { recursive: true, force: true });
    throw err;
  }
}

/** Stops it and lets the next test start its own. */
export async function stopPrivateCluster(dir: string | undefined): Promise<void> {
  try {
    if (dir) await down({ dir });
  } finally {
    const holder = Number(await readFile(join(LOCK, "pid"), "utf8").catch(() => ""));
    if (holder === process.pid) await rm(LOCK, { recursive: true, force: true });
  }
}

/** Several named private clusters for one test file (a fleet), each its own control plane. */
export interface PrivateClusters {
  /** By name: each kubeconfig's one context is named after its cluster. */
  readonly clusters: ReadonlyMap<string, ClusterState>;
  /** KUBECONFIG naming every cluster's own file, as a user merges them: `a:b:c`. */
  readonly kubeconfigList: string;
  /** One kubeconfig file holding every cluster's context, and `extra` ones (a closed port, ...). */
  mergedKubeconfig(extra?: readonly ExtraContext[]): Promise<string>;
  /** Stops every cluster started (the file's afterAll). */
  stop(): Promise<void>;
}

/**
 * Starts one private cluster per name, one after another (several control planes booting at
 * once on two cores starve the shared cluster), holding the private-cluster lock for all of them
 * until `stop`. A failed start stops what was started.
 */
export async function startPrivateClusters(names: readonly string[]): Promise<PrivateClusters> {
  const root = await mkdtemp(join(tmpdir(), "kpt-ts-fleet-"));
  const clusters = new Map<string, ClusterState>();
  const stop = async () => {
    try {
      await Promise.all([...names].map((n) => down({ dir: join(root, n) })));
    } finally {
      await stopPrivateCluster(undefined);
      await rm(root, { recursive: true, force: true });
    }
  };
  await acquire();
  try {
    for (const name of names) clusters.set(name, (await up({ dir: join(root, name), name })).state);
  } catch (err) {
    await stop();
    throw err;
  }
  let merged = 0;
  return {
    clusters,
    kubeconfigList: kubeconfigList([...clusters.values()].map((c) => c.kubeconfig)),
    mergedKubeconfig: (extra = []) => writeMergedKubeconfig(join(root, `merged-${++merged}.yaml`), [...clusters.values()].map((c) => c.kubeconfig), extra),
    stop,
  };
}
