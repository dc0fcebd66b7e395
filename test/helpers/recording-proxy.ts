// A transparent proxy in front of the test cluster that records every request (method and path):
// it terminates TLS with the API server's own certificate (signed by the CA kubeconfigs trust) and
// forwards each request as it came, credentials included (a ServiceAccount's bearer token), so the
// server sees the same identity. A test then checks which API paths a run touched at all, even
// the ones the server refused.
import { Agent, createServer, request, type Server } from "node:https";
import { readFile, writeFile, mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { AddressInfo } from "node:net";
import { parse, stringify } from "yaml";
import { kubeconfig as clusterKubeconfig } from "./run.js";

export interface RecordingProxy {
  /** `GET /api/v1/namespaces/x/configmaps`, in order (no query strings). */
  readonly requests: string[];
  /** The given kubeconfig, pointed at the proxy. */
  kubeconfigFor(path: string): Promise<string>;
  close(): Promise<void>;
}

export async function startRecordingProxy(): Promise<RecordingProxy> {
  const pki = join(dirname(clusterKubeconfig()), "pki");
  const kc = parse(await readFile(clusterKubeconfig(), "utf8")) as { clusters: { cluster: Record<string, string> }[] };
  const upstream = new URL(kc.clusters[0]!.cluster.server!);
  const ca = Buffer.from(kc.clusters[0]!.cluster["certificate-authority-data"]!, "base64");
  const [cert, key] = await Promise.all([readFile(join(pki, "apiserver.crt")), readFile(join(pki, "apiserver.key"))]);
  const agent = new Agent({ keepAlive: true, maxSockets: 64, ca });
  const requests: string[] = [];
  const server: Server = createServer({ cert, key }, (req, res) => {
    requests.push(`${req.method} ${(req.url ?? "").split("?")[0]}`);
    const out = request({ protocol: upstream.protocol, hostname: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: { ...req.headers, host: upstream.host }, agent }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    out.on("error", () => res.destroy());
    req.pipe(out);
    res.on("close", () => out.destroy());
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const address = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    requests,
    async kubeconfigFor(path) {
      const doc = parse(await readFile(path, "utf8")) as { clusters: { cluster: Record<string, unknown> }[] };
      for (const c of doc.clusters) c.cluster = { ...c.cluster, server: address };
      const dir = await mkdtemp(join(tmpdir(), "kpt-ts-recorded-"));
      const file = join(dir, "config");
      await writeFile(file, stringify(doc), { mode: 0o600 });
      return file;
    },
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
        agent.destroy();
      }),
  };
}
