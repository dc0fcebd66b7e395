// `live migrate --to applyset | resourcegroup`, the cluster half (inventory/migrate-kind.ts
// plans the package's): the new inventory is stored first, covering every object; then each
// object's inventory marks change in place (one merge patch, guarded by its uid: nothing is
// deleted or created, so every uid stays); only then does the old inventory go. At every moment
// some inventory covers every object, and running the migration again finishes one that stopped.

import { Writer } from "../apply/writer.js";
import type { Cluster } from "../cluster/types.js";
import { parentOwnership, parentRef, parentRefusal, scopeOf } from "../inventory/applyset.js";
import { deleteParent, readApplySet, writeParent } from "../inventory/cluster-applyset.js";
import { deleteClusterInventory, installResourceGroupCrd, readClusterInventory, resourceGroupCrdInstalled, writeClusterInventory } from "../inventory/cluster-inventory.js";
import type { KindMigration } from "../inventory/migrate-kind.js";
import { ownerOf } from "../inventory/policy.js";
import { ClusterError } from "../model/errors.js";
import { APPLYSET_PART_OF_LABEL, OWNING_INVENTORY_ANNOTATION } from "../model/inventory-keys.js";
import type { KubeObject } from "../model/kube-object.js";
import { refKey, RefSet, type ObjRef } from "../model/ref.js";

export interface MigrateKindProgress {
  step(label: string): void;
  done(outcome?: string): void;
}

export interface MigrateKindOptions {
  dryRun: boolean;
  signal?: AbortSignal;
  /** Called once the cluster holds the new inventory and the old is gone: the package's files are written here. */
  writePackage: () => Promise<void>;
}

/** What the migration did: objects re-marked, and those left alone (another inventory owns them). */
export interface MigrateKindResult {
  marked: number;
  skipped: { ref: ObjRef; owner: string }[];
}

export async function migrateKind(cluster: Cluster, plan: KindMigration, p: MigrateKindProgress, o: MigrateKindOptions): Promise<MigrateKindResult> {
  return plan.to.applySet ? toApplySet(cluster, plan, p, o) : toResourceGroup(cluster, plan, p, o);
}

async function toApplySet(cluster: Cluster, plan: KindMigration, p: MigrateKindProgress, o: MigrateKindOptions): Promise<MigrateKindResult> {
  const { from, to } = plan;
  p.step(`retrieve the ResourceGroup ${from.namespace}/${from.name}`);
  const rg = (await resourceGroupCrdInstalled(cluster)) ? await readClusterInventory(cluster, from, o.signal) : { refs: [] as ObjRef[] };
  const parent = await readApplySet(cluster, to, { signal: o.signal });
  if (parent.object && parentOwnership(parent.object, to) !== "ours") throw new ClusterError(parentRefusal(parent.object, to, "strict") ?? `the ApplySet parent ${to.namespace}/${to.name} exists already`);
  // A migration that stopped half way left objects already marked for the ApplySet: they count too.
  const refs = new RefSet([...rg.refs, ...parent.refs]).toArray();
  p.done(`success (${refs.length} inventory objects)`);

  const { owned, skipped } = await readOwned(cluster, refs, [from.id, to.id], p, o.signal);

  await write(p, o, `create the ApplySet parent ${to.namespace}/${parentRef(to).kind}/${to.name}`, () =>
    writeParent(cluster, to, scopeOf(owned.map(refOfLive), to.namespace), { basedOn: parent.object ?? null, onConflict: "merge", signal: o.signal }),
  );
  await write(p, o, `label ${owned.length} objects as the ApplySet's members`, () =>
    markAll(cluster, owned, { labels: { [APPLYSET_PART_OF_LABEL]: to.id }, annotations: { [OWNING_INVENTORY_ANNOTATION]: to.id } }, o.signal),
  );
  if (rg.object) await write(p, o, `delete the ResourceGroup ${from.namespace}/${from.name}`, () => deleteClusterInventory(cluster, from, { basedOn: rg.object, signal: o.signal }));
  await write(p, o, "write the package's applyset.yaml", () => o.writePackage());
  return { marked: owned.length, skipped };
}

