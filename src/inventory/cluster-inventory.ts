// Reading and writing the ResourceGroup in the cluster, and installing its CRD.
// Writes are full updates of the cluster copy (as kpt does), retried on conflicts.

import { setTimeout as sleep } from "node:timers/promises";
import { ApiError, briefApiError } from "../cluster/api-error.js";
import type { Cluster } from "../cluster/types.js";
import { ClusterError } from "../errors.js";
import type { ObjRef } from "../object/ref.js";
import type { InventoryInfo, KubeObject } from "../object/types.js";
import { computeStatus } from "../status/compute-status.js";
import { RESOURCE_GROUP_CRD, RESOURCE_GROUP_CRD_NAME } from "./resourcegroup-crd.js";
import { INVENTORY_ID_LABEL, RESOURCE_GROUP_API_VERSION, RESOURCE_GROUP_KIND } from "./keys.js";
import { buildResourceGroup, buildResourceGroupStatus, inventoryIdOf, inventoryRef, refsOfResourceGroup, type ResourceStatusEntry } from "./resource-group.js";

const CRD_REF: ObjRef = { group: "apiextensions.k8s.io", kind: "CustomResourceDefinition", namespace: "", name: RESOURCE_GROUP_CRD_NAME };

export function crdMissingError(): ClusterError {
  return new ClusterError(
    "The ResourceGroup CRD was not found in the cluster. Please install it either by using the '--install-resource-group' flag or the 'kpt-ts live install-resource-group' command.",
  );
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
        detail: err.status === 403 ? "Installing a CRD needs cluster-admin rights; ask an administrator to run `kpt-ts live install-resource-group`." : undefined,
      });
    } else throw err;
  }
  const deadline = Date.now() + (opts.timeoutMs ?? 60_000);
  for (;;) {
    const crd = await cluster.get(CRD_REF, opts.signal);
    if (crd && computeStatus(crd).status === "Current") break;
    if (Date.now() > deadline) throw new ClusterError(`the ResourceGroup CRD did not become Established within ${Math.round((opts.timeoutMs ?? 60_000) / 1000)}s`);
    await sleep(100, undefined, { signal: opts.signal });
  }
  cluster.resetDiscovery();
  return created;
}

export interface ClusterInventory {
  object?: KubeObject;
  refs: ObjRef[];
}

/** The inventory object in the cluster, checked against the package's inventory id. */
export async function readClusterInventory(cluster: Cluster, info: InventoryInfo, signal?: AbortSignal): Promise<ClusterInventory> {
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

/** Writes the inventory (create or full update), retrying on conflicts; returns the stored object. */
export async function writeClusterInventory(
  cluster: Cluster,
  info: InventoryInfo,
  refs: ObjRef[],
  opts: { statuses?: ResourceStatusEntry[]; signal?: AbortSignal } = {},
): Promise<KubeObject> {
  for (let attempt = 1; ; attempt++) {
    const current = await cluster.get(inventoryRef(info), opts.signal);
    const desired = buildResourceGroup(info, refs, current);
    try {
      let stored = current ? await cluster.update(desired, { signal: opts.signal }) : await cluster.create(desired, { signal: opts.signal });
      if (opts.statuses) stored = await cluster.updateStatus(buildResourceGroupStatus(stored, opts.statuses), { signal: opts.signal });
      return stored;
    } catch (err) {
      if (err instanceof ApiError && err.status === 404 && /namespaces? ".*" not found/.test(err.message)) {
        throw new ClusterError(`cannot store the inventory in namespace "${info.namespace}": it does not exist`, {
          detail: "Create the namespace, or add a Namespace object for it to the package.",
        });
      }
      if (err instanceof ApiError && (err.status === 409 || err.status === 404) && attempt < 5) continue;
      if (err instanceof ApiError) throw new ClusterError(`cannot write the inventory ResourceGroup ${info.namespace}/${info.name}: ${briefApiError(err)}`, { cause: err });
      throw err;
    }
  }
}

export async function deleteClusterInventory(cluster: Cluster, info: InventoryInfo, signal?: AbortSignal): Promise<void> {
  try {
    await cluster.delete(inventoryRef(info), { signal });
  } catch (err) {
    if (err instanceof ApiError) throw new ClusterError(`cannot delete the inventory ResourceGroup ${info.namespace}/${info.name}: ${briefApiError(err)}`, { cause: err });
    throw err;
  }
}
