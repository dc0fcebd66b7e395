// What a command needs from the process, passed in so commands stay testable and only printers write.

import { resolveColor } from "../print/color.js";
import { noteLine, warningLine } from "../print/terminal-text.js";
import { parseCacheFor } from "../object/parse-cache.js";
import { PackageError, UsageError } from "../model/errors.js";
import { applySetFromFlag } from "../inventory/applyset.js";
import { MAX_PACKAGE_FILE_BYTES, readPackage } from "../object/read-package.js";
import type { Package } from "../model/kube-object.js";
import type { ComputeStatusOptions } from "../status/types.js";
import type { GlobalFlags } from "./command-specs.js";

export interface CommandIO {
  stdout: NodeJS.WriteStream;
  stderr: NodeJS.WriteStream;
  stdin: NodeJS.ReadStream;
  env: NodeJS.ProcessEnv;
  signal: AbortSignal;
  /** `-v` was given: say what the run goes without (a cache it may not use). */
  verbose?: boolean;
}

export function colorFor(io: CommandIO, g: Pick<GlobalFlags, "color">): boolean {
  return resolveColor({ flag: g.color === false ? false : undefined, env: io.env, isTTY: Boolean(io.stdout.isTTY) });
}

/**
 * Standard input's bytes, for the `-` package argument (the package reader decodes them): at most
 * what a package file may hold (256 MiB). Past it, reading stops (memory stays bounded, whatever
 * the stream) and the package is refused as bad input.
 */
export async function readStdin(io: CommandIO, limit = MAX_PACKAGE_FILE_BYTES): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of io.stdin) {
    const chunk = typeof c === "string" ? Buffer.from(c) : (c as Buffer);
    size += chunk.length;
    if (size > limit) {
      chunks.length = 0;
      io.stdin.destroy();
      const mib = Math.round(limit / 1024 / 1024);
      throw new PackageError([{ source: { file: "stdin", line: 1 }, message: `standard input holds more than ${mib} MiB; kpt-ts reads a package of at most ${mib} MiB from it, as from each package file (the API server takes objects of at most 3 MiB): give a smaller stream, or the package's directory` }]);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, size);
}

/**
 * The package a command works on (`-`: standard input), with the reader's warnings on stderr;
 * `applySet`: `--applyset` and `-n`, the inventory of a package without one (kubectl's way).
 */
export async function readCommandPackage(path: string, io: CommandIO, rgFile?: string, applySet?: { flag?: string; namespace?: string }): Promise<Package> {
  if (applySet?.flag !== undefined && rgFile !== undefined) throw new UsageError("--applyset and --rg-file both give the inventory: drop one of them");
  const inventory = applySet?.flag !== undefined ? applySetFromFlag(applySet.flag, applySet.namespace) : undefined;
  let parseCache: ReturnType<typeof parseCacheFor>;
  try {
    parseCache = parseCacheFor(io.env, io.verbose ? { onUnusable: (m) => io.stderr.write(noteLine(m)) } : {});
  } catch {
    /* no home directory to keep it in: parse as usual */
  }
  return readPackage(path, { stdin: path === "-" ? await readStdin(io) : undefined, onWarning: (w) => io.stderr.write(warningLine(w)), ...(rgFile !== undefined ? { rgFile } : {}), ...(parseCache ? { parseCache } : {}), ...(inventory ? { inventory } : {}) });
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
