// The package's objects as they will be applied: every namespaced object in its namespace (the
// cluster says which kinds are namespaced), every object marked with the owning inventory.
// All problems are reported together, before anything is written.

import type { Cluster, Scope } from "../cluster/types.js";
import { PackageError } from "../model/errors.js";
import { OWNING_INVENTORY_ANNOTATION } from "../model/inventory-keys.js";
import { assignNamespaces } from "../object/namespaces.js";
import { groupOf } from "../model/ref.js";
import type { Package, PackageObject } from "../model/kube-object.js";

export async function prepareObjects(pkg: Package, cluster: Cluster, inventoryId: string): Promise<PackageObject[]> {
  const kinds = new Map<string, { group: string; kind: string }>();
  for (const po of pkg.objects) {
    const group = groupOf(po.object.apiVersion);
    kinds.set(`${group}/${po.object.kind}`, { group, kind: po.object.kind });
  }
  const scopes = new Map<string, Scope | undefined>();
  await Promise.all([...kinds].map(async ([key, gk]) => scopes.set(key, await cluster.scopeOf(gk.group, gk.kind))));
  const { objects, issues } = assignNamespaces(pkg.objects, {
    scopeOf: (group, kind) => scopes.get(`${group}/${kind}`),
    defaultNamespace: cluster.defaultNamespace,
    enforcedNamespace: cluster.namespaceEnforced ? cluster.defaultNamespace : undefined,
  });
  if (issues.length) throw new PackageError(issues);
  return objects.map((po) => ({
    ...po,
    object: {
      ...po.object,
      metadata: { ...po.object.metadata, annotations: { ...po.object.metadata.annotations, [OWNING_INVENTORY_ANNOTATION]: inventoryId } },
    },
  }));
}
