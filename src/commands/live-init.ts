// `kpt-ts live init [DIR]`: write the package's inventory template (resourcegroup.yaml).
// Reads the package's files, lets planInit decide, writes, and reports on stderr as kpt does.

import { constants } from "node:fs";
import { lstat, open, readlink, realpath } from "node:fs/promises";
import { isAbsolute, join, relative } from "node:path";
import { PackageError } from "../model/errors.js";
import { planInit } from "../inventory/init.js";
import { planApplySetInit } from "../inventory/init-applyset.js";
import { readPackageFiles } from "../object/read-package.js";

export interface LiveInitOptions {
  dir: string;
  /** `--inventory-kind applyset`: write applyset.yaml (an ApplySet with this parent kind) instead of a ResourceGroup. */
  applySet?: { parentKind: "Secret" | "ConfigMap" };
  name?: string;
  namespace?: string;
  inventoryId?: string;
  force: boolean;
  quiet: boolean;
  rgFile: string;
  /** The kubeconfig context's namespace ("default" when it names none). */
  contextNamespace: string;
  stderr: NodeJS.WritableStream;
}

export async function runLiveInit(opts: LiveInitOptions): Promise<void> {
  const files = await readPackageFiles(opts.dir);
  const plan = opts.applySet
    ? planApplySetInit(files, { ...opts, file: opts.rgFile, parentKind: opts.applySet.parentKind, dir: opts.dir })
    : planInit(files, { ...opts, dir: opts.dir });
  const say = (text: string): void => {
    if (!opts.quiet) opts.stderr.write(text);
  };
  // kpt prints the line once the namespace is known, and ends it with the outcome.
  if (plan.namespace !== undefined) say(`initializing ${JSON.stringify(opts.rgFile)} data (namespace: ${plan.namespace})...`);
  if (!plan.ok) {
    if (plan.namespace !== undefined) say("failed\n");
    throw plan.error;
  }
  try {
    for (const w of plan.writes) await writeInPackage(opts.dir, w.path, w.content, w.mode);
  } catch (err) {
    say("failed\n");
    if (err instanceof PackageError) throw err;
    throw new PackageError([{ message: `cannot write the inventory: ${err instanceof Error ? err.message : String(err)}` }]);
  }
  say("success\n");
}

/**
 * Writes a file of the package, never through a symbolic link that leads out of it (a
 * resourcegroup.yaml linked to another package's would overwrite that package's inventory). A
 * link within the package is written through, as kpt does.
 */
async function writeInPackage(dir: string, rel: string, content: string, mode: number): Promise<void> {
  const root = await realpath(dir);
  let path = join(root, rel);
  const info = await lstat(path).catch(() => undefined);
  if (info?.isSymbolicLink()) {
    const target = await realpath(path).catch(() => undefined);
    const inside = target !== undefined && !relative(root, target).startsWith("..") && !isAbsolute(relative(root, target));
    if (!inside) {
      const where = target ?? (await readlink(path).catch(() => "?"));
      throw new PackageError([{ source: { file: join(dir, rel), line: 1 }, message: `${rel} is a symbolic link to ${where}, outside the package: kpt-ts does not write through it; remove the link (or point it into the package) and run live init again` }]);
    }
    path = target;
  }
  // O_NOFOLLOW: a link put in its place meanwhile is refused rather than followed.
  const handle = await open(path, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | (constants.O_NOFOLLOW ?? 0), mode);
  try {
    await handle.writeFile(content);
  } finally {
    await handle.close();
  }
}
