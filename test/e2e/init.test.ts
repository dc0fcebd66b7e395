// Issue 3: `kpt-ts live init` writes what the real `kpt live init` writes (up to the generated
// name and id), refuses what kpt refuses, and the real `kpt live apply` accepts its packages.
import { createHash } from "node:crypto";
import { readFile, readdir, stat, writeFile } from "node:fs/promises";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { writePackage } from "../helpers/fixtures.js";
import { hasBinary, kpt, kptTs, kubectl, type RunResult } from "../helpers/run.js";
import {
  clusterInventory,
  configMap,
  deployment,
  docs,
  getObject,
  inventoryRefs,
  kubeconfigWithNamespace,
  namespaceObject,
  printed,
  readInventoryFile,
  ref,
  uniqueName,
} from "../helpers/scenario.js";

const haveKpt = hasBinary("kpt");
if (!haveKpt) console.warn("skipping the `live init` comparison with the real kpt: `kpt` is not on PATH");

type Files = Record<string, string>;

/** Every file under a directory: relative path -> content and permission bits. */
async function readTree(dir: string): Promise<Record<string, { content: string; mode: string }>> {
  const out: Record<string, { content: string; mode: string }> = {};
  const walk = async (d: string): Promise<void> => {
    for (const e of await readdir(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) await walk(p);
      else out[relative(dir, p)] = { content: await readFile(p, "utf8"), mode: ((await stat(p)).mode & 0o777).toString(8) };
    }
  };
  await walk(dir);
  return out;
}

/**
 * The tree after init with the generated name and id replaced by placeholders, after checking
 * the id is kpt's: sha1("<namespace>:<name>") and the time in nanoseconds.
 */
async function normalizedTree(dir: string, rgFile: string, generated: { name: boolean; id: boolean }): Promise<Record<string, { content: string; mode: string }>> {
  const inv = await readInventoryFile(dir, rgFile);
  if (generated.name) expect(inv.name).toMatch(/^inventory-\d{8}$/);
  if (generated.id) {
    const sha = createHash("sha1").update(`${inv.namespace}:${inv.name}`).digest("hex");
    expect(inv.id).toMatch(new RegExp(`^${sha}-\\d{19}$`));
  }
  const tree = await readTree(dir);
  for (const f of Object.values(tree)) {
    if (generated.id) f.content = f.content.split(inv.id).join("<ID>");
    if (generated.name) f.content = f.content.split(inv.name).join("<NAME>");
  }
  return tree;
}

interface InitCase {
  name: string;
  files: Files;
  args?: string[];
  /** The namespace of the kubeconfig context. */
  contextNamespace?: string;
  /** The namespace both must choose (checked on kpt's file, so a wrong expectation here shows up too). */
  namespace: string;
  /**
   * kpt round-trips resource files through kyaml: it drops a comment before the first `---` and
   * empty documents and empty mappings, and re-indents to two spaces. kpt-ts leaves resource files alone, so in these
   * cases only the inventory file and the Kptfile are compared.
   */
  kptRewritesFiles?: boolean;
}

const CR = (ns?: string) => `apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\n${ns ? `  namespace: ${ns}\n` : ""}spec:\n  size: 1\n`;
const fnConfig = (local: string) => configMap("fn-config", undefined, { k: "v" }, { annotations: { "config.kubernetes.io/local-config": local } });
const kptfile = (extra = "") => `apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: pkg\ninfo:\n  description: a package\n${extra}`;
const KPTFILE_INVENTORY = "inventory:\n  namespace: foo\n  name: old-inventory\n  inventoryID: old-id\n";

