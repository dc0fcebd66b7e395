// Go-style durations as kpt takes them: "90s", "2m", "1h30m", "500ms", "0" (= no limit).

import { goDurationMs } from "../object/go-duration.js";

/** Milliseconds, or undefined for "0"; throws a message naming the value when it is not a duration. */
export function parseDuration(value: string, flag: string): number | undefined {
  const ms = goDurationMs(value);
  if (ms === undefined) throw new Error(`invalid duration ${JSON.stringify(value)} for ${flag}: use a number with a unit, like 30s, 2m or 1h30m`);
  return ms === 0 ? undefined : ms;
}

export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  return s % 60 ? `${m}m${s % 60}s` : `${m}m`;
}
