// The labels and annotations kpt and cli-utils use; kpt-ts writes and honours the same ones.

import { createHash } from "node:crypto";

export const INVENTORY_ID_LABEL = "cli-utils.sigs.k8s.io/inventory-id";
export const OWNING_INVENTORY_ANNOTATION = "config.k8s.io/owning-inventory";
export const ON_REMOVE_ANNOTATION = "cli-utils.sigs.k8s.io/on-remove";
export const ON_REMOVE_KEEP = "keep";
export const DELETION_ANNOTATION = "client.lifecycle.config.k8s.io/deletion";
export const DELETION_DETACH = "detach";
/** kpt's API group: its Kptfile and the ResourceGroup inventory. */
export const KPT_GROUP = "kpt.dev";
export const RESOURCE_GROUP_VERSION = "v1alpha1";
export const RESOURCE_GROUP_API_VERSION = `${KPT_GROUP}/${RESOURCE_GROUP_VERSION}`;
export const RESOURCE_GROUP_KIND = "ResourceGroup";

/**
 * kpt-ts's own: set on the inventory when two runs of a package wrote it at once and one merged
 * the other's list into its own (its value: the resourceVersion merged from). See
 * writeClusterInventory: it makes every merge a real write.
 */
export const MERGED_FROM_ANNOTATION = "kpt-ts.dev/merged-from";

// ApplySet (KEP-3659, as kubectl 1.27+ implements it with KUBECTL_APPLYSET=true): an inventory
// with no list to outgrow and no CRD. The parent (a Secret or ConfigMap) carries the id label,
// the tooling and the group-kinds hint; every member carries the part-of label.

/** On the parent: `applyset-<base64url(sha256(<name>.<namespace>.<kind>.<group>))>-v1`. */
export const APPLYSET_ID_LABEL = "applyset.kubernetes.io/id";
/** On every member: the parent's id. The source of truth of membership. */
export const APPLYSET_PART_OF_LABEL = "applyset.kubernetes.io/part-of";
/** On the parent: `<tool>/<version>`; a tool refuses to change another tool's ApplySet. */
export const APPLYSET_TOOLING_ANNOTATION = "applyset.kubernetes.io/tooling";
/** On the parent: the members' group-kinds, `<Kind>.<group>` (`Kind` for the core group), sorted, comma-separated. */
export const APPLYSET_GROUP_KINDS_ANNOTATION = "applyset.kubernetes.io/contains-group-kinds";
/** On the parent: the members' namespaces other than the parent's, sorted, comma-separated. */
export const APPLYSET_NAMESPACES_ANNOTATION = "applyset.kubernetes.io/additional-namespaces";
/** kubectl's older hint (resources, not kinds), still read by kubectl. */
export const APPLYSET_GROUP_RESOURCES_ANNOTATION = "applyset.kubernetes.io/contains-group-resources";
/** kpt-ts's own package document recording an ApplySet inventory (never applied: local-config). */
export const APPLYSET_FILE_API_VERSION = "kpt-ts.dev/v1alpha1";
export const APPLYSET_FILE_KIND = "ApplySet";

/**
 * KEP-3659's id of the ApplySet hanging from this parent (kubectl's ApplySet.ID()):
 * `applyset-` + base64url(sha256("<name>.<namespace>.<kind>.<group>")) + `-v1`.
 */
export function applySetId(parent: { name: string; namespace: string; kind: string; group: string }): string {
  const hash = createHash("sha256").update(`${parent.name}.${parent.namespace}.${parent.kind}.${parent.group}`).digest("base64url");
  return `applyset-${hash}-v1`;
}
