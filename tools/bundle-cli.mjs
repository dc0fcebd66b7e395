// Makes dist/, what the package ships, from tsc's output in .build/ (npm run build: tsc, then this).
// One copy of the code, no source maps:
//   dist/cli-program.cjs  the command line AND the library, bundled with every dependency into one
//                         CommonJS script (one file instead of ~200 modules, and V8's code cache can
//                         take it: most of kpt-ts's start-up time, see bench/). Loaded plainly, it runs
//                         the command line; loaded by dist/index.js, it hands back the library instead.
//                         Command bodies stay lazy: esbuild turns their import() into functions run on
//                         first use, and the require() calls below do the same for the two entries.
//   dist/cli.cjs          the launcher (src/cli-launcher.ts), which runs cli-program.cjs with V8's code cache;
//                         the package's bin. dist/cli.js runs it too (its name before).
//   dist/index.js         the library's ES module entry (`import { apply } from "kpt-ts"`): it loads the
//                         same bundle and re-exports the library's names.
//   dist/**/*.d.ts        the library's declarations: index.d.ts and what it refers to, nothing else.
// @kubernetes/client-node (legacy auth-provider users only; an optional peer dependency) stays
// external. yaml (the precise YAML path, and the YAML of `live diff`) is bundled too, still loaded
// only when first needed (object/yaml-lib.ts): from node_modules it cost a `live diff` about 85 ms
// of CPU to load on Node 20, with no code cache for it (docs/benchmark.md, "metrics-server: start-up").
import { build } from "esbuild";
import { chmod, copyFile, mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const tsc = join(root, ".build");
const dist = join(root, "dist");
/** Set by dist/index.js before it loads the bundle: "give me the library, do not run the command line". */
const LIBRARY_MODE = 'Symbol.for("kpt-ts.library")';

await rm(dist, { recursive: true, force: true });
await mkdir(dist, { recursive: true });

const external = ["@kubernetes/client-node"];
/** yaml-lib.ts loads yaml with createRequire (plain ES modules have no require): in the bundle, a require esbuild bundles. */
const yamlInBundle = {
  name: "yaml-in-bundle",
  setup(b) {
    b.onLoad({ filter: /[\\/]object[\\/]yaml-lib\.js$/ }, async (args) => {
      const text = await readFile(args.path, "utf8");
      const call = 'createRequire(import.meta.url)("yaml")';
      if (!text.includes(call)) throw new Error(`${args.path}: no ${call} to bundle`);
      return { contents: text.replace(call, 'require("yaml")'), loader: "js" };
    });
  },
};
await build({
  stdin: {
    contents: `if (globalThis[${LIBRARY_MODE}] === true) module.exports = require("./index.js");\nelse require("./cli.js");\n`,
    resolveDir: tsc,
    sourcefile: "entry.cjs",
    loader: "js",
  },
  outfile: join(dist, "cli-program.cjs"),
  bundle: true,
  format: "cjs",
  platform: "node",
  target: "node20",
  external,
  plugins: [yamlInBundle],
  // A CommonJS script has no import.meta; its URL is the script's own.
  define: { "import.meta.url": "__kptTsUrl" },
  banner: { js: 'var __kptTsUrl = require("node:url").pathToFileURL(__filename).href;' },
  logLevel: "warning",
});

// ASCII only (esbuild leaves some characters in comments and regular expressions): the Node 20
// launcher then reads the script as latin1, three times faster than decoding UTF-8, and V8 keeps
// it as a one-byte string. A \uXXXX escape means the same character in a string, a regular
// expression or an identifier, and nothing in a comment; no template's raw text holds one.
const programFile = join(dist, "cli-program.cjs");
const programText = await readFile(programFile, "utf8");
if (/[^\x00-\x7f]/.test(programText)) {
  if (/String\.raw`[^`]*[^\x00-\x7f]|\\[^\x00-\x7f]/.test(programText)) throw new Error("cli-program.cjs: a non-ASCII character in a String.raw template or after a backslash; escape it in the source");
  await writeFile(programFile, programText.replace(/[^\x00-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`));
}

// The launcher, with the little it imports (the user cache directory) inlined: a CommonJS script,
// the package's bin, since Node starts one without its ES module loader (about 15 ms of CPU less
// on Node 20, docs/benchmark.md "metrics-server: start-up"). dist/cli.js, the launcher's older name, runs the same script.
await build({
  entryPoints: [join(tsc, "cli-launcher.js")],
  outfile: join(dist, "cli.cjs"),
  bundle: true,
  format: "cjs",
  platform: "node",
  target: "node20",
  external,
  define: { "import.meta.url": "__kptTsUrl" },
  banner: { js: 'var __kptTsUrl = require("node:url").pathToFileURL(__filename).href;' },
  logLevel: "warning",
});
await writeFile(join(dist, "cli.js"), '#!/usr/bin/env node\n// kpt-ts\'s launcher is dist/cli.cjs (the package\'s bin); this name runs it too.\nimport "./cli.cjs";\n');
await chmod(join(dist, "cli.cjs"), 0o755);
await chmod(join(dist, "cli.js"), 0o755);

// The library's names, as the bundle exports them (asked once, here, in a child-free way: the
// library's modules do nothing when loaded).
globalThis[Symbol.for("kpt-ts.library")] = true;
const names = Object.keys(createRequire(import.meta.url)(join(dist, "cli-program.cjs"))).filter((n) => n !== "__esModule" && n !== "default").sort();
delete globalThis[Symbol.for("kpt-ts.library")];
if (!names.includes("apply")) throw new Error(`the bundle's library exports no apply (found: ${names.join(", ")})`);
await writeFile(
  join(dist, "index.js"),
  [
    "// The library (`import { apply } from \"kpt-ts\"`): the same bundle as the command line, loaded",
    "// without running it. Made by tools/bundle-cli.mjs; the types are in index.d.ts.",
    'import { createRequire } from "node:module";',
    `globalThis[${LIBRARY_MODE}] = true;`,
    'const lib = createRequire(import.meta.url)("./cli-program.cjs");',
    `export const { ${names.join(", ")} } = lib;`,
    "",
  ].join("\n"),
);

// The declarations index.d.ts needs, transitively, at the same relative paths.
const seen = new Set();
const queue = [join(tsc, "index.d.ts")];
while (queue.length > 0) {
  const file = queue.pop();
  if (seen.has(file)) continue;
  seen.add(file);
  const text = await readFile(file, "utf8");
  for (const m of text.matchAll(/(?:from\s+|import\s*\(\s*)["'](\.{1,2}\/[^"']+)\.js["']/g)) queue.push(resolve(dirname(file), `${m[1]}.d.ts`));
  const out = join(dist, relative(tsc, file));
  await mkdir(dirname(out), { recursive: true });
  await copyFile(file, out);
}
