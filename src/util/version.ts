// kpt-ts's own version, from its package.json: the nearest one above this module named kpt-ts
// (one level up from the bundle in dist/, two from the compiled module or the source).

import { readFileSync } from "node:fs";

function readVersion(): string {
  for (const rel of ["../package.json", "../../package.json"]) {
    try {
      const pkg = JSON.parse(readFileSync(new URL(rel, import.meta.url), "utf8")) as { name?: string; version?: string };
      if (pkg.name === "kpt-ts" && typeof pkg.version === "string") return pkg.version;
    } catch {
      /* not there: look further up */
    }
  }
  return "0.0.0";
}

export const KPT_TS_VERSION = readVersion();
