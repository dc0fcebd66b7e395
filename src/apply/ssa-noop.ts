// Whether a server-side apply would change nothing, decided locally so an unchanged object costs
// no request: every field of the configuration already has its value in the live object, and
// our field manager owns no field the configuration has dropped (which the server would remove).

import type { KubeObject } from "../model/kube-object.js";
import { storedForm } from "./csa/stored-form.js";
import { clientSideManagers } from "./csa-upgrade.js";

type Json = unknown;

function isObj(v: Json): v is Record<string, Json> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/**
 * Every field of `want` is present in `have` with the same value; lists must match item for item.
 * With `zeroValuesMayBeAbsent`, a field `have` lacks may hold a zero value in `want` (false, 0, "",
 * an empty list or map): the server's Go types omit those when empty (omitempty, a CRD's
 * `preserveUnknownFields: false`), so whether writing one changes anything is the server's call.
 */
export function isSubset(want: Json, have: Json, opts: { zeroValuesMayBeAbsent?: boolean } = {}): boolean {
  if (isObj(want)) {
    if (!isObj(have)) return false;
    return Object.entries(want).every(([k, v]) => (v === null ? !(k in have) || have[k] === null : k in have ? isSubset(v, have[k], opts) : opts.zeroValuesMayBeAbsent === true && isZeroValue(v)));
  }
  if (Array.isArray(want)) {
    return Array.isArray(have) && want.length === have.length && want.every((v, i) => isSubset(v, have[i], opts));
  }
  return want === have;
}

function isZeroValue(v: Json): boolean {
  if (isObj(v)) return Object.values(v).every(isZeroValue);
  if (Array.isArray(v)) return v.length === 0;
  return v === false || v === 0 || v === "" || v === null;
}

/** Finds the item a managedFields list key (`k:{...}`, `v:...`, `i:N`) names in a list. */
export function findItem(list: Json[], key: string): Json | undefined {
  const body = key.slice(2);
  let parsed: Json;
  try {
    parsed = JSON.parse(body);
  } catch {
    return undefined;
  }
  if (key.startsWith("i:")) return typeof parsed === "number" ? list[parsed] : undefined;
  if (key.startsWith("v:")) return list.find((item) => JSON.stringify(item) === JSON.stringify(parsed));
  if (key.startsWith("k:") && isObj(parsed)) {
    const keys = Object.entries(parsed as Record<string, Json>);
    // Own fields only: a key the server sent as "constructor" matches no inherited member.
    const field = (item: Record<string, Json>, k: string) => (Object.hasOwn(item, k) ? item[k] : undefined);
    const exact = list.find((item) => isObj(item) && keys.every(([k, v]) => JSON.stringify(field(item, k)) === JSON.stringify(v)));
    if (exact !== undefined) return exact;
    // The server keys items by defaulted fields too (`k:{"containerPort":80,"protocol":"TCP"}`)
    // while the configuration may leave them out: a missing key field stands for its default.
    return list.find((item) => isObj(item) && keys.every(([k, v]) => (Object.hasOwn(item, k) ? JSON.stringify(item[k]) === JSON.stringify(v) : true)));
  }
  return undefined;
}

/** True when every field in the fieldsV1 tree is set in `config`. */
function ownedFieldsPresent(fields: Json, config: Json): boolean {
  if (!isObj(fields)) return true;
  for (const [key, sub] of Object.entries(fields)) {
    if (key === ".") continue;
    let next: Json | undefined;
    if (key.startsWith("f:")) {
      if (!isObj(config) || !(key.slice(2) in config)) return false;
      next = config[key.slice(2)];
    } else if (/^[kvi]:/.test(key)) {
      if (!Array.isArray(config)) return false;
      next = findItem(config, key);
      if (next === undefined) return false;
    } else continue;
    if (!ownedFieldsPresent(sub, next)) return false;
  }
  return true;
}

export function isSsaNoop(config: KubeObject, live: KubeObject, fieldManager: string): boolean {
  // A client-side applier still owns fields: they must be migrated first (csa-upgrade.ts).
  if (clientSideManagers(live).size > 0) return false;
  const managed = Array.isArray(live.metadata.managedFields) ? (live.metadata.managedFields as Record<string, Json>[]) : [];
  const ours = managed.filter((m) => m.manager === fieldManager && m.operation === "Apply");
  if (ours.length === 0) return false; // the server must record our ownership first
  // Ownership is recorded for the fields as sent (a Secret's f:stringData); the values are
  // compared as stored (that stringData folded into data).
  if (!ours.every((m) => ownedFieldsPresent(m.fieldsV1, config))) return false;
  return isSubset(storedForm(config, undefined), live);
}
