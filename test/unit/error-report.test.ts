// How a command's fatal error is told: what failed, what to do, and the detail only with -v.
import { describe, expect, it } from "vitest";
import { ApiError, apiErrorFrom, briefApiError, NotServedError } from "../../src/cluster/api-error.js";
import { ClusterError, ResultError, UsageError } from "../../src/model/errors.js";
import { apiErrorHint, formatError } from "../../src/print/error-report.js";

const forbidden = new ApiError(403, "Forbidden", 'resourcegroups.kpt.dev "inv" is forbidden: User "bob" cannot get resource "resourcegroups" in API group "kpt.dev" in the namespace "app"');

describe("apiErrorHint", () => {
  it.each<[string, ApiError, RegExp]>([
    ["403 says what to ask for: the verb on the resource in the namespace", forbidden, /^ask a cluster administrator to grant "get" on resourcegroups\.kpt\.dev in namespace app, or use a context that has it \(--context\)$/],
    ["403 on a cluster-scoped resource", new ApiError(403, "Forbidden", 'namespaces is forbidden: User "bob" cannot create resource "namespaces" in API group ""'), /grant "create" on namespaces cluster-wide/],
    ["403 the server words otherwise", new ApiError(403, "Forbidden", "access denied by policy"), /lacks the RBAC permission/],
    ["401", new ApiError(401, "Unauthorized", "Unauthorized"), /credentials/],
    ["unknown kind", new NotServedError("example.com", "Widget", "example.com/v1"), /CustomResourceDefinition/],
    ["webhook denial", new ApiError(400, "BadRequest", 'admission webhook "policy.example.com" denied the request: no latest tags'), /webhook policy\.example\.com refused it/],
    ["server trouble", new ApiError(503, "ServiceUnavailable", "etcd is down"), /try again/],
  ])("%s", (_n, err, hint) => {
    expect(apiErrorHint(err)).toMatch(hint);
  });
});

describe("formatError", () => {
  it("turns an API error that ends the run into one line of what failed and one of what to do; the server's words with -v", () => {
    expect(formatError(forbidden, false)).toEqual(['error: forbidden: user "bob" may not get resourcegroups.kpt.dev in namespace app', expect.stringMatching(/^ask a cluster administrator to grant "get"/)]);
    expect(formatError(forbidden, true).join("\n")).toContain(`caused by: HTTP 403 Forbidden: ${forbidden.message}`);
  });

  it.each<[string, ApiError, string]>([
    ["a namespaced 403", forbidden, 'forbidden: user "bob" may not get resourcegroups.kpt.dev in namespace app'],
    ["a core-group 403", new ApiError(403, "Forbidden", 'secrets is forbidden: User "system:serviceaccount:a:b" cannot create resource "secrets" in API group "" in the namespace "a"'), 'forbidden: user "system:serviceaccount:a:b" may not create secrets in namespace a'],
    ["a cluster-wide 403", new ApiError(403, "Forbidden", 'customresourcedefinitions.apiextensions.k8s.io is forbidden: User "bob" cannot list resource "customresourcedefinitions" in API group "apiextensions.k8s.io" at the cluster scope'), 'forbidden: user "bob" may not list customresourcedefinitions.apiextensions.k8s.io (cluster-wide)'],
    ["any other error keeps the server's words", new ApiError(409, "Conflict", "the object has been modified"), "the object has been modified"],
  ])("briefApiError: %s", (_n, err, brief) => {
    expect(briefApiError(err)).toBe(brief);
  });

  it("shows advice given as detail at once, and raw detail only with -v", () => {
    const advice = new ClusterError('context "x" not found', { detail: "Known contexts: a, b. Pass one with --context.\nmore" });
    expect(formatError(advice, false)).toEqual(['error: context "x" not found', "Known contexts: a, b. Pass one with --context."]);
    expect(formatError(advice, true)).toHaveLength(3);
    const refused = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:1"), { code: "ECONNREFUSED" });
    const unreachable = new ClusterError("cannot reach the cluster at https://127.0.0.1:1: nothing listens there", { cause: refused, detail: "ECONNREFUSED connect ECONNREFUSED 127.0.0.1:1" });
    expect(formatError(unreachable, false)).toEqual(["error: cannot reach the cluster at https://127.0.0.1:1: nothing listens there"]);
    expect(formatError(unreachable, true)).toEqual([...formatError(unreachable, false), "ECONNREFUSED connect ECONNREFUSED 127.0.0.1:1"]);
  });

  it("adds the RBAC hint to a cluster error caused by a 403", () => {
    const lines = formatError(new ClusterError("cannot write the inventory ResourceGroup app/inv: forbidden", { cause: forbidden }), false);
    expect(lines[1]).toMatch(/ask a cluster administrator/);
  });

  it("says nothing more for a run whose failures the printer reported, and keeps usage errors to one line", () => {
    expect(formatError(new ResultError("some objects failed"), false)).toEqual([]);
    expect(formatError(new UsageError("--force-conflicts only applies with --server-side"), false)).toEqual(["error: --force-conflicts only applies with --server-side"]);
  });

  it("calls anything else a bug and offers the stack with -v", () => {
    expect(formatError(new TypeError("x is undefined"), false)[1]).toMatch(/looks like a bug/);
    expect(formatError(new TypeError("x is undefined"), true)[1]).toMatch(/TypeError: x is undefined/);
  });
});

describe("apiErrorFrom: what the server's Status says, typed", () => {
  const status = (code: number, reason: string, message: string, details: object) => JSON.stringify({ kind: "Status", apiVersion: "v1", status: "Failure", code, reason, message, details });
  it.each<[string, ApiError, Partial<Record<"missingNamespace" | "namespaceTerminating" | "notFound", unknown>>]>([
    ["a create in a namespace that does not exist", apiErrorFrom(404, status(404, "NotFound", 'namespaces "app" not found', { name: "app", kind: "namespaces" }), "create"), { missingNamespace: "app", namespaceTerminating: false }],
    ["an object that does not exist is not a missing namespace", apiErrorFrom(404, status(404, "NotFound", 'configmaps "a" not found', { name: "a", kind: "configmaps" }), "get"), { missingNamespace: undefined, notFound: true }],
    [
      "a create in a namespace being deleted",
      apiErrorFrom(403, status(403, "Forbidden", 'configmaps "a" is forbidden: unable to create new content in namespace app because it is being terminated', { name: "a", kind: "configmaps", causes: [{ reason: "NamespaceTerminating", message: "namespace app is being terminated", field: "metadata.namespace" }] }), "create"),
      { namespaceTerminating: true, missingNamespace: undefined },
    ],
    ["a body that is not a Status", apiErrorFrom(404, "404 page not found", "get"), { missingNamespace: undefined, namespaceTerminating: false }],
  ])("%s", (_n, err, want) => {
    expect({ missingNamespace: err.missingNamespace, namespaceTerminating: err.namespaceTerminating, notFound: err.notFound }).toMatchObject(want);
  });
});
