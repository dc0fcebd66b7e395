// Who may touch an object: the inventory policy compares the live object's owner with ours (kpt's
// table; reference §3.6). The owner is the ApplySet its part-of label names (KEP-3659: the label
// is the source of truth of membership), else the inventory its owning-inventory annotation
// names: kpt-ts marks an ApplySet's members with both, kubectl with the label only, kpt with the
// annotation only. Pure.

import type { KubeObject } from "../model/kube-object.js";
import { APPLYSET_PART_OF_LABEL, OWNING_INVENTORY_ANNOTATION } from "../model/inventory-keys.js";

export type InventoryPolicy = "strict" | "adopt" | "force-adopt";
export type Ownership = "Empty" | "Match" | "NoMatch";

const KPT_POLICY_NAME: Record<InventoryPolicy, string> = {
  strict: "MustMatch",
  adopt: "AdoptIfNoInventory",
  "force-adopt": "AdoptAll",
};

/** The id of the inventory that owns the object, if any. */
export function ownerOf(live: KubeObject): string | undefined {
  return live.metadata.labels?.[APPLYSET_PART_OF_LABEL] || live.metadata.annotations?.[OWNING_INVENTORY_ANNOTATION] || undefined;
}

export function ownershipOf(live: KubeObject, inventoryId: string): Ownership {
  const owner = ownerOf(live);
  if (!owner) return "Empty";
  return owner === inventoryId ? "Match" : "NoMatch";
}

/**
 * The inventory policy's one filter (cli-utils' inventory.CanApply), asked by the apply planner
 * and the prune filters alike: why the run may not touch this live object, or undefined when it
 * may. kpt's own words first (scripts match on them), then what kpt never says (kpt#2489): who
 * owns it and what to do.
 */
export function policyRefusal(live: KubeObject, inventoryId: string, policy: InventoryPolicy, strategy: "Apply" | "Delete"): string | undefined {
  const ownership = ownershipOf(live, inventoryId);
  if (ownership === "Match" || policy === "force-adopt" || (ownership === "Empty" && policy === "adopt")) return undefined;
  const kpt = `inventory policy prevented actuation (strategy: ${strategy}, status: ${ownership}, policy: ${KPT_POLICY_NAME[policy]})`;
  if (ownership === "NoMatch") {
    return `${kpt}: it belongs to inventory "${ownerOf(live)}"; remove it from one of the two packages, or take it over with --inventory-policy=force-adopt`;
  }
  if (strategy === "Apply") return `${kpt}: it already exists and no inventory owns it; take it over with --inventory-policy=adopt`;
  return `${kpt}: no inventory owns it, so it is not deleted`;
}
