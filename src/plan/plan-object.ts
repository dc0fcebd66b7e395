// The one decision per package object: whether the run may touch it (the inventory policy) and
// what applying it does against its live object (create, update or unchanged; for client-side
// apply the patch it sends). The planner takes it for every object; the executor takes it again,
// here and nowhere else, for an object whose live state moved since the plan read it. Any new
// per-object choice (how an object is applied, whether it is applied at all) belongs here. Pure.

import { appliedFrom, lastAppliedProblem } from "../apply/csa/last-applied.js";
import { isCsaNoop, planClientSideApply } from "../apply/csa/plan-csa.js";
import type { PatchSchema } from "../apply/csa/patch-schema.js";
import { hasLeftAloneAnnotations, leftAloneRules, ownedLeftAlone, withoutFields, type LeftAloneRules } from "../apply/left-alone.js";
import { isSsaNoop } from "../apply/ssa-noop.js";
import { migrationDue } from "../apply/ssa-migration.js";
import { MAX_ANNOTATIONS_BYTES, storedAnnotationBytes } from "../apply/stored-annotations.js";
import { formatBytes } from "../inventory/inventory-size.js";
import { policyRefusal, type InventoryPolicy } from "../inventory/policy.js";
import { deepEqualJson, type JsonValue } from "../apply/csa/json-value.js";
import type { KubeObject } from "../model/kube-object.js";
import type { ApplyMethod, CsaPlan, LeftAlone, PlannedApply } from "../model/plan.js";

export interface ObjectPlanOptions {
  serverSide: boolean;
  fieldManager: string;
  inventoryId: string;
  inventoryPolicy: InventoryPolicy;
}

/**
 * Client-side apply's merge schema: undefined for kinds patched with a JSON merge patch, an Error
 * when the kind's OpenAPI document could not be read.
 */
type MergeSchema = PatchSchema | undefined | Error;

interface ObjectDecision {
  operation: PlannedApply["operation"];
  /** Client-side or server-side, and why when not the run's way (see PlannedApply). */
  method: ApplyMethod;
  methodReason?: string;
  /** The server-side apply's body when it is not the package's object (fields left alone). */
  sent?: KubeObject;
  leftAlone?: LeftAlone;
  /** Server-side apply hands the client-side appliers' fields over first (see PlannedApply). */
  migrate?: true;
  /** Client-side apply's patch; absent for an update it could not compute (see `unplanned`). */
  csa?: CsaPlan;
  /** Why the patch could not be computed (its schema unreadable, objects that cannot be merged). */
  unplanned?: string;
  /** Why the live object's last-applied annotation cannot be read (see PlannedApply). */
  lastAppliedUnreadable?: string;
  /** The inventory policy's refusal: the object is left alone. */
  refusal?: string;
}

const NO_RULES: LeftAloneRules = { createOnly: false, fields: [] };

/** The object's kpt-ts.dev rules; the planner refuses bad ones before anything is decided (planApply). */
function rulesOf(object: KubeObject): LeftAloneRules {
  return hasLeftAloneAnnotations(object) ? leftAloneRules(object).rules : NO_RULES;
}

/** What client-side apply would send against `live`: the package's object, less the fields it leaves alone once the object exists. */
function configFor(object: KubeObject, live: KubeObject | undefined, rules: LeftAloneRules): KubeObject {
  return live && rules.fields.length ? withoutFields(object, rules.fields) : object;
}

/**
 * Client-side apply, unless the run applies server-side or the object is too large for it: the
 * annotations the server would store (the package's, the owning-inventory one, and client-side
 * apply's last-applied copy of the whole object) are over its limit of 256 KiB, measured as the
 * API server measures them. An object last applied from this very configuration is known to fit
 * (the server stored it), so a re-apply pays for no measurement.
 */
function methodFor(config: KubeObject, live: KubeObject | undefined, serverSide: boolean): Pick<ObjectDecision, "method" | "methodReason"> {
  if (serverSide) return { method: "server-side" };
  if (live && appliedFrom(config, live)) return { method: "client-side" };
  const bytes = storedAnnotationBytes(config, "client-side");
  if (bytes <= MAX_ANNOTATIONS_BYTES) return { method: "client-side" };
  return {
    method: "server-side",
    methodReason: `too large for client-side apply: its annotations with the last-applied-configuration copy would be ${formatBytes(bytes)}, over the ${formatBytes(MAX_ANNOTATIONS_BYTES)} the API server stores`,
  };
}

/**
 * Whether deciding this object needs its kind's merge schema: only client-side apply of an
 * object that exists and is not already as configured (a no-op never waits for an OpenAPI
 * document), nor left as it is (create-only), nor too large for client-side apply.
 */
export function needsMergeSchema(object: KubeObject, live: KubeObject | undefined, serverSide: boolean): boolean {
  if (serverSide || live === undefined) return false;
  const rules = rulesOf(object);
  if (rules.createOnly) return false;
  const config = configFor(object, live, rules);
  return !isCsaNoop(config, live) && methodFor(config, live, serverSide).method === "client-side";
}

/**
 * Create, update or unchanged, as the apply will find it, and how it is applied: server-side
 * apply by its no-op check, client-side apply by kubectl's three-way patch. When the patch
 * cannot be computed (its schema could not be read, the objects cannot be merged), it is an
 * update without a patch, and why. What the package leaves to others (left-alone.ts) is taken
 * out first: a create-only object that exists is unchanged; fields left alone are neither sent
 * nor removed.
 */
