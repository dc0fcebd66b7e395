// Proxies as kubectl uses them: the cluster's proxy-url (http, https or socks5) for every
// connection; without one, HTTPS_PROXY / HTTP_PROXY and NO_PROXY with Go's rules
// (golang.org/x/net/http/httpproxy): "localhost" and loopback addresses are never proxied,
// NO_PROXY takes "*", IPs, CIDRs, host names (matching their subdomains; ".x" only subdomains,
// "*.x" as ".x") with an optional port. Connections go through an HTTP CONNECT tunnel or a
// SOCKS5 connect; TLS to the API server then runs inside the tunnel.

import { connect as netConnect, isIP, type Socket } from "node:net";
import { connect as tlsConnect } from "node:tls";
import type { Duplex } from "node:stream";

/** The proxy kubectl would use for `target` from the environment, or undefined for a direct connection. */
export function proxyFromEnvironment(target: URL, env: NodeJS.ProcessEnv): URL | undefined {
  const https = target.protocol === "https:";
  const raw = https ? env.HTTPS_PROXY || env.https_proxy : env.REQUEST_METHOD ? undefined : env.HTTP_PROXY || env.http_proxy;
  if (!raw) return undefined;
  const port = target.port || (https ? "443" : "80");
  if (!useProxy(target.hostname.toLowerCase(), port, env.NO_PROXY ?? env.no_proxy ?? "")) return undefined;
  return parseProxyUrl(raw);
}

/** A proxy address as Go parses it: without a known scheme, it is http://ADDRESS. */
export function parseProxyUrl(raw: string): URL | undefined {
  try {
    const u = new URL(raw);
    if (["http:", "https:", "socks5:", "socks5h:"].includes(u.protocol) && u.hostname) return u;
  } catch {
    // fall through: "proxy:3128" and the like
  }
  try {
    return new URL(`http://${raw}`);
  } catch {
    return undefined;
  }
}

function stripBrackets(h: string): string {
  return h.startsWith("[") && h.endsWith("]") ? h.slice(1, -1) : h;
}

function isLoopback(ip: string): boolean {
  if (isIP(ip) === 4) return ip.startsWith("127.");
  const v6 = ip.toLowerCase();
  return v6 === "::1" || v6 === "0:0:0:0:0:0:0:1" || /^::ffff:127\./.test(v6);
}

/** Go's httpproxy useProxy: whether a request to host:port goes through the environment's proxy. */
export function useProxy(hostIn: string, port: string, noProxy: string): boolean {
  const host = stripBrackets(hostIn);
  if (host === "localhost") return false;
  const ipVersion = isIP(host);
  if (ipVersion && isLoopback(host)) return false;
  for (const entry0 of noProxy.split(",")) {
    const entry = entry0.trim().toLowerCase();
    if (!entry) continue;
    if (entry === "*") return false;
    if (entry.includes("/")) {
      if (ipVersion && inCidr(host, entry)) return false;
      continue;
    }
    let phost = entry;
    let pport = "";
    const m = /^\[([^\]]+)\](?::(\d+))?$/.exec(entry) ?? (entry.split(":").length === 2 ? /^([^:]+):(\d+)$/.exec(entry) : null);
    if (m) {
      phost = m[1]!;
      pport = m[2] ?? "";
    }
    if (isIP(phost)) {
      if (ipVersion && sameIp(phost, host) && (!pport || pport === port)) return false;
      continue;
    }
    if (phost.startsWith("*.")) phost = phost.slice(1);
    const matchHost = !phost.startsWith(".");
    if (matchHost) phost = `.${phost}`;
    if ((host.endsWith(phost) || (matchHost && host === phost.slice(1))) && (!pport || pport === port)) return false;
  }
  return true;
}

function ipBytes(ip: string): number[] | undefined {
  if (isIP(ip) === 4) return ip.split(".").map(Number);
  if (isIP(ip) !== 6) return undefined;
  let s = ip.toLowerCase();
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(s);
  let tail: number[] = [];
  if (v4) {
    tail = v4[1]!.split(".").map(Number);
    s = s.slice(0, -v4[1]!.length).replace(/:$/, ":0:0").replace(/::0:0$/, "::");
    s = s.endsWith(":") && !s.endsWith("::") ? s.slice(0, -1) : s;
  }
  const [a, b] = s.split("::");
  const left = a ? a.split(":").filter(Boolean) : [];
  const right = b ? b.split(":").filter(Boolean) : [];
  const groups = 8 - (tail.length ? 2 : 0);
  const all = s.includes("::") ? [...left, ...Array(groups - left.length - right.length).fill("0"), ...right] : left;
  const bytes = all.flatMap((g) => [parseInt(g, 16) >> 8, parseInt(g, 16) & 255]);
  return [...bytes, ...tail];
}

function sameIp(a: string, b: string): boolean {
  const x = ipBytes(a);
  const y = ipBytes(b);
  return Boolean(x && y && x.length === y.length && x.every((v, i) => v === y[i]));
}

function inCidr(ip: string, cidr: string): boolean {
  const [net, bitsText] = cidr.split("/");
  const a = ipBytes(ip);
  const n = ipBytes(net ?? "");
  const bits = Number(bitsText);
  if (!a || !n || a.length !== n.length || !Number.isInteger(bits)) return false;
  for (let i = 0; i < bits; i++) {
    const byte = i >> 3;
    const mask = 0x80 >> (i & 7);
    if ((a[byte]! & mask) !== (n[byte]! & mask)) return false;
  }
  return true;
}

interface TunnelOptions {
  /** CA bundle to verify an https:// proxy with (Go uses the client's TLS settings for it). */
  ca?: Buffer;
}

