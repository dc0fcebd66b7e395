// The pure package reader: file texts in, the objects to apply and the package's inventory
// out, with every problem of the package found in one pass (kpt stops at the first).
// What kpt leaves out is left out here too: Kptfiles, local-config objects, function
// configurations and ResourceGroups (the inventory template is never applied). HealthRules
// documents are set aside for src/health/, which checks and compiles them.

import { posix } from "node:path";
import { PackageError } from "../model/errors.js";
import type { PackageIssue } from "../model/errors.js";
import { refKey, refOf } from "../model/ref.js";
import type { InventoryInfo, KubeObject, Package, PackageDocument, PackageObject, SourcePos } from "../model/kube-object.js";
import { isRecord } from "../model/kube-object.js";
import { describeObject, typeName, validateObject } from "./validate-object.js";
import { hasLifecycleAnnotations, readLifecycle } from "./lifecycle-annotations.js";
import { parseYamlDocuments, type ParsedYaml } from "./yaml-documents.js";
import type { FieldPath } from "./yaml-documents.js";
import { checkDnsLabel, checkDnsSubdomain, checkLabelValue } from "./names.js";
import { applySetId, APPLYSET_FILE_API_VERSION, APPLYSET_FILE_KIND, INVENTORY_ID_LABEL, KPT_GROUP, RESOURCE_GROUP_API_VERSION, RESOURCE_GROUP_KIND } from "../model/inventory-keys.js";

export const LOCAL_CONFIG_ANNOTATION = "config.kubernetes.io/local-config";
const FUNCTION_ANNOTATION = "config.kubernetes.io/function";
export const DEPENDS_ON_ANNOTATION = "config.kubernetes.io/depends-on";
/** kpt-ts' own local-config document: health rules for custom kinds (docs/health-rules.md). */
export const HEALTH_RULES_API_VERSION = "kpt-ts.dev/v1alpha1";
export const HEALTH_RULES_KIND = "HealthRules";

export interface PackageFile {
  /** Relative to the package root with `/` separators; for stdin, the name to show ("stdin"). */
  path: string;
  content: string;
  /** Set when the file could not be read as YAML text (binary, a broken link, a pipe...): why, and where. */
  unreadable?: { line: number; message: string };
  /** Its documents, when the reader has them already (from the parse cache); else parsed here. */
  parsed?: ParsedYaml;
  /** The bytes its text was decoded from, when the reader has them (the parse cache's key). */
  bytes?: Uint8Array;
}

export interface PackageInput {
  /** The directory as the user gave it (prefixed to file paths in messages), or "-". */
  path: string;
  files: PackageFile[];
  fromStdin: boolean;
  /**
   * `--rg-file`: a file outside the package (or the stream) holding its ResourceGroup, as in
   * `kustomize build | kpt-ts live apply - --rg-file inventory.yaml`. `path` is shown as given.
   */
  inventoryFile?: PackageFile;
  /**
   * The inventory given on the command line (`--applyset`), for a package that has none of its
   * own: an ApplySet, as kubectl takes it. A package with an inventory of its own is refused.
   */
  givenInventory?: InventoryInfo;
}

interface ParsePackageOptions {
  requireInventory: boolean;
}

/** A package whose inventory may be missing (for `live init`). */
export interface PackageContents {
  path: string;
  objects: PackageObject[];
  inventory?: InventoryInfo;
  /** HealthRules documents of the root package, unchecked. */
  healthRules?: PackageDocument[];
}

interface PackageAnalysis extends PackageContents {
  issues: PackageIssue[];
  /** Worth telling the user, not worth stopping for. */
  warnings: string[];
}

/** Throws one PackageError listing every issue of the package. */
export function parsePackage(input: PackageInput, opts: { requireInventory: true }): Package;
export function parsePackage(input: PackageInput, opts: ParsePackageOptions): PackageContents;
export function parsePackage(input: PackageInput, opts: ParsePackageOptions): PackageContents {
  const analysis = analyzePackage(input, opts);
  if (analysis.issues.length > 0) throw new PackageError(analysis.issues);
  return contentsOf(analysis);
}

