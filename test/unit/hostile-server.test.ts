// Issue 23, findings 4, 5 and 10: answers no Kubernetes API server sends (gzip bombs, HTML,
// discovery of the wrong kind or with null items, corrupt cached discovery kept alive by 304s),
// and servers that never answer, against a small fake server. Each ends in a clear error that
// names the URL, with memory bounded, or works as kubectl would; none is "a bug in kpt-ts".
import { mkdtemp, readdir, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { afterEach, describe, expect, it, vi } from "vitest";
import { AnswerTooLargeError, MalformedAnswerError } from "../../src/cluster/answer-check.js";
import { diskCacheFor } from "../../src/cluster/disk-cache.js";
import { KubeCluster } from "../../src/cluster/kube-cluster.js";
import { readAnswer, Transport } from "../../src/cluster/transport.js";
import { ClusterError } from "../../src/model/errors.js";
import { formatError } from "../../src/print/error-report.js";
import { aggregatedDiscovery, gzipBomb, sendJson, startFakeApiServer, startSilentListener, type FakeServer, type Handler } from "../helpers/fake-api-server.js";

const servers: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});

async function fake(handler: Handler): Promise<FakeServer> {
  const s = await startFakeApiServer(handler);
  servers.push(s);
  return s;
}

async function clusterOf(s: { kubeconfig: string }, opts: { cacheDir?: string; signal?: AbortSignal } = {}): Promise<KubeCluster> {
  return new KubeCluster({ kubeconfig: s.kubeconfig, httpCache: opts.cacheDir ?? "off", ...(opts.signal ? { signal: opts.signal } : {}) });
}

/** Discovery as a real server answers it, with an ETag and 304 to that ETag. */
function discoveryServer(extra?: Handler): Handler {
  return (req, res) => {
    const path = (req.url ?? "").split("?")[0]!;
    if (path === "/api" || path === "/apis") {
      const etag = `"${path}-v1"`;
      if (req.headers["if-none-match"] === etag) {
        res.writeHead(304, { etag });
        return res.end();
      }
      return sendJson(res, aggregatedDiscovery(path), 200, { etag });
    }
    if (extra) return extra(req, res);
    sendJson(res, { kind: "Status", status: "Failure", reason: "NotFound", code: 404, message: "not found" }, 404);
  };
}

/** The message the CLI would print for `err` (formatError), all lines. */
function printed(err: unknown): string {
  return formatError(err, false).join("\n");
}

describe("an answer larger than any real one", () => {
  it("stops being read at the limit, whatever it expands to, and names the URL", async () => {
    const bomb = gzipBomb(64 * 1024 * 1024);
    const s = await fake((_req, res) => {
      res.writeHead(200, { "content-type": "application/json", "content-encoding": "gzip" });
      res.end(bomb);
    });
    const t = new Transport({ server: s.url, contextName: "c", userName: "u", namespace: "default", namespaceEnforced: false, insecureSkipTlsVerify: false, disableCompression: false, credentials: { get: async () => ({ headers: {}, generation: 0 }), invalidate: () => false }, files: [], env: {} });
    try {
      const res = await t.open("GET", "/api");
      const err = await readAnswer(res, `${s.url}/api`, 8 * 1024 * 1024).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(AnswerTooLargeError);
      expect((err as Error).message).toBe(`the answer of ${s.url}/api is larger than 8 MiB once decompressed, more than any Kubernetes API server sends: the request was stopped`);
    } finally {
      t.close();
    }
  });
});

