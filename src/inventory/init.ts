// What `live init` writes, decided without touching the disk: the namespace, name and id of
// the package's inventory, the resourcegroup.yaml text (byte-identical to kpt's), and the
// Kptfile without its `inventory:` when --force moves an inventory out of it. Refusals use
// kpt's words plus what to do.

import { createHash } from "node:crypto";
import { posix } from "node:path";
import { PackageError, UsageError } from "../model/errors.js";
import type { PackageFile } from "../object/parse-package.js";
import { INVENTORY_ID_LABEL, RESOURCE_GROUP_API_VERSION, RESOURCE_GROUP_KIND } from "../model/inventory-keys.js";
import { checkDnsLabel, checkDnsSubdomain, checkLabelValue } from "../object/names.js";
import { isRecord } from "../model/kube-object.js";
import { parseYamlDocuments } from "../object/yaml-documents.js";
import { yamlLib } from "../object/yaml-lib.js";
import { findInitNamespace } from "./init-namespace.js";
import type { Document } from "yaml";

export const DEFAULT_RG_FILE = "resourcegroup.yaml";

export interface InitOptions {
  name?: string;
  /** `-n`: used as is instead of the package's namespace. */
  namespace?: string;
  inventoryId?: string;
  force: boolean;
  rgFile: string;
  /** The kubeconfig context's namespace. */
  contextNamespace?: string;
  /** In [0, 1), for the generated name. */
  random?: () => number;
  /** Nanoseconds since the Unix epoch, for the generated id. */
  nowNanos?: () => bigint;
  /** The package directory as the user gave it, for messages. */
  dir?: string;
}

export interface FileWrite {
  /** Relative to the package root. */
  path: string;
  content: string;
  /** For a new file; an existing file keeps its mode (as kpt). */
  mode: number;
}

export type InitPlan =
  | { ok: true; namespace: string; name: string; inventoryId: string; writes: FileWrite[] }
  /** `namespace` is set when the failure came after it was chosen (kpt then prints "...failed"). */
  | { ok: false; namespace?: string; error: PackageError | UsageError };

/** What both kinds of `live init` check first: the file's name, then the inventory's namespace. */
export function startInit(
  files: readonly PackageFile[],
  opts: { file: string; example: string; namespace?: string; contextNamespace?: string; dir?: string },
): { ok: false; plan: InitPlan } | { ok: true; display: (rel: string) => string; namespaceFlag?: string; namespace: string; fail: (error: PackageError | UsageError) => InitPlan } {
  const file = opts.file;
  if (file === "" || posix.dirname(posix.normalize(file)) !== "." || file.includes("\\")) {
    return { ok: false, plan: { ok: false, error: new UsageError(`rg-file must be a valid filename: "${file}" is not a bare file name (e.g. ${opts.example})`) } };
  }
  const display = (rel: string): string => (opts.dir ? posix.join(opts.dir, rel) : rel);
  const namespaceFlag = opts.namespace === "" ? undefined : opts.namespace;
  const found = findInitNamespace(files, { namespaceFlag, contextNamespace: opts.contextNamespace ?? "default", display });
  if (!found.ok) return { ok: false, plan: { ok: false, error: new PackageError(found.issues) } };
  const namespace = found.namespace;
  return { ok: true, display, namespaceFlag, namespace, fail: (error) => ({ ok: false, namespace, error }) };
}

export function planInit(files: readonly PackageFile[], opts: InitOptions): InitPlan {
  const rgFile = opts.rgFile;
  const start = startInit(files, { ...opts, file: rgFile, example: DEFAULT_RG_FILE });
  if (!start.ok) return start.plan;
  const { display, namespaceFlag, namespace, fail } = start;

  // Empty flags count as not given, as in kpt.
  const name = opts.name || generateInventoryName(opts.random ?? Math.random);
  if (namespace === "") return fail(new UsageError("can not generate hash with empty namespace or name: give the inventory a namespace with --namespace"));
  const inventoryId = opts.inventoryId || generateInventoryId(namespace, name, (opts.nowNanos ?? currentUnixNanos)());
  const invalid = [
    describeInvalid("--name", name, checkDnsSubdomain),
    describeInvalid(namespaceFlag === undefined ? "the namespace" : "--namespace", namespace, checkDnsLabel),
    describeInvalid("--inventory-id", inventoryId, checkLabelValue),
  ].filter((m): m is string => m !== undefined);
  if (invalid.length > 0) return fail(new UsageError(invalid.join("\n")));

  const existing = findExistingInventories(files, rgFile, display);
  if (!existing.ok) return fail(existing.error);
  const { kptfile, resourceGroups } = existing;
  const writes: FileWrite[] = [];
  if (kptfile) {
    if (!opts.force) {
      return fail(
        new PackageError([
          {
            source: kptfile.source,
            object: "Kptfile",
            message:
              "Inventory information has already been added to the package Kptfile object. " +
              `To move it into ${rgFile} unchanged, run "kpt-ts live init --force --name ${kptfile.name} --namespace ${kptfile.namespace} --inventory-id ${kptfile.id}" ` +
              "(a new name or id would lose track of the objects already applied).",
          },
        ]),
      );
    }
    writes.push({ path: "Kptfile", content: kptfile.withoutInventory, mode: 0o644 });
  }
  const elsewhere = resourceGroups.find((rg) => rg.rel !== rgFile);
  const atRgFile = resourceGroups.find((rg) => rg.rel === rgFile);
  if (elsewhere || (atRgFile && !opts.force)) {
    const rg = (elsewhere ?? atRgFile)!;
    const fix =
      elsewhere && opts.force
        ? `It is in ${elsewhere.rel}, not ${rgFile}: run with --rg-file ${elsewhere.rel} to replace it.`
        : "Use the --force flag to suppress this error.";
    return fail(
      new PackageError([
        {
          source: rg.source,
          object: "ResourceGroup",
          message:
            "Inventory information has already been added to the package ResourceGroup object. " +
            `Changing it after a package has been applied to the cluster can lead to undesired results. ${fix}`,
        },
      ]),
    );
  }
  writes.unshift({ path: rgFile, content: formatResourceGroup({ name, namespace, inventoryId }), mode: 0o600 });
  return { ok: true, namespace, name, inventoryId, writes };
}

