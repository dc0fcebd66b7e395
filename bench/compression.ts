// `npx tsx bench/compression.ts [--objects 2000] [--reps 3]`
// What gzip saves on the initial LISTs of a package: the bench's package (ConfigMaps, Services,
// Deployments; Deployments at 0 replicas here, so no Pods load the shared cluster) is created
// in a fresh namespace with kubectl, then kpt-ts' transport LISTs each kind there (what the run's
// live cache does first), with and without `Accept-Encoding: gzip`: bytes on the wire, bytes of
// JSON, and time. Uses the running local cluster ($KUBECONFIG, else .cluster/kubeconfig).

import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { stringify } from "yaml";
import { KubeCluster } from "../src/cluster/kube-cluster.js";
import { createNamespace, deleteNamespace, kubectl } from "./cluster.js";
import { generatePackage } from "./package.js";

const { values } = parseArgs({ options: { objects: { type: "string", default: "2000" }, reps: { type: "string", default: "3" } } });
const size = Number(values.objects);
const reps = Number(values.reps);
const kubeconfig = process.env.KUBECONFIG ?? resolve(import.meta.dirname, "../.cluster/kubeconfig");
const env = { ...process.env, KUBECONFIG: kubeconfig };
const ns = `bench-gzip-${Date.now().toString(36)}`;
const log = (s: string) => process.stderr.write(`[bench] ${s}\n`);

await createNamespace(env, ns);
try {
  const objs = generatePackage(size, ns).base.map((o) => (o.kind === "Deployment" ? { ...o, spec: { ...(o.spec as object), replicas: 0 } } : o));
  log(`creating ${objs.length} objects in ${ns}`);
  for (let i = 0; i < objs.length; i += 500) {
    await kubectl(env, ["apply", "--server-side", "-f", "-"], objs.slice(i, i + 500).map((o) => stringify(o)).join("---\n"));
  }
  const kinds = [...new Set(objs.map((o) => `${o.apiVersion}|${o.kind}`))].map((k) => k.split("|") as [string, string]);
  const rows: { gzip: boolean; wireBytes: number; jsonBytes: number; ms: number }[] = [];
  for (let r = 0; r < reps; r++) {
    for (const gzip of [true, false]) {
      const cluster = new KubeCluster({ kubeconfig, disableCompression: !gzip });
      await cluster.scopeOf("", "ConfigMap"); // discovery first, outside the measurement
      const before = { ...cluster.transport.stats };
      const t0 = performance.now();
      await Promise.all(kinds.map(([apiVersion, kind]) => cluster.list(apiVersion.includes("/") ? apiVersion.split("/")[0]! : "", kind, ns)));
      const ms = performance.now() - t0;
      rows.push({ gzip, wireBytes: cluster.transport.stats.wireBytes - before.wireBytes, jsonBytes: cluster.transport.stats.bodyBytes - before.bodyBytes, ms });
      cluster.close();
    }
  }
  const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  for (const gzip of [true, false]) {
    const mine = rows.filter((r) => r.gzip === gzip);
    process.stdout.write(
      `${gzip ? "gzip   " : "no gzip"}  ${size} objects, ${kinds.length} LISTs: ${(median(mine.map((r) => r.wireBytes)) / 1e6).toFixed(2)} MB on the wire, ` +
        `${(median(mine.map((r) => r.jsonBytes)) / 1e6).toFixed(2)} MB of JSON, ${Math.round(median(mine.map((r) => r.ms)))} ms (median of ${reps})\n`,
    );
  }
} finally {
  log(`deleting ${ns}`);
  await deleteNamespace(env, ns);
}
