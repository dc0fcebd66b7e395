// The precise YAML library (`yaml`), loaded on first use: it costs about 25 ms to load, and most
// runs (a no-op apply, status) never need it. Its CommonJS build can be required synchronously.

import { createRequire } from "node:module";

let lib: typeof import("yaml") | undefined;

export const yamlLib = (): typeof import("yaml") => (lib ??= createRequire(import.meta.url)("yaml") as typeof import("yaml"));