/** The analysis without its issues and warnings. */
export function contentsOf(analysis: PackageAnalysis): PackageContents {
  const { path, objects, inventory, healthRules } = analysis;
  return { path, objects, ...(inventory ? { inventory } : {}), ...(healthRules && healthRules.length > 0 ? { healthRules } : {}) };
}

/** Never throws: the objects that passed, the inventory if one was found, and every issue. */
export function analyzePackage(input: PackageInput, opts: ParsePackageOptions): PackageAnalysis {
  const issues: PackageIssue[] = [];
  const display = (rel: string): string => (input.fromStdin ? rel : posix.join(input.path, rel));

  for (const f of input.files) {
    if (f.unreadable) issues.push({ source: { file: display(f.path), line: f.unreadable.line }, message: f.unreadable.message });
  }
  const readable = input.files.filter((f) => !f.unreadable);
  const kptfiles = input.fromStdin ? [] : readKptfiles(readable, display, issues);
  const subpackageDirs = new Set(kptfiles.filter((k) => k.dir !== "").map((k) => k.dir));
  const functionConfigs = new Set(kptfiles.flatMap((k) => functionConfigPaths(k)));

  const found: Found = { objects: [], resourceGroups: [], streamKptfiles: [], labelled: [], healthRules: [] };
  for (const file of readable) {
    if (!input.fromStdin && posix.basename(file.path) === "Kptfile") continue;
    const parsed = file.parsed ?? parseYamlDocuments(file.content);
    const where = display(file.path);
    reportYamlErrors(parsed, where, issues);
    if (functionConfigs.has(posix.normalize(file.path))) continue;
    const inRootPackage = input.fromStdin || !isInSubpackage(file.path, subpackageDirs);
    for (const doc of parsed.documents) {
      for (const entry of expandLists({ value: doc.value, file: where, ...(input.fromStdin ? {} : { pkgFile: file.path }), line: doc.line, lineOf: doc.lineOf, ...(doc.textLength !== undefined ? { textLength: doc.textLength } : {}), ...(doc.plainJson ? { plainJson: true } : {}), ...(doc.valid ? { valid: true } : {}), ...(doc.requestBytes !== undefined ? { requestBytes: doc.requestBytes } : {}) })) {
        classifyEntry(entry, inRootPackage, input.fromStdin, found, issues);
      }
    }
  }

  const rgFileEntries = input.inventoryFile ? readInventoryFile(input.inventoryFile, issues) : [];
  issues.push(...findDuplicates(found.objects));
  const rootKptfile = kptfiles.find((k) => k.dir === "");
  const inv = resolveInventory(input, found, rootKptfile, opts.requireInventory, rgFileEntries);
  issues.push(...(inv.issues ?? []));
  for (const e of found.labelled) {
    issues.push({
      source: { file: e.file, line: e.lineOf(["metadata", "labels", INVENTORY_ID_LABEL]) ?? e.line },
      object: describeObject(e.value),
      message: `Package has multiple inventory object templates: only the package's ResourceGroup may carry the label "${INVENTORY_ID_LABEL}"; remove it from this object`,
    });
  }
  const contents: PackageContents = { path: input.path, objects: found.objects };
  if (found.healthRules.length > 0) contents.healthRules = found.healthRules;
  if (inv.inventory) contents.inventory = inv.inventory;
  return { ...contents, issues, warnings: inv.warnings ?? [] };
}

/** One document, or one item of a `*List` document. */
interface Entry {
  value: unknown;
  file: string;
  /** The file relative to the package root; absent for standard input. */
  pkgFile?: string;
  line: number;
  lineOf(path: FieldPath): number | undefined;
  /** Characters of YAML text behind it (for a list item, the whole list's). */
  textLength?: number;
  /** Only JSON values (read back from the parse cache): see validateObject. */
  plainJson?: boolean;
  /** Its size as a request, measured when it was first read (the parse cache keeps it). */
  requestBytes?: number;
  /** validateObject found nothing wrong with it when it was first read (the parse cache keeps it). */
  valid?: true;
}

