// The detach step: an object kept by its protection annotation (on-remove: keep, deletion:
// detach) leaves the inventory, and its owning-inventory annotation is removed so that no
// inventory claims it any more (kpt's abandon).

import { ApiError } from "../cluster/api-error.js";
import type { Cluster } from "../cluster/types.js";
import { OWNING_INVENTORY_ANNOTATION } from "../model/inventory-keys.js";
import type { ObjRef } from "../model/ref.js";
import type { KubeObject } from "../model/kube-object.js";

/** Undefined when detached (or already gone); else why it could not be. */
export async function detachFromInventory(cluster: Cluster, ref: ObjRef, live: KubeObject): Promise<string | undefined> {
  if (!live.metadata.annotations?.[OWNING_INVENTORY_ANNOTATION]) return undefined;
  try {
    await cluster.patch(ref, { metadata: { annotations: { [OWNING_INVENTORY_ANNOTATION]: null } } }, "merge");
    return undefined;
  } catch (err) {
    if (err instanceof ApiError && err.notFound) return undefined;
    return `cannot detach it from the inventory: ${(err as Error).message}`;
  }
}
