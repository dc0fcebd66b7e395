// What `live migrate` does to a package, decided without touching the disk or the cluster (as
// kpt's migrate): an inventory kept in the Kptfile (older `kpt live init`) or in a ConfigMap
// inventory template (cli-utils' `inventory-template.yaml`) moves to a ResourceGroup file. The
// inventory keeps its id, so every object's owning-inventory annotation still matches, and its
// name and namespace, so the cluster's inventory is found where it was.

import { posix } from "node:path";
import { PackageError, UsageError } from "../model/errors.js";
import { INVENTORY_ID_LABEL, RESOURCE_GROUP_KIND } from "../model/inventory-keys.js";
import type { PackageFile } from "../object/parse-package.js";
import type { ObjRef } from "../model/ref.js";
import { isRecord } from "../model/kube-object.js";
import { parseYamlDocuments } from "../object/yaml-documents.js";
import { planInit, rootPackageTest, type FileWrite } from "./init.js";

interface MigrateOptions {
  rgFile: string;
  /** `--name`: the ResourceGroup's name (ConfigMap inventories; default: the ConfigMap's). */
  name?: string;
  /** `-n`: the ResourceGroup's namespace (ConfigMap inventories; default: the ConfigMap's). */
  namespace?: string;
  /** `--force`: overwrite an existing ResourceGroup file (ConfigMap inventories), as kpt. */
  force: boolean;
  /** The package directory as the user gave it, for messages. */
  dir: string;
}

export interface MigratedInventory {
  name: string;
  namespace: string;
  id: string;
}

type MigratePlan =
  /** Already a ResourceGroup package (or migrated before): nothing to do. */
  | { from: "none" }
  | { from: "kptfile"; inventory: MigratedInventory; writes: FileWrite[] }
  | {
      from: "configmap";
      inventory: MigratedInventory;
      /** The ConfigMap inventory in the cluster: found by its id label in this namespace. */
      configMap: { name: string; namespace: string };
      writes: FileWrite[];
      /** The template's file: removed (`content` undefined) or rewritten without the template. */
      template: { path: string; content?: string };
    };

export function planMigrate(files: readonly PackageFile[], o: MigrateOptions): MigratePlan {
  const display = (rel: string): string => posix.join(o.dir, rel);
  const inRoot = rootPackageTest(files);
  const rootFiles = files.filter((f) => posix.basename(f.path) !== "Kptfile" && inRoot(f.path));
  const templates = rootFiles.flatMap((f) => configMapTemplates(f).map((t) => ({ file: f, ...t })));
  if (templates.length > 1) {
    throw new PackageError(
      templates.slice(1).map((t) => ({
        source: { file: display(t.file.path), line: t.line },
        object: `ConfigMap/${t.name}`,
        message: `a second ConfigMap inventory template (the first is in ${display(templates[0]!.file.path)}): keep the one the package was applied with`,
      })),
    );
  }
  const template = templates[0];
  if (template) {
    const inventory = { name: o.name || template.name, namespace: (o.namespace || template.namespace).trim(), id: template.id };
    const existing = existingResourceGroup(rootFiles, o.rgFile);
    // A ResourceGroup file with the same id is an earlier migrate that stopped half way: finish it.
    const force = o.force || existing?.id === inventory.id;
    const init = planInit(files, { name: inventory.name, namespace: inventory.namespace, inventoryId: inventory.id, force, rgFile: o.rgFile, dir: o.dir });
    if (!init.ok) throw init.error;
    const rest = template.otherDocuments;
    return {
      from: "configmap",
      inventory,
      configMap: { name: template.name, namespace: template.namespace },
      writes: init.writes,
      template: rest === undefined ? { path: template.file.path } : { path: template.file.path, content: rest },
    };
  }

  const kptfile = files.find((f) => f.path === "Kptfile");
  const inv = kptfile ? kptfileInventory(kptfile) : undefined;
  if (!inv) return { from: "none" };
  if (o.name && o.name !== inv.name) {
    throw new UsageError(
      `--name ${o.name}: the Kptfile's inventory is named ${inv.name}, and the cluster's ResourceGroup has that name; migrate keeps it (kpt ignores --name here). Rename later with "kpt-ts live init --force --name NEW" and a new apply`,
    );
  }
  if (o.namespace && o.namespace.trim() !== inv.namespace) {
    throw new UsageError(
      `-n ${o.namespace}: the Kptfile's inventory lives in namespace ${inv.namespace}, where the cluster's ResourceGroup is; migrate keeps it (kpt would move it, and the next apply would start an empty inventory there). Drop -n`,
    );
  }
  if (files.some((f) => f.path === o.rgFile)) {
    throw new PackageError([
      { source: { file: display(o.rgFile), line: 1 }, message: "the resourcegroup file already exists and inventory information cannot be migrated: remove it, or pick another file with --rg-file" },
    ]);
  }
  // kpt takes the namespace from the kubeconfig here; the Kptfile's is the one the cluster's inventory lives in.
  const init = planInit(files, { name: inv.name, namespace: inv.namespace, inventoryId: inv.id, force: true, rgFile: o.rgFile, dir: o.dir });
  if (!init.ok) throw init.error;
  return { from: "kptfile", inventory: inv, writes: init.writes };
}

