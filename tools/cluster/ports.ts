import { readFileSync } from "node:fs";
import { mkdir, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

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

/**
 * Where ports chosen for a cluster are held until its `down`, one directory per port, made with
 * mkdir (atomic): two clusters starting at the same moment (a fleet test, the benchmark) each
 * find a port free, and only one of them may take it.
 */
export const PORT_RESERVATIONS = join(tmpdir(), "kpt-ts-cluster-ports");

/** A reservation whose owner never started (its launcher died) is taken over after this long. */
const RESERVATION_GRACE_MS = 10 * 60_000;

interface Reservation {
  /** The state directory of the cluster holding it. */
  dir: string;
  /** The launcher that reserved it. */
  pid: number;
  atMs: number;
}

/** `count` distinct free ports, reserved for the cluster in `dir` until releasePorts(dir). */
export async function reservePorts(count: number, dir: string): Promise<number[]> {
  await mkdir(PORT_RESERVATIONS, { recursive: true });
  const owner = resolve(dir);
  const ports: number[] = [];
  for (let tries = 0; ports.length < count; tries++) {
    if (tries > 500) throw new Error(`no ${count} free loopback ports could be reserved (${PORT_RESERVATIONS})`);
    const port = await freePort();
    if (ports.includes(port) || !(await reserve(port, owner))) continue;
    ports.push(port);
  }
  return ports;
}

async function reserve(port: number, dir: string): Promise<boolean> {
  const path = join(PORT_RESERVATIONS, String(port));
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      await mkdir(path);
      const r: Reservation = { dir, pid: process.pid, atMs: Date.now() };
      await writeFile(join(path, "owner.json"), JSON.stringify(r));
      return true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      if (!(await isStale(path))) return false;
      await rm(path, { recursive: true, force: true });
    }
  }
  return false;
}

/** Stale: its cluster does not run and its launcher is gone or gave up long ago. */
async function isStale(path: string): Promise<boolean> {
  const r = await readJson<Reservation>(join(path, "owner.json"));
  if (!r) {
    // Being written right now, or left half-written by a launcher that died: the directory's age decides.
    const age = Date.now() - (await stat(path).then((s) => s.mtimeMs, () => 0));
    return age > RESERVATION_GRACE_MS;
  }
  const state = await readJson<{ procs?: { pid: number }[] }>(join(r.dir, "state.json"));
  if (state?.procs?.some((p) => running(p.pid))) return false;
  return !running(r.pid) || Date.now() - r.atMs > RESERVATION_GRACE_MS;
}

/** Frees every port reserved for the cluster in `dir`. */
export async function releasePorts(dir: string): Promise<void> {
  const owner = resolve(dir);
  const entries = await readdir(PORT_RESERVATIONS).catch(() => [] as string[]);
  await Promise.all(
    entries.map(async (e) => {
      const r = await readJson<Reservation>(join(PORT_RESERVATIONS, e, "owner.json"));
      if (r?.dir === owner) await rm(join(PORT_RESERVATIONS, e), { recursive: true, force: true });
    }),
  );
}

async function readJson<T>(path: string): Promise<T | undefined> {
  try {
    return JSON.parse(await readFile(path, "utf8")) as T;
  } catch {
    return undefined;
  }
}

function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
