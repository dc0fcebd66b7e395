// The IO shell around parsePackage: collects a package's files from disk (or takes stdin's
// text) the way kpt does, then hands them to the pure parser.

import type { Dirent, Stats } from "node:fs";
import { lstat, readFile, readdir, realpath, stat } from "node:fs/promises";
import { basename, dirname, join, posix, relative, sep } from "node:path";
import { PackageError, UsageError } from "../model/errors.js";
import { decodeText } from "./file-text.js";
import { compileKrmIgnore } from "./krmignore.js";
import type { IgnoreMatcher } from "./krmignore.js";
import { analyzePackage, checkOnce, contentsOf } from "./parse-package.js";
import type { PackageParseCache, ParseCache } from "./parse-cache.js";
import { parseYamlDocuments, restoreYamlDocuments, type ParsedYaml, type YamlSnapshot } from "./yaml-documents.js";
import type { PackageFile, PackageInput } from "./parse-package.js";
import type { InventoryInfo, Package } from "../model/kube-object.js";

interface ReadPackageOptions {
  /** Standard input (its bytes, or its text), read by the caller, when the path is "-". */
  stdin?: string | Uint8Array;
  /** Told about things worth a `[WARN]` line (a symlinked root, an inventory kept in the Kptfile). */
  onWarning?: (message: string) => void;
  /** `--rg-file`: the file holding the ResourceGroup, relative to the current directory. */
  rgFile?: string;
  /** Where parsed files are kept between runs (the CLI's; a library caller may pass its own). */
  parseCache?: ParseCache;
  /** `--applyset`: the inventory, for a package without one of its own (see PackageInput.givenInventory). */
  inventory?: InventoryInfo;
}

/** Reads and checks a package that must have an inventory; throws one PackageError with every issue. */
export async function readPackage(path: string, opts: ReadPackageOptions = {}): Promise<Package> {
  // (A path that does not resolve gets no cache: collecting its files says what is wrong with it.)
  const scope = path === "-" ? "-" : await realpath(path).catch(() => undefined);
  const cache = scope !== undefined ? opts.parseCache?.open(scope) : undefined;
  const input: PackageInput =
    path === "-"
      ? { path, fromStdin: true, files: [stdinFile(opts.stdin)] }
      : { path, fromStdin: false, files: await collectPackageFiles(path, opts.onWarning, cache && cachedParse(cache)) };
  if (opts.rgFile !== undefined && !(await isPackageFile(path, input.files, opts.rgFile))) input.inventoryFile = await readInventoryFile(opts.rgFile);
  if (opts.inventory) input.givenInventory = opts.inventory;
  if (cache) await parseWithCache(input.files, cache);
  const analysis = analyzePackage(input, { requireInventory: true });
  for (const w of analysis.warnings) opts.onWarning?.(w);
  if (analysis.issues.length > 0) throw new PackageError(analysis.issues);
  // With requireInventory, a package without one has an issue and never gets here.
  return contentsOf(analysis) as Package;
}

/**
 * Each file's documents from the cache, or parsed now and then kept. One file at a time, with a
 * turn of the event loop every few milliseconds of parsing, so requests already under way (the
 * connection being opened meanwhile) make progress. Nothing of a Secret is written to the cache:
 * its document is kept as the lines it spans, and parsed again from the file.
 */
async function parseWithCache(files: PackageFile[], cache: PackageParseCache): Promise<void> {
  const yamlFiles = files.filter((f) => !f.unreadable && !f.parsed && posix.basename(f.path) !== "Kptfile");
  let turn = performance.now();
  for (const f of yamlFiles) {
    const key = f.bytes ?? f.content;
    const snap = cache.read(key);
    if (snap) {
      f.parsed = restoreYamlDocuments(() => f.content, snap);
      continue;
    }
    f.parsed = parseYamlDocuments(f.content);
    // A Secret's document is kept as its lines alone (parsed again from the file on every run).
    const fresh = f.parsed.snapshot?.(holdsSecret);
    if (fresh) cache.write(key, withChecks(fresh, f.parsed));
    if (performance.now() - turn > 5) {
      await new Promise((resolve) => setImmediate(resolve));
      turn = performance.now();
    }
  }
  await cache.save();
}

/**
 * A cached parse of a file's very bytes, restored without decoding them: the bytes decoded
 * without a fault when they were parsed, and their text is only needed for a message's line.
 */
function cachedParse(cache: PackageParseCache): CachedParse {
  return (rel, bytes) => {
    if (posix.basename(rel) === "Kptfile") return undefined;
    const snap = cache.read(bytes);
    if (!snap) return undefined;
    let text: string | undefined;
    const file: PackageFile = {
      path: rel,
      get content() {
        if (text === undefined) {
          const decoded = decodeText(bytes);
          text = decoded.ok ? decoded.text : "";
        }
        return text;
      },
      bytes,
    };
    file.parsed = restoreYamlDocuments(() => file.content, snap);
    return file;
  };
}

