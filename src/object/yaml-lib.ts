// The precise YAML library (`yaml`), loaded on first use: most runs (a no-op apply, status) never
// need it. Its CommonJS build can be required synchronously; the build bundles it (this call
// becomes the bundle's own require, tools/bundle-cli.mjs), so its compiled code is cached too.

import { createRequire } from "node:module";

let lib: typeof import("yaml") | undefined;

export const yamlLib = (): typeof import("yaml") => (lib ??= createRequire(import.meta.url)("yaml") as typeof import("yaml"));
