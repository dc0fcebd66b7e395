// Which patch client-side apply sends: kubectl uses a strategic merge patch, with the merge keys
// of the server's OpenAPI, for kinds compiled into Kubernetes, and a JSON merge patch for
// everything else (custom resources, aggregated APIs).

import type { Cluster } from "../cluster/types.js";
import { groupOf } from "../model/ref.js";
import type { KubeObject } from "../model/kube-object.js";
import { patchSchemaFor, type PatchSchema } from "./csa/patch-schema.js";

const BUILTIN_GROUPS = new Set([
  "",
  "admissionregistration.k8s.io",
  "apiextensions.k8s.io",
  "apiregistration.k8s.io",
  "apps",
  "authentication.k8s.io",
  "authorization.k8s.io",
  "autoscaling",
  "batch",
  "certificates.k8s.io",
  "coordination.k8s.io",
  "discovery.k8s.io",
  "events.k8s.io",
  "extensions",
  "flowcontrol.apiserver.k8s.io",
  "internal.apiserver.k8s.io",
  "networking.k8s.io",
  "node.k8s.io",
  "policy",
  "rbac.authorization.k8s.io",
  "resource.k8s.io",
  "scheduling.k8s.io",
  "storage.k8s.io",
  "storagemigration.k8s.io",
]);

/** A per-run lookup; each group/version's OpenAPI document is fetched at most once. */
export function schemaLookup(cluster: Cluster): (obj: KubeObject) => Promise<PatchSchema | undefined> {
  const schemas = new Map<string, Promise<PatchSchema | undefined>>();
  return (obj) => {
    const group = groupOf(obj.apiVersion);
    if (!BUILTIN_GROUPS.has(group)) return Promise.resolve(undefined);
    const version = obj.apiVersion.slice(obj.apiVersion.indexOf("/") + 1);
    const key = `${obj.apiVersion}/${obj.kind}`;
    let s = schemas.get(key);
    if (!s) {
      s = cluster.openapi(group, version).then((doc) => (doc ? patchSchemaFor(doc, { group, version, kind: obj.kind }) : undefined));
      schemas.set(key, s);
    }
    return s;
  };
}
