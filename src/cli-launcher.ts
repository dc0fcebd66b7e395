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
import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { constants as vmConstants, Script } from "node:vm";

const program = fileURLToPath(new URL("./cli-program.cjs", import.meta.url));
const require = createRequire(program);
// Lets the script's own import() (of @kubernetes/client-node) load ES modules as usual.
const dynamicImport = (vmConstants as unknown as { USE_MAIN_CONTEXT_DEFAULT_LOADER?: symbol } | undefined)?.USE_MAIN_CONTEXT_DEFAULT_LOADER;
const cacheFile = dynamicImport ? codeCacheFile() : undefined;

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
        mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
        const tmp = `${file}.${process.pid}.tmp`;
        writeFileSync(tmp, script.createCachedData(), { mode: 0o600 });
        renameSync(tmp, file);
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
  const command = process.argv
    .slice(2)
    .slice(0, 2)
    .filter((w) => /^[a-z][a-z-]*$/.test(w))
    .join(" ");
  const dir = setting || join(process.env.XDG_CACHE_HOME || join(homedir(), ".cache"), "kpt-ts", "code");
  const key = createHash("sha256").update(`${program}|${stamp}|${process.version}|${process.arch}|${process.execArgv.join(" ")}|${command}`).digest("hex").slice(0, 32);
  return join(dir, `${key}.bin`);
}
