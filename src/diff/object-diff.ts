// One change as a unified diff of YAML: the object as it stands against the object as apply
// would leave it (`/dev/null` for the side that does not exist). Pure; printers colour it.

import { formatGroupKind, type ObjRef } from "../model/ref.js";
import type { KubeObject } from "../model/kube-object.js";
import { yamlLib } from "../object/yaml-lib.js";
import type { Change } from "./change-set.js";
import { diffLines, formatHunks, unifiedHunks } from "./line-diff.js";

/**
 * The object as YAML lines. Strings YAML 1.1 would read as something else (`yes`, `on`, `n`,
 * `2026-01-01`, `1_000`) are quoted: kubectl and the API server read manifests as YAML 1.1, so a
 * line pasted from a diff into a package must keep its type.
 */
function objectYamlLines(obj: KubeObject | undefined): string[] {
  if (!obj) return [];
  return yamlLib().stringify(obj, { lineWidth: 0, version: "1.1" }).replace(/\n$/, "").split("\n");
}

/** `wp/deployment.apps/wordpress`, `namespace/wp`: the object's path in diff headers. */
export function diffPath(ref: ObjRef): string {
  const id = `${formatGroupKind(ref)}/${ref.name}`;
  return ref.namespace ? `${ref.namespace}/${id}` : id;
}

/** Whether a change can have a diff to show: unchanged, a skip or an error has none. */
export function mayShowDiff(c: Change): boolean {
  return !(c.operation === "unchanged" || c.skip || c.error);
}

/**
 * `--- wp/configmap/cfg (live)`, `+++ wp/configmap/cfg (after apply)`, then the hunks. No lines
 * for a change apply will not make (unchanged, skipped, failing dry run).
 */
export function formatChangeDiff(c: Change, context = 3): string[] {
  if (!mayShowDiff(c) || (!c.before && !c.after)) return [];
  const hunks = unifiedHunks(diffLines(objectYamlLines(c.before), objectYamlLines(c.after)), context);
  if (hunks.length === 0) return [];
  const path = diffPath(c.ref);
  return [c.before ? `--- ${path} (live)` : "--- /dev/null", c.after ? `+++ ${path} (after apply)` : "+++ /dev/null", ...formatHunks(hunks)];
}
