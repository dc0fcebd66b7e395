// The floor: sends the package's server-side apply PATCHes (or DELETEs) at a fixed concurrency over
// kept-alive connections, with no discovery, planning, inventory or status work. Whatever kpt-ts does
// beyond this is its own overhead. Run as plain JavaScript (run.ts transpiles it), so its start-up is
// node's alone.
//
//   bare-loop apply <dir> [--prune-from <old-dir>] [--concurrency N]   PATCH every object; DELETE those only in old-dir
//   bare-loop delete <dir> [--concurrency N]                          DELETE every object

import { readFileSync, readdirSync } from "node:fs";
import { Agent, request } from "node:https";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { parseAllDocuments, parse } from "yaml";

type Obj = { apiVersion: string; kind: string; metadata: { name: string; namespace?: string } };

interface Conn {
  server: URL;
  agent: Agent;
}

function connect(concurrency: number): Conn {
  const file = process.env.KUBECONFIG?.split(":")[0];
  if (!file) throw new Error("KUBECONFIG is not set");
  const cfg = parse(readFileSync(file, "utf8"));
  const ctx = cfg.contexts.find((c: any) => c.name === cfg["current-context"]).context;
  const cluster = cfg.clusters.find((c: any) => c.name === ctx.cluster).cluster;
  const user = cfg.users.find((u: any) => u.name === ctx.user).user;
  const data = (inline?: string, path?: string) => (inline ? Buffer.from(inline, "base64") : path ? readFileSync(path) : undefined);
  const agent = new Agent({
    keepAlive: true,
    maxSockets: concurrency,
    ca: data(cluster["certificate-authority-data"], cluster["certificate-authority"]),
    cert: data(user["client-certificate-data"], user["client-certificate"]),
    key: data(user["client-key-data"], user["client-key"]),
  });
  return { server: new URL(cluster.server), agent };
}

/** Fixed REST paths: the bare loop does no discovery (plural = lower-case kind + "s"). */
function pathOf(o: Obj): string {
  const base = o.apiVersion.includes("/") ? `/apis/${o.apiVersion}` : `/api/${o.apiVersion}`;
  const ns = o.metadata.namespace ? `/namespaces/${o.metadata.namespace}` : "";
  return `${base}${ns}/${o.kind.toLowerCase()}s/${o.metadata.name}`;
}

function readObjects(dir: string): Obj[] {
  const objs: Obj[] = [];
  for (const f of readdirSync(dir).filter((f) => /\.ya?ml$/.test(f)).sort()) {
    for (const doc of parseAllDocuments(readFileSync(join(dir, f), "utf8"))) {
      const o = doc.toJS() as Obj | null;
      if (o?.kind && o.kind !== "ResourceGroup" && o.kind !== "Kptfile") objs.push(o);
    }
  }
  return objs;
}

function send(conn: Conn, method: string, path: string, body?: string, headers: Record<string, string> = {}): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = request({ host: conn.server.hostname, port: conn.server.port, path, method, agent: conn.agent, headers }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => (text += c));
      res.on("end", () => {
        const status = res.statusCode ?? 0;
        if (status === 429) {
          const wait = Number(res.headers["retry-after"] ?? 1) * 1000;
          setTimeout(() => send(conn, method, path, body, headers).then(resolve, reject), wait);
        } else if (status >= 400 && !(method === "DELETE" && status === 404)) {
          reject(new Error(`${method} ${path}: HTTP ${status} ${text.slice(0, 300)}`));
        } else resolve();
      });
    });
    req.on("error", reject);
    req.end(body);
  });
}

const apply = (conn: Conn, o: Obj) =>
  send(conn, "PATCH", `${pathOf(o)}?fieldManager=bench-bare-loop&force=true`, JSON.stringify(o), { "content-type": "application/apply-patch+yaml" });
const remove = (conn: Conn, o: Obj) => send(conn, "DELETE", `${pathOf(o)}?propagationPolicy=Background`);

async function pool<T>(items: T[], concurrency: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await fn(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
}

async function main(): Promise<void> {
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: { concurrency: { type: "string", default: "16" }, "prune-from": { type: "string" } },
  });
  const [verb, dir] = positionals;
  if ((verb !== "apply" && verb !== "delete") || !dir) throw new Error("usage: bare-loop apply|delete <dir> [--prune-from <dir>] [--concurrency N]");
  const concurrency = Number(values.concurrency);
  const conn = connect(concurrency);
  const objs = readObjects(dir);
  if (verb === "delete") {
    await pool(objs, concurrency, (o) => remove(conn, o));
  } else {
    await pool(objs, concurrency, (o) => apply(conn, o));
    const keep = new Set(objs.map(pathOf));
    const gone = values["prune-from"] ? readObjects(values["prune-from"]).filter((o) => !keep.has(pathOf(o))) : [];
    await pool(gone, concurrency, (o) => remove(conn, o));
  }
  conn.agent.destroy();
}

main().catch((err: Error) => {
  process.stderr.write(`bare-loop: ${err.message}\n`);
  process.exitCode = 1;
});
