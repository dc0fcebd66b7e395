// OpenAPI documents as client-side apply reads them: only their structure (types, properties,
// $refs and the x-kubernetes extensions) matters, and descriptions are two thirds of their size
// (api/v1: 1.46 MB, 0.45 MB without). Dropping them makes the copy on disk, and each run's
// parse of it, about three times cheaper.

export function withoutDescriptions(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutDescriptions);
  if (value === null || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  // A description is a string; a field *named* description (PriorityClass's) is a schema object.
  for (const [k, v] of Object.entries(value)) if (!(k === "description" && typeof v === "string")) out[k] = withoutDescriptions(v);
  return out;
}
