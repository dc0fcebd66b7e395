// Plain data shapes shared by the whole core. Kubernetes objects stay as parsed JSON:
// the engine only reads a few well-known fields and never needs typed kinds.

/** client-side apply's copy of what it applied (kubectl's annotation, kept the way kubectl writes it). */
export const LAST_APPLIED_ANNOTATION = "kubectl.kubernetes.io/last-applied-configuration";

/** A JSON object (not null, not an array): what a field of a parsed document must be to be read as one. */
export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** The group and kind a CRD's spec defines, as written; undefined where either is not a string. */
export function crdGroupKind(crd: KubeObject): { group: string; kind: string } | undefined {
  const spec = isRecord(crd.spec) ? crd.spec : {};
  const names = isRecord(spec.names) ? spec.names : {};
  return typeof spec.group === "string" && typeof names.kind === "string" ? { group: spec.group, kind: names.kind } : undefined;
}

export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  [key: string]: unknown;
}

export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: ObjectMeta;
  [key: string]: unknown;
}

/** Where an object came from, so every message can point at a file and line. */
export interface SourcePos {
  file: string;
  /** The file relative to the package root, as kpt names it in apply errors (absent for stdin). */
  pkgFile?: string;
  /** 1-based line of the document's first line (or of the offending field, for field errors). */
  line: number;
}

export interface PackageObject {
  object: KubeObject;
  source: SourcePos;
  /**
   * The 1-based line of a field in source.file, for later checks' messages (e.g.
   * `["metadata", "namespace"]`). Computed on demand: most packages never need it.
   */
  lineOf?: (path: readonly (string | number)[]) => number | undefined;
}

/**
 * The inventory a package declares: a ResourceGroup file or a Kptfile `inventory:` section, or an
 * ApplySet (kpt-ts's applyset.yaml, or `--applyset` on the command line).
 */
export interface InventoryInfo {
  /** The ResourceGroup's name, or the ApplySet parent's. */
  name: string;
  namespace: string;
  /** cli-utils' inventory id, or the ApplySet's id (derived from its parent, KEP-3659). */
  id: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
  origin: "resourcegroup" | "kptfile" | "applyset" | "flag";
  source: SourcePos;
  /**
   * The line of its namespace in source.file, for messages about the namespace. Computed on
   * demand, as PackageObject's lineOf: most runs never need it.
   */
  namespaceLine?: () => number | undefined;
  /** Set for an ApplySet inventory: its parent's kind. Absent: a ResourceGroup. */
  applySet?: ApplySetParent;
}

/** The object an ApplySet hangs from: a Secret (kubectl's default) or a ConfigMap, in the inventory's namespace. */
export interface ApplySetParent {
  kind: "Secret" | "ConfigMap";
}

/** A document the package carries for kpt-ts itself, never applied (a HealthRules object), as written. */
export interface PackageDocument {
  value: unknown;
  source: SourcePos;
  lineOf: (path: readonly (string | number)[]) => number | undefined;
}

export interface Package {
  /** The directory read, or "-" for standard input. */
  path: string;
  objects: PackageObject[];
  inventory: InventoryInfo;
  /** `kpt-ts.dev/v1alpha1` HealthRules documents, unchecked (src/health/ compiles them). */
  healthRules?: PackageDocument[];
}
