// The ApplySet's pure rules (KEP-3659 as kubectl implements it): the id formula, checked against
// ids kubectl 1.32 itself wrote on the local cluster; the group-kinds hint's format; the scope a
// parent names; which parents kpt-ts may write; the `--applyset` flag; the rights a run needs.

import { describe, expect, it } from "vitest";
import { applySetFromFlag, applySetId, buildParent, coversScope, formatGroupKind, parentRefusal, parseGroupKind, scopeOf, storedScope, unionScope } from "../../src/inventory/applyset.js";
import { planApplySetInit } from "../../src/inventory/init-applyset.js";
import { planKindMigration } from "../../src/inventory/migrate-kind.js";
import { UsageError } from "../../src/model/errors.js";
import type { InventoryInfo, KubeObject } from "../../src/model/kube-object.js";
import type { PlannedApply, PlannedDelete } from "../../src/model/plan.js";
import { parsePackage } from "../../src/object/parse-package.js";
import { rightsNeeded } from "../../src/plan/plan-rights.js";

describe("the ApplySet id", () => {
  // Read from `kubectl get ... -o jsonpath='{.metadata.labels}'` after
  // `KUBECTL_APPLYSET=true kubectl apply --prune --applyset=<parent> -n i33-manual` (kubectl v1.32.4, 2026-11-27).
  it.each([
    { parent: { name: "kset", namespace: "i33-manual", kind: "ConfigMap", group: "" }, kubectl: "applyset-ibL8Ep03wmorJdwLvs1ioerlzeNex2TCak_YPQ94_lI-v1" },
    { parent: { name: "kset2", namespace: "i33-manual", kind: "Secret", group: "" }, kubectl: "applyset-6E1L3nvpkCigrifnYgqIKH0T4ydsFSrvSvp3A1lOCR0-v1" },
  ])("$parent.kind $parent.namespace/$parent.name: kubectl's value", ({ parent, kubectl }) => {
    expect(applySetId(parent)).toBe(kubectl);
  });

  it("is a valid label value (63 characters at most, alphanumeric at both ends) for any parent", () => {
    const id = applySetId({ name: "x".repeat(253), namespace: "y".repeat(63), kind: "ConfigMap", group: "" });
    expect(id).toMatch(/^applyset-[A-Za-z0-9_-]{43}-v1$/);
    expect(id.length).toBeLessThanOrEqual(63);
  });
});

describe("group-kinds (contains-group-kinds)", () => {
  it.each([
    [{ group: "", kind: "ConfigMap" }, "ConfigMap"],
    [{ group: "apps", kind: "Deployment" }, "Deployment.apps"],
    [{ group: "cert-manager.io", kind: "Certificate" }, "Certificate.cert-manager.io"],
  ])("%j is written %s and read back", (gk, text) => {
    expect(formatGroupKind(gk)).toBe(text);
    expect(parseGroupKind(text)).toEqual(gk);
  });

  it("a scope is sorted, each entry once, the parent's namespace left out", () => {
    const refs = [
      { group: "apps", kind: "Deployment", namespace: "app", name: "a" },
      { group: "", kind: "Service", namespace: "other", name: "b" },
      { group: "", kind: "ConfigMap", namespace: "app", name: "c" },
      { group: "apps", kind: "Deployment", namespace: "zeta", name: "d" },
      { group: "rbac.authorization.k8s.io", kind: "ClusterRole", namespace: "", name: "e" },
    ];
    expect(scopeOf(refs, "app")).toEqual({ groupKinds: ["ClusterRole.rbac.authorization.k8s.io", "ConfigMap", "Deployment.apps", "Service"], namespaces: ["other", "zeta"] });
  });

  it("reads a parent's annotations as kubectl writes them (an empty namespaces annotation included)", () => {
    const parent = { apiVersion: "v1", kind: "Secret", metadata: { name: "s", namespace: "app", annotations: { "applyset.kubernetes.io/contains-group-kinds": "Service,ConfigMap", "applyset.kubernetes.io/additional-namespaces": "" } } };
    expect(storedScope(parent)).toEqual({ groupKinds: ["ConfigMap", "Service"], namespaces: [] });
    expect(storedScope({ ...parent, metadata: { ...parent.metadata, annotations: { "applyset.kubernetes.io/contains-group-resources": "configmaps" } } })).toEqual({ groupKinds: [], namespaces: [], groupResources: ["configmaps"] });
  });

  it.each([
    [{ groupKinds: ["ConfigMap", "Service"], namespaces: ["b"] }, { groupKinds: ["ConfigMap"], namespaces: [] }, true],
    [{ groupKinds: ["ConfigMap"], namespaces: [] }, { groupKinds: ["ConfigMap", "Service"], namespaces: [] }, false],
    [{ groupKinds: ["ConfigMap"], namespaces: [] }, { groupKinds: ["ConfigMap"], namespaces: ["b"] }, false],
  ])("%j covers %j: %s", (outer, inner, covers) => {
    expect(coversScope(outer, inner)).toBe(covers);
    expect(coversScope(unionScope(outer, inner), inner)).toBe(true);
  });
});

