// Generates the benchmark's packages: ConfigMaps, Services and Deployments (1 replica) in one
// namespace, with a few depends-on chains, and the "changed" variant of each (10% of the objects
// modified, 25% removed so that an apply prunes them). Pure except for writePackage.

import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { stringify } from "yaml";

export type Obj = { apiVersion: string; kind: string; metadata: { name: string; namespace: string; [k: string]: unknown }; [k: string]: unknown };

/** Chains of depends-on (ConfigMap <- Deployment <- Service) that make kpt and kpt-ts apply in waves. */
const CHAINS = 3;
const CHAIN_LENGTH = 4; // indices 0..CHAINS*4-1 are chain members: never pruned or changed
const DEPENDS_ON = "config.kubernetes.io/depends-on";

const pad = (i: number) => String(i).padStart(5, "0");

/** Index i: i%4 in {0,1} -> ConfigMap, 2 -> Service, 3 -> Deployment (half ConfigMaps, a quarter each of the others). */
function objectAt(i: number, namespace: string, rev: number): Obj {
  const meta = (name: string) => ({ name, namespace, labels: { "bench.kpt-ts.dev/index": String(i) } });
  switch (i % 4) {
    case 2:
      return {
        apiVersion: "v1",
        kind: "Service",
        metadata: { ...meta(`svc-${pad(i)}`), ...(rev > 1 ? { annotations: { "bench.kpt-ts.dev/rev": String(rev) } } : {}) },
        spec: { selector: { app: `deploy-${pad(i + 1)}` }, ports: [{ name: "http", port: 80, targetPort: 8080 }] },
      };
    case 3: {
      const app = `deploy-${pad(i)}`;
      return {
        apiVersion: "apps/v1",
        kind: "Deployment",
        metadata: meta(app),
        spec: {
          replicas: 1,
          selector: { matchLabels: { app } },
          template: {
            metadata: { labels: { app }, ...(rev > 1 ? { annotations: { "bench.kpt-ts.dev/rev": String(rev) } } : {}) },
            spec: { containers: [{ name: "app", image: "registry.k8s.io/pause:3.10", ports: [{ containerPort: 8080 }] }] },
          },
        },
      };
    }
    default:
      return { apiVersion: "v1", kind: "ConfigMap", metadata: meta(`cm-${pad(i)}`), data: { index: String(i), rev: String(rev), payload: "x".repeat(64) } };
  }
}

function refOf(o: Obj): string {
  const group = o.apiVersion.includes("/") ? o.apiVersion.split("/")[0] : "";
  return `${group}/namespaces/${o.metadata.namespace}/${o.kind}/${o.metadata.name}`;
}

/** Within chain c (indices 4c..4c+3): Deployment 4c+3 depends on ConfigMap 4c, Service 4c+2 on the Deployment. */
function addChains(objs: Obj[]): void {
  for (let c = 0; c < CHAINS && 4 * c + 3 < objs.length; c++) {
    const [cm, svc, deploy] = [objs[4 * c]!, objs[4 * c + 2]!, objs[4 * c + 3]!];
    deploy.metadata.annotations = { [DEPENDS_ON]: refOf(cm) };
    svc.metadata.annotations = { ...(svc.metadata.annotations as object), [DEPENDS_ON]: refOf(deploy) };
  }
}

const isChainMember = (i: number) => i < CHAINS * CHAIN_LENGTH;

/** `count` of the candidates, spread evenly over them (so every kind is hit). */
function spread(candidates: number[], count: number): Set<number> {
  const n = Math.min(count, candidates.length);
  const step = candidates.length / Math.max(n, 1);
  return new Set([...Array(n).keys()].map((j) => candidates[Math.floor(j * step)]!));
}

/** Which objects the second apply removes (25% of the size) and modifies (10% of the size, among those that stay). */
function selectChanges(size: number): { pruned: Set<number>; changed: Set<number> } {
  const free = [...Array(size).keys()].filter((i) => !isChainMember(i));
  const pruned = spread(free, Math.round(size * 0.25));
  const changed = spread(free.filter((i) => !pruned.has(i)), Math.round(size * 0.1));
  return { pruned, changed };
}

export interface PackageVariants {
  base: Obj[];
  /** The package after the change: 10% modified, 25% removed. */
  changed: Obj[];
  counts: { objects: number; changed: number; pruned: number };
}

export function generatePackage(size: number, namespace: string): PackageVariants {
  const { pruned, changed } = selectChanges(size);
  const base = [...Array(size).keys()].map((i) => objectAt(i, namespace, 1));
  const next = [...Array(size).keys()].filter((i) => !pruned.has(i)).map((i) => objectAt(i, namespace, changed.has(i) ? 2 : 1));
  addChains(base);
  addChains(next);
  return { base, changed: next, counts: { objects: size, changed: changed.size, pruned: size - next.length } };
}

/** Only small ConfigMaps (issue 17's scale check: cost per object and memory at 1,000 and 10,000). */
export function generateConfigMaps(count: number, namespace: string): Obj[] {
  return [...Array(count).keys()].map((i) => ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: `cm-${pad(i)}`, namespace }, data: { index: String(i), payload: "x".repeat(64) } }));
}

const KPTFILE = { apiVersion: "kpt.dev/v1", kind: "Kptfile", metadata: { name: "bench", annotations: { "config.kubernetes.io/local-config": "true" } } };

/** One file per kind; with `kptfile`, a Kptfile too (kpt and kpt-ts need one; kubectl and kapp would try to apply it). */
export async function writePackage(dir: string, objs: Obj[], opts: { kptfile: boolean }): Promise<void> {
  await mkdir(dir, { recursive: true });
  const byKind = new Map<string, Obj[]>();
  for (const o of objs) {
    if (!byKind.has(o.kind)) byKind.set(o.kind, []);
    byKind.get(o.kind)!.push(o);
  }
  for (const [kind, list] of byKind) {
    await writeFile(join(dir, `${kind.toLowerCase()}s.yaml`), list.map((o) => stringify(o)).join("---\n"));
  }
  if (opts.kptfile) await writeFile(join(dir, "Kptfile"), stringify(KPTFILE));
}
