// The API server's failures as typed values. Per-object failures become events; access
// failures (401/403 on discovery, TLS, refused connections) end the run as ClusterError.

interface StatusCause {
  reason?: string;
  message?: string;
  field?: string;
}

/** What a metav1.Status names: the object a 404 did not find (`{ kind: "namespaces", name: "app" }`), say. */
interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly reason: ApiReason,
    message: string,
    readonly causes: StatusCause[] = [],
    readonly retryAfterSeconds?: number,
    readonly details?: StatusDetails,
  ) {
    super(message);
    this.name = "ApiError";
  }
  /** Tries made; above 1, an earlier try may have taken effect before its answer was lost. */
  attempts = 1;
  get notFound(): boolean {
    return this.status === 404;
  }
  /** The namespace a 404 says does not exist (the Status names it: `{ kind: "namespaces", name }`). */
  get missingNamespace(): string | undefined {
    return this.status === 404 && this.details?.kind === "namespaces" ? this.details.name : undefined;
  }
  /** A create refused because its namespace is being deleted (the lifecycle admission's NamespaceTerminating cause). */
  get namespaceTerminating(): boolean {
    return this.causes.some((c) => c.reason === "NamespaceTerminating");
  }
  /**
   * The request is larger than the server takes (413 from the API server, or etcd's "request is
   * too large" relayed as a 500): it can never succeed as it is, so it is never retried.
   */
  get tooLarge(): boolean {
    return this.status === 413 || (this.status >= 500 && /request is too large|too large|exceeds the maximum|message larger than max/i.test(this.message));
  }
}

/**
 * The cluster's discovery does not list the kind: its CustomResourceDefinition is not installed
 * (yet). A 404 as the server would give, typed so callers need not read its words.
 */
export class NotServedError extends ApiError {
  constructor(
    readonly group: string,
    readonly kind: string,
    apiVersion?: string,
  ) {
    super(404, "NotFound", `the cluster does not serve ${apiVersion ? `${apiVersion}, Kind=${kind}` : group ? `${kind}.${group}` : kind}: is its CustomResourceDefinition installed?`);
    this.name = "NotServedError";
  }
}

const BY_STATUS = {
  400: "BadRequest",
  401: "Unauthorized",
  403: "Forbidden",
  404: "NotFound",
  405: "MethodNotAllowed",
  409: "Conflict",
  410: "Gone",
  413: "RequestEntityTooLarge",
  415: "UnsupportedMediaType",
  422: "Invalid",
  429: "TooManyRequests",
  500: "InternalError",
  503: "ServiceUnavailable",
  504: "Timeout",
} as const;

/** A metav1.Status reason: the one of each status code above, AlreadyExists, or Unknown. */
type ApiReason = (typeof BY_STATUS)[keyof typeof BY_STATUS] | "AlreadyExists" | "Unknown";

/** Builds an ApiError from a response body (a metav1.Status when the server wrote one). */
export function apiErrorFrom(status: number, body: string, what: string, retryAfter?: string): ApiError {
  let s: any;
  try {
    s = JSON.parse(body);
  } catch {
    s = undefined;
  }
  const reason = ((s?.kind === "Status" && s.reason) || BY_STATUS[status as keyof typeof BY_STATUS] || "Unknown") as ApiReason;
  const message = s?.kind === "Status" && typeof s.message === "string" ? s.message : `${what}: HTTP ${status}${body ? `: ${body.slice(0, 300)}` : ""}`;
  const causes = Array.isArray(s?.details?.causes) ? (s.details.causes as StatusCause[]) : [];
  const ra = retryAfter !== undefined ? Number(retryAfter) : s?.details?.retryAfterSeconds;
  const d = s?.kind === "Status" && typeof s.details === "object" && s.details ? s.details : undefined;
  const details: StatusDetails | undefined = d && { ...(typeof d.name === "string" ? { name: d.name } : {}), ...(typeof d.group === "string" ? { group: d.group } : {}), ...(typeof d.kind === "string" ? { kind: d.kind } : {}) };
  const err = new ApiError(status, reason, message, causes, Number.isFinite(ra) ? Number(ra) : undefined, details);
  return webhookUnavailableOf(err) ?? err;
}

