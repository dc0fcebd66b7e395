// Reading and comparing the `--output json` lines of kpt-ts and of the real kpt.
export interface JsonEvent {
  type: string;
  [key: string]: unknown;
}

/** One JSON object per line; anything else on stdout is an error in the format. */
export function parseJsonEvents(stdout: string): JsonEvent[] {
  return stdout
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => {
      try {
        return JSON.parse(l) as JsonEvent;
      } catch {
        throw new Error(`not a JSON line: ${l}`);
      }
    });
}

/** Replaces every occurrence of each key by its value in every string of an event. */
function rename(value: unknown, names: Record<string, string>): unknown {
  if (typeof value !== "string") return value;
  let s = value;
  for (const [from, to] of Object.entries(names)) s = s.split(from).join(to);
  return s;
}

const COUNTS = ["count", "successful", "skipped", "failed", "timeout"] as const;

function describe(e: JsonEvent, names: Record<string, string>): string {
  const r = (k: string) => rename(e[k], names);
  switch (e.type) {
    case "group":
    case "summary":
      return [e.type, e.action, e.status ?? "", ...COUNTS.filter((k) => k in e).map((k) => `${k}=${String(e[k])}`)].join(" ").replace(/\s+/g, " ");
    case "error":
      return `error ${String(r("error"))}`;
    default:
      return `${e.type} ${String(e.status)} ${String(r("group"))}/${String(r("kind"))}/${String(r("namespace"))}/${String(r("name"))}`;
  }
}

/**
 * The events as comparable lines: type, status, group/kind/namespace/name for object events;
 * action, status and counts for group and summary events. Timestamps are left out, and so are
 * `wait` events with status Pending (whether a wait reports Pending before Successful depends on
 * how fast the object reconciles, for kpt as for kpt-ts). Object events between a group's Started
 * and Finished are sorted, since the order within a wave is not part of the contract.
 */
export function comparableEvents(events: JsonEvent[], names: Record<string, string> = {}): string[] {
  const out: string[] = [];
  let segment: string[] = [];
  const flush = () => {
    out.push(...segment.sort());
    segment = [];
  };
  for (const e of events) {
    if (e.type === "wait" && e.status === "Pending") continue;
    if (e.type === "group" || e.type === "summary" || e.type === "error") {
      flush();
      out.push(describe(e, names));
    } else {
      segment.push(describe(e, names));
    }
  }
  flush();
  return out;
}

/** The distinct shapes of the lines: type, status and the sorted list of keys (wait Pending aside, as above). */
export function eventShapes(events: JsonEvent[]): string[] {
  const shapes = new Set(events.filter((e) => !(e.type === "wait" && e.status === "Pending")).map((e) => `${e.type}/${String(e.status ?? "")}: ${Object.keys(e).sort().join(",")}`));
  return [...shapes].sort();
}

/** The `error` texts of object events, renamed, in a stable order. */
export function eventErrors(events: JsonEvent[], names: Record<string, string> = {}): string[] {
  return events
    .filter((e) => e.type !== "error" && typeof e.error === "string")
    .map((e) => `${e.type} ${String(e.kind)}/${String(e.name)}: ${String(rename(e.error, names))}`)
    .sort();
}
