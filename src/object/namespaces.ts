// Gives namespaced objects their namespace the way kpt does (cli-utils SetNamespaces): the
// scope of each type comes from the cluster, else from a CRD in the same package; objects
// without a namespace get the default one; `-n` makes any other namespace an error.

import type { PackageIssue } from "../model/errors.js";
import { groupOf, isCrd, refKey, refOf } from "../model/ref.js";
import type { PackageObject, SourcePos } from "../model/kube-object.js";
import { crdGroupKind, isRecord } from "../model/kube-object.js";

export type ResourceScope = "Namespaced" | "Cluster";

interface AssignNamespacesOptions {
  /** The cluster's answer (discovery); undefined when the cluster does not know the type. */
  scopeOf(group: string, kind: string): ResourceScope | undefined;
  /** The kubeconfig context's namespace ("default" when it has none). */
  defaultNamespace: string;
  /** `-n`: every namespaced object must be in it. */
  enforcedNamespace?: string;
}

interface AssignedNamespaces {
  objects: PackageObject[];
  issues: PackageIssue[];
}

/** Returns new objects; the inputs are not changed. */
export function assignNamespaces(objects: PackageObject[], opts: AssignNamespacesOptions): AssignedNamespaces {
  const crdScopes = collectCrdScopes(objects);
  const fallback = opts.enforcedNamespace ?? opts.defaultNamespace;
  const issues: PackageIssue[] = [];
  const unknown = new Map<string, SourcePos>();
  const out: PackageObject[] = [];
  for (const po of objects) {
    const { apiVersion, kind, metadata } = po.object;
    const group = groupOf(apiVersion);
    const scope = opts.scopeOf(group, kind) ?? crdScope(crdScopes, apiVersion, kind);
    const ns = metadata.namespace ?? "";
    // Only messages need the field's line, and finding it costs a full YAML parse of the document.
    const at = (): SourcePos => ({ file: po.source.file, line: po.lineOf?.(["metadata", "namespace"]) ?? po.source.line });
    const name = `${kind}/${metadata.name ?? ""}`;
    if (scope === undefined) {
      const gvk = `${apiVersion.includes("/") ? apiVersion : `/${apiVersion}`}, Kind=${kind}`;
      if (!unknown.has(gvk)) unknown.set(gvk, po.source);
      out.push(po);
    } else if (scope === "Cluster") {
      if (ns !== "") issues.push({ source: at(), object: name, message: `resource is cluster-scoped but has a non-empty namespace "${ns}": remove metadata.namespace` });
      out.push(po);
    } else if (opts.enforcedNamespace !== undefined && ns !== "" && ns !== opts.enforcedNamespace) {
      issues.push({ source: at(), object: name, message: `found namespace "${ns}", but all resources must be in namespace "${opts.enforcedNamespace}"` });
      out.push(po);
    } else {
      out.push(ns === "" ? { ...po, object: { ...po.object, metadata: { ...metadata, namespace: fallback } } } : po);
    }
  }
  if (unknown.size > 0) issues.push(describeUnknownTypes(unknown));
  issues.push(...findDefaultingCollisions(objects, out, fallback));
  return { objects: out, issues };
}

interface CrdScope {
  scope: ResourceScope;
  /** Versions the CRD serves; empty when it does not say. */
  versions: Set<string>;
}

function collectCrdScopes(objects: PackageObject[]): Map<string, CrdScope> {
  const scopes = new Map<string, CrdScope>();
  for (const { object } of objects) {
    const gk = isCrd(groupOf(object.apiVersion), object.kind) ? crdGroupKind(object) : undefined;
    if (!gk) continue;
    const spec = isRecord(object.spec) ? object.spec : {};
    if (spec.scope !== "Namespaced" && spec.scope !== "Cluster") continue;
    const versions = new Set<string>();
    if (Array.isArray(spec.versions)) for (const v of spec.versions) if (isRecord(v) && typeof v.name === "string") versions.add(v.name);
    if (typeof spec.version === "string") versions.add(spec.version);
    scopes.set(`${gk.group}/${gk.kind}`, { scope: spec.scope, versions });
  }
  return scopes;
}

function crdScope(scopes: Map<string, CrdScope>, apiVersion: string, kind: string): ResourceScope | undefined {
  const found = scopes.get(`${groupOf(apiVersion)}/${kind}`);
  if (!found) return undefined;
  const version = apiVersion.slice(apiVersion.indexOf("/") + 1);
  // As cli-utils: the CRD must define the version the object uses.
  return found.versions.size === 0 || found.versions.has(version) ? found.scope : undefined;
}

function describeUnknownTypes(unknown: Map<string, SourcePos>): PackageIssue {
  const lines = [...unknown].map(([gvk, at]) => `${gvk} (${at.file}:${at.line})`);
  return {
    source: [...unknown.values()][0]!,
    message:
      // kpt's sentence (scripts match on it), with its plural fixed for one type.
      `${unknown.size} resource ${unknown.size === 1 ? "type" : "types"} could not be found in the cluster or as CRDs among the applied resources.\n\n` +
      `Resource types:\n${lines.join("\n")}\n\n` +
      `Check apiVersion and kind for typos; for custom resources, install their CustomResourceDefinitions first or add them to this package.`,
  };
}

/** Two objects that differ only because one had no namespace become one after defaulting. */
function findDefaultingCollisions(before: PackageObject[], after: PackageObject[], fallback: string): PackageIssue[] {
  const seen = new Map<string, { raw: string; source: SourcePos }>();
  const issues: PackageIssue[] = [];
  after.forEach((po, i) => {
    const key = refKey(refOf(po.object));
    const raw = refKey(refOf(before[i]!.object));
    const first = seen.get(key);
    if (!first) {
      seen.set(key, { raw, source: po.source });
      return;
    }
    // Identical before defaulting: the package reader already reported it.
    if (first.raw === raw) return;
    issues.push({
      source: po.source,
      object: `${po.object.kind}/${po.object.metadata.name ?? ""}`,
      message: `duplicate object in namespace "${po.object.metadata.namespace}": also defined at ${first.source.file}:${first.source.line} (objects without metadata.namespace go to "${fallback}")`,
    });
  });
  return issues;
}
