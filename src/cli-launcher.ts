#!/usr/bin/env node
// The `kpt-ts` executable. It runs the command line (cli.ts, bundled by tools/bundle-cli.mjs into
// one CommonJS script) with its compiled code kept between runs, so a run skips compiling the
// functions the last one did. Node 22.1 and later keep it themselves (module.enableCompileCache),
// measured at least as fast as the launcher's own cache on both lines (docs/benchmark.md, "Node 20,
// 22 and 24"), so there Node's cache is used. Node 20 has none: there the script goes through
// vm.Script with V8's code cache, per command (the bytecode of every function the last run of the
// same command compiled); ES modules cannot take cached data, hence the one CommonJS script.
//
// Cached code runs as the user, and V8 checks cached data against the source's length only, so
// the launcher's cache is keyed by a hash of the script's content (not its size or time); either
// cache is used only from a directory nobody else can write (util/user-cache.ts; for Node's, every
// entry in it is checked too, as Node reads them itself); anywhere else the script is compiled as
// usual and `-v` says why once. A missing, stale or unreadable cache just means the script is
// compiled as usual (V8 and Node refuse data from another build, Node or flag set).
// KPT_TS_CODE_CACHE=off turns it off, or names the directory to keep it in.

import { isAscii } from "node:buffer";
import { createHash } from "node:crypto";
import { readdirSync, readFileSync, rmSync } from "node:fs";
import Module, { createRequire } from "node:module";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { constants as vmConstants, Script } from "node:vm";
import { CODE_CACHE_RUNS, codeCacheEntry, readCodeCache } from "./util/code-cache-file.js";
import { privateDir, privateTreeProblem, readEntrySync, userCacheDir, writeEntrySync } from "./util/user-cache.js";

const program = fileURLToPath(new URL("./cli-program.cjs", import.meta.url));
const require = createRequire(program);
// Lets the script's own import() (of @kubernetes/client-node) load ES modules as usual.
const dynamicImport = (vmConstants as unknown as { USE_MAIN_CONTEXT_DEFAULT_LOADER?: symbol } | undefined)?.USE_MAIN_CONTEXT_DEFAULT_LOADER;
const args = process.argv.slice(2);
const setting = process.env.KPT_TS_CODE_CACHE;

// Node 22.1 and later.
const enableCompileCache = (Module as unknown as { enableCompileCache?: (dir: string) => unknown }).enableCompileCache;

let dir: string | undefined;
try {
  dir = (enableCompileCache || dynamicImport) && setting !== "off" ? setting || userCacheDir(process.env, "code") : undefined;
} catch {
  /* no home directory to keep it in: run without */
}
// After the check only the resolved directory is used (Node's compile cache included): a link
// on the way is never followed again.
const checked = dir ? privateDir(dir) : undefined;
const cacheDir = checked && "dir" in checked ? checked.dir : undefined;
const problem = checked && "problem" in checked ? checked.problem : cacheDir && enableCompileCache ? privateTreeProblem(cacheDir) : undefined;
if (problem && verbose(args)) process.stderr.write(`kpt-ts: not using the code cache in ${dir}: ${problem}\n`);

if (!cacheDir || problem) require(program);
else if (enableCompileCache) {
  enableCompileCache(cacheDir);
  require(program);
} else runCached(cacheDir, dynamicImport!);

function runCached(cacheDir: string, importModuleDynamically: symbol): void {
  const bytes = readFileSync(program);
  const file = join(cacheDir, codeCacheName(bytes));
  // The build makes the script ASCII, which latin1 reads as UTF-8 would, three times faster.
  const source = isAscii(bytes) ? bytes.toString("latin1") : bytes.toString("utf8");
  const entry = readCodeCache(readEntrySync(file));
  // CommonJS's own wrapper (what Module.wrap gives), with the shebang line left out.
  const wrapped = `(function (exports, require, module, __filename, __dirname) { ${source.replace(/^#!.*/, "")}\n})`;
  const script = new Script(wrapped, { filename: program, ...(entry ? { cachedData: entry.data } : {}), importModuleDynamically: importModuleDynamically as never });
  const usable = entry && !script.cachedDataRejected;
  if (!usable || entry.runs < CODE_CACHE_RUNS) {
    // Made at exit, so it holds every function this run compiled, not only the top level; and
    // written again by the command's next runs (a few), so it also holds what they compiled
    // that the first did not (a no-op apply's functions after a first apply that created).
    const runs = usable ? entry.runs + 1 : 1;
    process.once("exit", () => {
      try {
        writeEntrySync(file, codeCacheEntry(script.createCachedData(), runs));
        if (usable) return;
        // The same command's caches from other builds (an upgrade) are of no use any more.
        const [prefix] = basename(file).split("-");
        for (const f of readdirSync(cacheDir)) if (f.startsWith(`${prefix}-`) && f.endsWith(".bin") && f !== basename(file)) rmSync(join(cacheDir, f), { force: true });
      } catch {
        /* an optimisation only */
      }
    });
  }
  const run = script.runInThisContext() as (exports: object, require: NodeRequire, module: object, filename: string, dirname: string) => void;
  const module = { exports: {}, filename: program, id: program, loaded: false };
  run.call(module.exports, module.exports, require, module, program, dirname(program));
}

/**
 * One cache per command (`live apply`, `live status`...), as each compiles its own functions:
 * `<command>-<build>.bin`, the build being the script's content with the Node that runs it. The
 * command's part lets a new build's cache replace the old one.
 */
function codeCacheName(source: Buffer): string {
  // `live apply --help` compiles little of what `live apply` runs: its cache is kept apart.
  const help = args.some((a) => a === "--help" || a === "-h") ? " --help" : "";
  const command =
    args
      .slice(0, 2)
      .filter((w) => /^[a-z][a-z-]*$/.test(w))
      .join(" ") + help;
  const hash = (data: string | Buffer) => createHash("sha256").update(data).digest("hex");
  const build = hash(`${hash(source)}|${process.version}|${process.arch}|${process.execArgv.join(" ")}`);
  return `${hash(`${program}|${command}`).slice(0, 12)}-${build.slice(0, 32)}.bin`;
}

/** `-v`, `--v=2`, `-v 3`: what cli.ts reads as verbose (a level of 0 is not). */
function verbose(argv: string[]): boolean {
  return argv.some((a, i) => {
    const m = /^--?v(?:=(.*))?$/.exec(a);
    if (!m) return false;
    const level = m[1] ?? (/^\d+$/.test(argv[i + 1] ?? "") ? argv[i + 1] : "1");
    return level !== "0";
  });
}
