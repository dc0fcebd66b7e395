// What a run will do beyond its per-object lines, in order, one line per step (the plan's
// `realSteps`): the previews (`live diff`, `live apply --dry-run`) list them so a reviewer sees
// the order, not only the set. Pure.

import type { RunStep } from "../model/plan.js";
import { formatRef, type ObjRef } from "../model/ref.js";
import { formatDuration } from "./waiting-line.js";

/** Objects named per step; the rest are counted. */
const NAMED = 3;

function objects(refs: readonly ObjRef[]): string {
  const named = refs.slice(0, NAMED).map(formatRef);
  if (refs.length > NAMED) named.push(`${refs.length - NAMED} more`);
  return `${refs.length} ${refs.length === 1 ? "object" : "objects"} (${named.join(", ")})`;
}

/** `1. store the inventory app/inv listing 3 objects`, `2. apply wave 1: 2 objects (namespace/app, configmap/a)`, ... */
export function formatStepLines(steps: readonly RunStep[], inventory: string): string[] {
  const waves = new Map<number, string>();
  const count = { apply: 0, prune: 0, delete: 0 };
  const within = (ms: number | undefined) => (ms ? `, at most ${formatDuration(ms)}` : "");
  const lines = steps.flatMap((s): string[] => {
    switch (s.type) {
      case "install-crd":
        return ["install the ResourceGroup CRD"];
      case "inventory-add":
        return s.refs ? [`${s.namespace ? `apply namespace ${s.namespace.name}, then ` : ""}store the inventory ${inventory} listing ${s.refs.length} objects, before any other write`] : [];
      case "apply":
      case "delete": {
        const name = `${s.type === "apply" ? "apply" : s.action} wave ${++count[s.type === "apply" ? "apply" : s.action]}`;
        waves.set(s.wave, name);
        return [`${name}: ${objects(s.refs)}`];
      }
      case "wait":
        return [`wait until ${waves.get(s.wave)} is ${s.until === "Current" ? "reconciled" : "gone"}${within(s.timeoutMs)}`];
      case "serve-kinds":
        return [`wait until the API server serves the kinds of ${waves.get(s.wave)}'s ${s.crds.length === 1 ? "CRD" : `${s.crds.length} CRDs`}`];
      case "replace":
        return [`delete ${objects(s.refs)} and wait until gone${within(s.timeoutMs)}, to create ${s.refs.length === 1 ? "it" : "them"} again in apply wave ${count.apply + 1} (an immutable field changed)`];
      case "hook-apply":
        return [`create the ${s.phase} hooks of wave ${s.wave + 1}: ${objects(s.refs)}`];
      case "hook-wait":
        return [`wait until the ${s.phase} hooks of wave ${s.wave + 1} complete${within(s.timeoutMs)}, then delete them as their policy says`];
      case "check-rights":
        return [`ask the server for the ${s.rights.length} ${s.rights.length === 1 ? "right" : "rights"} the writes need, before any write`];
      case "applyset-add":
        return s.scope ? [`${s.namespace ? `apply namespace ${s.namespace.name}, then ` : ""}store the ApplySet ${inventory} naming ${s.scope.groupKinds.length} ${s.scope.groupKinds.length === 1 ? "kind" : "kinds"} and ${s.scope.namespaces.length} ${s.scope.namespaces.length === 1 ? "namespace" : "namespaces"}, before any other write`] : [];
      case "applyset-set":
        return [`store the ApplySet ${inventory}: the kinds and namespaces of what exists now`];
      case "applyset-delete":
        return [`delete the ApplySet ${inventory} (kept, naming what is left, if anything stays)`];
      case "inventory-set":
        return [`store the inventory ${inventory}: what exists now, with its status`];
      case "inventory-delete":
        return [`delete the inventory ${inventory} (kept, listing what is left, if anything stays)`];
    }
  });
  return lines.map((l, i) => `${i + 1}. ${l}`);
}
