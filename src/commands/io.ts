// What a command needs from the process, passed in so commands stay testable and only printers write.

import { resolveColor } from "../print/color.js";
import { parseCacheFor } from "../object/parse-cache.js";
import { readPackage } from "../object/read-package.js";
import type { Package } from "../model/kube-object.js";
import type { ComputeStatusOptions } from "../status/types.js";
import type { GlobalFlags } from "./command-specs.js";

export interface CommandIO {
  stdout: NodeJS.WriteStream;
  stderr: NodeJS.WriteStream;
  stdin: NodeJS.ReadStream;
  env: NodeJS.ProcessEnv;
  signal: AbortSignal;
}

export function colorFor(io: CommandIO, g: Pick<GlobalFlags, "color">): boolean {
  return resolveColor({ flag: g.color === false ? false : undefined, env: io.env, isTTY: Boolean(io.stdout.isTTY) });
}

/** Standard input's bytes, for the `-` package argument (the package reader decodes them). */
export async function readStdin(io: CommandIO): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of io.stdin) chunks.push(typeof c === "string" ? Buffer.from(c) : (c as Buffer));
  return Buffer.concat(chunks);
}

export async function packageText(path: string, io: CommandIO): Promise<Buffer | undefined> {
  return path === "-" ? readStdin(io) : undefined;
}

/** The package a command works on (`-`: standard input), with the reader's warnings on stderr. */
export async function readCommandPackage(path: string, io: CommandIO, rgFile?: string): Promise<Package> {
  let parseCache: ReturnType<typeof parseCacheFor>;
  try {
    parseCache = parseCacheFor(io.env);
  } catch {
    /* no home directory to keep it in: parse as usual */
  }
  return readPackage(path, { stdin: await packageText(path, io), onWarning: (w) => io.stderr.write(`[WARN] ${w}\n`), ...(rgFile !== undefined ? { rgFile } : {}), ...(parseCache ? { parseCache } : {}) });
}


/**
 * How the command computes statuses: the package's health rules and the --health-rules files',
 * compiled now, so a bad rule stops the command (exit 2) before it opens the cluster.
 */
export async function statusOptionsFor(pkg: Pick<Package, "healthRules">, healthRuleFiles: readonly string[] | undefined): Promise<Omit<ComputeStatusOptions, "now">> {
  if (!pkg.healthRules?.length && !healthRuleFiles?.length) return {};
  // The CEL compiler loads only for runs that have rules.
  const { loadHealthRules } = await import("../health/load-health-rules.js");
  const healthRules = await loadHealthRules({ packageDocuments: pkg.healthRules ?? [], files: healthRuleFiles ?? [] });
  return healthRules ? { healthRules } : {};
}
