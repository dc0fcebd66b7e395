// A flaky network between kpt-ts and the API server, on command. The proxy terminates TLS with
// the API server's own certificate (signed by the cluster CA the kubeconfig trusts), forwards each
// request to the real server with the kubeconfig's client certificate, and injects faults into a
// given fraction or number of requests:
//   drop         the connection is cut before the request reaches the server
//   drop-after   the server does the request, the answer is lost (the connection is cut)
//   delay        the request reaches the server late
//   429          Too Many Requests with Retry-After, the server never sees the request
//   500, 503     an error answer, the server never sees the request
//   500-after    the server does the request, the client gets a 500 instead of its answer
// and, for long-running requests (watches) only, never picked at random:
//   stall        the answer's headers arrive, then nothing: the server's events are swallowed
//                while the connection stays open (a watch that silently stops delivering)
//   cut          the answer flows for a second, then the connection is cut
import { Agent, createServer, request, type Server } from "node:https";
import type { IncomingMessage, ServerResponse } from "node:http";
import { readFile, writeFile, mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { AddressInfo } from "node:net";
import { parse, stringify } from "yaml";

export const FAULT_KINDS = ["drop", "drop-after", "delay", "429", "500", "503", "500-after"] as const;
/** Faults for streams (watches), given by failNext or a plan that names them. */
export const STREAM_FAULTS = ["stall", "cut"] as const;
export type FaultKind = (typeof FAULT_KINDS)[number] | (typeof STREAM_FAULTS)[number];

export interface FaultPlan {
  /** Fraction (0..1) of matching requests that get a fault. */
  rate: number;
  /** Faults to pick from, uniformly. */
  kinds: readonly FaultKind[];
  /** Which requests may get a fault (all by default). */
  match?: (req: { method: string; path: string }) => boolean;
  /** Delay range for `delay`, in ms. */
  delayMs?: [number, number];
}

export interface FaultStats {
  requests: number;
  /** Every request as it arrived (method and path with its query), for tests that count what a command sends. */
  log: { method: string; path: string }[];
  forwarded: number;
  injected: Record<FaultKind, number>;
}

export interface FaultProxy {
  /** A kubeconfig like the cluster's, pointing at the proxy. */
  readonly kubeconfig: string;
  readonly server: string;
  readonly stats: FaultStats;
  /** Faults from now on (undefined: none). */
  setFaults(plan: FaultPlan | undefined): void;
  /** The next `count` matching requests get this fault (before any rate-based ones). */
  failNext(count: number, kind: FaultKind, match?: FaultPlan["match"]): void;
  /** Counts of injected faults, for test reports. */
  report(): string;
  close(): Promise<void>;
}

/** A small seeded generator, so a failing run can be repeated with KPT_TS_FAULT_SEED. */
function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Kubeconfig {
  clusters: { name: string; cluster: Record<string, string> }[];
  users: { name: string; user: Record<string, string> }[];
  contexts: { name: string; context: { cluster: string; user: string } }[];
  "current-context": string;
}

function statusBody(code: number, reason: string, message: string): string {
  return JSON.stringify({ kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message, reason, code });
}

/**
 * Starts a proxy in front of the cluster of `kubeconfigPath` (made by tools/cluster/launcher.ts:
 * its pki/ directory sits next to it). `seed` fixes the random choices.
 */
export async function startFaultProxy(kubeconfigPath: string, seed = Number(process.env.KPT_TS_FAULT_SEED ?? Date.now() % 2 ** 31)): Promise<FaultProxy & { seed: number }> {
  const kc = parse(await readFile(kubeconfigPath, "utf8")) as Kubeconfig;
  const ctx = kc.contexts.find((c) => c.name === kc["current-context"])!.context;
  const cluster = kc.clusters.find((c) => c.name === ctx.cluster)!.cluster;
  const user = kc.users.find((u) => u.name === ctx.user)!.user;
  const b64 = (s: string | undefined) => (s ? Buffer.from(s, "base64") : undefined);
  const upstream = new URL(cluster.server!);
  const pki = join(dirname(kubeconfigPath), "pki");
  const [serverCert, serverKey] = await Promise.all([readFile(join(pki, "apiserver.crt")), readFile(join(pki, "apiserver.key"))]);
  const agent = new Agent({ keepAlive: true, maxSockets: 256, ca: b64(cluster["certificate-authority-data"]), cert: b64(user["client-certificate-data"]), key: b64(user["client-key-data"]) });

  const random = mulberry32(seed);
  let plan: FaultPlan | undefined;
  const queued: { kind: FaultKind; match?: FaultPlan["match"] }[] = [];
  const stats: FaultStats = { requests: 0, log: [], forwarded: 0, injected: Object.fromEntries([...FAULT_KINDS, ...STREAM_FAULTS].map((k) => [k, 0])) as Record<FaultKind, number> };

  const pick = (req: { method: string; path: string }): FaultKind | undefined => {
    const i = queued.findIndex((q) => !q.match || q.match(req));
    if (i >= 0) return queued.splice(i, 1)[0]!.kind;
    if (!plan || (plan.match && !plan.match(req)) || random() >= plan.rate) return undefined;
    return plan.kinds[Math.floor(random() * plan.kinds.length)];
  };

  /** Sends the request on to the API server; `onAnswer` gets its response. */
  const forward = (req: IncomingMessage, res: ServerResponse, body: Buffer, onAnswer: (res: IncomingMessage) => void, onError: (err: Error) => void) => {
    stats.forwarded++;
    const headers = { ...req.headers, host: upstream.host };
    const up = request(
      { protocol: upstream.protocol, hostname: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers, agent },
      onAnswer,
    );
    up.on("error", onError);
    // A client that goes away (a watch closed, a request cut) ends the upstream request too.
    res.once("close", () => up.destroy());
    up.end(body);
  };

  const relay = (res: ServerResponse) => (answer: IncomingMessage) => {
    res.writeHead(answer.statusCode ?? 502, answer.headers);
    answer.pipe(res);
    res.once("close", () => answer.destroy());
  };

  const upstreamFailed = (res: ServerResponse) => (err: Error) => {
    if (res.headersSent) res.destroy();
    else {
      res.writeHead(502, { "content-type": "application/json" });
      res.end(statusBody(502, "InternalError", `fault proxy: upstream failed: ${err.message}`));
    }
  };

  const handle = (req: IncomingMessage, res: ServerResponse, body: Buffer) => {
    stats.requests++;
    stats.log.push({ method: req.method ?? "GET", path: req.url ?? "/" });
    const fault = pick({ method: req.method ?? "GET", path: req.url ?? "/" });
    if (fault) stats.injected[fault]++;
    switch (fault) {
      case "drop":
        req.socket.destroy();
        return;
      case "429":
        res.writeHead(429, { "content-type": "application/json", "retry-after": "1" });
        res.end(JSON.stringify({ ...JSON.parse(statusBody(429, "TooManyRequests", "fault proxy: too many requests, please try again later")), details: { retryAfterSeconds: 1 } }));
        return;
      case "500":
      case "503":
        res.writeHead(Number(fault), { "content-type": "application/json" });
        res.end(statusBody(Number(fault), fault === "500" ? "InternalError" : "ServiceUnavailable", `fault proxy: injected ${fault}`));
        return;
      case "drop-after":
        forward(req, res, body, (answer) => answer.resume().once("end", () => req.socket.destroy()), () => req.socket.destroy());
        return;
      case "500-after":
        forward(
          req,
          res,
          body,
          (answer) =>
            answer.resume().once("end", () => {
              res.writeHead(500, { "content-type": "application/json" });
              res.end(statusBody(500, "InternalError", "fault proxy: injected 500 after the server answered"));
            }),
          upstreamFailed(res),
        );
        return;
      case "stall":
        forward(
          req,
          res,
          body,
          (answer) => {
            res.writeHead(answer.statusCode ?? 502, answer.headers);
            answer.resume(); // read and dropped: the client hears nothing more
            res.once("close", () => answer.destroy());
          },
          upstreamFailed(res),
        );
        return;
      case "cut":
        forward(
          req,
          res,
          body,
          (answer) => {
            relay(res)(answer);
            setTimeout(() => req.socket.destroy(), 1000);
          },
          upstreamFailed(res),
        );
        return;
      case "delay": {
        const [min, max] = plan?.delayMs ?? [200, 1500];
        setTimeout(() => forward(req, res, body, relay(res), upstreamFailed(res)), min + random() * (max - min));
        return;
      }
      default:
        forward(req, res, body, relay(res), upstreamFailed(res));
    }
  };

  const server: Server = createServer({ cert: serverCert, key: serverKey }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => handle(req, res, Buffer.concat(chunks)));
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const proxied = structuredClone(kc);
  proxied.clusters.find((c) => c.name === ctx.cluster)!.cluster.server = url;
  const kubeconfig = join(await mkdtemp(join(tmpdir(), "kpt-ts-fault-proxy-")), "kubeconfig");
  await writeFile(kubeconfig, stringify(proxied), { mode: 0o600 });

  return {
    kubeconfig,
    server: url,
    stats,
    seed,
    setFaults: (p) => (plan = p),
    failNext: (count, kind, match) => {
      for (let i = 0; i < count; i++) queued.push({ kind, match });
    },
    report: () =>
      `${stats.requests} requests, ${stats.forwarded} forwarded; faults: ${FAULT_KINDS.map((k) => `${k} ${stats.injected[k]}`).join(", ")} (seed ${seed})`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      agent.destroy();
    },
  };
}

/** Faults injected in all, for reports. */
export function totalInjected(stats: FaultStats): number {
  return FAULT_KINDS.filter((k) => k !== "delay").reduce((n, k) => n + stats.injected[k], 0);
}
