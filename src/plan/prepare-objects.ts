// The package's objects as they will be applied: every namespaced object in its namespace (the
// cluster says which kinds are namespaced), every object marked with the owning inventory.
// All problems are reported together, before anything is written.

import type { Cluster, Scope } from "../cluster/types.js";
import { MAX_ANNOTATIONS_BYTES, storedAnnotationBytes } from "../apply/stored-annotations.js";
import { PackageError, type PackageIssue } from "../errors.js";
import { OWNING_INVENTORY_ANNOTATION } from "../inventory/keys.js";
import { assignNamespaces } from "../object/namespaces.js";
import { groupOf } from "../object/ref.js";
import type { Package, PackageObject } from "../object/types.js";

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
  const prepared = objects.map((po) => ({
    ...po,
    object: {
      ...po.object,
      metadata: { ...po.object.metadata, annotations: { ...po.object.metadata.annotations, [OWNING_INVENTORY_ANNOTATION]: inventoryId } },
    },
  }));
  const tooLarge = prepared.filter((po) => storedAnnotationBytes(po.object, "server-side") > MAX_ANNOTATIONS_BYTES);
  if (tooLarge.length) throw new PackageError(tooLarge.map(annotationsTooLarge));
  return prepared;
}

/**
 * Annotations the server would refuse even with server-side apply, once kpt-ts adds its own
 * (what client-side apply adds on top is its own matter: apply/stored-annotations.ts).
 */
function annotationsTooLarge(po: PackageObject): PackageIssue {
  const bytes = storedAnnotationBytes(po.object, "server-side");
  return {
    source: { ...po.source, line: po.lineOf?.(["metadata", "annotations"]) ?? po.source.line },
    object: `${po.object.kind}/${po.object.metadata.name ?? ""}`,
    message: `metadata.annotations would be ${bytes} bytes with the ${OWNING_INVENTORY_ANNOTATION} annotation kpt-ts adds; the API server stores at most ${MAX_ANNOTATIONS_BYTES} bytes of annotations: make them smaller`,
  };
}