describe("discovery answers", () => {
  it("never lets a 304 keep a cached copy it cannot read: asks without the ETag and replaces the copy", async () => {
    const cacheDir = await mkdtemp(join(tmpdir(), "kpt-ts-hostile-http-"));
    const s = await fake(discoveryServer());
    // A cached copy under the server's current ETag, cut short (a disk full, a killed write, a planted file).
    const cache = diskCacheFor(s.url, {}, cacheDir)!;
    const key = (path: string) => `discovery ${path} application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json`;
    for (const path of ["/api", "/apis"]) await cache.write(key(path), { etag: `"${path}-v1"`, body: '{"kind":"APIGroupDiscoveryList","items":[{"metadata":{"name":"ap' });
    const readable = async () => {
      const [sub] = await readdir(cacheDir);
      const files = (await readdir(join(cacheDir, sub!))).filter((f) => f.endsWith(".json"));
      const bodies = await Promise.all(files.map((f) => readFile(join(cacheDir, sub!, f), "utf8")));
      return bodies.length === 2 && bodies.every((b) => {
        try {
          return JSON.parse(b.slice(b.indexOf("\n") + 1)).kind === "APIGroupDiscoveryList";
        } catch {
          return false;
        }
      });
    };
    for (let run = 0; run < 2; run++) {
      const cluster = await clusterOf(s, { cacheDir });
      try {
        expect(await cluster.scopeOf("apps", "Deployment")).toBe("Namespaced");
      } finally {
        cluster.close();
      }
      // The copy is written in the background, as the run goes on.
      for (let i = 0; i < 100 && !(await readable()); i++) await new Promise((r) => setTimeout(r, 20));
    }
    // First run: no If-None-Match (the copy was unreadable); second run: the replaced copy, revalidated.
    const asked = s.requests.filter((r) => r.path === "/apis").map((r) => r.headers["if-none-match"]);
    expect(asked).toEqual([undefined, '"/apis-v1"']);
    expect(await readable()).toBe(true);
  });

  it.each([
    ["an HTML page (a login page, a proxy's error)", "<!DOCTYPE html><html><body>Sign in</body></html>", "an HTML page is not JSON"],
    ["a body cut short", '{"kind":"APIGroupDiscoveryList","items":[', "is not JSON"],
    ["an empty body", "", "an empty body is not JSON"],
    ["another kind", { kind: "Pod", apiVersion: "v1", metadata: { name: "x" } }, 'expected APIGroupDiscoveryList or APIVersions, got a "Pod"'],
    ["a list", [1, 2], "expected a discovery document, got a list"],
    ["items that are not a list", { kind: "APIGroupDiscoveryList", items: "none" }, "items is a string, not a list"],
    ["a group whose versions are a string", { kind: "APIGroupDiscoveryList", items: [{ metadata: { name: "x" }, versions: "v1" }] }, "items[0].versions is a string, not a list"],
    ["a resource without a name", { kind: "APIGroupDiscoveryList", items: [{ metadata: { name: "x" }, versions: [{ version: "v1", resources: [{ verbs: ["get"] }] }] }] }, "items[0].versions[0].resources[0].resource is missing, not a string"],
  ])("refuses %s with an error naming the URL", async (_name, body, why) => {
    const s = await fake((req, res) => (req.url?.startsWith("/api") && !req.url.startsWith("/apis") ? sendJson(res, body as never) : sendJson(res, aggregatedDiscovery("/apis"))));
    const cluster = await clusterOf(s);
    try {
      const err = await cluster.scopeOf("", "ConfigMap").catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ClusterError);
      expect(printed(err)).toContain(`error: the answer of ${s.url}/api is not what a Kubernetes API server sends:`);
      expect(printed(err)).toContain(why);
      expect(printed(err)).not.toMatch(/looks like a bug/);
    } finally {
      cluster.close();
    }
  });

  it("reads null groups, versions and resources as Go does (as nothing), and goes on", async () => {
    const withNulls = { kind: "APIGroupDiscoveryList", items: [null, { metadata: { name: "" }, versions: [null, { version: "v1", resources: [null, { resource: "configmaps", responseKind: { kind: "ConfigMap" }, scope: "Namespaced", verbs: null }] }] }] };
    const s = await fake((req, res) => sendJson(res, req.url?.startsWith("/apis") ? { kind: "APIGroupDiscoveryList", items: null } : withNulls));
    const cluster = await clusterOf(s);
    try {
      expect(await cluster.scopeOf("", "ConfigMap")).toBe("Namespaced");
      expect(await cluster.scopeOf("apps", "Deployment")).toBeUndefined();
    } finally {
      cluster.close();
    }
  });
});