const CASES: InitCase[] = [
  { name: "every object in one namespace: that namespace", files: { "a.yaml": configMap("a", "foo"), "b.yaml": configMap("b", "foo") }, namespace: "foo" },
  { name: "objects without a namespace: the context's", files: { "a.yaml": configMap("a", undefined) }, contextNamespace: "ctxns", namespace: "ctxns" },
  { name: "objects without a namespace, context without one: default", files: { "a.yaml": configMap("a", undefined) }, namespace: "default" },
  { name: "two namespaces: the context's", files: { "a.yaml": configMap("a", "foo"), "b.yaml": configMap("b", "bar") }, contextNamespace: "ctxns", namespace: "ctxns" },
  {
    name: "cluster-scoped kinds (Namespace, CRD, ClusterRole) do not count",
    files: {
      "all.yaml": docs(
        namespaceObject("foo"),
        configMap("a", "foo"),
        "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: reader\nrules: []\n",
        "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: widgets.example.com\nspec: {}\n",
      ),
    },
    contextNamespace: "ctxns",
    namespace: "foo",
  },
  { name: "only cluster-scoped objects: the context's", files: { "ns.yaml": namespaceObject("foo") }, contextNamespace: "ctxns", namespace: "ctxns" },
  { name: "a custom resource without a namespace counts as namespaced", files: { "a.yaml": configMap("a", "foo"), "w.yaml": CR() }, contextNamespace: "ctxns", namespace: "ctxns" },
  { name: "a custom resource in the shared namespace", files: { "a.yaml": configMap("a", "foo"), "w.yaml": CR("foo") }, contextNamespace: "ctxns", namespace: "foo" },
  { name: "local-config objects are left out", files: { "a.yaml": configMap("a", "foo"), "fn.yaml": fnConfig("true") }, contextNamespace: "ctxns", namespace: "foo" },
  { name: "local-config \"false\" is left out too", files: { "a.yaml": configMap("a", "foo"), "fn.yaml": fnConfig("false") }, contextNamespace: "ctxns", namespace: "foo" },
  {
    name: "a List of objects in one namespace",
    files: { "list.yaml": `apiVersion: v1\nkind: List\nmetadata: {}\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: a\n    namespace: foo\n` },
    contextNamespace: "ctxns",
    namespace: "ctxns",
    // kpt also drops the empty `metadata: {}` of the List when it rewrites the file.
    kptRewritesFiles: true,
  },
  { name: "objects in subdirectories count", files: { "a.yaml": configMap("a", "foo"), "sub/b.yaml": configMap("b", "bar") }, contextNamespace: "ctxns", namespace: "ctxns" },
  { name: "a subdirectory in the same namespace", files: { "a.yaml": configMap("a", "foo"), "sub/deeper/b.yml": configMap("b", "foo") }, contextNamespace: "ctxns", namespace: "foo" },
  {
    name: "a multi-document file with comments and an empty document",
    files: { "a.yaml": `# leading comment\n---\n${configMap("a", "foo")}---\n---\n${configMap("b", "foo")}` },
    namespace: "foo",
    kptRewritesFiles: true,
  },
  {
    name: "four-space indentation",
    files: { "a.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n    name: a\n    namespace: foo\ndata:\n    x: y\n" },
    namespace: "foo",
    kptRewritesFiles: true,
  },
  { name: "--name", files: { "a.yaml": configMap("a", "foo") }, args: ["--name", "my-inventory"], namespace: "foo" },
  { name: "--namespace overrides the package's namespace", files: { "a.yaml": configMap("a", "foo") }, args: ["--namespace", "other"], namespace: "other" },
  { name: "--name and --inventory-id: byte for byte", files: { "a.yaml": configMap("a", "foo") }, args: ["--name", "inv", "--inventory-id", "fixed-id-1"], namespace: "foo" },
  { name: "--rg-file", files: { "a.yaml": configMap("a", "foo") }, args: ["--rg-file", "inventory.yaml"], namespace: "foo" },
  { name: "a Kptfile without inventory is left alone", files: { Kptfile: kptfile(), "a.yaml": configMap("a", "foo") }, namespace: "foo" },
  {
    name: "--force moves a Kptfile inventory into resourcegroup.yaml",
    files: { Kptfile: kptfile(KPTFILE_INVENTORY), "a.yaml": configMap("a", "bar") },
    args: ["--force"],
    namespace: "bar",
  },
  { name: "--quiet", files: { "a.yaml": configMap("a", "foo") }, args: ["--quiet"], namespace: "foo" },
];

