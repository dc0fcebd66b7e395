// Where kpt-ts keeps what it caches between runs (~/.cache/kpt-ts/<name>, or under
// $XDG_CACHE_HOME), and the only way its caches touch the disk. A cache is trusted with what a
// run sends to the cluster (parsed files, discovery) and even with code (V8's compiled code), so
// it is used only where nobody else can have written it, or can change what its path leads to:
//
// - the directory is owned by the current user and not writable by group or others;
// - every directory above it (as named and as resolved) belongs to the user or to root and is
//   writable by nobody else, except a directory owned by root with the sticky bit (/tmp), where
//   nobody may rename or remove what another user made: the rule of ssh's StrictModes and
//   kubectl-style checks, so a cache under TMPDIR works, but not under a directory a group shares
//   (root:team 0775) or another user made (HOME=/tmp, an XDG_CACHE_HOME or --cache-dir they own);
// - every link on the way (the directory itself given as a link, or a link above it) belongs to
//   the user or to root: another user's link could be re-pointed while the run writes;
// - after the check, the resolved path is the one used for everything (reads, writes, clean-ups,
//   Node's compile cache), so nothing is looked up through a link again;
// - each file read is opened without following a link, then checked (fstat) to be a regular
//   file owned by the current user and not writable by group or others;
// - each entry is written to a temporary file created exclusively (O_EXCL: a link planted under
//   its name is never followed), then renamed over the entry, so a concurrent run never reads
//   half a file. Temporary files a run leaves (it exited before a write finished) are removed at
//   exit.
//
// Callers treat every failure here as a cache miss: a cache is an optimisation only.

import { randomBytes } from "node:crypto";
import { closeSync, constants, fstatSync, futimesSync, lstatSync, mkdirSync, openSync, readdirSync, readSync, realpathSync, renameSync, unlinkSync, write, writeSync, type Stats } from "node:fs";
import { rename, unlink } from "node:fs/promises";
import { homedir } from "node:os";
import { dirname, join, parse, resolve } from "node:path";

export function userCacheDir(env: NodeJS.ProcessEnv, name: string): string {
  return join(env.XDG_CACHE_HOME || join(homedir(), ".cache"), "kpt-ts", name);
}

/** The largest cache file read back (a code cache is a few MiB; a parsed file at most a few times its 256 MiB). */
const MAX_CACHE_FILE_BYTES = 1024 * 1024 * 1024;

const uid = (): number | undefined => process.getuid?.();

/**
 * The directory to keep a cache in: `dir` resolved (created, mode 0700, when missing), to be used
 * from then on instead of `dir`; or why it may not hold a cache, a sentence for a `-v` note:
 * `it belongs to uid 1000, not to you (uid 0)`.
 */
export function privateDir(dir: string): { dir: string } | { problem: string } {
  const abs = resolve(dir);
  const me = uid();
  if (me === undefined) return { dir: abs }; // no owners to compare (Windows)
  // Nothing is created through another user's link or directory.
  const before = namedPathProblem(abs, me, true);
  if (before) return { problem: before };
  try {
    mkdirSync(abs, { recursive: true, mode: 0o700 });
  } catch (err) {
    return { problem: `it cannot be created (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})` };
  }
  // The path as named, before it is resolved: its links and the directories it passes through.
  const named = namedPathProblem(abs, me, false);
  if (named) return { problem: named };
  let real: string;
  let st: Stats;
  try {
    real = realpathSync(abs);
    st = lstatSync(real);
  } catch (err) {
    return { problem: `it cannot be read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})` };
  }
  if (!st.isDirectory()) return { problem: "it is not a directory" };
  if (st.uid !== me) return { problem: `it belongs to uid ${st.uid}, not to you (uid ${me})` };
  if (st.mode & 0o022) return { problem: `others may write to it (mode ${(st.mode & 0o777).toString(8)}): chmod go-w it` };
  for (const path of ancestors(real)) {
    let a: Stats;
    try {
      a = lstatSync(path);
    } catch {
      return { problem: `${path} cannot be read` };
    }
    const problem = ancestorProblem(path, a, me);
    if (problem) return { problem };
  }
  return { dir: real };
}

