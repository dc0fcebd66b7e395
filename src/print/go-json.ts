// JSON lines byte-for-byte as Go's encoding/json writes a map: keys sorted, HTML-sensitive
// characters escaped (`<` -> \u003c ...), and timestamps in RFC 3339 at second precision.

type JsonScalar = string | number | boolean;
export type JsonRecord = Record<string, JsonScalar>;

const GO_ESCAPES: Record<string, string> = {
  "<": "\\u003c",
  ">": "\\u003e",
  "&": "\\u0026",
  "\u2028": "\\u2028",
  "\u2029": "\\u2029",
};

/** One line (with its newline) as json.Marshal(map[string]any) + "\n" would print it. */
export function formatGoJsonLine(record: JsonRecord): string {
  const sorted: JsonRecord = {};
  for (const key of Object.keys(record).sort()) sorted[key] = record[key] as JsonScalar;
  // These characters can only occur inside strings, so replacing them in the whole text is safe.
  return JSON.stringify(sorted).replace(/[<>&\u2028\u2029]/g, (c) => GO_ESCAPES[c] ?? c) + "\n";
}

/** An event line as kpt's JSON printers write it: `content` with its `timestamp` and `type`. */
export function formatEventLine(type: string, content: JsonRecord, at: Date): string {
  return formatGoJsonLine({ ...content, timestamp: formatRfc3339(at), type });
}

/** `2026-11-21T23:33:31Z`: Go's time.RFC3339 of a UTC time. */
function formatRfc3339(d: Date): string {
  return d.toISOString().replace(/\.\d{3}Z$/, "Z");
}
