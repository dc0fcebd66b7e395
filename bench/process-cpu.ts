// CPU seconds from Linux's /proc, for benchmarks that must say where a machine's CPU went: each
// local control plane process's own (utime + stime of /proc/PID/stat) and the whole machine's
// busy time (/proc/stat: everything but idle and iowait). Elsewhere (no /proc) the readers give
// undefined and the benchmark says so instead of inventing numbers.

import { readFileSync } from "node:fs";

/** Clock ticks per second of /proc's counters (USER_HZ: 100 on every Linux Node runs on). */
const TICKS = 100;

/**
 * A process's CPU seconds (user + system, its own threads, not waited-for children) from the
 * text of /proc/PID/stat. The command name (2nd field) is in parentheses and may hold spaces
 * or ')' itself, so fields are counted from the last ')'.
 */
export function parseProcStat(text: string): number {
  const rest = text.slice(text.lastIndexOf(")") + 2).trim().split(/\s+/);
  // After the name: state (field 3) ... utime (field 14), stime (field 15).
  const utime = Number(rest[11]);
  const stime = Number(rest[12]);
  if (!Number.isFinite(utime) || !Number.isFinite(stime)) throw new Error(`not a /proc/PID/stat line: ${text.slice(0, 80)}`);
  return (utime + stime) / TICKS;
}

/** The machine's busy CPU seconds, all cores together, from the text of /proc/stat (its `cpu` line). */
export function parseMachineBusy(text: string): number {
  const line = text.split("\n").find((l) => /^cpu\s/.test(l));
  if (!line) throw new Error("no cpu line in /proc/stat");
  const f = line.trim().split(/\s+/).slice(1).map(Number);
  // user nice system idle iowait irq softirq steal [guest guest_nice: already inside user and nice]
  const [user = 0, nice = 0, system = 0, , , irq = 0, softirq = 0, steal = 0] = f;
  return (user + nice + system + irq + softirq + steal) / TICKS;
}

export function processCpuSeconds(pid: number): number | undefined {
  try {
    return parseProcStat(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return undefined;
  }
}

export function machineBusySeconds(): number | undefined {
  try {
    return parseMachineBusy(readFileSync("/proc/stat", "utf8"));
  } catch {
    return undefined;
  }
}

/** A process of a local control plane (tools/cluster/launcher.ts's state: etcd, kube-apiserver...). */
export interface WatchedProcess {
  name: string;
  pid: number;
}

/**
 * CPU seconds spent while `fn` ran, per process name (summed over the clusters) and by the whole
 * machine; `undefined` values where /proc could not be read.
 */
export async function cpuDuring<T>(procs: readonly WatchedProcess[], fn: () => Promise<T>): Promise<{ result: T; byName: Record<string, number>; machine?: number }> {
  const before = procs.map((p) => processCpuSeconds(p.pid));
  const machineBefore = machineBusySeconds();
  const result = await fn();
  const after = procs.map((p) => processCpuSeconds(p.pid));
  const machineAfter = machineBusySeconds();
  const byName: Record<string, number> = {};
  procs.forEach((p, i) => {
    const [a, b] = [before[i], after[i]];
    byName[p.name] = (byName[p.name] ?? 0) + (a === undefined || b === undefined ? NaN : b - a);
  });
  return { result, byName, ...(machineBefore !== undefined && machineAfter !== undefined ? { machine: machineAfter - machineBefore } : {}) };
}
