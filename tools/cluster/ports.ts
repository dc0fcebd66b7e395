import { readFileSync } from "node:fs";
import { createServer } from "node:net";

/**
 * A free loopback port below the kernel's ephemeral range (32768-60999 on Linux), read from
 * /proc where it can be. A port the kernel hands out for listen(0) can be taken by any outgoing
 * connection between our check and the control plane's bind seconds later; under the test
 * suite's load that happened (kwok exited, its port in use). Below the range, only another
 * listener can take it.
 */
export async function freePort(): Promise<number> {
  const low = 20_000;
  const high = Math.min(ephemeralLow(), 32_768);
  for (let i = 0; i < 200; i++) {
    const port = low + Math.floor(Math.random() * (high - low));
    if (await isPortFree(port)) return port;
  }
  throw new Error(`no free loopback port found between ${low} and ${high}`);
}

function ephemeralLow(): number {
  try {
    const first = Number(readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/)[0]);
    return Number.isInteger(first) && first > 21_000 ? first : 32_768;
  } catch {
    return 32_768;
  }
}

/** True when nothing listens on the port. */
export function isPortFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.once("error", () => resolve(false));
    srv.listen(port, "127.0.0.1", () => srv.close(() => resolve(true)));
  });
}
