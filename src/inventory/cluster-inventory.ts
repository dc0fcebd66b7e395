// Reading and writing the ResourceGroup in the cluster, and installing its CRD.
// Writes are full updates of the cluster copy (as kpt does), guarded by the resourceVersion this
// run read, so two runs of one package at once never drop each other's objects.

import { setTimeout as sleep } from "node:timers/promises";
import { ApiError, briefApiError } from "../cluster/api-error.js";
import type { Cluster } from "../cluster/types.js";
import { ClusterError } from "../model/errors.js";
import type { ObjRef } from "../model/ref.js";
import type { InventoryInfo, KubeObject } from "../model/kube-object.js";
import { readApplySet, type StoredInventory } from "./cluster-applyset.js";
import { RESOURCE_GROUP_CRD, RESOURCE_GROUP_CRD_NAME } from "./resourcegroup-crd.js";
import { INVENTORY_ID_LABEL, KPT_GROUP, MERGED_FROM_ANNOTATION, RESOURCE_GROUP_API_VERSION, RESOURCE_GROUP_KIND } from "../model/inventory-keys.js";
import { mergeConcurrent, sameRefs } from "./next-inventory.js";
import { buildResourceGroup, buildResourceGroupStatus, inventoryIdOf, inventoryRef, refsOfResourceGroup, type ResourceStatusEntry } from "./resource-group.js";
import { INVENTORY_BYTE_BUDGET, jsonBytes } from "./inventory-size.js";

const CRD_REF: ObjRef = { group: "apiextensions.k8s.io", kind: "CustomResourceDefinition", namespace: "", name: RESOURCE_GROUP_CRD_NAME };

export function crdMissingError(): ClusterError {
  return new ClusterError(
    "The ResourceGroup CRD was not found in the cluster. Please install it either by using the '--install-resource-group' flag or the 'kpt live install-resource-group' command.",
  );
}

/**
 * kpt's error (exit 1) where a run must read inventories from a cluster without their kind:
 * `live status`, `live destroy` (`reading` one package's inventory) and `--inv-type remote`.
 * Never "nothing found": a wrong context would look like a clean, empty cluster.
 */
export function resourceGroupKindNotServedError(reading: "one" | "all"): ClusterError {
  const noMatch = `no matches for kind "${RESOURCE_GROUP_KIND}" in version "${RESOURCE_GROUP_API_VERSION}"`;
  return new ClusterError(reading === "one" ? `failed to read inventory from cluster: failed to read inventory objects from cluster: ${noMatch}` : noMatch, {
    detail: "The ResourceGroup CRD is not installed in this cluster, so no package has an inventory here: check the cluster (--context, --kubeconfig); `kpt-ts live install-resource-group` installs the CRD.",
  });
}

export async function resourceGroupCrdInstalled(cluster: Cluster): Promise<boolean> {
  return cluster.serves(RESOURCE_GROUP_API_VERSION, RESOURCE_GROUP_KIND);
}

/**
 * Creates the CRD when missing (an existing one is left as it is, like kpt) and waits until it
 * is Established. Returns true when it had to be created.
 */
export async function installResourceGroupCrd(cluster: Cluster, opts: { timeoutMs?: number; signal?: AbortSignal } = {}): Promise<boolean> {
  let created = false;
  try {
    const existing = await cluster.get(CRD_REF, opts.signal);
    if (!existing) {
      await cluster.create(structuredClone(RESOURCE_GROUP_CRD), { signal: opts.signal });
      created = true;
    }
  } catch (err) {
    if (err instanceof ApiError && err.status === 409) {
      /* created by someone else meanwhile */
    } else if (err instanceof ApiError) {
      throw new ClusterError(`Unable to install the ResourceGroup CRD: ${briefApiError(err)}`, {
        detail: err.status === 403 ? "Installing a CRD needs cluster-admin rights; ask an administrator to run `kpt live install-resource-group`." : undefined,
      });
    } else throw err;
  }
  const deadline = Date.now() + (opts.timeoutMs ?? 60_000);
  for (;;) {
    const crd = await cluster.get(CRD_REF, opts.signal);
    if (crd && isEstablished(crd)) break;
    if (Date.now() > deadline) throw new ClusterError(`the ResourceGroup CRD did not become Established within ${Math.round((opts.timeoutMs ?? 60_000) / 1000)}s`);
    await sleep(100, undefined, { signal: opts.signal });
  }
  // Established comes a moment before discovery lists the kind (longer after the CRD was just
  // deleted and created again): the run's next read of a ResourceGroup would say "not served".
  for (;;) {
    cluster.resetDiscovery();
    if (await cluster.serves(RESOURCE_GROUP_API_VERSION, RESOURCE_GROUP_KIND)) break;
    if (Date.now() > deadline) throw new ClusterError(`the ResourceGroup CRD is Established but the API server did not serve ${RESOURCE_GROUP_KIND}.${KPT_GROUP} within ${Math.round((opts.timeoutMs ?? 60_000) / 1000)}s`, { detail: "run the command again; if it persists, check the API server's logs" });
    await sleep(100, undefined, { signal: opts.signal });
  }
  return created;
}