async function initBoth(files: Files, args: string[], env: Record<string, string>): Promise<{ a: string; b: string; real: RunResult; ours: RunResult }> {
  const a = await writePackage(files);
  const b = await writePackage(files);
  const real = await kpt(["live", "init", ...args, a], { env });
  const ours = await kptTs(["live", "init", ...args, b], { env });
  return { a, b, real, ours };
}

describe.skipIf(!haveKpt)("kpt-ts live init writes what the real kpt live init writes", () => {
  it.each(CASES)("$name", async (c) => {
    const args = c.args ?? [];
    const env: Record<string, string> = c.contextNamespace ? { KUBECONFIG: await kubeconfigWithNamespace(c.contextNamespace) } : {};
    const { a, b, real, ours } = await initBoth(c.files, args, env);
    expect(real.code, printed(real)).toBe(0);
    expect(ours.code, printed(ours)).toBe(0);
    // kpt's progress line on stderr, or nothing with --quiet.
    expect(ours.stderr).toBe(real.stderr);
    expect(ours.stdout).toBe(real.stdout);
    if (args.includes("--quiet")) expect(ours.stderr).toBe("");
    else expect(ours.stderr).toContain(`data (namespace: ${c.namespace})...success`);

    const rgFile = args.includes("--rg-file") ? args[args.indexOf("--rg-file") + 1]! : "resourcegroup.yaml";
    const generated = { name: !args.includes("--name"), id: !args.includes("--inventory-id") };
    expect((await readInventoryFile(a, rgFile)).namespace).toBe(c.namespace);
    const theirs = await normalizedTree(a, rgFile, generated);
    const mine = await normalizedTree(b, rgFile, generated);
    // kpt-ts never touches the package's resource files; the Kptfile only when --force moves an inventory out of it.
    for (const [path, content] of Object.entries(c.files)) {
      if (path !== "Kptfile") expect(mine[path]?.content, path).toBe(content);
    }
    if (c.kptRewritesFiles) {
      const keep = (t: typeof mine) => Object.fromEntries(Object.entries(t).filter(([p]) => p === rgFile || p === "Kptfile"));
      expect(keep(mine)).toEqual(keep(theirs));
    } else {
      expect(mine).toEqual(theirs);
    }
  });

  it("refuses to overwrite an existing ResourceGroup without --force, as kpt, and leaves it unchanged", async () => {
    const { a, b, real, ours } = await initBoth({ "a.yaml": configMap("a", "foo") }, [], {});
    expect(real.code).toBe(0);
    expect(ours.code).toBe(0);
    const before = await readFile(join(b, "resourcegroup.yaml"), "utf8");
    const realAgain = await kpt(["live", "init", a]);
    const oursAgain = await kptTs(["live", "init", b]);
    expect(realAgain.code).not.toBe(0);
    expect(oursAgain.code, printed(oursAgain)).not.toBe(0);
    expect(oursAgain.stderr).toContain("Inventory information has already been added to the package ResourceGroup object");
    expect(oursAgain.stderr).toContain("--force");
    expect(await readFile(join(b, "resourcegroup.yaml"), "utf8")).toBe(before);

    // With --force both write a new inventory.
    const oursForced = await kptTs(["live", "init", "--force", b]);
    expect(oursForced.code, printed(oursForced)).toBe(0);
    expect(await readFile(join(b, "resourcegroup.yaml"), "utf8")).not.toBe(before);
    const realForced = await kpt(["live", "init", "--force", a]);
    expect(realForced.code).toBe(0);
    expect(await normalizedTree(b, "resourcegroup.yaml", { name: true, id: true })).toEqual(await normalizedTree(a, "resourcegroup.yaml", { name: true, id: true }));
  });

  it("refuses a package whose Kptfile already has an inventory without --force, as kpt, and writes nothing", async () => {
    const files = { Kptfile: kptfile(KPTFILE_INVENTORY), "a.yaml": configMap("a", "foo") };
    const { a, b, real, ours } = await initBoth(files, [], {});
    expect(real.code).not.toBe(0);
    expect(ours.code, printed(ours)).not.toBe(0);
    expect(ours.stderr).toContain("Inventory information has already been added to the package Kptfile object");
    expect(Object.keys(await readTree(b)).sort()).toEqual(["Kptfile", "a.yaml"]);
    expect(await readTree(b)).toEqual(await readTree(a));
  });
});