export function decideObject(object: KubeObject, live: KubeObject | undefined, schema: MergeSchema, o: ObjectPlanOptions): ObjectDecision {
  const refusal = live ? policyRefusal(live, o.inventoryId, o.inventoryPolicy, "Apply") : undefined;
  const decided = decideOperation(object, live, schema, o);
  return refusal ? { ...decided, refusal } : decided;
}

function decideOperation(object: KubeObject, live: KubeObject | undefined, schema: MergeSchema, o: ObjectPlanOptions): ObjectDecision {
  const rules = rulesOf(object);
  if (live && rules.createOnly) {
    const method: ApplyMethod = o.serverSide ? "server-side" : "client-side";
    return { operation: "unchanged", method, leftAlone: { createOnly: true }, ...(method === "client-side" ? { csa: { op: "unchanged" as const } } : {}) };
  }
  const config = configFor(object, live, rules);
  const how = methodFor(config, live, o.serverSide);
  const fields = rules.fields.length ? { fields: rules.fields.map((f) => f.text) } : undefined;
  if (how.method === "server-side") {
    // Fields our field manager owns and the package now leaves alone are given up before the
    // apply that no longer sends them, which would otherwise remove them.
    const release = live && fields ? ownedLeftAlone(live, o.fieldManager, rules.fields) : [];
    const leftAlone = fields ? { leftAlone: { ...fields, ...(release.length ? { release } : {}) } } : {};
    const sent = config !== object ? { sent: config } : {};
    if (!live) return { operation: "create", ...how, ...leftAlone };
    if (release.length === 0 && isSsaNoop(config, live, o.fieldManager)) return { operation: "unchanged", ...how, ...sent, ...leftAlone };
    return { operation: "update", ...how, ...sent, ...leftAlone, ...(migrationDue(live) ? { migrate: true as const } : {}) };
  }
  const leftAlone = fields ? { leftAlone: fields } : {};
  if (!live) return { operation: "create", ...how, ...leftAlone, csa: planClientSideApply(object, undefined, undefined, undefined, rules.fields) };
  if (isCsaNoop(config, live)) return { operation: "unchanged", ...how, ...leftAlone, csa: { op: "unchanged" } };
  // An annotation that cannot be read counts as none (the patch removes nothing), and is said.
  const problem = appliedFrom(config, live) ? undefined : lastAppliedProblem(live);
  const noted = problem ? { ...leftAlone, lastAppliedUnreadable: problem } : leftAlone;
  if (schema instanceof Error) return { operation: "update", ...how, ...noted, unplanned: schema.message };
  try {
    const csa = planClientSideApply(object, live, schema, o.fieldManager, rules.fields);
    return { operation: csa.op === "unchanged" ? "unchanged" : "update", ...how, ...noted, csa };
  } catch (err) {
    return { operation: "update", ...how, ...noted, unplanned: err instanceof Error ? err.message : String(err) };
  }
}

/**
 * A client-side patch that only removes what the package does not set, or adds zero values the
 * server omits (CsaPlan's `serverMaySettle`),
 * decided with the server's dry run of it (`stored`: what the server answered it would store): unchanged when
 * that is the live object as it is (the server filled the fields straight back in), else the update.
 */
export function settleRemovalPatch(p: PlannedApply, stored: KubeObject): PlannedApply {
  if (!p.live || p.csa?.op !== "patch" || !p.csa.serverMaySettle) return p;
  if (!sameStoredObject(stored, p.live)) return p;
  return { ...p, operation: "unchanged", csa: { op: "unchanged" } };
}

/** Equal but for what every write (or dry run) may touch: resourceVersion, generation, managedFields. */
export function sameStoredObject(a: KubeObject, b: KubeObject): boolean {
  const strip = (x: KubeObject) => {
    const { managedFields: _m, resourceVersion: _r, generation: _g, ...metadata } = x.metadata;
    return { ...x, metadata };
  };
  return deepEqualJson(strip(a) as unknown as JsonValue, strip(b) as unknown as JsonValue);
}

/** True while the live object is the one the plan decided against (same uid and resourceVersion, or both absent). */
export function planStillHolds(p: { live?: KubeObject }, live: KubeObject | undefined): boolean {
  if (!p.live || !live) return !p.live && !live;
  return p.live.metadata.uid === live.metadata.uid && p.live.metadata.resourceVersion === live.metadata.resourceVersion;
}

/**
 * The planned object decided again against the live object found at execution (the executor
 * asks only for objects the plan does not skip: a skip stands as planned).
 */
export function replanObject(p: PlannedApply, live: KubeObject | undefined, schema: MergeSchema, o: ObjectPlanOptions): PlannedApply {
  const { live: _old, csa: _csa, unplanned: _u, skip: _skip, sent: _sent, leftAlone: _la, methodReason: _mr, migrate: _mg, lastAppliedUnreadable: _lau, ...rest } = p;
  const { refusal, ...d } = decideObject(p.object, live, schema, o);
  return { ...rest, ...(live ? { live } : {}), ...d, ...(refusal ? { skip: refusal } : {}) };
}