/** A connection to host:port through the proxy (an HTTP CONNECT tunnel or SOCKS5). */
export async function openTunnel(proxy: URL, host: string, port: number, opts: TunnelOptions = {}): Promise<Socket> {
  const proxyPort = Number(proxy.port || (proxy.protocol === "https:" ? 443 : proxy.protocol.startsWith("socks") ? 1080 : 80));
  const socket: Socket =
    proxy.protocol === "https:"
      ? tlsConnect({ host: proxy.hostname, port: proxyPort, servername: isIP(proxy.hostname) ? undefined : proxy.hostname, ca: opts.ca, ALPNProtocols: ["http/1.1"] })
      : netConnect({ host: stripBrackets(proxy.hostname), port: proxyPort });
  try {
    await new Promise<void>((resolve, reject) => {
      socket.once(proxy.protocol === "https:" ? "secureConnect" : "connect", () => resolve());
      socket.once("error", reject);
    });
    if (proxy.protocol.startsWith("socks")) await socks5Connect(socket, proxy, host, port);
    else await httpConnect(socket, proxy, host, port);
    return socket;
  } catch (err) {
    socket.destroy();
    throw Object.assign(new Error(`proxy ${proxy.protocol}//${proxy.host}: ${(err as Error).message}`), { code: (err as NodeJS.ErrnoException).code ?? "EPROXY" });
  }
}

/** Reads exactly `n` bytes (or up to a delimiter) from a socket that is not yet flowing. */
function readSome(socket: Duplex, until: (buf: Buffer) => number): Promise<{ head: Buffer; rest: Buffer }> {
  return new Promise((resolve, reject) => {
    let buf = Buffer.alloc(0);
    const onData = (c: Buffer) => {
      buf = Buffer.concat([buf, c]);
      const end = until(buf);
      if (end < 0) return;
      cleanup();
      resolve({ head: buf.subarray(0, end), rest: buf.subarray(end) });
    };
    const onError = (e: Error) => {
      cleanup();
      reject(e);
    };
    const onEnd = () => onError(Object.assign(new Error("the proxy closed the connection"), { code: "ECONNRESET" }));
    const cleanup = () => {
      socket.off("data", onData);
      socket.off("end", onEnd);
      socket.off("error", onError);
      socket.pause();
    };
    socket.on("data", onData);
    socket.once("end", onEnd);
    socket.once("error", onError);
    socket.resume(); // paused by an earlier read: a new "data" listener alone would not restart it
  });
}

async function httpConnect(socket: Socket, proxy: URL, host: string, port: number): Promise<void> {
  const authority = `${isIP(host) === 6 ? `[${host}]` : host}:${port}`;
  const auth = proxy.username ? `Proxy-Authorization: Basic ${Buffer.from(`${decodeURIComponent(proxy.username)}:${decodeURIComponent(proxy.password)}`).toString("base64")}\r\n` : "";
  socket.write(`CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\n${auth}\r\n`);
  const { head, rest } = await readSome(socket, (b) => {
    const i = b.indexOf("\r\n\r\n");
    return i < 0 ? -1 : i + 4;
  });
  if (rest.length) socket.unshift(rest);
  const status = /^HTTP\/1\.[01] (\d{3})/.exec(head.toString("latin1"));
  if (!status || status[1] !== "200") {
    throw Object.assign(new Error(`CONNECT ${authority} was refused: ${head.toString("latin1").split("\r\n")[0]}`), { code: "EPROXY" });
  }
}

const SOCKS_ERRORS: Record<number, string> = {
  1: "general failure",
  2: "connection not allowed by ruleset",
  3: "network unreachable",
  4: "host unreachable",
  5: "connection refused",
  6: "TTL expired",
  7: "command not supported",
  8: "address type not supported",
};

/** RFC 1928 CONNECT (with RFC 1929 username/password when the URL has them); names are resolved by the proxy. */
async function socks5Connect(socket: Socket, proxy: URL, host: string, port: number): Promise<void> {
  const user = decodeURIComponent(proxy.username);
  const pass = decodeURIComponent(proxy.password);
  socket.write(Buffer.from(user ? [5, 2, 0, 2] : [5, 1, 0]));
  const { head: method } = await readSome(socket, (b) => (b.length >= 2 ? 2 : -1));
  if (method[0] !== 5 || method[1] === 0xff) throw new Error("the SOCKS5 proxy accepts none of our authentication methods");
  if (method[1] === 2) {
    socket.write(Buffer.concat([Buffer.from([1, Buffer.byteLength(user)]), Buffer.from(user), Buffer.from([Buffer.byteLength(pass)]), Buffer.from(pass)]));
    const { head } = await readSome(socket, (b) => (b.length >= 2 ? 2 : -1));
    if (head[1] !== 0) throw new Error("the SOCKS5 proxy refused the username and password");
  }
  const v = isIP(host);
  const addr =
    v === 4
      ? Buffer.from([1, ...host.split(".").map(Number)])
      : v === 6
        ? Buffer.from([4, ...ipBytes(host)!])
        : Buffer.concat([Buffer.from([3, Buffer.byteLength(host)]), Buffer.from(host)]);
  socket.write(Buffer.concat([Buffer.from([5, 1, 0]), addr, Buffer.from([port >> 8, port & 255])]));
  const { head, rest } = await readSome(socket, (b) => {
    if (b.length < 5) return -1;
    const len = b[3] === 1 ? 4 : b[3] === 4 ? 16 : 1 + b[4]!;
    return b.length >= 4 + len + 2 ? 4 + len + 2 : -1;
  });
  if (rest.length) socket.unshift(rest);
  if (head[1] !== 0) throw Object.assign(new Error(`the SOCKS5 proxy could not connect to ${host}:${port}: ${SOCKS_ERRORS[head[1]!] ?? `error ${head[1]}`}`), { code: "EPROXY" });
}