/**
 * The snapshot with each document checked once (parse-package.ts): whether it is a valid object,
 * and a large one's size as a request, so no later run validates a 500-object package again or
 * serializes a CRD of megabytes to measure it.
 */
function withChecks(snap: YamlSnapshot, parsed: ParsedYaml): YamlSnapshot {
  snap.documents.forEach((d, i) => {
    if (d.parseAgain) return;
    const checked = checkOnce(d.value, d.textLength);
    Object.assign(d, checked);
    const doc = parsed.documents[i];
    if (doc) Object.assign(doc, checked);
  });
  return snap;
}

/** A Secret, or a List with one among its items. */
function holdsSecret(value: unknown): boolean {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return false;
  const v = value as { kind?: unknown; items?: unknown };
  return v.kind === "Secret" || (Array.isArray(v.items) && v.items.some(holdsSecret));
}

/** `--rg-file` naming a file the package already holds: read once, as part of the package. */
async function isPackageFile(pkgPath: string, files: PackageFile[], rgFile: string): Promise<boolean> {
  if (pkgPath === "-") return false;
  try {
    const [root, file] = await Promise.all([realpath(pkgPath), realpath(rgFile)]);
    const rel = relative(root, file).split(sep).join("/");
    return files.some((f) => f.path === rel);
  } catch {
    return false;
  }
}

async function readInventoryFile(rgFile: string): Promise<PackageFile> {
  let info;
  try {
    info = await stat(rgFile);
  } catch {
    throw new UsageError(`--rg-file "${rgFile}" does not exist: give the file that holds the package's ResourceGroup (\`kpt-ts live init --rg-file FILE\` writes one)`);
  }
  if (!info.isFile()) throw new UsageError(`--rg-file "${rgFile}" is not a regular file: give the file that holds the package's ResourceGroup`);
  const file = await readPackageFile(dirname(rgFile), basename(rgFile));
  return { ...file, path: rgFile };
}

/**
 * Every `.yaml`/`.yml` file and every Kptfile under `path`, in all sub-directories, sorted, with
 * paths relative to the package root (`/`-separated). A `.krmignore` at the root is honoured;
 * symlinked directories inside the package are not followed (as kpt), symlinked files are read.
 */
export async function readPackageFiles(path: string): Promise<PackageFile[]> {
  const files = await collectPackageFiles(path, undefined);
  const unreadable = files.filter((f) => f.unreadable);
  if (unreadable.length > 0) {
    throw new PackageError(unreadable.map((f) => ({ source: { file: posix.join(path, f.path), line: f.unreadable!.line }, message: f.unreadable!.message })));
  }
  return files;
}

/**
 * Larger files are refused unread: Node cannot hold a text over 512 MiB, parsing takes several
 * times a file's size in memory, and the API server takes objects of at most 3 MiB anyway.
 */
export const MAX_PACKAGE_FILE_BYTES = 256 * 1024 * 1024;

type CachedParse = (rel: string, bytes: Uint8Array) => PackageFile | undefined;

async function collectPackageFiles(path: string, onWarning: ((m: string) => void) | undefined, cached?: CachedParse): Promise<PackageFile[]> {
  const root = await resolveRoot(path, onWarning);
  const out: PackageFile[] = [];
  const ignore = await readKrmIgnore(root, out);
  const rels: (string | PackageFile)[] = [];
  await walk(root, "", ignore, rels);
  // Read in parallel, keep the walk's order.
  out.push(...(await Promise.all(rels.map((r) => (typeof r === "string" ? readPackageFile(root, r, cached) : r)))));
  return out;
}

/** One file's text, or why it cannot be read (never throws, never blocks on a pipe). */
async function readPackageFile(root: string, rel: string, cached?: CachedParse): Promise<PackageFile> {
  const full = join(root, rel);
  try {
    const info = await stat(full);
    if (!info.isFile()) return unreadableFile(rel, `is ${describeFileType(info)}, not a regular file: ${SKIP_HINT}`);
    if (info.size > MAX_PACKAGE_FILE_BYTES) {
      return unreadableFile(rel, `the file is ${mib(info.size)}; kpt-ts reads package files up to ${mib(MAX_PACKAGE_FILE_BYTES)} (the API server takes objects of at most 3 MiB): split it into smaller files, or ${SKIP_HINT}`);
    }
    const bytes = await readFile(full);
    const known = cached?.(rel, bytes);
    if (known) return known;
    const decoded = decodeText(bytes);
    return decoded.ok ? { path: rel, content: decoded.text, bytes } : unreadableFile(rel, decoded.message, decoded.line);
  } catch (err) {
    return unreadableFile(rel, describeReadError(err));
  }
}