/**
 * Each component of `abs` as named: a link must be the user's or root's (another user could
 * re-point it), a directory above must pass ancestorProblem. `missingOk`: before the directory is
 * made, a component not there yet is no problem.
 */
function namedPathProblem(abs: string, me: number, missingOk: boolean): string | undefined {
  for (const path of [abs, ...ancestors(abs)]) {
    let st: Stats;
    try {
      st = lstatSync(path);
    } catch (err) {
      if (missingOk && (err as NodeJS.ErrnoException).code === "ENOENT") continue;
      return `${path} cannot be read`;
    }
    if (st.isSymbolicLink()) {
      if (st.uid !== me && st.uid !== 0) return `${path} is a link that belongs to uid ${st.uid}, not to you (uid ${me}) or root: it could be re-pointed while kpt-ts writes`;
    } else if (path !== abs) {
      const problem = ancestorProblem(path, st, me);
      if (problem) return problem;
    }
  }
  return undefined;
}

/**
 * A directory above a cache: the user's or root's, and writable by nobody else, unless it is
 * root's with the sticky bit (/tmp: others may add entries, but not rename or remove ours).
 */
function ancestorProblem(path: string, st: Stats, me: number): string | undefined {
  if (st.uid !== me && st.uid !== 0) return `${path} belongs to uid ${st.uid}, not to you (uid ${me}) or root`;
  if (!st.isDirectory() || !(st.mode & 0o022)) return undefined;
  if (st.mode & 0o1000 && st.uid === 0) return undefined;
  const who = st.mode & 0o002 ? "everyone" : `group ${st.gid}`;
  const sticky = st.mode & 0o1000 ? "sticky, but not root's" : "no sticky bit";
  return `${who} may write to ${path} (mode ${(st.mode & 0o7777).toString(8)}, ${sticky})`;
}

/**
 * For a cache another program reads by itself (Node's compile cache): what in `dir`, two levels
 * deep, is not a private file or directory of the user's (a link, someone else's, writable by
 * others). Undefined when all is; run after privateDir(dir), on the directory it returned.
 */
export function privateTreeProblem(dir: string, depth = 2): string | undefined {
  const me = uid();
  if (me === undefined) return undefined;
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch (err) {
    return `${dir} cannot be read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`;
  }
  for (const name of names) {
    const path = join(dir, name);
    let st: Stats;
    try {
      st = lstatSync(path);
    } catch {
      continue; // removed meanwhile
    }
    if (st.isDirectory()) {
      if (st.uid !== me) return `${path} belongs to uid ${st.uid}`;
      if (st.mode & 0o022) return `${path} is writable by others`;
      const below = depth > 1 ? privateTreeProblem(path, depth - 1) : `${path} is deeper than a cache entry`;
      if (below) return below;
    } else {
      const problem = fileProblem(st);
      if (problem && problem !== "too large") return `${path}: ${problem}`;
    }
  }
  return undefined;
}

function ancestors(path: string): string[] {
  const out: string[] = [];
  const root = parse(path).root;
  for (let p = dirname(path); ; p = dirname(p)) {
    out.push(p);
    if (p === root) return out;
  }
}

/** Why an opened cache file may not be trusted, or undefined when it may. */
function fileProblem(st: Stats): string | undefined {
  if (!st.isFile()) return "not a regular file";
  const me = uid();
  if (me !== undefined && st.uid !== me) return `belongs to uid ${st.uid}`;
  if (st.mode & 0o022) return "writable by others";
  if (st.size > MAX_CACHE_FILE_BYTES) return "too large";
  return undefined;
}

// O_NOFOLLOW: a link where an entry should be is refused (ELOOP) instead of followed.
const READ_FLAGS = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);
const CREATE_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0);