describe.skipIf(!haveKpt)("the real kpt live apply accepts a package initialised by kpt-ts", () => {
  it("applies it, creating the inventory kpt-ts named, and prunes with it on the next apply", async () => {
    const ns = uniqueName("e2e-init-kpt");
    // The inventory's own namespace is part of the package, as in kpt's examples.
    const dir = await writePackage({
      "ns.yaml": namespaceObject(ns),
      "cm.yaml": configMap("settings", ns, { mode: "fast" }),
      "deploy.yaml": deployment("web", ns),
    });
    const init = await kptTs(["live", "init", dir]);
    expect(init.code, printed(init)).toBe(0);
    const inv = await readInventoryFile(dir);
    expect(inv.namespace).toBe(ns);

    const apply = await kpt(["live", "apply", "--reconcile-timeout=2m", dir]);
    expect(apply.code, printed(apply)).toBe(0);
    expect(apply.stdout).toContain("apply result: 3 attempted, 3 successful, 0 skipped, 0 failed");
    const rg = await clusterInventory(dir);
    expect(rg?.metadata.labels?.["cli-utils.sigs.k8s.io/inventory-id"]).toBe(inv.id);
    expect(inventoryRefs(rg)).toEqual([ref("", "ConfigMap", ns, "settings"), ref("", "Namespace", "", ns), ref("apps", "Deployment", ns, "web")].sort());
    expect((await getObject("configmap", "settings", ns))?.metadata.annotations?.["config.k8s.io/owning-inventory"]).toBe(inv.id);

    // kpt uses that inventory to prune.
    await writeFile(join(dir, "cm.yaml"), configMap("settings-2", ns, { mode: "fast" }));
    const again = await kpt(["live", "apply", "--reconcile-timeout=2m", dir]);
    expect(again.code, printed(again)).toBe(0);
    expect(again.stdout).toContain("configmap/settings prune successful");
    expect(await getObject("configmap", "settings", ns)).toBeUndefined();
    const destroy = await kpt(["live", "destroy", dir]);
    expect(destroy.code, printed(destroy)).toBe(0);
  });

  it("applies a package whose inventory kpt-ts moved out of the Kptfile with --force", async () => {
    const ns = uniqueName("e2e-init-kf");
    const dir = await writePackage({ Kptfile: kptfile(KPTFILE_INVENTORY), "cm.yaml": configMap("c", ns) });
    const init = await kptTs(["live", "init", "--force", dir]);
    expect(init.code, printed(init)).toBe(0);
    expect(await readFile(join(dir, "Kptfile"), "utf8")).not.toContain("inventory:");
    await kubectl(["create", "namespace", ns]);
    const apply = await kpt(["live", "apply", dir]);
    expect(apply.code, printed(apply)).toBe(0);
    expect(apply.stdout).toContain("apply result: 1 attempted, 1 successful, 0 skipped, 0 failed");
    expect(inventoryRefs(await clusterInventory(dir))).toEqual([ref("", "ConfigMap", ns, "c")]);
  });
});