interface Found {
  objects: PackageObject[];
  resourceGroups: Entry[];
  streamKptfiles: Entry[];
  /** Objects (not ResourceGroups) carrying the inventory-id label. */
  labelled: Entry[];
  healthRules: PackageDocument[];
}

interface Kptfile {
  /** Directory relative to the package root, "" for the root. */
  dir: string;
  entry: Entry;
}

function readKptfiles(files: PackageFile[], display: (rel: string) => string, issues: PackageIssue[]): Kptfile[] {
  const out: Kptfile[] = [];
  for (const f of files) {
    if (posix.basename(f.path) !== "Kptfile") continue;
    const parsed = parseYamlDocuments(f.content);
    const file = display(f.path);
    reportYamlErrors(parsed, file, issues);
    const doc = parsed.documents[0];
    if (!doc) continue;
    // kpt refuses such a Kptfile (yaml.v3 cannot read a string into its KptFile struct); so does kpt-ts.
    if (!isRecord(doc.value)) {
      issues.push({ source: { file, line: doc.line }, object: "Kptfile", message: `a Kptfile must be a mapping (apiVersion: kpt.dev/v1, kind: Kptfile, metadata, ...), found ${typeName(doc.value)}` });
      continue;
    }
    const dir = posix.dirname(posix.normalize(f.path));
    out.push({ dir: dir === "." ? "" : dir, entry: { value: doc.value, file, line: doc.line, lineOf: doc.lineOf } });
  }
  return out;
}

function reportYamlErrors(parsed: ParsedYaml, file: string, issues: PackageIssue[]): void {
  for (const err of parsed.errors) issues.push({ source: { file, line: err.line }, message: `invalid YAML: ${err.message}` });
}

/** Files named by `pipeline.{mutators,validators}[].configPath`, relative to the package root. */
function functionConfigPaths(k: Kptfile): string[] {
  const value = k.entry.value;
  const pipeline = isRecord(value) && isRecord(value.pipeline) ? value.pipeline : {};
  const fns = [pipeline.mutators, pipeline.validators].flatMap((l) => (Array.isArray(l) ? l : []));
  return fns.flatMap((fn) => (isRecord(fn) && typeof fn.configPath === "string" ? [posix.normalize(posix.join(k.dir, fn.configPath))] : []));
}

/** kpt takes the inventory from the root package only: sub-directories with their own Kptfile are other packages. */
function isInSubpackage(relPath: string, subpackageDirs: Set<string>): boolean {
  for (let dir = posix.dirname(posix.normalize(relPath)); dir !== "." && dir !== "/" && dir !== ""; dir = posix.dirname(dir)) {
    if (subpackageDirs.has(dir)) return true;
  }
  return false;
}

function expandLists(entry: Entry): Entry[] {
  const v = entry.value;
  if (!isRecord(v) || typeof v.kind !== "string" || !v.kind.endsWith("List") || !Array.isArray(v.items)) return [entry];
  return v.items.flatMap((item, i) =>
    expandLists({
      value: item,
      file: entry.file,
      ...(entry.pkgFile ? { pkgFile: entry.pkgFile } : {}),
      line: entry.lineOf(["items", i]) ?? entry.line,
      lineOf: (path) => entry.lineOf(["items", i, ...path]),
      ...(entry.textLength !== undefined ? { textLength: entry.textLength } : {}),
      ...(entry.plainJson ? { plainJson: true } : {}),
    }),
  );
}

