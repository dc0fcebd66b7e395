#!/usr/bin/env node
// The `kpt-ts` executable. It runs the command line (cli.ts, bundled by tools/bundle-cli.mjs into
// one CommonJS script) with V8's code cache: the bytecode of every function the last run of the
// same command compiled is kept on disk, so a run skips compiling them again (about 50 ms of a
// 300 ms no-op apply). Node 20 has no compile cache of its own (module.enableCompileCache is
// Node 22), and ES modules cannot take cached data, hence the one CommonJS script.
//
// The cache is only an optimisation: a missing, stale or unreadable one just means the script is
// compiled as usual (V8 itself refuses data from another build, Node or flag set).
// KPT_TS_CODE_CACHE=off turns it off, or names the directory to keep it in.

import { createHash } from "node:crypto";
import { readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { constants as vmConstants, Script } from "node:vm";
import { userCacheDir, writeEntrySync } from "./util/user-cache.js";

const program = fileURLToPath(new URL("./cli-program.cjs", import.meta.url));
const require = createRequire(program);
// Lets the script's own import() (of @kubernetes/client-node) load ES modules as usual.
const dynamicImport = (vmConstants as unknown as { USE_MAIN_CONTEXT_DEFAULT_LOADER?: symbol } | undefined)?.USE_MAIN_CONTEXT_DEFAULT_LOADER;
let cacheFile: string | undefined;
try {
  cacheFile = dynamicImport ? codeCacheFile() : undefined;
} catch {
  /* no home directory to keep it in: run without */
}

if (!cacheFile) require(program);
else runCached(cacheFile, dynamicImport!);

function runCached(file: string, importModuleDynamically: symbol): void {
  const source = readFileSync(program, "utf8");
  let cachedData: Buffer | undefined;
  try {
    cachedData = readFileSync(file);
  } catch {
    /* first run of this command */
  }
  // CommonJS's own wrapper (what Module.wrap gives), with the shebang line left out.
  const wrapped = `(function (exports, require, module, __filename, __dirname) { ${source.replace(/^#!.*/, "")}\n})`;
  const script = new Script(wrapped, { filename: program, cachedData, importModuleDynamically: importModuleDynamically as never });
  if (!cachedData || script.cachedDataRejected) {
    // Made at exit, so it holds every function this run compiled, not only the top level.
    process.once("exit", () => {
      try {
        writeEntrySync(file, script.createCachedData());
        // The same command's caches from other builds (an upgrade) are of no use any more.
        const [prefix] = basename(file).split("-");
        for (const f of readdirSync(dirname(file))) if (f.startsWith(`${prefix}-`) && f !== basename(file)) rmSync(join(dirname(file), f), { force: true });
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
 * One cache per command (`live apply`, `live status`...), as each compiles its own functions;
 * named by the script's identity and the Node that runs it.
 */
function codeCacheFile(): string | undefined {
  const setting = process.env.KPT_TS_CODE_CACHE;
  if (setting === "off") return undefined;
  let stamp: string;
  try {
    const st = statSync(program);
    stamp = `${st.size}|${st.mtimeMs}`;
  } catch {
    return undefined;
  }
  const args = process.argv.slice(2);
  // `live apply --help` compiles little of what `live apply` runs: its cache is kept apart.
  const help = args.some((a) => a === "--help" || a === "-h") ? " --help" : "";
  const command =
    args
      .slice(0, 2)
      .filter((w) => /^[a-z][a-z-]*$/.test(w))
      .join(" ") + help;
  const dir = setting || userCacheDir(process.env, "code");
  // `<command>-<build>.bin`: the command's part lets a new build's cache replace the old one.
  const hash = (text: string, n: number) => createHash("sha256").update(text).digest("hex").slice(0, n);
  return join(dir, `${hash(`${program}|${command}`, 12)}-${hash(`${stamp}|${process.version}|${process.arch}|${process.execArgv.join(" ")}`, 20)}.bin`);
}