async function toResourceGroup(cluster: Cluster, plan: KindMigration, p: MigrateKindProgress, o: MigrateKindOptions): Promise<MigrateKindResult> {
  const { from, to } = plan;
  p.step(`retrieve the ApplySet ${from.namespace}/${parentRef(from).kind}/${from.name}`);
  const set = await readApplySet(cluster, from, { signal: o.signal });
  if (set.object) {
    const refusal = parentRefusal(set.object, from, "strict");
    if (refusal) throw new ClusterError(refusal);
  }
  // A migration that stopped half way left the ResourceGroup (with the ApplySet's id) listing the rest.
  const crd = await resourceGroupCrdInstalled(cluster);
  const existing: { object?: KubeObject; refs: ObjRef[] } = crd ? await readClusterInventory(cluster, to, o.signal) : { refs: [] };
  const refs = new RefSet([...set.refs, ...existing.refs]).toArray();
  p.done(`success (${refs.length} inventory objects)`);

  await write(p, o, "ensuring ResourceGroup CRD exists in cluster", async () => {
    if (!crd) await installResourceGroupCrd(cluster, { signal: o.signal });
  });
  const { owned, skipped } = await readOwned(cluster, refs, [from.id], p, o.signal);

  await write(p, o, `store the ResourceGroup ${to.namespace}/${to.name}`, () =>
    writeClusterInventory(cluster, to, new RefSet([...existing.refs, ...owned.map(refOfLive)]).toArray(), { basedOn: existing.object ?? null, onConflict: "merge", signal: o.signal }),
  );
  await write(p, o, `remove the ApplySet label from ${owned.length} objects`, () =>
    markAll(cluster, owned, { labels: { [APPLYSET_PART_OF_LABEL]: null }, annotations: { [OWNING_INVENTORY_ANNOTATION]: to.id } }, o.signal),
  );
  const setObject = set.object;
  if (setObject) await write(p, o, `delete the ApplySet parent ${from.namespace}/${parentRef(from).kind}/${from.name}`, () => deleteParent(cluster, from, { basedOn: setObject, signal: o.signal }));
  await write(p, o, "write the package's resourcegroup.yaml", () => o.writePackage());
  return { marked: owned.length, skipped };
}

/** One step that writes: a dry run only names it. */
async function write(p: MigrateKindProgress, o: MigrateKindOptions, label: string, action: () => Promise<unknown>): Promise<void> {
  p.step(label);
  if (!o.dryRun) await action();
  p.done();
}

/** The inventory's objects that exist, split into those `owners` own (to re-mark) and the rest (left alone). */
async function readOwned(cluster: Cluster, refs: readonly ObjRef[], owners: string[], p: MigrateKindProgress, signal?: AbortSignal): Promise<Pick<MigrateKindResult, "skipped"> & { owned: KubeObject[] }> {
  p.step("read the inventory's objects");
  const live = await readLive(cluster, refs, signal);
  const owned = [...live.values()].filter((l) => owners.includes(ownerOf(l) ?? ""));
  const skipped = [...live.values()].filter((l) => !owned.includes(l)).map((l) => ({ ref: refOfLive(l), owner: ownerOf(l) ?? "" }));
  p.done(`success (${live.size} found)`);
  return { owned, skipped };
}

/** The live objects of `refs` that exist (metadata only), read one LIST per kind and namespace. */
async function readLive(cluster: Cluster, refs: readonly ObjRef[], signal?: AbortSignal): Promise<Map<string, KubeObject>> {
  const byCollection = new Map<string, ObjRef[]>();
  for (const r of refs) {
    const key = `${r.group}/${r.kind}/${r.namespace}`;
    byCollection.set(key, [...(byCollection.get(key) ?? []), r]);
  }
  const out = new Map<string, KubeObject>();
  await Promise.all(
    [...byCollection.values()].map(async (list) => {
      const { group, kind, namespace } = list[0]!;
      const wanted = new Set(list.map((r) => r.name));
      const items = (await cluster.list(group, kind, namespace || undefined, { signal, metadataOnly: true })).items;
      for (const item of items) if (wanted.has(item.metadata.name ?? "")) out.set(refKey({ group, kind, namespace, name: item.metadata.name ?? "" }), item);
    }),
  );
  return out;
}

function refOfLive(o: KubeObject): ObjRef {
  const slash = o.apiVersion.indexOf("/");
  return { group: slash < 0 ? "" : o.apiVersion.slice(0, slash), kind: o.kind, namespace: o.metadata.namespace ?? "", name: o.metadata.name ?? "" };
}

async function markAll(cluster: Cluster, objects: readonly KubeObject[], marks: Parameters<Writer["mark"]>[2], signal?: AbortSignal): Promise<void> {
  const writer = new Writer(cluster, 16);
  const failures = (await Promise.all(objects.map(async (l) => ({ ref: refOfLive(l), why: await writer.mark(refOfLive(l), l, marks) })))).filter((f) => f.why);
  signal?.throwIfAborted();
  if (failures.length) {
    throw new ClusterError(`could not change the inventory marks of ${failures.length} object(s), e.g. ${failures[0]!.ref.kind} ${failures[0]!.ref.namespace}/${failures[0]!.ref.name}: ${failures[0]!.why}`, {
      detail: "Nothing was deleted: both inventories still cover every object. Fix the cause and run live migrate again to finish.",
    });
  }
}
