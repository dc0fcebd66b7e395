// The bad-input corpus at the library level: every broken package is refused with the right
// error class, by the stage that should catch it, with an issue naming file, line and object.
// (The same corpus runs end to end, against the cluster, in test/e2e/bad-input.test.ts.)
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { graphIssuesError } from "../../src/order/graph-issues.js";
import { orderWaves } from "../../src/order/graph.js";
import { prepareObjects } from "../../src/plan/prepare-objects.js";
import { refuseMissingNamespaces } from "../../src/plan/check-namespaces.js";
import type { Cluster, Scope } from "../../src/cluster/types.js";
import { PackageError, UsageError, formatIssue } from "../../src/model/errors.js";
import { readPackage } from "../../src/object/read-package.js";
import { refOf } from "../../src/model/ref.js";
import type { Package } from "../../src/model/kube-object.js";
import { BAD_INPUT_CASES, expectedPrefix, writeBadInputCase, type BadInputCase } from "../corpus/bad-input.js";

const NS = "corpus-ns";

/** What discovery says on a plain cluster: built-in kinds only. */
const SCOPES: Record<string, Scope> = {
  "/ConfigMap": "Namespaced",
  "/Secret": "Namespaced",
  "/Service": "Namespaced",
  "/Namespace": "Cluster",
  "apps/Deployment": "Namespaced",
  "batch/Job": "Namespaced",
  "rbac.authorization.k8s.io/ClusterRole": "Cluster",
  "rbac.authorization.k8s.io/Role": "Namespaced",
  "apiextensions.k8s.io/CustomResourceDefinition": "Cluster",
};

/** Only discovery and the namespaces are needed before the first write; anything else would be a write (or a read) too early. */
function discoveryOnly(c: BadInputCase): Cluster {
  const enforced = c.args?.(NS).includes("-n") ?? false;
  const refuse = (): never => {
    throw new Error("the cluster was used beyond discovery before the input was checked");
  };
  return {
    defaultNamespace: NS,
    namespaceEnforced: enforced,
    server: "https://fake",
    scopeOf: async (group, kind) => SCOPES[`${group}/${kind}`],
    serves: async () => refuse(),
    resetDiscovery: () => undefined,
    // Whether a namespace exists: the one read allowed before the checks are done (only NS does).
    get: async (ref) => (ref.kind === "Namespace" && ref.group === "" ? (ref.name === NS ? { apiVersion: "v1", kind: "Namespace", metadata: { name: NS } } : undefined) : refuse()),
    list: refuse,
    create: refuse,
    patch: refuse,
    apply: refuse,
    update: refuse,
    updateStatus: refuse,
    delete: refuse,
    watch: refuse,
    openapi: refuse,
    close: () => undefined,
  };
}

/** The checks `live apply` makes before its first write, in its order. */
async function checkBeforeWriting(pkg: Package, cluster: Cluster): Promise<void> {
  const prepared = await prepareObjects(pkg, cluster, pkg.inventory);
  await refuseMissingNamespaces(prepared, pkg.inventory, cluster, { found: new Set() });
  const ordered = orderWaves(prepared.map((po) => ({ ref: refOf(po.object), object: po.object })));
  if (ordered.issues.length) throw graphIssuesError(ordered.issues, prepared);
}

const roots: string[] = [];
afterAll(async () => {
  for (const r of roots) await rm(r, { recursive: true, force: true });
});

async function caught(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (err) {
    return err;
  }
  throw new Error("expected an error, the input was accepted");
}

describe("the bad-input corpus", () => {
  it("has at least 40 cases with unique ids", () => {
    expect(BAD_INPUT_CASES.length).toBeGreaterThanOrEqual(40);
    expect(new Set(BAD_INPUT_CASES.map((c) => c.id)).size).toBe(BAD_INPUT_CASES.length);
  });

  it.each(BAD_INPUT_CASES.map((c) => [`${c.id}: ${c.what}`, c] as const))("%s", async (_, c) => {
    const parent = await mkdtemp(join(tmpdir(), "kpt-ts-corpus-"));
    roots.push(parent);
    const { dir, path } = await writeBadInputCase(c, parent, NS);
    const stdin = c.stdin?.(NS);
    const read = readPackage(path, stdin === undefined ? {} : { stdin });
    let err: unknown;
    if (c.stage === "read") err = await caught(read);
    else {
      // Reading alone accepts it: only the cluster's answer (or the graph) shows the problem.
      const pkg = await read;
      err = await caught(checkBeforeWriting(pkg, discoveryOnly(c)));
    }
    expect(err).toBeInstanceOf(c.error === "UsageError" ? UsageError : PackageError);
    if (err instanceof PackageError) {
      const issues = err.issues.map(formatIssue);
      const prefix = expectedPrefix(c, dir);
      const hit = issues.find((i) => i.startsWith(prefix) && c.expect.message.test(i));
      expect(hit, `no issue starting with ${JSON.stringify(prefix)} and matching ${c.expect.message}; got:\n${issues.join("\n")}`).toBeDefined();
    } else {
      expect((err as Error).message).toMatch(c.expect.message);
    }
  });
});