function classifyEntry(e: Entry, inRootPackage: boolean, fromStdin: boolean, found: Found, issues: PackageIssue[]): void {
  const v = e.value;
  const apiVersion = isRecord(v) && typeof v.apiVersion === "string" ? v.apiVersion : "";
  const kind = isRecord(v) && typeof v.kind === "string" ? v.kind : "";
  if (kind === "Kptfile" && apiVersion.startsWith(`${KPT_GROUP}/`)) {
    if (fromStdin) found.streamKptfiles.push(e);
    return;
  }
  if (isInventoryDocument(v)) {
    if (inRootPackage) found.resourceGroups.push(e);
    return;
  }
  // Taken whether or not it is marked local-config: src/health/ refuses it unmarked (kpt would apply it).
  if (kind === HEALTH_RULES_KIND && apiVersion === HEALTH_RULES_API_VERSION) {
    if (inRootPackage) found.healthRules.push({ value: v, source: { file: e.file, line: e.line, ...(e.pkgFile ? { pkgFile: e.pkgFile } : {}) }, lineOf: e.lineOf });
    return;
  }
  const annotations = isRecord(v) && isRecord(v.metadata) && isRecord(v.metadata.annotations) ? v.metadata.annotations : {};
  const localConfig = annotations[LOCAL_CONFIG_ANNOTATION];
  if (localConfig !== undefined && localConfig !== "false") return;
  if (annotations[FUNCTION_ANNOTATION] !== undefined) return;

  const { object, problems } = validateObject(v, e.valid ? { valid: true } : e.plainJson ? { plainJson: true } : {});
  const name = describeObject(v);
  const located = problems.map((p) => ({ line: e.lineOf(p.path) ?? e.line, message: p.message }));
  // Top to bottom, as the user reads the file (the sort is stable for problems on one line).
  for (const p of located.sort((a, b) => a.line - b.line)) {
    issues.push({ source: { file: e.file, line: p.line }, ...(name ? { object: name } : {}), message: p.message });
  }
  if (!object) return;
  const tooBig = requestBytesOver(object, e);
  if (tooBig !== undefined) {
    issues.push({
      source: { file: e.file, line: e.line },
      ...(name ? { object: name } : {}),
      message: `the object is ${(tooBig / 1024 / 1024).toFixed(1)} MiB as JSON; the API server refuses requests over 3 MiB: split it (a ConfigMap or Secret into several), or keep the data elsewhere`,
    });
    return;
  }
  // kpt-ts' lifecycle annotations (docs/lifecycle.md), checked before anything is sent.
  if (hasLifecycleAnnotations(object)) {
    for (const p of readLifecycle(object).problems) issues.push({ source: { file: e.file, line: e.lineOf(["metadata", "annotations", p.annotation]) ?? e.line }, ...(name ? { object: name } : {}), message: p.message });
  }
  if (object.metadata.labels?.[INVENTORY_ID_LABEL] !== undefined) found.labelled.push(e);
  found.objects.push({ object, source: { file: e.file, line: e.line, ...(e.pkgFile ? { pkgFile: e.pkgFile } : {}) }, lineOf: e.lineOf });
}

/** The API server's limit on a request body (kube-apiserver's maxRequestBodyBytes). */
const MAX_REQUEST_BYTES = 3 * 1024 * 1024;

/**
 * The object's size as the request that would send it, when over the limit. Only documents of
 * more than 512 KiB of YAML are measured (smaller ones cannot come near it), so reading stays fast;
 * a document read back from the parse cache carries its size from when it was first read.
 */
function requestBytesOver(object: KubeObject, e: Pick<Entry, "textLength" | "requestBytes">): number | undefined {
  if (!requestBytesToMeasure(object, e.textLength)) return undefined;
  const bytes = e.requestBytes ?? Buffer.byteLength(JSON.stringify(object));
  return bytes > MAX_REQUEST_BYTES ? bytes : undefined;
}

/** Whether a document is large enough for its request size to be measured. */
export function requestBytesToMeasure(value: unknown, textLength: number | undefined): boolean {
  return isRecord(value) && (textLength === undefined || textLength >= 512 * 1024);
}

/**
 * What the parse cache keeps of a document's checks (JSON values as they are): whether validateObject
 * finds nothing wrong with it, and its size as a request when requestBytesOver measures it.
 */
