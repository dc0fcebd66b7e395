// "Nothing lost": what a package's inventory owns in the cluster against what its ResourceGroup
// lists. After any run (failed, interrupted, racing another), every object that carries the
// package's owning-inventory annotation must be listed, or the next apply could never prune it.
import { kubectl } from "./run.js";
import type { InventoryInfo } from "./scenario.js";

const OWNER = "config.k8s.io/owning-inventory";

export interface OwnershipSnapshot {
  /** `group/Kind/namespace/name` of every object annotated with the inventory's id, sorted. */
  owned: string[];
  /** What the cluster's ResourceGroup lists (empty when there is none), sorted. */
  listed: string[];
  /** Whether the ResourceGroup exists. */
  inventoryExists: boolean;
  /** Owned objects the inventory does not list: must be empty. */
  orphans: string[];
}

async function getJson(args: string[], env?: Record<string, string>): Promise<any> {
  const r = await kubectl([...args, "-o", "json"], { env });
  if (r.code !== 0) throw new Error(`kubectl ${args.join(" ")}: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

/** Reads both sides at once. `kinds` are the resources the package uses (kubectl's comma list). */
export async function ownership(inv: InventoryInfo, namespace: string, kinds: string, env?: Record<string, string>): Promise<OwnershipSnapshot> {
  // The objects first: an object that vanishes between the two reads cannot then look orphaned.
  const list = await getJson(["get", kinds, "-n", namespace], env);
  const owned = (list.items as any[])
    .filter((o) => o.metadata?.annotations?.[OWNER] === inv.id)
    .map((o) => `${String(o.apiVersion).includes("/") ? String(o.apiVersion).split("/")[0] : ""}/${o.kind}/${o.metadata.namespace ?? ""}/${o.metadata.name}`)
    .sort();
  const rg = await kubectl(["get", "resourcegroups.kpt.dev", inv.name, "-n", inv.namespace, "--ignore-not-found", "-o", "json"], { env });
  if (rg.code !== 0) throw new Error(`kubectl get resourcegroup ${inv.name}: ${rg.stderr}`);
  const obj = rg.stdout.trim() ? JSON.parse(rg.stdout) : undefined;
  const listed = ((obj?.spec?.resources ?? []) as { group?: string; kind: string; namespace?: string; name: string }[])
    .map((r) => `${r.group ?? ""}/${r.kind}/${r.namespace ?? ""}/${r.name}`)
    .sort();
  const set = new Set(listed);
  return { owned, listed, inventoryExists: Boolean(obj), orphans: owned.filter((o) => !set.has(o)) };
}
