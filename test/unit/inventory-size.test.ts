// Issue 17: the ResourceGroup is sized before it is written. Statuses that would not fit are left
// out; a list that would not fit is refused by the planner, before anything is written; a
// "request too large" answer is never retried and never called an overloaded server.
import { describe, expect, it } from "vitest";
import { ApiError, apiErrorFrom } from "../../src/cluster/api-error.js";
import { retryDelayMs } from "../../src/cluster/retry-policy.js";
import { PackageError } from "../../src/model/errors.js";
import { INVENTORY_BYTE_BUDGET, inventoryBytes, inventoryFit, objectsThatFit } from "../../src/inventory/inventory-size.js";
import { buildResourceGroup, buildResourceGroupStatus, type ResourceStatusEntry } from "../../src/inventory/resource-group.js";
import type { ObjRef } from "../../src/model/ref.js";
import type { InventoryInfo, KubeObject } from "../../src/model/kube-object.js";
import type { ApplyFacts } from "../../src/plan/facts.js";
import { planApply } from "../../src/plan/plan-apply.js";
import { apiErrorHint } from "../../src/print/error-report.js";
import { printRun } from "../../src/print/printer.js";
import { applyFirst, captureStream, streamOf } from "./print-scenarios.js";

const INFO: InventoryInfo = { name: "inv", namespace: "app", id: "inv-1", labels: {}, annotations: {}, origin: "resourcegroup", source: { file: "resourcegroup.yaml", line: 1 } };
const longName = (i: number) => `${"x".repeat(240)}-${String(i).padStart(6, "0")}`;
const refs = (n: number): ObjRef[] => Array.from({ length: n }, (_, i) => ({ group: "", kind: "ConfigMap", namespace: "app", name: longName(i) }));
const statuses = (rs: ObjRef[]): ResourceStatusEntry[] => rs.map((ref) => ({ ref, strategy: "Apply", actuation: "Succeeded", reconcile: "Succeeded" }));

describe("inventory size", () => {
  it("measures the ResourceGroup as it will be sent", () => {
    const rs = refs(3);
    expect(inventoryBytes(INFO, rs)).toBe(Buffer.byteLength(JSON.stringify(buildResourceGroup(INFO, rs))));
    expect(inventoryBytes(INFO, rs, statuses(rs))).toBe(Buffer.byteLength(JSON.stringify(buildResourceGroupStatus(buildResourceGroup(INFO, rs), statuses(rs)))));
  });

  it("counts exactly how many objects fit, with and without statuses", () => {
    const budget = 20_000;
    const rs = refs(200);
    const fit = objectsThatFit(INFO, rs, undefined, budget);
    expect(fit.withStatuses).toBeLessThan(fit.listOnly);
    expect(inventoryBytes(INFO, rs.slice(0, fit.listOnly))).toBeLessThanOrEqual(budget);
    expect(inventoryBytes(INFO, rs.slice(0, fit.listOnly + 1))).toBeGreaterThan(budget);
    const k = fit.withStatuses;
    expect(inventoryBytes(INFO, rs.slice(0, k), statuses(rs.slice(0, k)))).toBeLessThanOrEqual(budget);
    expect(inventoryBytes(INFO, rs.slice(0, k + 1), statuses(rs.slice(0, k + 1)))).toBeGreaterThan(budget);
  });

  it.each<[string, number, "all" | "list-only" | "none"]>([
    ["a small package fits with its statuses", 100, "all"],
    ["2,600 long-named objects fit only without statuses", 2_600, "list-only"],
    ["6,000 long-named objects do not fit at all", 6_000, "none"],
  ])("%s", (_name, n, want) => {
    const rs = refs(n);
    expect(inventoryFit(INFO, rs, statuses(rs))).toBe(want);
  });

  it("10,000 objects with short names (as the benchmark's) fit without statuses, not with them", () => {
    const rs = Array.from({ length: 10_000 }, (_, i) => ({ group: "", kind: "ConfigMap", namespace: "bench-ns", name: `cm-${i}` }));
    expect(inventoryFit(INFO, rs, statuses(rs))).toBe("list-only");
    expect(INVENTORY_BYTE_BUDGET).toBeLessThan(1.5 * 1024 * 1024);
  });
});

