// Discovery answers checked before they are used: /api and /apis must be aggregated discovery
// (APIGroupDiscoveryList) or the older index (APIVersions, APIGroupList), with the fields of each
// of the type Kubernetes gives it. Anything else (HTML, another kind, a string where a list
// belongs) is a clear error naming the URL. As Go's JSON reader does, a null where an object or
// list belongs counts as empty: kubectl reads such an answer, so kpt-ts does too.

import { isRecord } from "../model/kube-object.js";
import { describeValue, malformedAnswer, parseJsonAnswer } from "./answer-check.js";

export type DiscoveryAnswer =
  /** Aggregated discovery: the groups, each with its versions and resources, checked. */
  | { kind: "aggregated"; groups: AggregatedGroup[] }
  /** The older index: what to walk version by version. */
  | { kind: "legacy"; index: Record<string, any> };

interface AggregatedGroup {
  metadata?: { name?: string };
  versions?: { version: string; resources?: { resource: string; responseKind?: { kind?: string }; scope?: string; verbs?: string[] }[] }[];
}

/** Parses and checks a discovery answer of `path` ("/api" or "/apis"), fetched from `url`. */
export function readDiscoveryAnswer(body: string, url: string, path: "/api" | "/apis"): DiscoveryAnswer {
  const res = parseJsonAnswer(body, url);
  if (!isRecord(res)) throw malformedAnswer(url, `expected a discovery document, got ${describeValue(res)}`);
  if (res.kind === "APIGroupDiscoveryList") return { kind: "aggregated", groups: checkGroups(res.items, url) };
  const legacyKind = path === "/api" ? "APIVersions" : "APIGroupList";
  const legacyList = path === "/api" ? "versions" : "groups";
  if (res.kind === legacyKind || (res.kind === undefined && Array.isArray(res[legacyList]))) {
    if (res[legacyList] != null && !Array.isArray(res[legacyList])) throw malformedAnswer(url, `its ${legacyList} are ${describeValue(res[legacyList])}, not a list`);
    return { kind: "legacy", index: res };
  }
  throw malformedAnswer(url, `expected APIGroupDiscoveryList or ${legacyKind}, got ${typeof res.kind === "string" ? `a ${JSON.stringify(res.kind).slice(0, 80)}` : "an object without a kind"}`);
}

function checkGroups(items: unknown, url: string): AggregatedGroup[] {
  return mapObjects(items, url, "items", (g, at) => {
    if (g.metadata != null) {
      expectObject(g.metadata, url, `${at}.metadata`);
      if (g.metadata.name != null && typeof g.metadata.name !== "string") throw bad(url, `${at}.metadata.name`, g.metadata.name, "a string");
    }
    const versions = mapObjects(g.versions, url, `${at}.versions`, (v, vat) => {
      if (typeof v.version !== "string") throw bad(url, `${vat}.version`, v.version, "a string");
      const resources = mapObjects(v.resources, url, `${vat}.resources`, (r, rat) => {
        if (typeof r.resource !== "string") throw bad(url, `${rat}.resource`, r.resource, "a string");
        if (r.responseKind != null) expectObject(r.responseKind, url, `${rat}.responseKind`);
        if (r.verbs != null && !(Array.isArray(r.verbs) && r.verbs.every((x: unknown) => typeof x === "string"))) throw bad(url, `${rat}.verbs`, r.verbs, "a list of strings");
        return r;
      });
      return { ...v, resources };
    });
    return { ...g, versions } as AggregatedGroup;
  });
}

/**
 * `fn` over a list's objects in order, each checked and given its path for messages first; a null
 * list or entry counts as none (as Go reads it).
 */
function mapObjects<T>(list: unknown, url: string, at: string, fn: (o: Record<string, any>, at: string) => T): T[] {
  if (list == null) return [];
  return expectList(list, url, at).flatMap((e, i) => {
    if (e == null) return [];
    expectObject(e, url, `${at}[${i}]`);
    return [fn(e, `${at}[${i}]`)];
  });
}

function expectList(v: unknown, url: string, at: string): any[] {
  if (!Array.isArray(v)) throw bad(url, at, v, "a list");
  return v;
}

function expectObject(v: unknown, url: string, at: string): asserts v is Record<string, any> {
  if (!isRecord(v)) throw bad(url, at, v, "an object");
}

function bad(url: string, at: string, v: unknown, expected: string) {
  return malformedAnswer(url, `${at} is ${describeValue(v)}, not ${expected}`);
}
