// Parsed package files kept between runs: a file that has not changed is read back as JSON
// instead of parsed as YAML again, which is most of a re-apply's start-up (a 500-object package:
// about 40 ms of cold YAML parsing against 2 ms). The key also names this parser's build, so a new
// kpt-ts never reads an older one's results.
//
// One file per package (its root directory), holding each of its files' parse under the hash of
// the file's text: a run reads one file and writes at most one, whatever the package's size (a
// file per parsed file cost a 10,000-file package tens of thousands of system calls, more than
// parsing it). Entries the package no longer has are dropped when it is written again.
//
// What an entry says is sent to the cluster, so it is trusted only as far as util/user-cache.ts
// allows (a directory and files only the user can write), and it is looked up by the full hash of
// the text it is read for: an entry for other text is never used, a corrupt file is a miss and is
// written again. Any failure to read or write is ignored: it is an optimisation only.
// `KPT_TS_PARSE_CACHE=off` disables it.

import { createHash } from "node:crypto";
import { statSync } from "node:fs";
import { readdir, stat, unlink } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { noteOnce, privateDir, readEntrySync, userCacheDir, writeEntry } from "../util/user-cache.js";
import type { YamlSnapshot } from "./yaml-documents.js";

export interface ParseCache {
  /** The cached parses of one package (`scope`: its root directory, resolved; "-" for standard input). */
  open(scope: string): PackageParseCache;
}

export interface PackageParseCache {
  /** The parse of this text (or of these bytes: the hash of a text is that of its UTF-8 bytes). */
  read(text: string | Uint8Array): YamlSnapshot | undefined;
  write(text: string | Uint8Array, snapshot: YamlSnapshot): void;
  /** Keeps this run's parses (those read and those written), when they differ from what was read. */
  save(): Promise<void>;
}

interface ParseCacheOptions {
  /** Told once when the directory may not be used (it belongs to someone else...): for `-v`. */
  onUnusable?: (message: string) => void;
}

/** Bump when a snapshot's shape or meaning changes. */
const FORMAT = 7;

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

/** What a package's file holds: each parse under the full hash of the build and the text. */
interface Stored {
  entries: Record<string, YamlSnapshot>;
}

/** The cache under the user's cache directory (or KPT_TS_PARSE_CACHE); undefined when disabled or not private. */
export function parseCacheFor(env: NodeJS.ProcessEnv = process.env, opts: ParseCacheOptions = {}): ParseCache | undefined {
  const setting = env.KPT_TS_PARSE_CACHE;
  if (setting === "off") return undefined;
  const configured = setting || userCacheDir(env, "parsed");
  const checked = privateDir(configured);
  if ("problem" in checked) {
    noteOnce(`parse ${configured}`, opts.onUnusable && (() => opts.onUnusable!(`not using the parse cache in ${configured}: ${checked.problem}`)));
    return undefined;
  }
  // The directory as resolved by the check: never looked up through a link again.
  const dir = checked.dir;
  const build = buildId();
  const hashOf = (text: string | Uint8Array) => createHash("sha256").update(build).update("\0").update(text).digest("hex");
  let maintained = false;
  return {
    open(scope) {
      const file = join(dir, `${hashOf(`package\0${scope}`).slice(0, 40)}.json`);
      const stored = load(file);
      const kept: Record<string, YamlSnapshot> = {};
      let changed = false;
      return {
        read(text) {
          const key = hashOf(text);
          const snap = stored[key];
          if (!snap || !isSnapshot(snap)) return undefined;
          kept[key] = snap;
          return snap;
        },
        write(text, snapshot) {
          kept[hashOf(text)] = snapshot;
          changed = true;
        },
        async save() {
          // Also when files were removed from the package: their entries go.
          if (!changed && Object.keys(kept).length === Object.keys(stored).length) return;
          try {
            await writeEntry(file, JSON.stringify({ entries: kept } satisfies Stored));
            // Every edit of a package rewrites its file: once a day at most, files unused for a month go.
            if (!maintained) {
              maintained = true;
              await cleanUpDaily(dir);
            }
          } catch {
            /* an optimisation only */
          }
        },
      };
    },
  };
}

/** A package's stored parses, or none (missing, not private, corrupt). Marks the file used. */
function load(file: string): Record<string, YamlSnapshot> {
  try {
    const bytes = readEntrySync(file, { touchAfterMs: DAY_MS });
    const stored = bytes ? (JSON.parse(bytes.toString("utf8")) as Stored) : undefined;
    return stored && typeof stored.entries === "object" && stored.entries !== null && !Array.isArray(stored.entries) ? stored.entries : {};
  } catch {
    return {};
  }
}

function isSnapshot(v: unknown): v is YamlSnapshot {
  const { documents: docs, wholeFile } = (v ?? {}) as { documents?: unknown; wholeFile?: unknown };
  if (!Array.isArray(docs) || (wholeFile !== undefined && typeof wholeFile !== "boolean")) return false;
  const line = (n: unknown) => Number.isSafeInteger(n) && (n as number) >= 0;
  return docs.every((d) => d !== null && typeof d === "object" && line(d.line) && line(d.firstLine) && line(d.lineCount) && line(d.textLength) && (d.index === undefined || line(d.index)) && (d.requestBytes === undefined || line(d.requestBytes)) && (d.valid === undefined || d.valid === true) && "value" in d && (d.parseAgain === undefined || (d.parseAgain === true && !wholeFile)));
}

const DAY_MS = 24 * 3600 * 1000;
const MONTH_MS = 30 * DAY_MS;
/** A write's temporary file older than this belongs to a run that was killed. */
const STALE_TEMPORARY_MS = 3600 * 1000;
const STAMP = ".last-clean";

/**
 * The clean-up below, at most once a day (a stamp file's time says when it last ran): one stat
 * per run otherwise, however many packages the cache holds.
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
