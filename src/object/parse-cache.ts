// Parsed package files kept between runs, keyed by a hash of their text: a file that has not
// changed is read back as JSON instead of parsed as YAML again, which is most of a re-apply's
// start-up (a 500-object package: about 40 ms of cold YAML parsing against 2 ms). The key also
// names this parser's build, so a new kpt-ts never reads an older one's results. Any failure to
// read or write is ignored: it is an optimisation only. `KPT_TS_PARSE_CACHE=off` disables it.

import { createHash } from "node:crypto";
import { statSync } from "node:fs";
import { readdir, readFile, stat, unlink, utimes } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { userCacheDir, writeEntry } from "../util/user-cache.js";
import type { YamlSnapshot } from "./yaml-documents.js";

export interface ParseCache {
  read(text: string): Promise<YamlSnapshot | undefined>;
  write(text: string, snapshot: YamlSnapshot): Promise<void>;
}

/** Bump when a snapshot's shape or meaning changes. */
const FORMAT = 1;

/** The parser's build: this module's file (a bundle chunk is named by its content hash) and its time. */
function buildId(): string {
  const file = fileURLToPath(import.meta.url);
  try {
    const st = statSync(file);
    return `${FORMAT}|${file}|${st.size}|${st.mtimeMs}`;
  } catch {
    return `${FORMAT}|${file}`;
  }
}

/** The cache under the user's cache directory (or KPT_TS_PARSE_CACHE); undefined when disabled. */
export function parseCacheFor(env: NodeJS.ProcessEnv = process.env): ParseCache | undefined {
  const setting = env.KPT_TS_PARSE_CACHE;
  if (setting === "off") return undefined;
  const dir = setting || userCacheDir(env, "parsed");
  const build = buildId();
  const file = (text: string) => join(dir, `${createHash("sha256").update(build).update("\0").update(text).digest("hex").slice(0, 40)}.json`);
  return {
    async read(text) {
      try {
        const name = file(text);
        const snap = JSON.parse(await readFile(name, "utf8")) as YamlSnapshot;
        // Marks the entry as used, for the clean-up below.
        const now = new Date();
        utimes(name, now, now).catch(() => undefined);
        return Array.isArray(snap.documents) ? snap : undefined;
      } catch {
        return undefined;
      }
    },
    async write(text, snapshot) {
      try {
        await writeEntry(file(text), JSON.stringify(snapshot));
        // Every edit of a file adds an entry: now and then, entries unused for a month go.
        if (Math.random() < 1 / 32) await removeUnused(dir, MONTH_MS);
      } catch {
        /* an optimisation only */
      }
    },
  };
}

const MONTH_MS = 30 * 24 * 3600 * 1000;

/** Removes the entries not read or written for `ageMs`. */
export async function removeUnused(dir: string, ageMs: number, now = Date.now()): Promise<void> {
  for (const name of await readdir(dir)) {
    const path = join(dir, name);
    try {
      if (now - (await stat(path)).mtimeMs > ageMs) await unlink(path);
    } catch {
      /* gone meanwhile */
    }
  }
}