/** The CRD's Established condition is True: its kinds can be served. */
function isEstablished(crd: KubeObject): boolean {
  const conditions = (crd.status as { conditions?: { type?: string; status?: string }[] } | undefined)?.conditions;
  return Array.isArray(conditions) && conditions.some((c) => c?.type === "Established" && c.status === "True");
}

/**
 * The package's inventory as `live status` reads it: kpt's error without the CRD; absent
 * (`object` unset) when it is not in the cluster. An ApplySet: its parent and its members.
 */
export async function readInventoryForStatus(cluster: Cluster, info: InventoryInfo, signal?: AbortSignal): Promise<StoredInventory> {
  if (info.applySet) return readApplySet(cluster, info, { signal });
  // Both at once: the inventory's read does not wait for discovery (see KubeCluster.mapping).
  const [installed, read] = await Promise.all([resourceGroupCrdInstalled(cluster), readClusterInventory(cluster, info, signal).then((r) => ({ r }), (err: unknown) => ({ err }))]);
  if (!installed) throw resourceGroupKindNotServedError("one");
  if ("err" in read) throw read.err;
  return read.r;
}

/** Every ResourceGroup in the cluster, or in one namespace; none without their CRD. */
export async function listResourceGroups(cluster: Cluster, o: { namespace?: string; signal?: AbortSignal } = {}): Promise<KubeObject[]> {
  if (!(await resourceGroupCrdInstalled(cluster))) return [];
  return (await cluster.list(KPT_GROUP, RESOURCE_GROUP_KIND, o.namespace, { signal: o.signal })).items;
}

/** The inventory object in the cluster, checked against the package's inventory id. */
export async function readClusterInventory(cluster: Cluster, info: InventoryInfo, signal?: AbortSignal): Promise<StoredInventory> {
  const rg = await cluster.get(inventoryRef(info), signal);
  if (!rg) return { refs: [] };
  const id = inventoryIdOf(rg);
  if (id !== info.id) {
    throw new ClusterError(
      `inventory-id of inventory object in cluster doesn't match provided id "${info.id}": ResourceGroup ${info.namespace}/${info.name} has ${INVENTORY_ID_LABEL}="${id ?? ""}"`,
      { detail: "Another package uses this inventory name. Give this package its own with `kpt-ts live init --force --name NEW`, or restore the package's original resourcegroup.yaml." },
    );
  }
  return { object: rg, refs: refsOfResourceGroup(rg) };
}

interface WriteInventoryOptions {
  /** Written to the status subresource after the list (`--status-policy all`). */
  statuses?: ResourceStatusEntry[];
  signal?: AbortSignal;
  /**
   * The cluster copy this run last read or wrote (`null`: there was none). The write then
   * succeeds only if nobody changed the inventory since: its resourceVersion is the precondition.
   * Without it, the freshest copy is read and overwritten.
   */
  basedOn?: KubeObject | null;
  /**
   * When someone else changed the inventory since `basedOn` (another apply or destroy of the
   * package at the same time): "fail" stops with a ClusterError (use it before any object was
   * touched); "merge" stores the union of their list and ours, so neither run's objects drop out.
   */
  onConflict?: "fail" | "merge";
  /** Told when the server refused the statuses as too large (they are left out; the list is stored). */
  onWarning?: (message: string) => void;
}

/**
 * Writes the inventory (create or full update); returns the stored object. A conflict whose
 * stored list already is ours (a write of ours whose answer was lost, then repeated) counts as done.
 */
