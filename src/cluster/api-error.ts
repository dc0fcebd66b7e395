// The API server's failures as typed values. Per-object failures become events; access
// failures (401/403 on discovery, TLS, refused connections) end the run as ClusterError.

export type ApiReason =
  | "NotFound"
  | "AlreadyExists"
  | "Conflict"
  | "Invalid"
  | "Forbidden"
  | "Unauthorized"
  | "TooManyRequests"
  | "BadRequest"
  | "MethodNotAllowed"
  | "Gone"
  | "Timeout"
  | "InternalError"
  | "ServiceUnavailable"
  | "UnsupportedMediaType"
  | "Unknown";

export interface StatusCause {
  reason?: string;
  message?: string;
  field?: string;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly reason: ApiReason,
    message: string,
    readonly causes: StatusCause[] = [],
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
    this.name = "ApiError";
  }
  get notFound(): boolean {
    return this.status === 404;
  }
  get conflict(): boolean {
    return this.status === 409;
  }
}

const BY_STATUS: Record<number, ApiReason> = {
  400: "BadRequest",
  401: "Unauthorized",
  403: "Forbidden",
  404: "NotFound",
  405: "MethodNotAllowed",
  409: "Conflict",
  410: "Gone",
  415: "UnsupportedMediaType",
  422: "Invalid",
  429: "TooManyRequests",
  500: "InternalError",
  503: "ServiceUnavailable",
  504: "Timeout",
};

/** Builds an ApiError from a response body (a metav1.Status when the server wrote one). */
export function apiErrorFrom(status: number, body: string, what: string, retryAfter?: string): ApiError {
  let s: any;
  try {
    s = JSON.parse(body);
  } catch {
    s = undefined;
  }
  const reason = ((s?.kind === "Status" && s.reason) || BY_STATUS[status] || "Unknown") as ApiReason;
  const message = s?.kind === "Status" && typeof s.message === "string" ? s.message : `${what}: HTTP ${status}${body ? `: ${body.slice(0, 300)}` : ""}`;
  const causes = Array.isArray(s?.details?.causes) ? (s.details.causes as StatusCause[]) : [];
  const ra = retryAfter !== undefined ? Number(retryAfter) : s?.details?.retryAfterSeconds;
  return new ApiError(status, reason, message, causes, Number.isFinite(ra) ? Number(ra) : undefined);
}