describe("the planner refuses an inventory whose list cannot be stored", () => {
  const facts = (n: number): ApplyFacts => ({
    inventory: { info: INFO, crdInstalled: true, previous: [] },
    objects: refs(n).map((r, i) => ({ object: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: r.name, namespace: "app" }, data: { k: "v" } } as KubeObject, source: { file: `f.yaml`, line: i + 1 }, lineOf: () => i + 1 })),
    live: new Map(),
    unreadable: new Map(),
    schemas: new Map(),
  });
  const opts = { dryRun: false, serverSide: false, fieldManager: "kubectl", inventoryPolicy: "strict" as const, installResourceGroup: false };

  it("plans a package whose list fits", () => {
    expect(planApply(facts(2_600), opts).applies).toHaveLength(2_600);
  });

  it("refuses one whose list does not, saying how many objects fit and what to do", () => {
    let err: unknown;
    try {
      planApply(facts(6_000), opts);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(PackageError);
    const fit = objectsThatFit(INFO, refs(6_000));
    const msg = (err as Error).message;
    expect(msg).toContain("ResourceGroup app/inv: the inventory would list 6,000 objects");
    expect(msg).toContain(`at most ${fit.listOnly.toLocaleString("en-US")} objects like these fit in one inventory`);
    // The way out first: an ApplySet lists nothing, so it has no ceiling.
    expect(msg).toContain("Use an ApplySet inventory, which lists nothing and has no such ceiling: `kpt-ts live migrate --to applyset` moves this package's inventory to one");
    expect(msg).toMatch(/split the package .*--status-policy=none/);
  });
});

describe("a request too large", () => {
  const etcd = apiErrorFrom(500, JSON.stringify({ kind: "Status", status: "Failure", message: "etcdserver: request is too large", reason: "InternalError", code: 500 }), "PUT");
  const http413 = apiErrorFrom(413, '{"kind":"Status","message":"Request entity too large: limit is 3145728","code":413}', "PUT");

  it.each([["etcd's answer, relayed as a 500", etcd], ["the API server's 413", http413]])("%s is recognised, never retried, and not called an overloaded server", (_n, err) => {
    expect(err).toBeInstanceOf(ApiError);
    expect(err.tooLarge).toBe(true);
    expect(retryDelayMs({ kind: "http", status: err.status, tooLarge: err.tooLarge }, 1, true)).toBeUndefined();
    expect(apiErrorHint(err)).toMatch(/larger than the API server .* stores in one object/);
    expect(apiErrorHint(err)).not.toMatch(/overloaded/);
  });

  it("an ordinary 500 is still retried and still called a failing server", () => {
    const err = apiErrorFrom(500, '{"kind":"Status","message":"Internal error occurred: something broke","code":500}', "PUT");
    expect(err.tooLarge).toBe(false);
    expect(retryDelayMs({ kind: "http", status: 500, tooLarge: false }, 1, true)).toBeGreaterThan(0);
    expect(apiErrorHint(err)).toMatch(/overloaded/);
  });
});

describe("the warning, as each printer shows it", () => {
  it.each(["events", "table", "json"] as const)("--output %s: once, as a [WARN] line on stderr, never on stdout", async (output) => {
    const events = [...(await applyFirst())];
    const at = events.findIndex((e) => e.type === "summary");
    events.splice(at, 0, { type: "warning", message: "statuses left out" });
    const out = captureStream();
    const err = captureStream();
    await printRun(streamOf(events), { output, stdout: out.stream, stderr: err.stream, color: false, tty: false, showStatusEvents: false });
    expect(err.text().split("\n").filter((l) => l.includes("statuses left out"))).toEqual(["[WARN] statuses left out"]);
    expect(out.text()).not.toContain("statuses left out");
  });
});
