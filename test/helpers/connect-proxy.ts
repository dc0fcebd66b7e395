// A forward proxy for tests, as corporate networks have: HTTP CONNECT and SOCKS5 on one port
// (told apart by the first byte). It counts the tunnels it opens and where to, and can map
// host names to addresses (so a server named `kubernetes` is reached at 127.0.0.1, as from
// inside a cluster network), or hold CONNECTs without answering.
import { connect, createServer, type Server, type Socket } from "node:net";
import { createServer as createTlsServer } from "node:tls";
import type { AddressInfo } from "node:net";

export interface ConnectProxy {
  readonly url: string;
  readonly port: number;
  /** Each tunnel opened: "host:port" as the client asked for it, and the protocol. */
  readonly tunnels: { target: string; via: "connect" | "socks5" }[];
  close(): Promise<void>;
}

export async function startConnectProxy(opts: { hosts?: Record<string, string>; /** Serve https:// (TLS to the proxy) with this certificate. */ tls?: { cert: Buffer; key: Buffer } } = {}): Promise<ConnectProxy> {
  const tunnels: ConnectProxy["tunnels"] = [];
  const sockets = new Set<Socket>();
  const resolveHost = (h: string) => opts.hosts?.[h] ?? h;

  const pipe = (client: Socket, host: string, port: number, ready: () => void, failed: () => void) => {
    const up = connect({ host: resolveHost(host), port });
    sockets.add(up);
    up.once("connect", () => {
      ready();
      client.pipe(up).pipe(client);
    });
    up.on("error", () => (client.destroyed ? undefined : failed()));
    client.on("error", () => up.destroy());
    client.on("close", () => up.destroy());
  };

  const onClient = (client: Socket) => {
    sockets.add(client);
    client.on("close", () => sockets.delete(client));
    client.once("data", (first: Buffer) => {
      if (first[0] === 5) return socks5(client, first);
      let head = first;
      const onData = (c: Buffer) => {
        head = Buffer.concat([head, c]);
        tryConnect();
      };
      const tryConnect = () => {
        const end = head.indexOf("\r\n\r\n");
        if (end < 0) return void client.once("data", onData);
        const m = /^CONNECT ([^\s]+):(\d+) HTTP\/1\.[01]\r\n/.exec(head.toString("latin1"));
        if (!m) return void client.end("HTTP/1.1 405 Method Not Allowed\r\n\r\n");
        const host = m[1]!.replace(/^\[|\]$/g, "");
        tunnels.push({ target: `${host}:${m[2]}`, via: "connect" });
        const rest = head.subarray(end + 4);
        pipe(
          client,
          host,
          Number(m[2]),
          () => {
            client.write("HTTP/1.1 200 Connection established\r\n\r\n");
            if (rest.length) client.unshift(rest);
          },
          () => client.end("HTTP/1.1 502 Bad Gateway\r\n\r\n"),
        );
      };
      tryConnect();
    });
  };
  const server: Server = opts.tls ? createTlsServer({ cert: opts.tls.cert, key: opts.tls.key }, onClient) : createServer(onClient);

  // RFC 1928, no authentication, CONNECT only.
  const socks5 = (client: Socket, greeting: Buffer) => {
    client.write(Buffer.from([5, 0]));
    const onRequest = (req: Buffer) => {
      let host: string;
      let at: number;
      if (req[3] === 1) {
        host = [...req.subarray(4, 8)].join(".");
        at = 8;
      } else if (req[3] === 3) {
        host = req.subarray(5, 5 + req[4]!).toString();
        at = 5 + req[4]!;
      } else return void client.end(Buffer.from([5, 8, 0, 1, 0, 0, 0, 0, 0, 0]));
      const port = req.readUInt16BE(at);
      tunnels.push({ target: `${host}:${port}`, via: "socks5" });
      pipe(
        client,
        host,
        port,
        () => client.write(Buffer.from([5, 0, 0, 1, 127, 0, 0, 1, 0, 0])),
        () => client.end(Buffer.from([5, 5, 0, 1, 0, 0, 0, 0, 0, 0])),
      );
    };
    // The greeting may have arrived with the request in one chunk.
    const methods = 2 + greeting[1]!;
    if (greeting.length > methods) onRequest(greeting.subarray(methods));
    else client.once("data", onRequest);
  };

  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `${opts.tls ? "https" : "http"}://127.0.0.1:${port}`,
    port,
    tunnels,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
