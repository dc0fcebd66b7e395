// Go-style durations as kpt takes them: "90s", "2m", "1h30m", "500ms", "0" (= no limit).

const UNIT_MS: Record<string, number> = { ns: 1e-6, us: 1e-3, "µs": 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** Milliseconds, or undefined for "0"; throws a message naming the value when it is not a duration. */
export function parseDuration(value: string, flag: string): number | undefined {
  const v = value.trim();
  if (v === "0" || v === "") return undefined;
  const re = /(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)/gy;
  let total = 0;
  let matched = 0;
  for (let m = re.exec(v); m; m = re.exec(v)) {
    total += Number(m[1]) * UNIT_MS[m[2]!]!;
    matched = re.lastIndex;
  }
  if (matched !== v.length || matched === 0) throw new Error(`invalid duration ${JSON.stringify(value)} for ${flag}: use a number with a unit, like 30s, 2m or 1h30m`);
  return total === 0 ? undefined : total;
}

export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  return s % 60 ? `${m}m${s % 60}s` : `${m}m`;
}
