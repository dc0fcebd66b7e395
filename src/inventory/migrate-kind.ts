// `live migrate --to applyset | resourcegroup`: the package's side of moving between inventory
// kinds, decided without touching the disk or the cluster. Every object stays where it is; only
// its inventory marks change (the cluster half, migrate-kind-cluster.ts). ResourceGroup ->
// ApplySet: the ApplySet's id follows from its parent, so each object's owning-inventory
// annotation changes to it and it gains the part-of label. ApplySet -> ResourceGroup: the new
// ResourceGroup takes the ApplySet's id as its inventory id, so the annotation stays and a
// migration interrupted half way is finished by running it again (the ResourceGroup it created
// is found by that id).

import { posix } from "node:path";
import { PackageError, UsageError } from "../model/errors.js";
import { APPLYSET_FILE_API_VERSION, APPLYSET_FILE_KIND, RESOURCE_GROUP_API_VERSION, RESOURCE_GROUP_KIND } from "../model/inventory-keys.js";
import { isRecord, type ApplySetParent, type InventoryInfo } from "../model/kube-object.js";
import type { PackageFile } from "../object/parse-package.js";
import { parseYamlDocuments } from "../object/yaml-documents.js";
import { applySetInventory } from "./applyset.js";
import { formatResourceGroup, type FileWrite } from "./init.js";
import { formatApplySetFile } from "./init-applyset.js";
import { splitDocuments } from "./migrate.js";

export interface KindMigrationOptions {
  to: "applyset" | "resourcegroup";
  /** `--name`: the new inventory's name (default: the old one's). */
  name?: string;
  /** The new inventory's file. */
  file: string;
  parentKind: ApplySetParent["kind"];
  dir: string;
}

export interface KindMigration {
  from: InventoryInfo;
  to: InventoryInfo;
  /** Files to write (the new inventory's), and to remove or rewrite without the old inventory's document. */
  writes: FileWrite[];
  removes: string[];
}

/**
 * The migration of `inventory` (the package's, as read) to the other kind; undefined when the
 * package already has the kind asked for.
 */
export function planKindMigration(files: readonly PackageFile[], inventory: InventoryInfo, o: KindMigrationOptions): KindMigration | undefined {
  const isApplySet = Boolean(inventory.applySet);
  if ((o.to === "applyset") === isApplySet) return undefined;
  if (inventory.origin === "kptfile") {
    throw new UsageError('the package keeps its inventory in the Kptfile: run "kpt-ts live migrate" first (it moves it to resourcegroup.yaml), then "kpt-ts live migrate --to applyset"');
  }
  if (inventory.origin === "flag") throw new UsageError("--applyset names an inventory the package does not record: live migrate moves a package's own inventory (live init --inventory-kind applyset records one)");
  const name = o.name || inventory.name;
  const target: InventoryInfo =
    o.to === "applyset"
      ? applySetInventory({ name, namespace: inventory.namespace, kind: o.parentKind, origin: "applyset", source: { file: o.file, line: 1 }, labels: inventory.labels, annotations: inventory.annotations })
      : { name, namespace: inventory.namespace, id: inventory.id, labels: inventory.labels, annotations: inventory.annotations, origin: "resourcegroup", source: { file: o.file, line: 1 } };
  const holder = files.find((f) => documentsOf(f).some((d) => isInventoryDocument(d, isApplySet)));
  if (!holder) throw new PackageError([{ source: inventory.source, message: "the package's inventory document was not found among its files: run live migrate on the package directory" }]);
  const { removes, writes } = withoutInventoryDocument(holder, isApplySet);
  if (files.some((f) => f.path === o.file) && !removes.includes(o.file) && !writes.some((w) => w.path === o.file)) {
    throw new PackageError([{ source: { file: posix.join(o.dir, o.file), line: 1 }, message: `${o.file} exists already: pick another file for the new inventory with --rg-file` }]);
  }
  const content = o.to === "applyset" ? formatApplySetFile({ name, namespace: target.namespace, parentKind: o.parentKind }) : formatResourceGroup({ name, namespace: target.namespace, inventoryId: target.id });
  return {
    from: inventory,
    to: target,
    writes: [...writes.filter((w) => w.path !== o.file), { path: o.file, content, mode: 0o600 }],
    removes: removes.filter((r) => r !== o.file),
  };
}

function documentsOf(f: PackageFile): unknown[] {
  if (posix.basename(f.path) === "Kptfile") return [];
  return parseYamlDocuments(f.content).documents.map((d) => d.value);
}

function isInventoryDocument(v: unknown, applySet: boolean): boolean {
  if (!isRecord(v)) return false;
  return applySet ? v.apiVersion === APPLYSET_FILE_API_VERSION && v.kind === APPLYSET_FILE_KIND : v.apiVersion === RESOURCE_GROUP_API_VERSION && v.kind === RESOURCE_GROUP_KIND;
}

/** The file without the inventory's document: removed when that was all it held, else rewritten with the rest as written. */
function withoutInventoryDocument(f: PackageFile, applySet: boolean): { removes: string[]; writes: FileWrite[] } {
  const chunks = splitDocuments(f.content);
  const kept = chunks.filter((c) => {
    const docs = parseYamlDocuments(c).documents;
    return docs.length > 0 && !docs.some((d) => isInventoryDocument(d.value, applySet));
  });
  if (kept.length === 0) return { removes: [f.path], writes: [] };
  return { removes: [], writes: [{ path: f.path, content: kept.map((c) => c.replace(/\n*$/, "\n")).join("---\n"), mode: 0o644 }] };
}
