// Parsed package files kept between runs, keyed by a hash of their text: a file that has not
// changed is read back as JSON instead of parsed as YAML again, which is most of a re-apply's
// start-up (a 500-object package: about 40 ms of cold YAML parsing against 2 ms). The key also
// names this parser's build, so a new kpt-ts never reads an older one's results.
//
// What an entry says is sent to the cluster, so it is trusted only as far as util/user-cache.ts
// allows (a directory and files only the user can write), and each entry carries the full hash of
// the text it was parsed from, checked on read: an entry for other text, a corrupt or truncated
// one, is a miss and is written again. Any failure to read or write is ignored: it is an
// optimisation only. `KPT_TS_PARSE_CACHE=off` disables it.

import { createHash } from "node:crypto";
import { statSync } from "node:fs";
import { readdir, stat, unlink } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { noteOnce, privateDirProblem, readEntry, userCacheDir, writeEntry } from "../util/user-cache.js";
import type { YamlSnapshot } from "./yaml-documents.js";

export interface ParseCache {
  read(text: string): Promise<YamlSnapshot | undefined>;
  write(text: string, snapshot: YamlSnapshot): Promise<void>;
}

export interface ParseCacheOptions {
  /** Told once when the directory may not be used (it belongs to someone else...): for `-v`. */
  onUnusable?: (message: string) => void;
}

/** Bump when a snapshot's shape or meaning changes. */
const FORMAT = 2;

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

/** What is stored: the snapshot and the hash of the text it is the snapshot of. */
interface Entry extends YamlSnapshot {
  sha256: string;
}

/** The cache under the user's cache directory (or KPT_TS_PARSE_CACHE); undefined when disabled or not private. */
export function parseCacheFor(env: NodeJS.ProcessEnv = process.env, opts: ParseCacheOptions = {}): ParseCache | undefined {
  const setting = env.KPT_TS_PARSE_CACHE;
  if (setting === "off") return undefined;
  const dir = setting || userCacheDir(env, "parsed");
  const problem = privateDirProblem(dir);
  if (problem) {
    noteOnce(`parse ${dir}`, opts.onUnusable && (() => opts.onUnusable!(`not using the parse cache in ${dir}: ${problem}`)));
    return undefined;
  }
  const build = buildId();
  const hashOf = (text: string) => createHash("sha256").update(build).update("\0").update(text).digest("hex");
  const file = (hash: string) => join(dir, `${hash.slice(0, 40)}.json`);
  let maintained = false;
  return {
    async read(text) {
      try {
        const hash = hashOf(text);
        const bytes = await readEntry(file(hash), { touch: true });
        if (!bytes) return undefined;
        const entry = JSON.parse(bytes.toString("utf8")) as Entry;
        return entry.sha256 === hash && isSnapshot(entry) ? { documents: entry.documents } : undefined;
      } catch {
        return undefined;
      }
    },
    async write(text, snapshot) {
      try {
        const hash = hashOf(text);
        await writeEntry(file(hash), JSON.stringify({ sha256: hash, documents: snapshot.documents } satisfies Entry));
        // Every edit of a file adds an entry: once a day at most, entries unused for a month go.
        if (!maintained) {
          maintained = true;
          await cleanUpDaily(dir);
        }
      } catch {
        /* an optimisation only */
      }
    },
  };
}

function isSnapshot(v: unknown): v is YamlSnapshot {
  const docs = (v as { documents?: unknown } | null)?.documents;
  if (!Array.isArray(docs)) return false;
  const line = (n: unknown) => Number.isSafeInteger(n) && (n as number) >= 0;
  return docs.every((d) => d !== null && typeof d === "object" && line(d.line) && line(d.firstLine) && line(d.lineCount) && line(d.textLength) && "value" in d);
}

const DAY_MS = 24 * 3600 * 1000;
const MONTH_MS = 30 * DAY_MS;
/** A write's temporary file older than this belongs to a run that was killed. */
const STALE_TEMPORARY_MS = 3600 * 1000;
const STAMP = ".last-clean";

/**
 * The clean-up below, at most once a day (a stamp file's time says when it last ran): one stat
 * per run otherwise, so keeping the cache costs the same for 10 files or 10,000.
 */
export async function cleanUpDaily(dir: string, now = Date.now()): Promise<boolean> {
  const last = await stat(join(dir, STAMP)).catch(() => undefined);
  if (last && now - last.mtimeMs < DAY_MS) return false;
  await writeEntry(join(dir, STAMP), "");
  await removeUnused(dir, MONTH_MS, now);
  return true;
}

/** Removes the entries not read or written for `ageMs`, and temporary files of killed runs. */
export async function removeUnused(dir: string, ageMs: number, now = Date.now()): Promise<void> {
  for (const name of await readdir(dir)) {
    if (name === STAMP) continue;
    const path = join(dir, name);
    try {
      const age = now - (await stat(path)).mtimeMs;
      if (age > ageMs || (name.endsWith(".tmp") && age > STALE_TEMPORARY_MS)) await unlink(path);
    } catch {
      /* gone meanwhile */
    }
  }
}