const SET: InventoryInfo = applySetFromFlag("web", "app");

describe("the parent", () => {
  it("is a Secret carrying the id label and kpt-ts's annotations, as kubectl's is", () => {
    expect(buildParent(SET, { groupKinds: ["ConfigMap", "Deployment.apps"], namespaces: ["other"] }, "kpt-ts/v0.1.0")).toEqual({
      apiVersion: "v1",
      kind: "Secret",
      type: "Opaque",
      metadata: {
        name: "web",
        namespace: "app",
        labels: { "applyset.kubernetes.io/id": SET.id },
        annotations: {
          "applyset.kubernetes.io/tooling": "kpt-ts/v0.1.0",
          "applyset.kubernetes.io/contains-group-kinds": "ConfigMap,Deployment.apps",
          "applyset.kubernetes.io/additional-namespaces": "other",
        },
      },
    });
  });

  it("taken over from kubectl: its other labels and annotations stay, kubectl's older hint goes", () => {
    const current: KubeObject = {
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: "web", namespace: "app", resourceVersion: "7", labels: { "applyset.kubernetes.io/id": SET.id, team: "a" }, annotations: { "applyset.kubernetes.io/tooling": "kubectl/v1.27.0", "applyset.kubernetes.io/contains-group-resources": "configmaps", note: "x" } },
    };
    const built = buildParent(SET, { groupKinds: ["ConfigMap"], namespaces: [] }, "kpt-ts/v0.1.0", current);
    expect(built.metadata).toEqual({
      name: "web",
      namespace: "app",
      resourceVersion: "7",
      labels: { "applyset.kubernetes.io/id": SET.id, team: "a" },
      annotations: { "applyset.kubernetes.io/tooling": "kpt-ts/v0.1.0", "applyset.kubernetes.io/contains-group-kinds": "ConfigMap", note: "x" },
    });
  });

  const parent = (labels: Record<string, string>, annotations: Record<string, string>): KubeObject => ({ apiVersion: "v1", kind: "Secret", metadata: { name: "web", namespace: "app", labels, annotations } });
  const id = { "applyset.kubernetes.io/id": SET.id };
  it.each([
    ["kpt-ts's own (another version)", parent(id, { "applyset.kubernetes.io/tooling": "kpt-ts/v9.9.9" }), "strict", undefined],
    ["kubectl's, strict", parent(id, { "applyset.kubernetes.io/tooling": "kubectl/v1.32.4" }), "strict", /managed by tooling "kubectl" instead of "kpt-ts": take it over with --inventory-policy=adopt/],
    ["kubectl's, adopt", parent(id, { "applyset.kubernetes.io/tooling": "kubectl/v1.32.4" }), "adopt", undefined],
    ["a plain Secret, strict", parent({}, {}), "strict", /is not an ApplySet kpt-ts manages/],
    ["a plain Secret, force-adopt", parent({}, {}), "force-adopt", undefined],
    ["another ApplySet's id (impersonation), even force-adopt", parent({ "applyset.kubernetes.io/id": "applyset-other-v1" }, { "applyset.kubernetes.io/tooling": "kpt-ts/v0.1.0" }), "force-adopt", /not "applyset-.*" as its name, namespace and kind give: it is not this ApplySet's parent/],
  ] as const)("%s", (_, p, policy, refused) => {
    const why = parentRefusal(p, SET, policy);
    if (refused === undefined) expect(why).toBeUndefined();
    else expect(why).toMatch(refused);
  });
});