/**
 * cli-utils' ConfigMap inventory data key, `<namespace>_<name>_<group>_<Kind>` (a `:` in a name,
 * as RBAC names have, written `__`), back to a reference; undefined when it is not one.
 */
export function parseInventoryKey(key: string): ObjRef | undefined {
  const parts = key.split("_");
  if (parts.length < 4) return undefined;
  const namespace = parts[0]!;
  const kind = parts[parts.length - 1]!;
  const group = parts[parts.length - 2]!;
  const name = parts.slice(1, -2).join("_").replace(/__/g, ":");
  if (!name || !kind) return undefined;
  return { group, kind, namespace, name };
}

/** The references a ConfigMap inventory lists (its data keys); keys that are not references are reported. */
export function configMapInventoryRefs(data: Record<string, unknown> | undefined): { refs: ObjRef[]; bad: string[] } {
  const refs: ObjRef[] = [];
  const bad: string[] = [];
  for (const key of Object.keys(data ?? {})) {
    const ref = parseInventoryKey(key);
    if (ref) refs.push(ref);
    else bad.push(key);
  }
  return { refs, bad };
}

interface Template {
  name: string;
  namespace: string;
  id: string;
  line: number;
  /** The file's text without the template; undefined when the template was all it held. */
  otherDocuments?: string;
}

/** ConfigMaps carrying the inventory-id label: cli-utils' inventory templates. */
function configMapTemplates(f: PackageFile): Template[] {
  const chunks = splitDocuments(f.content);
  const out: Template[] = [];
  let line = 1;
  for (const [i, chunk] of chunks.entries()) {
    const parsed = parseYamlDocuments(chunk);
    for (const doc of parsed.documents) {
      const v = doc.value;
      if (!isRecord(v) || v.kind !== "ConfigMap" || v.apiVersion !== "v1" || !isRecord(v.metadata)) continue;
      const labels = isRecord(v.metadata.labels) ? v.metadata.labels : {};
      const id = labels[INVENTORY_ID_LABEL];
      if (typeof id !== "string") continue;
      const others = chunks.filter((_, j) => j !== i && parseYamlDocuments(chunks[j]!).documents.length > 0);
      out.push({
        name: String(v.metadata.name ?? ""),
        namespace: typeof v.metadata.namespace === "string" ? v.metadata.namespace : "",
        id,
        line: line + doc.line - 1,
        ...(others.length > 0 ? { otherDocuments: others.map((c) => c.replace(/\n*$/, "\n")).join("---\n") } : {}),
      });
    }
    line += chunk.split("\n").length + 1; // and the `---` line after it
  }
  return out;
}

/** A file's documents as text, split at `---` lines (the separators themselves dropped). */
export function splitDocuments(text: string): string[] {
  const out: string[] = [];
  let current: string[] = [];
  for (const l of text.split("\n")) {
    if (/^---\s*$/.test(l)) {
      out.push(current.join("\n"));
      current = [];
    } else current.push(l);
  }
  out.push(current.join("\n"));
  return out;
}

function existingResourceGroup(files: readonly PackageFile[], rgFile: string): { id?: string } | undefined {
  const f = files.find((x) => x.path === rgFile);
  if (!f) return undefined;
  const rg = parseYamlDocuments(f.content).documents.map((d) => d.value).find((v) => isRecord(v) && v.kind === RESOURCE_GROUP_KIND);
  const labels = isRecord(rg) && isRecord(rg.metadata) && isRecord(rg.metadata.labels) ? rg.metadata.labels : {};
  return { ...(typeof labels[INVENTORY_ID_LABEL] === "string" ? { id: labels[INVENTORY_ID_LABEL] } : {}) };
}

function kptfileInventory(f: PackageFile): MigratedInventory | undefined {
  const v = parseYamlDocuments(f.content).documents[0]?.value;
  if (!isRecord(v) || !isRecord(v.inventory)) return undefined;
  const inv = v.inventory;
  const [name, namespace, id] = [inv.name, inv.namespace, inv.inventoryID].map((x) => (typeof x === "string" ? x : ""));
  if (!name || !namespace || !id) {
    throw new PackageError([{ source: { file: f.path, line: 1 }, object: "Kptfile", message: 'the Kptfile\'s inventory needs "name", "namespace" and "inventoryID" to be migrated' }]);
  }
  return { name: name!, namespace: namespace!, id: id! };
}