export async function writeClusterInventory(cluster: Cluster, info: InventoryInfo, refs: ObjRef[], opts: WriteInventoryOptions = {}): Promise<KubeObject> {
  const guarded = opts.basedOn !== undefined;
  let base = opts.basedOn ?? undefined;
  let want = refs;
  let stored: KubeObject | undefined;
  // Set once this run merged another run's list into its own (the resourceVersion it read).
  let mergedFrom: string | undefined;
  const build = (current: KubeObject | undefined) => withMergeMark(buildResourceGroup(info, want, current), mergedFrom);
  for (let attempt = 1; !stored; attempt++) {
    let current = guarded ? base : await cluster.get(inventoryRef(info), opts.signal);
    let desired = build(current);
    try {
      // The server keeps the stored status through a spec write: when the new list and the old
      // statuses together would be too large, the statuses go first.
      if (current?.status && jsonBytes(desired) + jsonBytes(current.status) > INVENTORY_BYTE_BUDGET) {
        current = await cluster.updateStatus(buildResourceGroupStatus(current, []), { signal: opts.signal });
        if (guarded) base = current;
        desired = build(current);
      }
      stored = current ? await cluster.update(desired, { signal: opts.signal }) : await cluster.create(desired, { signal: opts.signal });
    } catch (err) {
      if (err instanceof ApiError && err.missingNamespace !== undefined) {
        throw new ClusterError(`cannot store the inventory in namespace "${info.namespace}": it does not exist`, {
          detail: "Create the namespace, or add a Namespace object for it to the package.",
        });
      }
      if (!(err instanceof ApiError && (err.status === 409 || err.status === 404) && attempt < 8)) throw inventoryWriteError(info, err);
      if (!guarded) continue;
      const now = await readClusterInventory(cluster, info, opts.signal);
      if (now.object && sameRefs(now.refs, want)) {
        stored = now.object;
        break;
      }
      if (opts.onConflict !== "merge") throw concurrentChangeError(info, "apply", "This apply stopped before changing anything.");
      want = mergeConcurrent(now.refs, want);
      base = now.object;
      mergedFrom = now.object?.metadata.resourceVersion;
    }
  }
  if (!opts.statuses) return stored;
  for (let attempt = 1; ; attempt++) {
    try {
      return await cluster.updateStatus(buildResourceGroupStatus(stored, opts.statuses), { signal: opts.signal });
    } catch (err) {
      // Statuses are advisory: a server whose limit is lower than we planned for stores the list without them.
      if (err instanceof ApiError && err.tooLarge) {
        opts.onWarning?.(`the API server refused the statuses of inventory ResourceGroup ${info.namespace}/${info.name} as too large (${briefApiError(err)}): the inventory lists its objects without them; pass --status-policy=none to not record them`);
        return stored;
      }
      // The status is ours alone to write: on a conflict, write it onto the newest copy.
      if (!(err instanceof ApiError && err.status === 409 && attempt < 8)) throw inventoryWriteError(info, err);
      stored = (await cluster.get(inventoryRef(info), opts.signal)) ?? stored;
    }
  }
}

/**
 * A merged list often equals the stored one (the other run's list already held ours), and the
 * server does not change an object, nor its resourceVersion, for a write that changes nothing.
 * The other run, writing its own final list based on that same resourceVersion, would then not
 * see that anyone else wrote, and could drop objects of ours it found missing before we created
 * them. The mark makes every merge a write the other run's precondition notices; it always
 * differs from the stored value, which names an older resourceVersion.
 */
function withMergeMark(rg: KubeObject, mergedFrom: string | undefined): KubeObject {
  if (mergedFrom === undefined) return rg;
  return { ...rg, metadata: { ...rg.metadata, annotations: { ...rg.metadata.annotations, [MERGED_FROM_ANNOTATION]: mergedFrom } } };
}

function inventoryWriteError(info: InventoryInfo, err: unknown): unknown {
  if (err instanceof ApiError) return new ClusterError(`cannot write the inventory ResourceGroup ${info.namespace}/${info.name}: ${briefApiError(err)}`, { cause: err });
  return err;
}

function concurrentChangeError(info: InventoryInfo, command: "apply" | "destroy", done: string): ClusterError {
  return new ClusterError(
    `the inventory ResourceGroup ${info.namespace}/${info.name} changed while this ${command} ran: another apply or destroy of this package is running at the same time`,
    { detail: `${done} Run ${command} again once the other run has finished.` },
  );
}

/** True when nobody wrote the inventory since `stored` (one read). */
export async function inventoryUnchangedSince(cluster: Cluster, info: InventoryInfo, stored: KubeObject | undefined, signal?: AbortSignal): Promise<boolean> {
  // Metadata only: the inventory's status lists every object, which this check does not need.
  const now = await cluster.get(inventoryRef(info), signal, { metadataOnly: true });
  return now?.metadata.resourceVersion === stored?.metadata.resourceVersion;
}

/**
 * Deletes the inventory once it lists nothing that may still exist. With `basedOn`, only if nobody
 * changed it since; when someone did (an apply of the package meanwhile added objects), it is
 * kept, listing what they added, and a ClusterError says so.
 */
export async function deleteClusterInventory(cluster: Cluster, info: InventoryInfo, opts: { basedOn?: KubeObject; signal?: AbortSignal } = {}): Promise<void> {
  let base = opts.basedOn;
  for (let attempt = 1; ; attempt++) {
    try {
      await cluster.delete(inventoryRef(info), { signal: opts.signal, resourceVersion: base?.metadata.resourceVersion });
      return;
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      if (err.status !== 409 || !base || attempt >= 8) throw new ClusterError(`cannot delete the inventory ResourceGroup ${info.namespace}/${info.name}: ${briefApiError(err)}`, { cause: err });
      const now = await readClusterInventory(cluster, info, opts.signal);
      if (!now.object) return;
      if (now.refs.length > 0) throw concurrentChangeError(info, "destroy", "The inventory is kept: it lists the objects the other run added.");
      base = now.object;
    }
  }
}
