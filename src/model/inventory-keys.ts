// The labels and annotations kpt and cli-utils use; kpt-ts writes and honours the same ones.

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
