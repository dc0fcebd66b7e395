// Issue 17: discovery and OpenAPI kept on disk between runs, never stale: a cached body is used
// only when the server answers 304 to its ETag; the cache can be moved or turned off.
import { createServer, type Server } from "node:http";
import { mkdtemp, readdir, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { diskCacheFor } from "../../src/cluster/disk-cache.js";
import type { ClusterConnection } from "../../src/cluster/kubeconfig.js";
import { staticCredentials } from "../../src/cluster/credential-source.js";
import { Transport } from "../../src/cluster/transport.js";

describe("the disk cache", () => {
  it("stores an entry per server and key, and reads back only that key", async () => {
    const dir = await mkdtemp(join(tmpdir(), "kpt-ts-cache-"));
    const a = diskCacheFor("https://10.0.0.1:6443", { KPT_TS_HTTP_CACHE: dir })!;
    const b = diskCacheFor("https://10.0.0.2:6443", { KPT_TS_HTTP_CACHE: dir })!;
    await a.write("discovery /apis", { etag: '"e1"', body: "{}" });
    expect(await a.read("discovery /apis")).toEqual({ etag: '"e1"', body: "{}" });
    expect(await a.read("discovery /api")).toBeUndefined();
    expect(await b.read("discovery /apis")).toBeUndefined();
    expect((await readdir(dir)).sort()).toEqual([expect.stringMatching(/^10\.0\.0\.1_6443-/)]);
  });

  it("keeps a body byte for byte (newlines included), and takes a file it cannot read for a miss", async () => {
    const dir = await mkdtemp(join(tmpdir(), "kpt-ts-cache-"));
    const cache = diskCacheFor("https://10.0.0.1:6443", { KPT_TS_HTTP_CACHE: dir })!;
    const body = '{\n  "paths": {"a": "b\\n"}\n}\n';
    await cache.write("openapi /x?hash=1", { body });
    expect(await cache.read("openapi /x?hash=1")).toEqual({ body });
    // An entry written by an earlier version (the whole entry as one JSON document) is a miss, not an error.
    const [sub] = await readdir(dir);
    const [file] = await readdir(join(dir, sub!));
    await writeFile(join(dir, sub!, file!), JSON.stringify({ key: "openapi /x?hash=1", body: "{}" }));
    expect(await cache.read("openapi /x?hash=1")).toBeUndefined();
  });

  it("is off with KPT_TS_HTTP_CACHE=off, and lives under the user's cache directory by default", () => {
    expect(diskCacheFor("https://10.0.0.1:6443", { KPT_TS_HTTP_CACHE: "off" })).toBeUndefined();
    expect(diskCacheFor("https://10.0.0.1:6443", { XDG_CACHE_HOME: "/nonexistent" })).toBeDefined();
  });

  it("--cache-dir wins over KPT_TS_HTTP_CACHE (and 'off' turns it off there too)", async () => {
    const flagDir = await mkdtemp(join(tmpdir(), "kpt-ts-cache-flag-"));
    const envDir = await mkdtemp(join(tmpdir(), "kpt-ts-cache-env-"));
    await diskCacheFor("https://10.0.0.1:6443", { KPT_TS_HTTP_CACHE: envDir }, flagDir)!.write("k", { body: "{}" });
    expect(await readdir(flagDir)).toHaveLength(1);
    expect(await readdir(envDir)).toHaveLength(0);
    expect(diskCacheFor("https://10.0.0.1:6443", { KPT_TS_HTTP_CACHE: envDir }, "off")).toBeUndefined();
  });
});

describe("Transport.revalidate", () => {
  let server: Server;
  let url = "";
  let version = 1;
  const seen: (string | undefined)[] = [];
  beforeAll(async () => {
    server = createServer((req, res) => {
      const etag = `"v${version}"`;
      seen.push(req.headers["if-none-match"]);
      if (req.headers["if-none-match"] === etag) {
        res.writeHead(304, { etag });
        return res.end();
      }
      res.writeHead(200, { etag, "content-type": "application/json" });
      res.end(JSON.stringify({ version }));
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  afterAll(() => server.close());

  it("uses the cached body on 304, and the server's on any change", async () => {
    const conn: ClusterConnection = { server: url, contextName: "c", userName: "u", namespace: "default", namespaceEnforced: false, insecureSkipTlsVerify: false, disableCompression: false, credentials: staticCredentials({ headers: {} }), files: [], env: {} };
    const t = new Transport(conn);
    try {
      const first = await t.revalidate("/apis", undefined);
      expect(JSON.parse(first.body)).toEqual({ version: 1 });
      expect(first.changed).toEqual({ etag: '"v1"', body: first.body });

      const again = await t.revalidate("/apis", first.changed);
      expect(again).toEqual({ body: first.body });

      version = 2; // a CRD was added: the server's answer, and its ETag, change
      const fresh = await t.revalidate("/apis", first.changed);
      expect(JSON.parse(fresh.body)).toEqual({ version: 2 });
      expect(fresh.changed?.etag).toBe('"v2"');
      expect(seen).toEqual([undefined, '"v1"', '"v1"']);
    } finally {
      t.close();
    }
  });
});