/**
 * A cache file's bytes, or undefined when it is missing or may not be trusted (see fileProblem).
 * Synchronous: for the small files caches hold, a few system calls cost far less than the promises
 * of an asynchronous read (a package of 10,000 files reads its cache in a fraction of a second).
 * `touchAfterMs`: marks the entry used when its time is older than that (one write a day at
 * most per entry, for the clean-up of unused entries).
 */
export function readEntrySync(file: string, opts: { touchAfterMs?: number } = {}): Buffer | undefined {
  let fd: number;
  try {
    fd = openSync(file, READ_FLAGS);
  } catch {
    return undefined;
  }
  try {
    const st = fstatSync(fd);
    if (fileProblem(st)) return undefined;
    const buf = Buffer.allocUnsafe(st.size);
    let n = 0;
    while (n < st.size) {
      const read = readSync(fd, buf, n, st.size - n, n);
      if (read === 0) break;
      n += read;
    }
    if (n !== st.size) return undefined;
    if (opts.touchAfterMs !== undefined && Date.now() - st.mtimeMs > opts.touchAfterMs) {
      const now = new Date();
      try {
        futimesSync(fd, now, now);
      } catch {
        /* read-only: it is still an entry */
      }
    }
    return buf;
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/** Temporary files being written now: removed at exit if the run ends before they are renamed. */
const pending = new Set<string>();
let cleanupArmed = false;

function tempNameFor(file: string): string {
  if (!cleanupArmed) {
    cleanupArmed = true;
    process.once("exit", removePendingTemporaries);
  }
  const tmp = `${file}.${process.pid}-${randomBytes(6).toString("hex")}.tmp`;
  pending.add(tmp);
  return tmp;
}

/** Removes the temporary files of writes that have not finished (called at exit). */
function removePendingTemporaries(): void {
  for (const tmp of pending) {
    try {
      unlinkSync(tmp);
    } catch {
      /* renamed meanwhile, or never created */
    }
  }
  pending.clear();
}

/**
 * Writes an entry whole, then renames it into place. The directory must be one privateDir
 * returned; `file` is a name in it. The temporary file is created synchronously, so
 * that it exists exactly when it is listed for removal at exit (an asynchronous create still in
 * flight at exit would outlive that removal).
 */
export async function writeEntry(file: string, data: string | Uint8Array): Promise<void> {
  const tmp = tempNameFor(file);
  try {
    const fd = openSync(tmp, CREATE_FLAGS, 0o600);
    try {
      const buf = typeof data === "string" ? Buffer.from(data) : data;
      for (let n = 0; n < buf.length; ) n += await writeAsync(fd, buf, n);
    } finally {
      closeSync(fd);
    }
    await rename(tmp, file);
  } catch (err) {
    await unlink(tmp).catch(() => undefined);
    throw err;
  } finally {
    pending.delete(tmp);
  }
}

function writeAsync(fd: number, buf: Uint8Array, offset: number): Promise<number> {
  return new Promise((resolve, reject) => write(fd, buf, offset, buf.length - offset, null, (err, n) => (err ? reject(err) : resolve(n))));
}

/** The same, for the launcher's write at exit, when nothing asynchronous runs any more. */
export function writeEntrySync(file: string, data: string | Uint8Array): void {
  const tmp = tempNameFor(file);
  try {
    const fd = openSync(tmp, CREATE_FLAGS, 0o600);
    try {
      const buf = typeof data === "string" ? Buffer.from(data) : data;
      for (let n = 0; n < buf.length; ) n += writeSync(fd, buf, n, buf.length - n);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, file);
  } catch (err) {
    try {
      unlinkSync(tmp);
    } catch {
      /* never created */
    }
    throw err;
  } finally {
    pending.delete(tmp);
  }
}

/**
 * Runs `note` at most once per process and cache name: a run told "not using the code cache"
 * once is told enough.
 */
const noted = new Set<string>();
export function noteOnce(key: string, note: (() => void) | undefined): void {
  if (!note || noted.has(key)) return;
  noted.add(key);
  note();
}
