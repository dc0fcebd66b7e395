// Reading `status.conditions` the way kstatus does (GetObjectWithConditions): missing or null
// means none; a wrong shape is an error (Unknown), not an empty list.

import { isRecord } from "../model/kube-object.js";
import { MalformedStatusError, typeName, unexpectedType } from "./fields.js";

/** A condition as found on an object; absent string fields read as "". */
export interface ObjectCondition {
  type: string;
  status: string;
  reason: string;
  message: string;
}

const FIELDS = ["type", "status", "reason", "message"] as const;

export function readConditions(obj: unknown): ObjectCondition[] {
  const status = isRecord(obj) ? obj["status"] : undefined;
  if (status === undefined || status === null) return [];
  if (!isRecord(status)) {
    throw new MalformedStatusError(`reading status.conditions: .status is a ${typeName(status)}, expected a map`);
  }
  const list = status["conditions"];
  if (list === undefined || list === null) return [];
  if (!Array.isArray(list)) throw unexpectedType("status.conditions", "a list", list);
  return list.map((item, i) => {
    if (!isRecord(item)) throw unexpectedType(`status.conditions[${i}]`, "a map", item);
    const cond: ObjectCondition = { type: "", status: "", reason: "", message: "" };
    for (const f of FIELDS) {
      const v = item[f];
      if (v === undefined || v === null) continue;
      if (typeof v !== "string") throw unexpectedType(`status.conditions[${i}].${f}`, "a string", v);
      cond[f] = v;
    }
    return cond;
  });
}

/** The first condition of `type`, optionally also matching `status`. */
export function findCondition(conds: ObjectCondition[], type: string, status?: string): ObjectCondition | undefined {
  return conds.find((c) => c.type === type && (status === undefined || c.status === status));
}

export function hasCondition(conds: ObjectCondition[], type: string, status: string): boolean {
  return findCondition(conds, type, status) !== undefined;
}