/** What a 403 says, from the API server's sentence. */
export interface Forbidden {
  user: string;
  verb: string;
  /** `secrets`, `deployments.apps`: the resource with its group. */
  resource: string;
  /** "" when cluster-wide. */
  namespace: string;
}

/** `User "bob" cannot create resource "configmaps" in API group "" in the namespace "app"`, as the API server words a 403. */
const FORBIDDEN = /User "([^"]*)" cannot ([\w-]+) resource "([^"]*)" in API group "([^"]*)"(?: in the namespace "([^"]*)")?/;

export function forbiddenOf(err: ApiError): Forbidden | undefined {
  if (err.status !== 403) return undefined;
  const m = FORBIDDEN.exec(err.message);
  if (!m) return undefined;
  const [, user, verb, resource, group, namespace] = m;
  return { user: user!, verb: verb!, resource: group ? `${resource}.${group}` : resource!, namespace: namespace ?? "" };
}

/**
 * The API error in one short clause for a message's first line. A 403 becomes `forbidden: user
 * "bob" may not create secrets in namespace app`; anything else is the server's own message.
 */
export function briefApiError(err: ApiError): string {
  const f = forbiddenOf(err);
  if (!f) return err.message;
  return `forbidden: user "${f.user}" may not ${f.verb} ${f.resource} ${f.namespace ? `in namespace ${f.namespace}` : "(cluster-wide)"}`;
}

/** What to do about a 403: ask for exactly the permission that was missing. */
export function forbiddenAdvice(err: ApiError): string | undefined {
  if (err.status !== 403) return undefined;
  const f = forbiddenOf(err);
  if (!f) return "your user lacks the RBAC permission for this: ask a cluster administrator for it, or use a context that has it (--context)";
  return `ask a cluster administrator to grant "${f.verb}" on ${f.resource} ${f.namespace ? `in namespace ${f.namespace}` : "cluster-wide"}, or use a context that has it (--context)`;
}

/**
 * The API server could not reach an admission webhook (`failed calling webhook "x": ... connection
 * refused`, no endpoints for its Service, a timeout): the webhook's server is not up yet, usually
 * because the same package installs it and its Pod is still starting. The request was refused
 * before anything was stored, and the same request will pass once the webhook serves. A webhook
 * that answered and denied the request is not this error.
 */
export class WebhookUnavailableError extends ApiError {
  constructor(
    base: ApiError,
    /** The webhook's name in its configuration (`validate.example.com`). */
    readonly webhook: string,
    /** Why it could not be called, in brief (`connection refused`, `no endpoints available for service "x"`). */
    readonly why: string,
  ) {
    super(base.status, base.reason, base.message, base.causes, base.retryAfterSeconds, base.details);
    this.name = "WebhookUnavailableError";
    this.attempts = base.attempts;
  }
}

/** What in the cause of a failed webhook call says its server was not there (or not answering). */
const UNREACHABLE: [RegExp, (m: RegExpExecArray) => string][] = [
  [/connect: connection refused/, () => "connection refused"],
  [/no endpoints available for service "([^"]+)"/, (m) => `no endpoints available for service "${m[1]}"`],
  [/service "([^"]+)" not found/, (m) => `service "${m[1]}" not found`],
  [/context deadline exceeded|Client\.Timeout exceeded|i\/o timeout|TLS handshake timeout|timed out/, () => "timed out"],
  [/connection reset by peer|: EOF\b|EOF$/, () => "connection closed"],
  [/no route to host|network is unreachable|no such host/, (m) => m[0]],
];

/** The typed error for a webhook the server could not call; undefined for any other error. */
export function webhookUnavailableOf(err: unknown): WebhookUnavailableError | undefined {
  if (err instanceof WebhookUnavailableError) return err;
  if (!(err instanceof ApiError) || err.status < 500) return undefined;
  const m = /failed calling webhook "([^"]+)": (.*)$/s.exec(err.message);
  if (!m) return undefined;
  for (const [re, brief] of UNREACHABLE) {
    const found = re.exec(m[2]!);
    if (found) return new WebhookUnavailableError(err, m[1]!, brief(found));
  }
  return undefined;
}