export function checkOnce(value: unknown, textLength: number): { valid?: true; requestBytes?: number } {
  const { object, problems } = validateObject(value, { plainJson: true });
  if (!object) return {};
  return { ...(problems.length === 0 ? { valid: true as const } : {}), ...(requestBytesToMeasure(object, textLength) ? { requestBytes: Buffer.byteLength(JSON.stringify(object)) } : {}) };
}

function findDuplicates(objects: PackageObject[]): PackageIssue[] {
  const seen = new Map<string, SourcePos>();
  const issues: PackageIssue[] = [];
  for (const o of objects) {
    const key = refKey(refOf(o.object));
    const first = seen.get(key);
    if (!first) {
      seen.set(key, o.source);
      continue;
    }
    const ns = o.object.metadata.namespace ? ` in namespace "${o.object.metadata.namespace}"` : "";
    issues.push({
      source: o.source,
      object: `${o.object.kind}/${o.object.metadata.name}`,
      message: `duplicate object${ns}: also defined at ${first.file}:${first.line}; each object may appear once in a package`,
    });
  }
  return issues;
}

/** `issues` and `warnings` absent: there are none. */
interface InventoryResolution {
  inventory?: InventoryInfo;
  issues?: PackageIssue[];
  warnings?: string[];
}

/**
 * The ResourceGroup of `--rg-file`: the file must hold it and nothing else (objects to apply
 * belong in the package, where they are read and ordered).
 */
function readInventoryFile(f: PackageFile, issues: PackageIssue[]): Entry[] {
  if (f.unreadable) {
    issues.push({ source: { file: f.path, line: f.unreadable.line }, message: `--rg-file: ${f.unreadable.message}` });
    return [];
  }
  const parsed = parseYamlDocuments(f.content);
  reportYamlErrors(parsed, f.path, issues);
  const rgs: Entry[] = [];
  for (const doc of parsed.documents) {
    const v = doc.value;
    if (isInventoryDocument(v)) {
      rgs.push({ value: v, file: f.path, line: doc.line, lineOf: doc.lineOf });
      continue;
    }
    const name = describeObject(v);
    issues.push({
      source: { file: f.path, line: doc.line },
      ...(name ? { object: name } : {}),
      message: `--rg-file must hold only the package's ResourceGroup (${RESOURCE_GROUP_API_VERSION}, as \`live init\` writes it): move this object into the package`,
    });
  }
  if (rgs.length === 0 && parsed.errors.length === 0) {
    issues.push({ source: { file: f.path, line: 1 }, message: '--rg-file holds no ResourceGroup: give the file "kpt-ts live init --rg-file FILE" wrote' });
  }
  return rgs;
}