const SKIP_HINT = "remove it from the package, or list it in .krmignore";

function unreadableFile(rel: string, message: string, line = 1): PackageFile {
  return { path: rel, content: "", unreadable: { line, message } };
}

function mib(bytes: number): string {
  return `${Math.round((bytes / 1024 / 1024) * 10) / 10} MiB`;
}

function describeFileType(info: Stats): string {
  if (info.isDirectory()) return "a directory";
  if (info.isFIFO()) return "a named pipe (FIFO)";
  if (info.isSocket()) return "a socket";
  if (info.isCharacterDevice() || info.isBlockDevice()) return "a device";
  return "not a regular file";
}

function describeReadError(err: unknown): string {
  const code = (err as NodeJS.ErrnoException).code ?? "";
  switch (code) {
    case "ELOOP":
      return `cannot read it: a symbolic link loop (too many levels of symbolic links): fix the link, or ${SKIP_HINT}`;
    case "ENOENT":
      return `cannot read it: it is a symbolic link to a file that does not exist: fix the link, or ${SKIP_HINT}`;
    case "EACCES":
    case "EPERM":
      return `cannot read it: permission denied: make it readable (chmod), or ${SKIP_HINT}`;
    default:
      return `cannot read it: ${(err as Error).message ?? String(err)}`;
  }
}

async function resolveRoot(path: string, onWarning: ((m: string) => void) | undefined): Promise<string> {
  let info;
  try {
    info = await stat(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ELOOP") throw new UsageError(`package directory "${path}" is a symbolic link loop: give the package's real directory`);
    throw new UsageError(`package directory "${path}" does not exist`);
  }
  if (!info.isDirectory()) throw new UsageError(`"${path}" is not a directory: give the package's directory, or "-" to read standard input`);
  const root = await realpath(path);
  if ((await lstat(path)).isSymbolicLink()) {
    onWarning?.(`resolved symlink "${path}" to "${root}", please note that the symlinks within the package are ignored`);
  }
  return root;
}

async function readKrmIgnore(root: string, problems: PackageFile[]): Promise<IgnoreMatcher> {
  try {
    await lstat(join(root, ".krmignore"));
  } catch {
    return () => false; // none: the usual case
  }
  const file = await readPackageFile(root, ".krmignore");
  if (file.unreadable) problems.push(file);
  return file.unreadable ? () => false : compileKrmIgnore(file.content);
}

/** Collects the relative paths of package files, and the directories it cannot list. */
async function walk(root: string, relDir: string, ignore: IgnoreMatcher, out: (string | PackageFile)[]): Promise<void> {
  let entries: Dirent[];
  try {
    entries = await readdir(join(root, relDir), { withFileTypes: true });
  } catch (err) {
    out.push(unreadableFile(relDir, `cannot list the directory: ${describeReadError(err).replace(/^cannot read it: /, "")}`));
    return;
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    const rel = relDir ? `${relDir}/${entry.name}` : entry.name;
    const kind = await entryKind(root, rel, entry);
    // Git's own files are never package files, and the object store can be large.
    if (kind === "dir" && entry.name !== ".git" && !ignore(rel, true)) await walk(root, rel, ignore, out);
    if (kind === "file" && isPackageFileName(entry.name) && !ignore(rel, false)) out.push(rel);
  }
}

/**
 * kpt reads symlinked files but does not descend into symlinked directories. Anything else with
 * a package file's name (a pipe, a broken or looping link) is read too, so that it is reported
 * rather than silently left out.
 */
async function entryKind(root: string, rel: string, entry: Dirent): Promise<"dir" | "file" | "other"> {
  if (entry.isDirectory()) return "dir";
  if (!entry.isSymbolicLink()) return "file";
  try {
    return (await stat(join(root, rel))).isDirectory() ? "other" : "file";
  } catch {
    return "file";
  }
}

function isPackageFileName(name: string): boolean {
  return name === "Kptfile" || name.endsWith(".yaml") || name.endsWith(".yml");
}

function stdinFile(stdin: string | Uint8Array | undefined): PackageFile {
  if (stdin === undefined) throw new UsageError(`package path "-" means standard input, but none was given`);
  if (typeof stdin === "string") return { path: "stdin", content: stdin };
  const decoded = decodeText(stdin);
  return decoded.ok ? { path: "stdin", content: decoded.text, bytes: stdin } : { path: "stdin", content: "", unreadable: { line: decoded.line, message: decoded.message.replace(SKIP_HINT, "give the package's YAML") } };
}
