// Which namespace `live init` gives the inventory (cli-utils FindNamespace): `-n` if given;
// else the one namespace every namespaced object of the package shares; else the kubeconfig
// context's. Checked against kpt beta.56: it reads every .yaml/.yml file (an existing
// ResourceGroup included), drops objects that carry the local-config annotation at all (even
// "false"), and takes scope from kyaml's precomputed table keyed by apiVersion and kind:
// anything not in it, a different version of a listed kind included, counts as namespaced.

import type { PackageIssue } from "../model/errors.js";
import { LOCAL_CONFIG_ANNOTATION, type PackageFile } from "../object/parse-package.js";
import { isRecord } from "../model/kube-object.js";
import { typeName } from "../object/validate-object.js";
import { parseYamlDocuments } from "../object/yaml-documents.js";

// The `false` entries of kyaml's precomputedIsNamespaceScoped (kustomize kyaml/openapi/openapi.go).
const CLUSTER_SCOPED = new Set([
  "admissionregistration.k8s.io/v1 MutatingWebhookConfiguration",
  "admissionregistration.k8s.io/v1 ValidatingWebhookConfiguration",
  "admissionregistration.k8s.io/v1beta1 MutatingWebhookConfiguration",
  "admissionregistration.k8s.io/v1beta1 ValidatingWebhookConfiguration",
  "apiextensions.k8s.io/v1 CustomResourceDefinition",
  "apiextensions.k8s.io/v1beta1 CustomResourceDefinition",
  "apiregistration.k8s.io/v1 APIService",
  "apiregistration.k8s.io/v1beta1 APIService",
  "certificates.k8s.io/v1 CertificateSigningRequest",
  "certificates.k8s.io/v1beta1 CertificateSigningRequest",
  "flowcontrol.apiserver.k8s.io/v1beta1 FlowSchema",
  "flowcontrol.apiserver.k8s.io/v1beta1 PriorityLevelConfiguration",
  "networking.k8s.io/v1 IngressClass",
  "networking.k8s.io/v1beta1 IngressClass",
  "node.k8s.io/v1 RuntimeClass",
  "node.k8s.io/v1beta1 RuntimeClass",
  "policy/v1beta1 PodSecurityPolicy",
  "rbac.authorization.k8s.io/v1 ClusterRole",
  "rbac.authorization.k8s.io/v1 ClusterRoleBinding",
  "rbac.authorization.k8s.io/v1beta1 ClusterRole",
  "rbac.authorization.k8s.io/v1beta1 ClusterRoleBinding",
  "scheduling.k8s.io/v1 PriorityClass",
  "scheduling.k8s.io/v1beta1 PriorityClass",
  "storage.k8s.io/v1 CSIDriver",
  "storage.k8s.io/v1 CSINode",
  "storage.k8s.io/v1 StorageClass",
  "storage.k8s.io/v1 VolumeAttachment",
  "storage.k8s.io/v1beta1 CSIDriver",
  "storage.k8s.io/v1beta1 CSINode",
  "storage.k8s.io/v1beta1 StorageClass",
  "storage.k8s.io/v1beta1 VolumeAttachment",
  "v1 ComponentStatus",
  "v1 Namespace",
  "v1 Node",
  "v1 NodeProxyOptions",
  "v1 PersistentVolume",
]);

type InitNamespaceResult = { ok: true; namespace: string } | { ok: false; issues: PackageIssue[] };

/**
 * @param files the package's files (paths relative to the root); Kptfiles are ignored.
 * @param display how a relative path is shown in messages.
 */
export function findInitNamespace(
  files: readonly PackageFile[],
  opts: { namespaceFlag?: string; contextNamespace: string; display?: (rel: string) => string },
): InitNamespaceResult {
  if (opts.namespaceFlag !== undefined) return { ok: true, namespace: opts.namespaceFlag.trim() };
  const display = opts.display ?? ((rel: string) => rel);
  const issues: PackageIssue[] = [];
  let shared: string | undefined;
  let mixed = false;
  for (const f of files) {
    if (!f.path.endsWith(".yaml") && !f.path.endsWith(".yml")) continue;
    const parsed = parseYamlDocuments(f.content);
    for (const e of parsed.errors) issues.push({ source: { file: display(f.path), line: e.line }, message: `invalid YAML: ${e.message}` });
    for (const doc of parsed.documents) {
      const v = doc.value;
      if (!isRecord(v)) {
        issues.push({ source: { file: display(f.path), line: doc.line }, message: `expected a Kubernetes object (a mapping), found ${typeName(v)}` });
        continue;
      }
      const meta = isRecord(v.metadata) ? v.metadata : {};
      if (isRecord(meta.annotations) && LOCAL_CONFIG_ANNOTATION in meta.annotations) continue;
      if (CLUSTER_SCOPED.has(`${String(v.apiVersion ?? "")} ${String(v.kind ?? "")}`)) continue;
      const ns = typeof meta.namespace === "string" ? meta.namespace : "";
      if (ns === "" || (shared !== undefined && shared !== ns)) mixed = true;
      shared ??= ns;
    }
  }
  if (issues.length > 0) return { ok: false, issues };
  return { ok: true, namespace: (!mixed && shared ? shared : opts.contextNamespace).trim() };
}