function resolveInventory(input: PackageInput, found: Found, rootKptfile: Kptfile | undefined, required: boolean, rgFileEntries: Entry[] = []): InventoryResolution {
  const kptfileInventories = (input.fromStdin ? found.streamKptfiles : rootKptfile ? [rootKptfile.entry] : []).filter(
    (k) => isRecord(k.value) && k.value.inventory !== undefined && k.value.inventory !== null,
  );
  const at = (e: Entry, path: FieldPath = []): SourcePos => ({ file: e.file, line: e.lineOf(path) ?? e.line });
  const loc = (e: Entry): string => `${e.file}:${e.line}`;
  const issues: PackageIssue[] = [];
  const own = [...kptfileInventories, ...found.resourceGroups];
  if (input.givenInventory) {
    const theirs = [...own, ...rgFileEntries];
    if (theirs.length === 0) return { inventory: input.givenInventory };
    return { issues: [{ source: at(theirs[0]!), message: `--applyset gives the inventory, but the ${input.fromStdin ? "stream" : "package"} has one too: remove one of them, or drop --applyset` }] };
  }
  if (rgFileEntries.length > 0 && own.length > 0) {
    issues.push({
      source: at(rgFileEntries[0]!),
      message: `--rg-file gives the inventory, but the ${input.fromStdin ? "stream" : "package"} has one too (${loc(own[0]!)}): remove one of them, or drop --rg-file`,
    });
    return { issues };
  }
  const rgs = [...found.resourceGroups, ...rgFileEntries];

  if (kptfileInventories.length > 1) {
    issues.push({
      source: at(kptfileInventories[1]!, ["inventory"]),
      message: `multiple Kptfile inventories found in package (another one is at ${loc(kptfileInventories[0]!)}); keep the one the package was applied with`,
    });
  }
  if (rgs.length > 1) {
    issues.push({
      source: at(rgs[1]!),
      object: describeObject(rgs[1]!.value),
      message: `Multiple ResourceGroup objects found. Please make sure at most one ResourceGroup object exists within the package. Others: ${rgs
        .filter((_, i) => i !== 1)
        .map(loc)
        .join(", ")}`,
    });
  }
  if (kptfileInventories.length > 0 && rgs.length > 0) {
    issues.push({
      source: at(kptfileInventories[0]!, ["inventory"]),
      message: `inventory was found in both Kptfile and ResourceGroup object (${loc(rgs[0]!)}); keep the one the package was applied with: delete the Kptfile's "inventory:" section or the ResourceGroup`,
    });
  }
  if (issues.length > 0) return { issues };

  if (rgs.length === 1) return isApplySetDocument(rgs[0]!.value) ? inventoryFromApplySet(rgs[0]!) : inventoryFromResourceGroup(rgs[0]!);
  if (kptfileInventories.length === 1) return inventoryFromKptfile(kptfileInventories[0]!);
  if (!required) return {};
  const message = input.fromStdin
    ? `no ResourceGroup object was provided within the stream: include the package's ResourceGroup (the resourcegroup.yaml written by "kpt-ts live init") in the input, or give it with --rg-file FILE`
    : `Package uninitialized: no ResourceGroup object was found in the package; run "kpt-ts live init ${input.path}" to add one (it records which objects the package owns, so later runs can prune them)`;
  return { issues: [{ message }] };
}

function inventoryFromResourceGroup(e: Entry): InventoryResolution {
  const v = isRecord(e.value) ? e.value : {};
  const meta = isRecord(v.metadata) ? v.metadata : {};
  const labels = stringEntries(meta.labels);
  const { name, namespace } = nameAndNamespace(meta);
  const id = labels[INVENTORY_ID_LABEL] ?? "";
  const problems = [
    ...checkInventoryField("metadata.name", name, checkDnsSubdomain),
    ...checkInventoryField("metadata.namespace", namespace, checkDnsLabel),
    ...checkInventoryField(`label "${INVENTORY_ID_LABEL}"`, id, checkLabelValue),
  ];
  if (problems.length > 0) {
    return { issues: [{ source: { file: e.file, line: e.line }, object: describeObject(v) ?? "ResourceGroup", message: `the provided ResourceGroup is not valid: ${problems.join("; ")}` }] };
  }
  // The id label is added back from `id` wherever the inventory is written.
  const otherLabels = Object.fromEntries(Object.entries(labels).filter(([k]) => k !== INVENTORY_ID_LABEL));
  return {
    inventory: { name, namespace, id, labels: otherLabels, annotations: stripConfigAnnotations(stringEntries(meta.annotations)), origin: "resourcegroup", source: { file: e.file, line: e.line }, namespaceLine: () => e.lineOf(["metadata", "namespace"]) },
  };
}

function isApplySetDocument(v: unknown): boolean {
  return isRecord(v) && v.kind === APPLYSET_FILE_KIND && v.apiVersion === APPLYSET_FILE_API_VERSION;
}

/** A ResourceGroup, or kpt-ts's ApplySet inventory document (`live init --inventory-kind applyset`): never applied. */
function isInventoryDocument(v: unknown): boolean {
  return isApplySetDocument(v) || (isRecord(v) && v.kind === RESOURCE_GROUP_KIND && v.apiVersion === RESOURCE_GROUP_API_VERSION);
}

