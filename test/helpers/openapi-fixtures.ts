// The OpenAPI v3 documents the unit tests read (test/unit/fixtures/openapi/), saved as a real API
// server serves them (/openapi/v3/api/v1, /openapi/v3/apis/apps/v1, a CRD's group).

import { readFileSync } from "node:fs";

export function loadOpenApiDoc(file: string): unknown {
  return JSON.parse(readFileSync(new URL(`../unit/fixtures/openapi/${file}`, import.meta.url), "utf8"));
}