/** kpt's resourcegroup.yaml, as kyaml (yaml.v3) prints it. */
export function formatResourceGroup(rg: { name: string; namespace: string; inventoryId: string }): string {
  return [
    `apiVersion: ${RESOURCE_GROUP_API_VERSION}`,
    "kind: ResourceGroup",
    "metadata:",
    `  name: ${formatYamlString(rg.name)}`,
    `  namespace: ${formatYamlString(rg.namespace)}`,
    "  labels:",
    `    ${INVENTORY_ID_LABEL}: ${formatYamlString(rg.inventoryId)}`,
    "",
  ].join("\n");
}

/** `inventory-` and 8 random digits (cli-utils common.RandomStr). */
export function generateInventoryName(random: () => number): string {
  return `inventory-${String(Math.floor(random() * 1e8)).padStart(8, "0")}`;
}

/** sha1("<namespace>:<name>") in hex, `-`, the time in nanoseconds (kpt's generateID). */
function generateInventoryId(namespace: string, name: string, nowNanos: bigint): string {
  return `${createHash("sha1").update(`${namespace}:${name}`).digest("hex")}-${nowNanos}`;
}

/** The one impure default: wall-clock milliseconds with the monotonic clock's sub-millisecond digits. */
function currentUnixNanos(): bigint {
  return BigInt(Date.now()) * 1_000_000n + (process.hrtime.bigint() % 1_000_000n);
}

export function describeInvalid(what: string, value: string, check: (s: string) => string | undefined): string | undefined {
  const bad = check(value);
  return bad ? `${what} "${value}" is not valid: ${bad}` : undefined;
}

/** Whether a file belongs to the root package (not to a nested package, a directory with its own Kptfile). */
export function rootPackageTest(files: readonly PackageFile[]): (rel: string) => boolean {
  const subpackages = files.map((f) => posix.dirname(f.path)).filter((d, i) => d !== "." && posix.basename(files[i]!.path) === "Kptfile");
  return (rel) => !subpackages.some((d) => rel.startsWith(`${d}/`));
}

interface ExistingKptfileInventory {
  name: string;
  namespace: string;
  id: string;
  source: { file: string; line: number };
  withoutInventory: string;
}

interface ExistingResourceGroup {
  rel: string;
  source: { file: string; line: number };
}

type ExistingInventories =
  | { ok: true; kptfile?: ExistingKptfileInventory; resourceGroups: ExistingResourceGroup[] }
  | { ok: false; error: PackageError };

/** The root Kptfile's inventory and the ResourceGroups of the root package (not of nested packages). */
function findExistingInventories(files: readonly PackageFile[], rgFile: string, display: (rel: string) => string): ExistingInventories {
  const inRoot = rootPackageTest(files);
  const resourceGroups: ExistingResourceGroup[] = [];
  let kptfile: ExistingKptfileInventory | undefined;
  for (const f of files) {
    if (f.path === "Kptfile") {
      const found = readKptfileInventory(f, display);
      if (found instanceof PackageError) return { ok: false, error: found };
      kptfile = found;
      continue;
    }
    if (!inRoot(f.path) || posix.basename(f.path) === "Kptfile") continue;
    const parsed = parseYamlDocuments(f.content);
    const rgs = parsed.documents.filter((d) => isRecord(d.value) && d.value.apiVersion === RESOURCE_GROUP_API_VERSION && d.value.kind === RESOURCE_GROUP_KIND);
    for (const d of rgs) resourceGroups.push({ rel: f.path, source: { file: display(f.path), line: d.line } });
    // Overwriting a file that holds something else would lose the user's data, with or without --force.
    if (f.path === rgFile && rgs.length === 0 && parsed.documents.length > 0) {
      return {
        ok: false,
        error: new PackageError([
          { source: { file: display(f.path), line: parsed.documents[0]!.line }, message: `${rgFile} exists and does not hold a ResourceGroup; choose another file with --rg-file` },
        ]),
      };
    }
  }
  return kptfile ? { ok: true, kptfile, resourceGroups } : { ok: true, resourceGroups };
}

