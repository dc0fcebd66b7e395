// Discovery and OpenAPI documents kept on disk between runs, as kubectl keeps
// ~/.kube/cache/discovery/<host_port>, but never trusted stale: discovery is revalidated on every
// run with its ETag (a 304 answer costs no payload), and an OpenAPI v3 document is cached under
// the hash the server's /openapi/v3 index gives its URL, which changes whenever the document does
// (a CRD added or changed). What discovery says decides where objects are sent, so the cache is
// used only where nobody else can write it (util/user-cache.ts). The cache is an optimisation
// only: any failure to read or write it is ignored. `--cache-dir` or `KPT_TS_HTTP_CACHE` moves it
// (`off` disables it).

import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { noteOnce, privateDir, readEntrySync, userCacheDir, writeEntry } from "../util/user-cache.js";
import type { CachedBody } from "./transport.js";

export interface HttpCache {
  read(key: string): Promise<CachedBody | undefined>;
  write(key: string, entry: CachedBody): Promise<void>;
}

interface DiskCacheOptions {
  /** Told once when the directory may not be used (it belongs to someone else...): for `-v`. */
  onUnusable?: (message: string) => void;
}

/** The cache of one API server, under the user's cache directory; undefined when disabled. */
export function diskCacheFor(server: string, env: NodeJS.ProcessEnv = process.env, rootDir?: string, opts: DiskCacheOptions = {}): HttpCache | undefined {
  const setting = rootDir ?? env.KPT_TS_HTTP_CACHE;
  if (setting === "off") return undefined;
  const root = setting || userCacheDir(env, "http");
  const url = new URL(server);
  // host_port as kubectl names its directories, plus a hash of the whole URL (path prefixes differ).
  const dir = join(root, `${url.hostname}_${url.port || (url.protocol === "http:" ? "80" : "443")}-${createHash("sha256").update(server).digest("hex").slice(0, 12)}`);
  // Checked once, when first used: a directory not made yet holds nothing (a miss), and is made, and checked, by the first write.
  // The directory as the check resolved it (undefined: not usable): never looked up through a link again.
  let usable: string | undefined | false;
  const check = (create: boolean): boolean => {
    if (usable !== undefined) return usable !== false;
    if (!create && !existsSync(dir)) return false;
    const checked = privateDir(dir);
    if ("problem" in checked) noteOnce(`http ${dir}`, opts.onUnusable && (() => opts.onUnusable!(`not using the discovery cache in ${dir}: ${checked.problem}`)));
    usable = "dir" in checked ? checked.dir : false;
    return usable !== false;
  };
  const file = (key: string) => join(usable || dir, `${createHash("sha256").update(key).digest("hex").slice(0, 32)}.json`);
  return {
    async read(key) {
      if (!check(false)) return undefined;
      try {
        // A header line (key, ETag), then the body as it came: the body is parsed once, by
        // its reader, instead of twice (as a string inside JSON, then as JSON).
        const bytes = readEntrySync(file(key));
        if (!bytes) return undefined;
        const text = bytes.toString("utf8");
        const nl = text.indexOf("\n");
        const header = JSON.parse(text.slice(0, nl)) as { key?: string; etag?: string };
        return nl > 0 && header.key === key ? { ...(typeof header.etag === "string" ? { etag: header.etag } : {}), body: text.slice(nl + 1) } : undefined;
      } catch {
        return undefined;
      }
    },
    async write(key, entry) {
      if (!check(true)) return;
      try {
        await writeEntry(file(key), `${JSON.stringify({ key, ...(entry.etag ? { etag: entry.etag } : {}) })}\n${entry.body}`);
      } catch {
        /* an optimisation only */
      }
    },
  };
}