describe("API answers", () => {
  it.each([
    ["an HTML page", "<html><body>502 Bad Gateway</body></html>", "an HTML page is not JSON"],
    ["a list whose items are null", { kind: "ConfigMapList", items: [null], metadata: {} }, "item 0 is null, not a Kubernetes object"],
    ["a list whose items are strings", { kind: "ConfigMapList", items: ["a"], metadata: {} }, "item 0 is a string, not a Kubernetes object"],
    ["a list whose items are not a list", { kind: "ConfigMapList", items: {}, metadata: {} }, "its items are an object, not a list"],
  ])("refuses %s from a list with an error naming the URL", async (_name, body, why) => {
    const s = await fake(discoveryServer((_req, res) => sendJson(res, body as never)));
    const cluster = await clusterOf(s);
    try {
      const err = await cluster.list("", "ConfigMap", "default").catch((e: unknown) => e);
      expect(err).toBeInstanceOf(MalformedAnswerError);
      expect(printed(err)).toBe(`error: the answer of ${s.url}/api/v1/namespaces/default/configmaps is not what a Kubernetes API server sends: ${why}${why.endsWith("not JSON") ? ` (${(err as Error).message.split("(").pop()}` : ""}\nCheck that the server in your kubeconfig is a Kubernetes API server, not a proxy, load balancer or login page in front of one.`);
    } finally {
      cluster.close();
    }
  });

  it("refuses a get whose answer is not an object", async () => {
    const s = await fake(discoveryServer((_req, res) => sendJson(res, "[1]")));
    const cluster = await clusterOf(s);
    try {
      const err = await cluster.get({ group: "", kind: "ConfigMap", namespace: "default", name: "x" }).catch((e: unknown) => e);
      expect((err as Error).message).toBe(`the answer of ${s.url}/api/v1/namespaces/default/configmaps/x is not what a Kubernetes API server sends: expected an object, got a list`);
    } finally {
      cluster.close();
    }
  });
});

describe("servers that never answer", () => {
  it("gives up on a TLS handshake after 10 s, as kubectl does", async () => {
    const silent = await startSilentListener();
    servers.push(silent);
    const cluster = await clusterOf(silent);
    // The connection is real; the 10 s pass on a fake clock, moved on while the socket connects.
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });
    const started = Date.now();
    try {
      let settled = false;
      const pending = cluster
        .scopeOf("", "ConfigMap")
        .catch((e: unknown) => e)
        .finally(() => (settled = true));
      for (let i = 0; !settled && i < 1000; i++) {
        await new Promise((r) => setImmediate(r));
        await vi.advanceTimersByTimeAsync(100);
      }
      const err = await pending;
      expect(printed(err)).toBe(`error: cannot reach the cluster at ${silent.url}: it accepted the connection but its TLS handshake did not finish within 10 s (kubectl's limit too): is this the API server's address and port, and does it speak TLS?`);
      expect(Date.now() - started).toBeGreaterThanOrEqual(10_000);
    } finally {
      vi.useRealTimers();
      cluster.close();
    }
  });

  it("stops waiting for discovery when the run is cancelled", async () => {
    const s = await fake(() => undefined); // accepts every request, answers none
    const ctl = new AbortController();
    const cluster = await clusterOf(s, { signal: ctl.signal });
    try {
      const lookup = cluster.scopeOf("", "ConfigMap").catch((e: unknown) => e);
      setTimeout(() => ctl.abort(), 200);
      expect(((await lookup) as Error).name).toBe("AbortError");
    } finally {
      cluster.close();
    }
  });
});

describe("the discovery cache's gzip", () => {
  it("is read whole when it is within the limit (a real compressed answer)", async () => {
    const body = JSON.stringify(aggregatedDiscovery("/apis"));
    const s = await fake((req, res) => {
      res.writeHead(200, { "content-type": "application/json", "content-encoding": "gzip" });
      res.end(gzipSync(req.url?.startsWith("/apis") ? body : JSON.stringify(aggregatedDiscovery("/api"))));
    });
    const cluster = await clusterOf(s);
    try {
      expect(await cluster.scopeOf("apps", "Deployment")).toBe("Namespaced");
    } finally {
      cluster.close();
    }
  });
});

