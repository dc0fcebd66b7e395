// Bundles the command line after tsc: the program (dist/cli.js as tsc wrote it, with every
// dependency) becomes one CommonJS script, dist/cli-program.cjs, and dist/cli.js becomes the
// launcher (src/cli-launcher.ts) that runs it with V8's code cache. One file instead of ~200
// modules, and compiled code reused between runs: most of kpt-ts's start-up time (see bench/).
// Command bodies stay lazy: esbuild turns their import() into functions run on first use.
// The library (dist/index.js) is left as tsc wrote it. @kubernetes/client-node (legacy
// auth-provider users only) and yaml (the precise YAML path) stay external: they are loaded
// lazily and only when needed.
import { build } from "esbuild";
import { chmod, copyFile, rm } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const dist = join(dirname(fileURLToPath(import.meta.url)), "..", "dist");
// The chunks of the earlier ES module bundle, if a dist/ from before is still there.
await rm(join(dist, "cli-chunks"), { recursive: true, force: true });
await build({
  entryPoints: [join(dist, "cli.js")],
  outfile: join(dist, "cli-program.cjs"),
  bundle: true,
  format: "cjs",
  platform: "node",
  target: "node20",
  external: ["@kubernetes/client-node", "yaml"],
  // A CommonJS script has no import.meta; its URL is the script's own.
  define: { "import.meta.url": "__kptTsUrl" },
  banner: { js: 'var __kptTsUrl = require("node:url").pathToFileURL(__filename).href;' },
  sourcemap: true,
  logLevel: "warning",
});
await copyFile(join(dist, "cli-launcher.js"), join(dist, "cli.js"));
await chmod(join(dist, "cli.js"), 0o755);
