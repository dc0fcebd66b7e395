// Bundles the command line (dist/cli.js, after tsc) into a few files, so a command loads a
// handful of modules instead of ~200: that is most of kpt-ts's start-up time (see bench/).
// Command bodies stay separate chunks, loaded only when run. The library (dist/index.js) is
// left as tsc wrote it. @kubernetes/client-node (legacy auth-provider users only) and yaml (the
// precise YAML path) stay external: they are loaded lazily and only when needed.
import { build } from "esbuild";
import { rm } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const dist = join(dirname(fileURLToPath(import.meta.url)), "..", "dist");
await rm(join(dist, "cli-chunks"), { recursive: true, force: true });
await build({
  entryPoints: [join(dist, "cli.js")],
  outdir: dist,
  allowOverwrite: true,
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  chunkNames: "cli-chunks/[name]-[hash]",
  external: ["@kubernetes/client-node", "yaml"],
  // CommonJS dependencies (commander) require Node's built-ins.
  banner: { js: 'import { createRequire as __kptTsRequire } from "node:module"; const require = __kptTsRequire(import.meta.url);' },
  sourcemap: true,
  logLevel: "warning",
});
