// A TCP proxy that puts distance between the tools and the API server: every chunk waits half
// the round-trip time in each direction, and each new connection waits one round trip before its
// first byte goes on (what TCP's handshake costs at that distance). Bytes pass through untouched,
// so TLS, client certificates and HTTP/2 negotiation are the server's own.

import { createServer, connect, type Server, type Socket } from "node:net";

export interface DelayProxy {
  /** host:port to put in the kubeconfig instead of the server's. */
  port: number;
  rttMs: number;
  close(): Promise<void>;
}

/** `20ms`, `0.02s`, `20` -> 20 */
export function parseRtt(text: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s)?$/.exec(text.trim());
  if (!m) throw new Error(`--rtt: expected a duration such as 20ms, got "${text}"`);
  return Number(m[1]) * (m[2] === "s" ? 1000 : 1);
}

export async function startDelayProxy(upstream: { host: string; port: number }, rttMs: number): Promise<DelayProxy> {
  const oneWay = rttMs / 2;
  const sockets = new Set<Socket>();
  const server: Server = createServer({ pauseOnConnect: true }, (client) => {
    sockets.add(client);
    client.on("close", () => sockets.delete(client));
    // The handshake's round trip, then the upstream connection (loopback, so it costs nothing more).
    setTimeout(() => {
      const up = connect(upstream.port, upstream.host);
      sockets.add(up);
      up.on("close", () => sockets.delete(up));
      up.setNoDelay(true);
      client.setNoDelay(true);
      delayed(client, up, oneWay);
      delayed(up, client, oneWay);
      client.resume();
    }, rttMs);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const address = server.address();
  if (!address || typeof address === "string") throw new Error("delay proxy: no port");
  return {
    port: address.port,
    rttMs,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** Forwards `from` to `to`, each chunk `ms` later; timers of one delay fire in order, so bytes stay in order. */
function delayed(from: Socket, to: Socket, ms: number): void {
  from.on("data", (chunk: Buffer) => {
    setTimeout(() => {
      if (!to.destroyed) to.write(chunk);
    }, ms);
  });
  from.on("end", () => setTimeout(() => to.end(), ms));
  from.on("error", () => to.destroy());
  from.on("close", () => setTimeout(() => to.end(), ms));
}

/** A copy of the kubeconfig whose clusters all point at the proxy (written next to `path` with a suffix). */
export function proxiedKubeconfig(text: string, proxyPort: number): string {
  return text.replace(/^(\s*server:\s*)https:\/\/[^\s]+$/gm, `$1https://127.0.0.1:${proxyPort}`);
}
