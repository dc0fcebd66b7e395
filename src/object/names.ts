// Kubernetes' name, label and annotation syntax, checked before anything reaches the API
// server. Each check returns the API server's explanation, or undefined when the value is valid.

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const DNS1035_LABEL = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
const QUALIFIED_NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
const VERSION = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

type NameRule = "dns-subdomain" | "dns-label" | "dns-1035-label" | "path-segment";

/** A value of at most `max` characters matching `pattern`; else the API server's words. */
function checkSyntax(max: number, pattern: RegExp, explanation: string): (s: string) => string | undefined {
  return (s) => (s.length > max ? `must be no more than ${max} characters` : pattern.test(s) ? undefined : explanation);
}

export const checkDnsSubdomain = checkSyntax(
  253,
  DNS1123_SUBDOMAIN,
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com')",
);

export const checkDnsLabel = checkSyntax(
  63,
  DNS1123_LABEL,
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name' or '123-abc')",
);

const checkDns1035Label = checkSyntax(
  63,
  DNS1035_LABEL,
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name' or 'abc-123')",
);

function checkPathSegment(s: string): string | undefined {
  if (s === "." || s === "..") return `may not be '${s}'`;
  if (s.includes("/")) return "may not contain '/'";
  if (s.includes("%")) return "may not contain '%'";
  return undefined;
}

/** Label and annotation keys: an optional DNS-subdomain prefix and a name of at most 63 characters. */
export function checkQualifiedName(key: string): string | undefined {
  const slash = key.indexOf("/");
  const prefix = slash < 0 ? undefined : key.slice(0, slash);
  const name = slash < 0 ? key : key.slice(slash + 1);
  if (prefix !== undefined) {
    if (prefix === "") return "prefix part must be non-empty";
    const bad = checkDnsSubdomain(prefix);
    if (bad) return `prefix part ${bad}`;
  }
  if (name === "") return "name part must be non-empty";
  if (name.length > 63) return "name part must be no more than 63 characters";
  if (!QUALIFIED_NAME.test(name)) {
    return "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName' or 'my.name' or '123-abc')";
  }
  return undefined;
}

export const checkLabelValue = checkSyntax(
  63,
  LABEL_VALUE,
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue' or 'my_value' or '12345')",
);

/** `version` or `group/version`, the group a DNS subdomain. */
export function checkApiVersion(apiVersion: string): string | undefined {
  const parts = apiVersion.split("/");
  const ok =
    (parts.length === 1 && VERSION.test(parts[0]!)) ||
    (parts.length === 2 && checkDnsSubdomain(parts[0]!) === undefined && VERSION.test(parts[1]!));
  return ok ? undefined : `expected "<group>/<version>" or "<version>" (e.g. "apps/v1" or "v1")`;
}

// How the API server validates metadata.name per built-in kind (k8s.io/kubernetes pkg/apis/*/validation).
// Kinds not listed (custom resources, rarer built-ins) only get the path-segment rule every
// resource shares, so that nothing the server would accept is refused here.
const NAME_RULES = new Map<string, NameRule>([
  ["/Namespace", "dns-label"],
  // Service names must start with a letter (DNS-1035) unless RelaxedServiceNameValidation (alpha) is on.
  ["/Service", "dns-1035-label"],
  ...[
    "/ConfigMap",
    "/Secret",
    "/ServiceAccount",
    "/Pod",
    "/PodTemplate",
    "/ReplicationController",
    "/PersistentVolume",
    "/PersistentVolumeClaim",
    "/Endpoints",
    "/LimitRange",
    "/ResourceQuota",
    "apps/Deployment",
    "apps/StatefulSet",
    "apps/DaemonSet",
    "apps/ReplicaSet",
    "apps/ControllerRevision",
    "batch/Job",
    "batch/CronJob",
    "policy/PodDisruptionBudget",
    "autoscaling/HorizontalPodAutoscaler",
    "networking.k8s.io/Ingress",
    "networking.k8s.io/IngressClass",
    "networking.k8s.io/NetworkPolicy",
    "storage.k8s.io/StorageClass",
    "storage.k8s.io/CSIDriver",
    "storage.k8s.io/VolumeAttachment",
    "scheduling.k8s.io/PriorityClass",
    "node.k8s.io/RuntimeClass",
    "coordination.k8s.io/Lease",
    "apiextensions.k8s.io/CustomResourceDefinition",
    "admissionregistration.k8s.io/MutatingWebhookConfiguration",
    "admissionregistration.k8s.io/ValidatingWebhookConfiguration",
  ].map((k): [string, NameRule] => [k, "dns-subdomain"]),
  ...["Role", "ClusterRole", "RoleBinding", "ClusterRoleBinding"].map((k): [string, NameRule] => [`rbac.authorization.k8s.io/${k}`, "path-segment"]),
]);

function nameRuleFor(group: string, kind: string): NameRule {
  return NAME_RULES.get(`${group}/${kind}`) ?? "path-segment";
}

export function checkObjectName(group: string, kind: string, name: string): string | undefined {
  const bad = checkPathSegment(name);
  if (bad) return bad;
  switch (nameRuleFor(group, kind)) {
    case "dns-subdomain":
      // CronJob names get an 11-character suffix for their Jobs, so the server caps them at 52.
      if (group === "batch" && kind === "CronJob" && name.length > 52) return "must be no more than 52 characters";
      return checkDnsSubdomain(name);
    case "dns-label":
      return checkDnsLabel(name);
    case "dns-1035-label":
      return checkDns1035Label(name);
    case "path-segment":
      return undefined;
  }
}
