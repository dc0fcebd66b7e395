// What `live init --inventory-kind applyset` writes, decided without touching the disk: the
// package's applyset.yaml, kpt-ts's record of an ApplySet inventory (KEP-3659) whose parent is a
// Secret (or ConfigMap) in the inventory's namespace. The document is local-config, so the real
// kpt never applies it; finding no ResourceGroup, kpt refuses the package as uninitialized
// rather than start a second inventory for objects kpt-ts owns.

import { posix } from "node:path";
import { PackageError, UsageError } from "../model/errors.js";
import { APPLYSET_FILE_API_VERSION, APPLYSET_FILE_KIND, RESOURCE_GROUP_API_VERSION, RESOURCE_GROUP_KIND } from "../model/inventory-keys.js";
import { isRecord, type ApplySetParent } from "../model/kube-object.js";
import { checkDnsLabel, checkDnsSubdomain } from "../object/names.js";
import type { PackageFile } from "../object/parse-package.js";
import { parseYamlDocuments } from "../object/yaml-documents.js";
import { applySetId } from "./applyset.js";
import { describeInvalid, formatYamlString, generateInventoryName, rootPackageTest, startInit, type FileWrite, type InitPlan } from "./init.js";

export const DEFAULT_APPLYSET_FILE = "applyset.yaml";

export interface ApplySetInitOptions {
  name?: string;
  namespace?: string;
  parentKind: ApplySetParent["kind"];
  force: boolean;
  file: string;
  contextNamespace?: string;
  random?: () => number;
  dir?: string;
}

export function planApplySetInit(files: readonly PackageFile[], opts: ApplySetInitOptions): InitPlan {
  const file = opts.file;
  const start = startInit(files, { ...opts, example: DEFAULT_APPLYSET_FILE });
  if (!start.ok) return start.plan;
  const { display, namespaceFlag, namespace, fail } = start;
  const name = opts.name || generateInventoryName(opts.random ?? Math.random);
  const invalid = [describeInvalid("--name", name, checkDnsSubdomain), describeInvalid(namespaceFlag === undefined ? "the namespace" : "--namespace", namespace, checkDnsLabel)].filter((m): m is string => m !== undefined);
  if (invalid.length > 0) return fail(new UsageError(invalid.join("\n")));

  for (const existing of existingInventories(files)) {
    const mine = existing.kind === "ApplySet" && existing.rel === file;
    if (mine && opts.force) continue;
    const fix =
      existing.kind === "ApplySet"
        ? mine
          ? "Use the --force flag to replace it (a new name or namespace starts a new ApplySet: the objects already applied stay with the old one)."
          : `It is in ${existing.rel}: run with --rg-file ${existing.rel} --force to replace it.`
        : "To move the package to an ApplySet with every object kept, run \"kpt-ts live migrate --to applyset\".";
    return fail(
      new PackageError([
        {
          source: { file: display(existing.rel), line: existing.line },
          object: existing.kind,
          message: `Inventory information has already been added to the package ${existing.kind === "Kptfile" ? "Kptfile" : `${existing.kind} object`}. ${fix}`,
        },
      ]),
    );
  }
  // Overwriting a file that holds something else would lose the user's data, with or without --force.
  const atFile = files.find((f) => f.path === file);
  if (atFile && !existingInventories([atFile]).some((e) => e.kind === "ApplySet") && parseYamlDocuments(atFile.content).documents.length > 0) {
    return fail(new PackageError([{ source: { file: display(file), line: 1 }, message: `${file} exists and does not hold an ApplySet; choose another file with --rg-file` }]));
  }
  const writes: FileWrite[] = [{ path: file, content: formatApplySetFile({ name, namespace, parentKind: opts.parentKind }), mode: 0o600 }];
  return { ok: true, namespace, name, inventoryId: applySetId({ name, namespace, kind: opts.parentKind, group: "" }), writes };
}

/** kpt-ts's applyset.yaml. */
export function formatApplySetFile(o: { name: string; namespace: string; parentKind: ApplySetParent["kind"] }): string {
  return [
    `# kpt-ts's inventory of this package: an ApplySet (KEP-3659) whose parent is the ${o.parentKind} ${o.namespace}/${o.name}.`,
    "# Its members carry the label applyset.kubernetes.io/part-of. Local config: never applied, and kpt does not read it.",
    `apiVersion: ${APPLYSET_FILE_API_VERSION}`,
    `kind: ${APPLYSET_FILE_KIND}`,
    "metadata:",
    `  name: ${formatYamlString(o.name)}`,
    `  namespace: ${formatYamlString(o.namespace)}`,
    "  annotations:",
    '    config.kubernetes.io/local-config: "true"',
    "spec:",
    `  parentKind: ${o.parentKind}`,
    "",
  ].join("\n");
}

interface ExistingInventory {
  kind: "Kptfile" | "ResourceGroup" | "ApplySet";
  rel: string;
  line: number;
}

/** The root package's inventories of any kind: the Kptfile's section, ResourceGroups, ApplySets. */
function existingInventories(files: readonly PackageFile[]): ExistingInventory[] {
  const inRoot = rootPackageTest(files);
  const out: ExistingInventory[] = [];
  for (const f of files) {
    if (!inRoot(f.path)) continue;
    const docs = parseYamlDocuments(f.content).documents;
    if (f.path === "Kptfile") {
      const v = docs[0]?.value;
      if (isRecord(v) && v.inventory !== undefined && v.inventory !== null) out.push({ kind: "Kptfile", rel: f.path, line: docs[0]!.lineOf(["inventory"]) ?? 1 });
      continue;
    }
    if (posix.basename(f.path) === "Kptfile") continue;
    for (const d of docs) {
      const v = d.value;
      if (!isRecord(v)) continue;
      if (v.apiVersion === RESOURCE_GROUP_API_VERSION && v.kind === RESOURCE_GROUP_KIND) out.push({ kind: "ResourceGroup", rel: f.path, line: d.line });
      if (v.apiVersion === APPLYSET_FILE_API_VERSION && v.kind === APPLYSET_FILE_KIND) out.push({ kind: "ApplySet", rel: f.path, line: d.line });
    }
  }
  return out;
}