describe("--applyset [RESOURCE][.GROUP]/NAME", () => {
  it.each([
    ["web", "Secret"],
    ["secrets/web", "Secret"],
    ["secret/web", "Secret"],
    ["secrets./web", "Secret"],
    ["configmaps/web", "ConfigMap"],
    ["cm/web", "ConfigMap"],
  ])("%s: a %s parent, its id kubectl's", (flag, kind) => {
    const info = applySetFromFlag(flag, "app");
    expect(info).toMatchObject({ name: "web", namespace: "app", applySet: { kind }, origin: "flag" });
    expect(info.id).toBe(applySetId({ name: "web", namespace: "app", kind, group: "" }));
  });

  it.each([
    ["deployments.apps/web", "app", /kpt-ts keeps an ApplySet in a Secret or a ConfigMap/],
    ["secrets/", "app", /the parent's name is missing/],
    ["web", undefined, /needs --namespace/],
  ])("%s -n %s is refused", (flag, ns, message) => {
    expect(() => applySetFromFlag(flag, ns)).toThrow(UsageError);
    expect(() => applySetFromFlag(flag, ns)).toThrow(message);
  });
});

describe("applyset.yaml: live init writes it, the package reader reads it", () => {
  const files = [{ path: "cm.yaml", content: "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, namespace: app}\n" }];
  it("round-trips: the inventory read is an ApplySet with kubectl's id", () => {
    const plan = planApplySetInit(files, { name: "web", parentKind: "ConfigMap", force: false, file: "applyset.yaml" });
    if (!plan.ok) throw plan.error;
    expect(plan.namespace).toBe("app");
    const pkg = parsePackage({ path: "p", fromStdin: false, files: [...files, ...plan.writes.map((w) => ({ path: w.path, content: w.content }))] }, { requireInventory: true });
    expect(pkg.inventory).toMatchObject({ name: "web", namespace: "app", applySet: { kind: "ConfigMap" }, origin: "applyset", id: applySetId({ name: "web", namespace: "app", kind: "ConfigMap", group: "" }) });
    // Local config: never applied as an object.
    expect(pkg.objects.map((o) => o.object.kind)).toEqual(["ConfigMap"]);
  });

  it("refuses a package that has a ResourceGroup already, pointing at live migrate --to applyset", () => {
    const rg = { path: "resourcegroup.yaml", content: "apiVersion: kpt.dev/v1alpha1\nkind: ResourceGroup\nmetadata: {name: inv, namespace: app, labels: {cli-utils.sigs.k8s.io/inventory-id: x}}\n" };
    const plan = planApplySetInit([...files, rg], { name: "web", parentKind: "Secret", force: true, file: "applyset.yaml" });
    expect(plan.ok).toBe(false);
    if (!plan.ok) expect(plan.error.message).toContain('run "kpt-ts live migrate --to applyset"');
  });

  it("--applyset names the inventory of a package without one, and is refused beside the package's own", () => {
    const given = applySetFromFlag("configmaps/web", "app");
    expect(parsePackage({ path: "p", fromStdin: false, files, givenInventory: given }, { requireInventory: true }).inventory).toBe(given);
    const own = { path: "applyset.yaml", content: "apiVersion: kpt-ts.dev/v1alpha1\nkind: ApplySet\nmetadata: {name: x, namespace: app}\n" };
    expect(() => parsePackage({ path: "p", fromStdin: false, files: [...files, own], givenInventory: given }, { requireInventory: true })).toThrow(/--applyset gives the inventory, but the package has one too/);
  });
});

describe("live migrate between kinds: the package's files", () => {
  const rgText = "apiVersion: kpt.dev/v1alpha1\nkind: ResourceGroup\nmetadata:\n  name: inv\n  namespace: app\n  labels:\n    cli-utils.sigs.k8s.io/inventory-id: abc\n";
  const files = [{ path: "cm.yaml", content: "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, namespace: app}\n" }, { path: "resourcegroup.yaml", content: rgText }];
  const rgInventory = parsePackage({ path: "p", fromStdin: false, files }, { requireInventory: true }).inventory;

  it("to an ApplySet: resourcegroup.yaml goes, applyset.yaml comes, the id follows from the parent", () => {
    const plan = planKindMigration(files, rgInventory, { to: "applyset", file: "applyset.yaml", parentKind: "Secret", dir: "p" })!;
    expect(plan.removes).toEqual(["resourcegroup.yaml"]);
    expect(plan.writes.map((w) => w.path)).toEqual(["applyset.yaml"]);
    expect(plan.to).toMatchObject({ name: "inv", namespace: "app", id: applySetId({ name: "inv", namespace: "app", kind: "Secret", group: "" }), applySet: { kind: "Secret" } });
    expect(planKindMigration(files, rgInventory, { to: "resourcegroup", file: "resourcegroup.yaml", parentKind: "Secret", dir: "p" })).toBeUndefined();
  });

  it("back to a ResourceGroup: it keeps the ApplySet's id, so each object's owning-inventory annotation stays", () => {
    const setFiles = [files[0]!, { path: "applyset.yaml", content: "apiVersion: kpt-ts.dev/v1alpha1\nkind: ApplySet\nmetadata: {name: inv, namespace: app}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: b, namespace: app}\n" }];
    const inventory = parsePackage({ path: "p", fromStdin: false, files: setFiles }, { requireInventory: true }).inventory;
    const plan = planKindMigration(setFiles, inventory, { to: "resourcegroup", file: "resourcegroup.yaml", parentKind: "Secret", dir: "p" })!;
    expect(plan.to).toMatchObject({ name: "inv", namespace: "app", id: inventory.id, origin: "resourcegroup" });
    expect(plan.to.applySet).toBeUndefined();
    // The file kept its other document.
    expect(plan.removes).toEqual([]);
    expect(plan.writes.map((w) => [w.path, w.content])).toEqual([
      ["applyset.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: b, namespace: app}\n"],
      ["resourcegroup.yaml", `apiVersion: kpt.dev/v1alpha1\nkind: ResourceGroup\nmetadata:\n  name: inv\n  namespace: app\n  labels:\n    cli-utils.sigs.k8s.io/inventory-id: ${inventory.id}\n`],
    ]);
  });
});

describe("the rights a run needs (check-rights)", () => {
  const ref = (kind: string, name: string, group = "") => ({ group, kind, namespace: "app", name });
  const a = (r: ReturnType<typeof ref>, operation: PlannedApply["operation"], method: PlannedApply["method"] = "client-side", skip?: string) => ({ ref: r, operation, method, ...(skip ? { skip } : {}) }) as PlannedApply;
  const d = (r: ReturnType<typeof ref>, decision: PlannedDelete["decision"]) => ({ ref: r, decision }) as PlannedDelete;
  const parent = { ref: ref("Secret", "web"), exists: true };

  it("create for new objects (server-side: patch too), patch for updates, delete for prunes, patch to let one go; nothing for unchanged or skipped ones", () => {
    expect(
      rightsNeeded({
        applies: [a(ref("ConfigMap", "a"), "create"), a(ref("Deployment", "b", "apps"), "update"), a(ref("Service", "c"), "create", "server-side"), a(ref("Pod", "d"), "unchanged"), a(ref("Job", "e", "batch"), "create", "client-side", "policy")],
        deletes: [d(ref("ConfigMap", "x"), { action: "delete" }), d(ref("Secret", "y"), { action: "skip", reason: "keep", abandon: true }), d(ref("Role", "z", "rbac.authorization.k8s.io"), { action: "skip", reason: "policy", abandon: false })],
        parent,
      }).map((r) => `${r.verb} ${r.kind}`),
    ).toEqual(["create ConfigMap", "patch Deployment", "create Service", "patch Service", "delete ConfigMap", "patch Secret", "update Secret"]);
  });

  it("none for a run that writes nothing; the parent's for a first run or a destroy", () => {
    expect(rightsNeeded({ applies: [a(ref("ConfigMap", "a"), "unchanged")], deletes: [], parent })).toEqual([]);
    expect(rightsNeeded({ applies: [], deletes: [], parent: { ...parent, exists: false } }).map((r) => r.verb)).toEqual(["create", "update"]);
    expect(rightsNeeded({ applies: [], deletes: [], parent: { ...parent, removed: true } }).map((r) => r.verb)).toEqual(["update", "delete"]);
  });
});