/** kpt-ts's applyset.yaml: the parent's name, namespace and kind (Secret or ConfigMap); the id follows from them. */
function inventoryFromApplySet(e: Entry): InventoryResolution {
  const v = isRecord(e.value) ? e.value : {};
  const meta = isRecord(v.metadata) ? v.metadata : {};
  const spec = isRecord(v.spec) ? v.spec : {};
  const { name, namespace } = nameAndNamespace(meta);
  const parentKind = spec.parentKind ?? "Secret";
  const problems = [
    ...checkInventoryField("metadata.name", name, checkDnsSubdomain),
    ...checkInventoryField("metadata.namespace", namespace, checkDnsLabel),
    ...(parentKind === "Secret" || parentKind === "ConfigMap" ? [] : [`spec.parentKind must be Secret or ConfigMap, not ${JSON.stringify(parentKind)}`]),
  ];
  if (problems.length > 0) {
    return { issues: [{ source: { file: e.file, line: e.line }, object: describeObject(v) ?? "ApplySet", message: `the ApplySet inventory is not valid: ${problems.join("; ")}` }] };
  }
  const kind = parentKind as "Secret" | "ConfigMap";
  const labels = stringEntries(meta.labels);
  return {
    inventory: {
      name,
      namespace,
      id: applySetId({ name, namespace, kind, group: "" }),
      labels,
      annotations: stripConfigAnnotations(stringEntries(meta.annotations)),
      origin: "applyset",
      source: { file: e.file, line: e.line },
      applySet: { kind },
    },
  };
}

function inventoryFromKptfile(e: Entry): InventoryResolution {
  const inv = isRecord(e.value) && isRecord(e.value.inventory) ? e.value.inventory : {};
  const source: SourcePos = { file: e.file, line: e.lineOf(["inventory"]) ?? e.line };
  const { name, namespace } = nameAndNamespace(inv);
  const id = typeof inv.inventoryID === "string" ? inv.inventoryID : "";
  // kpt's own words for the three required fields.
  const problems = [
    ...(name ? checkInventoryField('"inventory.name"', name, checkDnsSubdomain) : ['"inventory.name" must not be empty']),
    ...(namespace ? checkInventoryField('"inventory.namespace"', namespace, checkDnsLabel) : ['"inventory.namespace" must not be empty']),
    ...(id ? checkInventoryField('"inventory.inventoryID"', id, checkLabelValue) : ['"inventory.inventoryID" must not be empty']),
  ];
  if (problems.length > 0) {
    return { issues: [{ source, object: "Kptfile", message: `the inventory in the Kptfile is not valid: ${problems.join("; ")}` }] };
  }
  return {
    inventory: { name, namespace, id, labels: stringEntries(inv.labels), annotations: stripConfigAnnotations(stringEntries(inv.annotations)), origin: "kptfile", source, namespaceLine: () => e.lineOf(["inventory", "namespace"]) },
    warnings: [
      `the inventory is read from the Kptfile (${source.file}:${source.line}); a ResourceGroup file is recommended: "kpt-ts live migrate" moves it there unchanged (kpt's migrate takes the namespace from the kubeconfig instead)`,
    ],
  };
}

/** `name` and `namespace` where they are strings, else "" (reported as missing). */
function nameAndNamespace(r: Record<string, unknown>): { name: string; namespace: string } {
  return { name: typeof r.name === "string" ? r.name : "", namespace: typeof r.namespace === "string" ? r.namespace : "" };
}

function checkInventoryField(what: string, value: string, check: (s: string) => string | undefined): string[] {
  if (value === "") return [`${what} is missing`];
  const bad = check(value);
  return bad ? [`${what} "${value}" is not valid: ${bad}`] : [];
}

function stringEntries(v: unknown): Record<string, string> {
  if (!isRecord(v)) return {};
  return Object.fromEntries(Object.entries(v).filter((kv): kv is [string, string] => typeof kv[1] === "string"));
}

/** kpt drops its own bookkeeping annotations before the inventory reaches the cluster. */
function stripConfigAnnotations(annotations: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(annotations).filter(([k]) => !k.startsWith("config.kubernetes.io/") && !k.startsWith("internal.config.kubernetes.io/")),
  );
}
