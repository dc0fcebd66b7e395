// The Node 20 launcher's code cache file (cli-launcher.ts): V8's cached data behind a header that
// says what made it and how many runs of the command have written it. Anything else in the file
// (garbage, another format, another program's) reads as no cache: the script is compiled as usual.

/** How many runs of a command write its code cache: the first, and the next ones add what they compiled. */
export const CODE_CACHE_RUNS = 3;

const MAGIC = Buffer.from("kpt-ts code cache 1\n");

/** A cache file's V8 data and its count of runs; undefined for anything else. */
export function readCodeCache(bytes: Buffer | undefined): { data: Buffer; runs: number } | undefined {
  const head = MAGIC.length;
  if (!bytes || bytes.length <= head + 1 || !bytes.subarray(0, head).equals(MAGIC)) return undefined;
  const runs = bytes[head]!;
  return runs >= 1 && runs <= CODE_CACHE_RUNS ? { runs, data: bytes.subarray(head + 1) } : undefined;
}

/** The file's bytes for V8's data written by the `runs`-th run. */
export function codeCacheEntry(data: Buffer, runs: number): Buffer {
  return Buffer.concat([MAGIC, Buffer.from([Math.min(Math.max(runs, 1), CODE_CACHE_RUNS)]), data]);
}
