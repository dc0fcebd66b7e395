// Go-style durations, as kpt's flags take them and kpt-ts' annotations too: "90s", "2m",
// "1h30m", "500ms". Pure.

const UNIT_MS: Record<string, number> = { ns: 1e-6, us: 1e-3, "µs": 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** Milliseconds (0 for "0" or ""), or undefined when the text is not a duration. */
export function goDurationMs(value: string): number | undefined {
  const v = value.trim();
  if (v === "0" || v === "") return 0;
  const re = /(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)/gy;
  let total = 0;
  let matched = 0;
  for (let m = re.exec(v); m; m = re.exec(v)) {
    total += Number(m[1]) * UNIT_MS[m[2]!]!;
    matched = re.lastIndex;
  }
  return matched === v.length && matched > 0 ? total : undefined;
}
