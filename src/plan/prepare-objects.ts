// The package's objects as they will be applied: every namespaced object in its namespace (the
// cluster says which kinds are namespaced), every object marked with the owning inventory (and,
// for an ApplySet, labelled as its member, as kubectl labels them before it applies them).
// All problems are reported together, before anything is written.

import type { Cluster, Scope } from "../cluster/types.js";
import { MAX_ANNOTATIONS_BYTES, storedAnnotationBytes } from "../apply/stored-annotations.js";
import { PackageError, type PackageIssue } from "../model/errors.js";
import { APPLYSET_PART_OF_LABEL, OWNING_INVENTORY_ANNOTATION } from "../model/inventory-keys.js";
import { assignNamespaces } from "../object/namespaces.js";
import { groupOf } from "../model/ref.js";
import type { InventoryInfo, Package, PackageObject } from "../model/kube-object.js";

export async function prepareObjects(pkg: Package, cluster: Cluster, inventory: Pick<InventoryInfo, "id" | "applySet">): Promise<PackageObject[]> {
  const inventoryId = inventory.id;
  if (inventory.applySet) refuseOwnPartOfLabels(pkg.objects);
  const kinds = new Map<string, { group: string; kind: string }>();
  for (const po of pkg.objects) {
    const group = groupOf(po.object.apiVersion);
    kinds.set(`${group}/${po.object.kind}`, { group, kind: po.object.kind });
  }
  const scopes = new Map<string, Scope | undefined>();
  await Promise.all([...kinds].map(async ([key, gk]) => scopes.set(key, await cluster.scopeOf(gk.group, gk.kind))));
  // Objects of an aggregated API that is unavailable right now are not unknown kinds: they go
  // on as written and fail on their own (naming the APIService); the rest of the package applies.
  const unknownGroups = new Set([...kinds].filter(([key]) => scopes.get(key) === undefined).map(([, gk]) => gk.group));
  const unavailable = unknownGroups.size ? new Set(((await cluster.unavailableApis?.().catch(() => [])) ?? []).map((u) => u.group).filter((g) => unknownGroups.has(g))) : new Set<string>();
  const waiting = pkg.objects.filter((po) => unavailable.has(groupOf(po.object.apiVersion)));
  const { objects, issues } = assignNamespaces(waiting.length ? pkg.objects.filter((po) => !unavailable.has(groupOf(po.object.apiVersion))) : pkg.objects, {
    scopeOf: (group, kind) => scopes.get(`${group}/${kind}`),
    defaultNamespace: cluster.defaultNamespace,
    enforcedNamespace: cluster.namespaceEnforced ? cluster.defaultNamespace : undefined,
  });
  if (issues.length) throw new PackageError(issues);
  const prepared = [...objects, ...waiting].map((po) => ({
    ...po,
    object: {
      ...po.object,
      metadata: {
        ...po.object.metadata,
        ...(inventory.applySet ? { labels: { ...po.object.metadata.labels, [APPLYSET_PART_OF_LABEL]: inventoryId } } : {}),
        annotations: { ...po.object.metadata.annotations, [OWNING_INVENTORY_ANNOTATION]: inventoryId },
      },
    },
  }));
  const tooLarge = prepared.filter((po) => storedAnnotationBytes(po.object, "server-side") > MAX_ANNOTATIONS_BYTES);
  if (tooLarge.length) throw new PackageError(tooLarge.map(annotationsTooLarge));
  return prepared;
}

/** KEP-3659: a manifest that sets the part-of label itself is invalid (the tool sets it). */
function refuseOwnPartOfLabels(objects: readonly PackageObject[]): void {
  const labelled = objects.filter((po) => po.object.metadata.labels?.[APPLYSET_PART_OF_LABEL] !== undefined);
  if (!labelled.length) return;
  throw new PackageError(
    labelled.map((po) => ({
      source: { ...po.source, line: po.lineOf?.(["metadata", "labels", APPLYSET_PART_OF_LABEL]) ?? po.source.line },
      object: `${po.object.kind}/${po.object.metadata.name ?? ""}`,
      message: `the label ${APPLYSET_PART_OF_LABEL} is set by kpt-ts on every member of the package's ApplySet: remove it from the package`,
    })),
  );
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
