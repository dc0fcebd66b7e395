// One kubeconfig holding several local clusters' contexts, as a user's merged kubeconfig does
// (`KUBECONFIG=a:b`, or `kubectl config view --flatten` of it): for the fleet's tests and
// benchmark. Each named cluster's kubeconfig names its cluster, user and context after itself, so
// nothing collides.

import { readFile, writeFile } from "node:fs/promises";
import { delimiter } from "node:path";
import { parse, stringify } from "yaml";

interface Named {
  name: string;
  [key: string]: unknown;
}

interface KubeconfigDoc {
  clusters?: Named[];
  users?: Named[];
  contexts?: Named[];
  "current-context"?: string;
}

/** The KUBECONFIG value that lists the files, as a user would set it: `a:b:c`. */
export function kubeconfigList(files: readonly string[]): string {
  return files.join(delimiter);
}

/** Another context for one already in `doc`: its cluster's server replaced (a closed port, a proxy). */
export interface ExtraContext {
  name: string;
  /** The context whose user and CA it borrows. */
  like: string;
  server: string;
}

/**
 * Writes one kubeconfig with every cluster, user and context of `files` (the first file's entry
 * of a name wins, as kubectl merges), plus `extra` contexts; current-context is the first file's.
 */
export async function writeMergedKubeconfig(out: string, files: readonly string[], extra: readonly ExtraContext[] = []): Promise<string> {
  const merged: Required<Pick<KubeconfigDoc, "clusters" | "users" | "contexts">> & KubeconfigDoc = { clusters: [], users: [], contexts: [] };
  for (const file of files) {
    const doc = parse(await readFile(file, "utf8")) as KubeconfigDoc;
    for (const key of ["clusters", "users", "contexts"] as const) {
      for (const e of doc[key] ?? []) if (!merged[key].some((m) => m.name === e.name)) merged[key].push(e);
    }
    merged["current-context"] ??= doc["current-context"];
  }
  for (const x of extra) {
    const like = merged.contexts.find((c) => c.name === x.like);
    if (!like) throw new Error(`no context ${x.like} in ${files.join(", ")}`);
    const ctx = like.context as { cluster: string; user: string; namespace?: string };
    const cluster = merged.clusters.find((c) => c.name === ctx.cluster);
    merged.clusters.push({ name: x.name, cluster: { ...(cluster?.cluster as object), server: x.server } });
    merged.contexts.push({ name: x.name, context: { ...ctx, cluster: x.name } });
  }
  await writeFile(out, stringify({ apiVersion: "v1", kind: "Config", ...merged }), { mode: 0o600 });
  return out;
}
