// `kpt-ts live init [DIR]`: write the package's inventory template (resourcegroup.yaml).
// Reads the package's files, lets planInit decide, writes, and reports on stderr as kpt does.

import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { PackageError } from "../model/errors.js";
import { planInit } from "../inventory/init.js";
import { readPackageFiles } from "../object/read-package.js";

export interface LiveInitOptions {
  dir: string;
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
  const plan = planInit(files, { ...opts, dir: opts.dir });
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
    for (const w of plan.writes) await writeFile(join(opts.dir, w.path), w.content, { mode: w.mode });
  } catch (err) {
    say("failed\n");
    throw new PackageError([{ message: `cannot write the inventory: ${err instanceof Error ? err.message : String(err)}` }]);
  }
  say("success\n");
}
