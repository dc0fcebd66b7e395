// A small fake "API server" for the broken-server cases only (everything a real server does is
// tested against the real control plane): answers that are not JSON, HTML pages, discovery of the
// wrong kind or with null items, gzip bombs, answers that never come, a listener that never
// speaks TLS. Plain HTTP on loopback (kpt-ts, as kubectl, sends no credentials to http://).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createServer as createTcpServer, type AddressInfo, type Server as TcpServer, type Socket } from "node:net";
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";

export type Handler = (req: IncomingMessage, res: ServerResponse) => void;

export interface FakeServer {
  url: string;
  /** Every request seen: method, path and the headers asked with. */
  requests: { method: string; path: string; headers: IncomingMessage["headers"] }[];
  /** A kubeconfig naming this server (no credentials). */
  kubeconfig: string;
  close(): Promise<void>;
}

export async function startFakeApiServer(handler: Handler): Promise<FakeServer> {
  const requests: FakeServer["requests"] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((req, res) => {
    requests.push({ method: req.method ?? "", path: req.url ?? "", headers: req.headers });
    handler(req, res);
  });
  server.on("connection", (s) => (sockets.add(s), s.on("close", () => sockets.delete(s))));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    requests,
    kubeconfig: await writeKubeconfigFor(url),
    close: () =>
      new Promise((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** A TCP listener that accepts connections and never says a word (no TLS, no HTTP). */
export async function startSilentListener(): Promise<{ url: string; kubeconfig: string; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: TcpServer = createTcpServer((s) => (sockets.add(s), s.on("error", () => undefined)));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    kubeconfig: await writeKubeconfigFor(url, { insecure: true }),
    close: () =>
      new Promise((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

export async function writeKubeconfigFor(server: string, opts: { insecure?: boolean; user?: Record<string, unknown> } = {}): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "kpt-ts-fake-api-"));
  const file = join(dir, "kubeconfig");
  const doc = {
    apiVersion: "v1",
    kind: "Config",
    clusters: [{ name: "fake", cluster: { server, ...(opts.insecure ? { "insecure-skip-tls-verify": true } : {}) } }],
    users: [{ name: "fake", user: opts.user ?? {} }],
    contexts: [{ name: "fake", context: { cluster: "fake", user: "fake", namespace: "default" } }],
    "current-context": "fake",
  };
  await writeFile(file, JSON.stringify(doc));
  return file;
}

export function sendJson(res: ServerResponse, body: unknown, status = 200, headers: Record<string, string> = {}): void {
  const text = typeof body === "string" ? body : JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(text);
}

/** Aggregated discovery with one group (apps/v1 deployments) or nothing for /api. */
export function aggregatedDiscovery(path: string): unknown {
  const items =
    path === "/api"
      ? [{ metadata: { name: "" }, versions: [{ version: "v1", resources: [{ resource: "configmaps", responseKind: { group: "", version: "v1", kind: "ConfigMap" }, scope: "Namespaced", verbs: ["get", "list"] }] }] }]
      : [{ metadata: { name: "apps" }, versions: [{ version: "v1", resources: [{ resource: "deployments", responseKind: { group: "apps", version: "v1", kind: "Deployment" }, scope: "Namespaced", verbs: ["get", "list"] }] }] }];
  return { apiVersion: "apidiscovery.k8s.io/v2", kind: "APIGroupDiscoveryList", items };
}

/**
 * A gzip body that expands to `bytes` of zeros: gzip members of 16 MiB each, concatenated (valid
 * gzip, which Node's gunzip reads as one stream), about a thousandth of the size on the wire.
 */
export function gzipBomb(bytes: number): Buffer {
  const member = gzipSync(Buffer.alloc(16 * 1024 * 1024), { level: 9 });
  const count = Math.ceil(bytes / (16 * 1024 * 1024));
  return Buffer.concat(Array.from({ length: count }, () => member));
}
