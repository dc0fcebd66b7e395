// Where kpt-ts keeps what it caches between runs (~/.cache/kpt-ts/<name>, or under
// $XDG_CACHE_HOME), and how an entry is written: whole, then renamed, so a concurrent run never
// reads half a file. Callers treat every failure here as a cache miss.

import { mkdirSync, renameSync, writeFileSync } from "node:fs";
import { mkdir, rename, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { dirname, join } from "node:path";

export function userCacheDir(env: NodeJS.ProcessEnv, name: string): string {
  return join(env.XDG_CACHE_HOME || join(homedir(), ".cache"), "kpt-ts", name);
}

export async function writeEntry(file: string, data: string | Uint8Array): Promise<void> {
  await mkdir(dirname(file), { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.tmp`;
  await writeFile(tmp, data, { mode: 0o600 });
  await rename(tmp, file);
}

/** The same, for the launcher's write at exit, when nothing asynchronous runs any more. */
export function writeEntrySync(file: string, data: string | Uint8Array): void {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, data, { mode: 0o600 });
  renameSync(tmp, file);
}
