// The IO shell around parsePackage: collects a package's files from disk (or takes stdin's
// text) the way kpt does, then hands them to the pure parser.

import type { Dirent } from "node:fs";
import { lstat, readFile, readdir, realpath, stat } from "node:fs/promises";
import { join } from "node:path";
import { PackageError, UsageError } from "../errors.js";
import { compileKrmIgnore } from "./krmignore.js";
import type { IgnoreMatcher } from "./krmignore.js";
import { analyzePackage, contentsOf } from "./parse-package.js";
import type { PackageContents, PackageFile, PackageInput } from "./parse-package.js";
import type { Package } from "./types.js";

export interface ReadPackageOptions {
  /** The text of standard input, read by the caller, when the path is "-". */
  stdin?: string;
  /** Told about things worth a `[WARN]` line (a symlinked root, an inventory kept in the Kptfile). */
  onWarning?: (message: string) => void;
}

/** Reads and checks a package that must have an inventory; throws one PackageError with every issue. */
export async function readPackage(path: string, opts: ReadPackageOptions = {}): Promise<Package> {
  // With requireInventory, a package without one has an issue and never gets here.
  return (await readPackageInput(path, opts, true)) as Package;
}

/** The same without requiring an inventory (for `live init`). */
export async function readPackageContents(path: string, opts: ReadPackageOptions = {}): Promise<PackageContents> {
  return readPackageInput(path, opts, false);
}

async function readPackageInput(path: string, opts: ReadPackageOptions, requireInventory: boolean): Promise<PackageContents> {
  const input: PackageInput =
    path === "-"
      ? { path, fromStdin: true, files: [{ path: "stdin", content: requireStdin(opts.stdin) }] }
      : { path, fromStdin: false, files: await collectPackageFiles(path, opts.onWarning) };
  const analysis = analyzePackage(input, { requireInventory });
  for (const w of analysis.warnings) opts.onWarning?.(w);
  if (analysis.issues.length > 0) throw new PackageError(analysis.issues);
  return contentsOf(analysis);
}

/**
 * Every `.yaml`/`.yml` file and every Kptfile under `path`, in all sub-directories, sorted, with
 * paths relative to the package root (`/`-separated). A `.krmignore` at the root is honoured;
 * symlinked directories inside the package are not followed (as kpt), symlinked files are read.
 */
export async function readPackageFiles(path: string): Promise<PackageFile[]> {
  return collectPackageFiles(path, undefined);
}

async function collectPackageFiles(path: string, onWarning: ((m: string) => void) | undefined): Promise<PackageFile[]> {
  const root = await resolveRoot(path, onWarning);
  const ignore = await readKrmIgnore(root);
  const rels: string[] = [];
  await walk(root, "", ignore, rels);
  return Promise.all(rels.map(async (rel) => ({ path: rel, content: await readFile(join(root, rel), "utf8") })));
}

async function resolveRoot(path: string, onWarning: ((m: string) => void) | undefined): Promise<string> {
  let info;
  try {
    info = await stat(path);
  } catch {
    throw new UsageError(`package directory "${path}" does not exist`);
  }
  if (!info.isDirectory()) throw new UsageError(`"${path}" is not a directory: give the package's directory, or "-" to read standard input`);
  const root = await realpath(path);
  if ((await lstat(path)).isSymbolicLink()) {
    onWarning?.(`resolved symlink "${path}" to "${root}", please note that the symlinks within the package are ignored`);
  }
  return root;
}

async function readKrmIgnore(root: string): Promise<IgnoreMatcher> {
  try {
    return compileKrmIgnore(await readFile(join(root, ".krmignore"), "utf8"));
  } catch {
    return () => false;
  }
}

async function walk(root: string, relDir: string, ignore: IgnoreMatcher, out: string[]): Promise<void> {
  const entries = await readdir(join(root, relDir), { withFileTypes: true });
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    const rel = relDir ? `${relDir}/${entry.name}` : entry.name;
    const kind = await entryKind(root, rel, entry);
    // Git's own files are never package files, and the object store can be large.
    if (kind === "dir" && entry.name !== ".git" && !ignore(rel, true)) await walk(root, rel, ignore, out);
    if (kind === "file" && isPackageFileName(entry.name) && !ignore(rel, false)) out.push(rel);
  }
}

async function entryKind(root: string, rel: string, entry: Dirent): Promise<"dir" | "file" | "other"> {
  if (entry.isDirectory()) return "dir";
  if (entry.isFile()) return "file";
  if (!entry.isSymbolicLink()) return "other";
  try {
    // kpt reads symlinked files but does not descend into symlinked directories.
    return (await stat(join(root, rel))).isFile() ? "file" : "other";
  } catch {
    return "other";
  }
}

function isPackageFileName(name: string): boolean {
  return name === "Kptfile" || name.endsWith(".yaml") || name.endsWith(".yml");
}

function requireStdin(stdin: string | undefined): string {
  if (stdin === undefined) throw new UsageError(`package path "-" means standard input, but none was given`);
  return stdin;
}
