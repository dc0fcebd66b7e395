// Aggregated APIs the cluster lists but cannot serve (metrics-server registered, its Pod absent:
// the most common broken cluster). kpt-ts carries on for every other group and says so once:
// which group, which APIService, and why the APIService is not available, as its own
// Available condition words it. Objects of that group are the only ones that fail.

import type { UnavailableGroupVersion } from "./discovery.js";

export interface UnavailableApi extends UnavailableGroupVersion {
  /** The APIService that registers the group/version (`v1beta1.metrics.k8s.io`). */
  apiService: string;
  /** Its Available condition when False: `ServiceNotFound: service/metrics-server in "kube-system" is not present`. */
  condition?: string;
}

/** An APIService is named `<version>.<group>` (the API server requires it). */
export function apiServiceOf(group: string, version: string): string {
  return `${version}.${group}`;
}

/** The Available=False condition of an APIService object, as one clause. */
export function availabilityOf(apiService: unknown): string | undefined {
  const conditions = (apiService as { status?: { conditions?: unknown } } | undefined)?.status?.conditions;
  if (!Array.isArray(conditions)) return undefined;
  const c = conditions.find((x) => x?.type === "Available" && x?.status !== "True") as { reason?: string; message?: string } | undefined;
  if (!c) return undefined;
  return [c.reason, c.message].filter((s) => typeof s === "string" && s !== "").join(": ") || undefined;
}

/** The run's one warning about it. */
export function describeUnavailableApi(u: UnavailableApi): string {
  const why = u.condition ?? u.error ?? "discovery of it fails";
  return (
    `API group ${u.group}/${u.version} is unavailable: APIService ${u.apiService} is not available (${why}). ` +
    `kpt-ts carries on with every other group; objects of ${u.group} cannot be read or written, and a namespace being deleted waits until the APIService is fixed or removed`
  );
}

/** The error for an object whose group is unavailable. */
export function unavailableGroupMessage(u: UnavailableGroupVersion, what: string): string {
  return `cannot ${what}: API group ${u.group}/${u.version} is unavailable (APIService ${apiServiceOf(u.group, u.version)} is not available${u.error ? `: ${u.error}` : ""}); fix or remove the APIService`;
}

/** The warnings of a run: one per unavailable APIService (none from a cluster that cannot tell). */
export async function unavailableApiWarnings(cluster: { unavailableApis?(signal?: AbortSignal): Promise<UnavailableApi[]> }, signal?: AbortSignal): Promise<string[]> {
  const found = await cluster.unavailableApis?.(signal).catch(() => []);
  return (found ?? []).map(describeUnavailableApi);
}