function readKptfileInventory(f: PackageFile, display: (rel: string) => string): ExistingKptfileInventory | PackageError | undefined {
  const doc = yamlLib().parseDocument(f.content, { keepSourceTokens: false });
  if (doc.errors.length > 0) {
    const e = doc.errors[0]!;
    return new PackageError([{ source: { file: display(f.path), line: e.linePos?.[0].line ?? 1 }, message: `invalid YAML: ${e.message.split("\n")[0]}` }]);
  }
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: 1000 });
  } catch (err) {
    return new PackageError([{ source: { file: display(f.path), line: 1 }, message: `invalid YAML: ${(err as Error).message.split("\n")[0]}` }]);
  }
  if (value !== null && value !== undefined && !isRecord(value)) {
    const line = parseYamlDocuments(f.content).documents[0]?.line ?? 1;
    return new PackageError([{ source: { file: display(f.path), line }, object: "Kptfile", message: `a Kptfile must be a mapping (apiVersion: kpt.dev/v1, kind: Kptfile, metadata, ...), found ${Array.isArray(value) ? "a list" : typeof value}` }]);
  }
  if (!isRecord(value) || value.inventory === undefined || value.inventory === null) return undefined;
  const inv = isRecord(value.inventory) ? value.inventory : {};
  const line = parseYamlDocuments(f.content).documents[0]?.lineOf(["inventory"]) ?? 1;
  return {
    name: typeof inv.name === "string" ? inv.name : "",
    namespace: typeof inv.namespace === "string" ? inv.namespace : "",
    id: typeof inv.inventoryID === "string" ? inv.inventoryID : "",
    source: { file: display(f.path), line },
    withoutInventory: removeTopLevelKey(f.content, doc, "inventory"),
  };
}

/**
 * Cuts the key's lines out of the text, keeping everything else as written (kpt re-marshals the
 * whole Kptfile, dropping comments and reordering fields; keeping them is kinder).
 */
function removeTopLevelKey(text: string, doc: Document.Parsed, key: string): string {
  const contents = doc.contents;
  if (!contents || !("items" in contents) || !Array.isArray(contents.items)) return text;
  for (const item of contents.items as unknown[]) {
    const pair = item as { key?: { value?: unknown; range?: number[] }; value?: { range?: number[] } | null };
    if (pair.key?.value !== key || !pair.key.range) continue;
    const start = text.lastIndexOf("\n", pair.key.range[0]! - 1) + 1;
    let end = pair.value?.range?.[2] ?? pair.key.range[2]!;
    if (end > 0 && text[end - 1] !== "\n") {
      const nl = text.indexOf("\n", end);
      end = nl < 0 ? text.length : nl + 1;
    }
    return text.slice(0, start) + text.slice(end);
  }
  return text;
}

// yaml.v3 double-quotes a string that would otherwise read back as another type.
const OLD_BOOLS = new Set(["y", "Y", "yes", "Yes", "YES", "on", "On", "ON", "n", "N", "no", "No", "NO", "off", "Off", "OFF"]);
const RESERVED = new Set(["~", "null", "Null", "NULL", "true", "True", "TRUE", "false", "False", "FALSE"]);
const GO_INT = /^[-+]?(0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+|0[0-7]*|[1-9][0-9]*)$/;
const YAML_FLOAT = /^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/;
const PLAIN_SAFE = /^[A-Za-z0-9][A-Za-z0-9._/-]*$/;

/**
 * A string as yaml.v3 prints it, for the values init writes (names, namespaces, label values:
 * validated, so only the plain and double-quoted styles occur).
 */
export function formatYamlString(s: string): string {
  if (!PLAIN_SAFE.test(s)) return JSON.stringify(s);
  return readsAsNonString(s) ? `"${s}"` : s;
}

function readsAsNonString(s: string): boolean {
  if (OLD_BOOLS.has(s) || RESERVED.has(s)) return true;
  if (!/^[-+.0-9]/.test(s)) return false;
  if (isYamlDate(s)) return true;
  const plain = s.replace(/_/g, "");
  return GO_INT.test(plain) || YAML_FLOAT.test(plain);
}

function isYamlDate(s: string): boolean {
  const m = /^(\d{4})-(\d{1,2})-(\d{1,2})$/.exec(s);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const date = new Date(Date.UTC(y, mo - 1, d));
  return mo >= 1 && mo <= 12 && date.getUTCDate() === d && date.getUTCMonth() === mo - 1;
}
