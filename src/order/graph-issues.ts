// Dependency-graph problems (cycles, depends-on references to nothing, unreadable annotations)
// as package issues: each points at the file and line of the depends-on annotation to fix.

import { PackageError, type PackageIssue } from "../model/errors.js";
import { formatDependsOnRef, refKey, refOf, type ObjRef } from "../model/ref.js";
import type { PackageObject, SourcePos } from "../model/kube-object.js";
import { DEPENDS_ON_ANNOTATION } from "./depends-on.js";
import type { GraphIssue } from "./graph.js";

/** One PackageError for all of them; `objects` are the package's objects (with their sources). */
export function graphIssuesError(issues: GraphIssue[], objects: PackageObject[]): PackageError {
  const byRef = new Map(objects.map((po) => [refKey(refOf(po.object)), po]));
  return new PackageError(issues.map((i) => locateGraphIssue(i, byRef)));
}

function locateGraphIssue(issue: GraphIssue, byRef: Map<string, PackageObject>): PackageIssue {
  const at = (ref: ObjRef): SourcePos | undefined => {
    const po = byRef.get(refKey(ref));
    if (!po) return undefined;
    return { file: po.source.file, line: po.lineOf?.(["metadata", "annotations", DEPENDS_ON_ANNOTATION]) ?? po.source.line };
  };
  const first = issue.objects[0];
  const source = first ? at(first) : undefined;
  const object = first ? `${first.kind}/${first.name}` : undefined;
  // A cycle spans several objects: each edge says where its annotation is.
  const message =
    issue.kind === "cyclic-dependency"
      ? `cyclic dependency:\n${issue.edges
          .map((e) => {
            const where = at(e.from);
            return `- ${formatDependsOnRef(e.from)} -> ${formatDependsOnRef(e.to)}${where ? ` (${where.file}:${where.line})` : ""}`;
          })
          .join("\n")}`
      : issue.message;
  return {
    ...(source ? { source } : {}),
    ...(object ? { object } : {}),
    message: issue.hint ? `${message}\n${issue.hint}` : message,
  };
}
