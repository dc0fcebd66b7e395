// live migrate's plan: what moves where, decided from the package's files alone.

import { describe, expect, it } from "vitest";
import { PackageError, UsageError } from "../../src/model/errors.js";
import { configMapInventoryRefs, parseInventoryKey, planMigrate } from "../../src/inventory/migrate.js";

const KPTFILE_INV = `apiVersion: kpt.dev/v1
kind: Kptfile
metadata:
  name: pkg
# the inventory older kpt live init wrote
inventory:
  namespace: app
  name: inventory-12345678
  inventoryID: 0123abcd-1700000000000000000
info:
  description: sample
`;
const CM_TEMPLATE = `apiVersion: v1
kind: ConfigMap
metadata:
  name: inventory-87654321
  namespace: app
  labels:
    cli-utils.sigs.k8s.io/inventory-id: cm-id-1
`;
const DEPLOY = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  namespace: app\n";
const files = (f: Record<string, string>) => Object.entries(f).map(([path, content]) => ({ path, content }));
const opts = { rgFile: "resourcegroup.yaml", force: false, dir: "pkg" };

describe("planMigrate", () => {
  it("a Kptfile inventory moves to resourcegroup.yaml unchanged; the Kptfile keeps everything else", () => {
    const plan = planMigrate(files({ Kptfile: KPTFILE_INV, "deploy.yaml": DEPLOY }), opts);
    expect(plan.from).toBe("kptfile");
    if (plan.from !== "kptfile") return;
    expect(plan.inventory).toEqual({ name: "inventory-12345678", namespace: "app", id: "0123abcd-1700000000000000000" });
    const rg = plan.writes.find((w) => w.path === "resourcegroup.yaml")!;
    expect(rg.content).toBe(
      "apiVersion: kpt.dev/v1alpha1\nkind: ResourceGroup\nmetadata:\n  name: inventory-12345678\n  namespace: app\n  labels:\n    cli-utils.sigs.k8s.io/inventory-id: 0123abcd-1700000000000000000\n",
    );
    const kf = plan.writes.find((w) => w.path === "Kptfile")!;
    expect(kf.content).not.toMatch(/^inventory:|inventoryID/m);
    expect(kf.content).toContain("info:\n  description: sample");
  });

  it("a ConfigMap template becomes a ResourceGroup with its name, namespace and id; the template's file goes", () => {
    const plan = planMigrate(files({ "inventory-template.yaml": CM_TEMPLATE, "deploy.yaml": DEPLOY }), opts);
    expect(plan).toMatchObject({ from: "configmap", inventory: { name: "inventory-87654321", namespace: "app", id: "cm-id-1" }, configMap: { name: "inventory-87654321", namespace: "app" }, template: { path: "inventory-template.yaml" } });
    if (plan.from === "configmap") expect(plan.template.content).toBeUndefined();
  });

  it("a template sharing its file with other objects: only the template is cut out", () => {
    const plan = planMigrate(files({ "all.yaml": `${DEPLOY}---\n${CM_TEMPLATE}---\n# keep me\n${DEPLOY.replace("web", "api")}` }), { ...opts, name: "rg", namespace: "other" });
    expect(plan.from).toBe("configmap");
    if (plan.from !== "configmap") return;
    expect(plan.inventory).toEqual({ name: "rg", namespace: "other", id: "cm-id-1" });
    expect(plan.template.content).toBe(`${DEPLOY}---\n# keep me\n${DEPLOY.replace("web", "api")}`);
  });

  it("a ResourceGroup package needs nothing", () => {
    const rg = "apiVersion: kpt.dev/v1alpha1\nkind: ResourceGroup\nmetadata:\n  name: a\n  namespace: app\n  labels:\n    cli-utils.sigs.k8s.io/inventory-id: x\n";
    expect(planMigrate(files({ "resourcegroup.yaml": rg, Kptfile: "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: p\n" }), opts)).toEqual({ from: "none" });
  });

  it("refuses: an existing ResourceGroup file (Kptfile inventory), a renamed Kptfile inventory, two templates", () => {
    expect(() => planMigrate(files({ Kptfile: KPTFILE_INV, "resourcegroup.yaml": "" }), opts)).toThrow(/the resourcegroup file already exists/);
    expect(() => planMigrate(files({ Kptfile: KPTFILE_INV }), { ...opts, name: "other" })).toThrow(UsageError);
    expect(() => planMigrate(files({ Kptfile: KPTFILE_INV }), { ...opts, namespace: "elsewhere" })).toThrow(/lives in namespace app/);
    expect(planMigrate(files({ Kptfile: KPTFILE_INV }), { ...opts, name: "inventory-12345678", namespace: "app" }).from).toBe("kptfile");
    expect(() => planMigrate(files({ "a.yaml": CM_TEMPLATE, "b.yaml": CM_TEMPLATE }), opts)).toThrow(PackageError);
    const second = (() => {
      try {
        planMigrate(files({ "a.yaml": `${DEPLOY}---\n${CM_TEMPLATE}---\n${CM_TEMPLATE.replace("87654321", "2")}` }), opts);
      } catch (err) {
        return (err as PackageError).issues[0];
      }
    })();
    expect(second).toMatchObject({ source: { file: "pkg/a.yaml", line: 15 }, object: "ConfigMap/inventory-2" });
  });
});

describe("ConfigMap inventory keys", () => {
  it.each([
    ["app_web_apps_Deployment", { namespace: "app", name: "web", group: "apps", kind: "Deployment" }],
    ["_app__Namespace", { namespace: "", name: "app", group: "", kind: "Namespace" }],
    ["_system__controller__manager_rbac.authorization.k8s.io_ClusterRole", { namespace: "", name: "system:controller:manager", group: "rbac.authorization.k8s.io", kind: "ClusterRole" }],
  ])("%s", (key, ref) => expect(parseInventoryKey(key)).toEqual(ref));

  it("keys that name no object are reported, not dropped", () => {
    expect(configMapInventoryRefs({ "app_web_apps_Deployment": "", junk: "" })).toEqual({ refs: [{ namespace: "app", name: "web", group: "apps", kind: "Deployment" }], bad: ["junk"] });
  });
});
