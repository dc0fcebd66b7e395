import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { afterAll, describe, expect, it } from "vitest";
import { runLiveInit } from "../../src/commands/live-init.js";
import { PackageError, UsageError, formatIssue } from "../../src/model/errors.js";
import { formatYamlString, planInit } from "../../src/inventory/init.js";
import type { InitOptions } from "../../src/inventory/init.js";

type Files = Record<string, string>;
const filesOf = (files: Files) => Object.entries(files).map(([path, content]) => ({ path, content }));
const base: InitOptions = { force: false, rgFile: "resourcegroup.yaml", contextNamespace: "ctxns", random: () => 0.5, nowNanos: () => 1n };

const cm = (name: string, ns?: string, extra = ""): string => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n${ns ? `  namespace: ${ns}\n` : ""}${extra}`;
const RG = (ns = "foo"): string =>
  `apiVersion: kpt.dev/v1alpha1\nkind: ResourceGroup\nmetadata:\n  name: inventory-1\n  namespace: ${ns}\n  labels:\n    cli-utils.sigs.k8s.io/inventory-id: abc\n`;

describe("planInit output", () => {
  it("writes resourcegroup.yaml byte for byte as kpt beta.56 does (name and id from the injected random and clock)", () => {
    // Captured from `kpt live init` on a package holding one ConfigMap in namespace foo.
    const fromKpt =
      "apiVersion: kpt.dev/v1alpha1\nkind: ResourceGroup\nmetadata:\n  name: inventory-73448051\n  namespace: foo\n  labels:\n    cli-utils.sigs.k8s.io/inventory-id: 89553a3ba4d6844e733bd9446f8dac8def39a975-1795303863774344229\n";
    const plan = planInit(filesOf({ "cm.yaml": cm("a", "foo") }), { ...base, random: () => 73448051.5 / 1e8, nowNanos: () => 1795303863774344229n });
    expect(plan).toEqual({
      ok: true,
      namespace: "foo",
      name: "inventory-73448051",
      inventoryId: "89553a3ba4d6844e733bd9446f8dac8def39a975-1795303863774344229",
      writes: [{ path: "resourcegroup.yaml", content: fromKpt, mode: 0o600 }],
    });
  });

  it("zero-pads the generated name to 8 digits and honours --name, --inventory-id and --rg-file", () => {
    const generated = planInit([], { ...base, random: () => 0.00000042 });
    expect(generated.ok && generated.name).toBe("inventory-00000042");
    const given = planInit([], { ...base, name: "my-inv", inventoryId: "fixed-id", rgFile: "inventory.yaml" });
    expect(given.ok && given.writes).toEqual([
      { path: "inventory.yaml", content: "apiVersion: kpt.dev/v1alpha1\nkind: ResourceGroup\nmetadata:\n  name: my-inv\n  namespace: ctxns\n  labels:\n    cli-utils.sigs.k8s.io/inventory-id: fixed-id\n", mode: 0o600 },
    ]);
  });
});

describe("planInit namespace (checked case by case against kpt beta.56)", () => {
  it.each<{ name: string; files: Files; expected: string; force?: boolean; namespace?: string; context?: "none" }>([
    { name: "every object in one namespace", files: { "a.yaml": cm("a", "foo"), "b.yaml": cm("b", "foo") }, expected: "foo" },
    { name: "one object without a namespace", files: { "a.yaml": cm("a", "foo"), "b.yaml": cm("b") }, expected: "ctxns" },
    { name: "two namespaces", files: { "a.yaml": cm("a", "foo"), "b.yaml": cm("b", "bar") }, expected: "ctxns" },
    { name: "cluster-scoped kinds do not count", files: { "a.yaml": `${cm("a", "foo")}---\napiVersion: v1\nkind: Namespace\nmetadata: {name: foo}\n---\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {name: r}\n` }, expected: "foo" },
    { name: "only cluster-scoped objects", files: { "a.yaml": "apiVersion: v1\nkind: Namespace\nmetadata: {name: foo}\n" }, expected: "ctxns" },
    { name: "kinds missing from kyaml's table count as namespaced", files: { "a.yaml": `${cm("a", "foo")}---\napiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicy\nmetadata: {name: p}\n` }, expected: "ctxns" },
    { name: "a listed kind under another version counts as namespaced", files: { "a.yaml": `${cm("a", "foo")}---\napiVersion: flowcontrol.apiserver.k8s.io/v1\nkind: FlowSchema\nmetadata: {name: f}\n` }, expected: "ctxns" },
    { name: "local-config objects are ignored, even with \"false\"", files: { "a.yaml": cm("a", "foo"), "b.yaml": cm("b", undefined, "  annotations:\n    config.kubernetes.io/local-config: \"false\"\n") }, expected: "foo" },
    { name: "an existing ResourceGroup counts (with --force)", files: { "a.yaml": cm("a", "foo"), "resourcegroup.yaml": RG("bar") }, force: true, expected: "ctxns" },
    { name: "a List is one object without a namespace", files: { "a.yaml": "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: a, namespace: foo}\n" }, expected: "ctxns" },
    { name: "objects in sub-directories and nested packages count", files: { "a.yaml": cm("a", "foo"), "sub/Kptfile": "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata: {name: sub}\n", "sub/b.yaml": cm("b", "bar") }, expected: "ctxns" },
    { name: "-n wins over the package", files: { "a.yaml": cm("a", "foo") }, namespace: "zz", expected: "zz" },
    { name: "no context namespace means default", files: { "a.yaml": cm("a") }, context: "none", expected: "default" },
  ])("$name → $expected", ({ files, expected, force, namespace, context }) => {
    const opts: InitOptions = { ...base, force: force ?? false, ...(namespace ? { namespace } : {}) };
    if (context === "none") delete opts.contextNamespace;
    const plan = planInit(filesOf(files), opts);
    expect(plan.ok && plan.namespace).toBe(expected);
  });
});

describe("planInit refusals", () => {
  const refusal = (files: Files, opts: Partial<InitOptions> = {}) => {
    const plan = planInit(filesOf(files), { ...base, dir: "pkg", ...opts });
    if (plan.ok) throw new Error("expected a refusal");
    return plan;
  };

  it.each<{ name: string; files: Files; opts?: Partial<InitOptions>; message: string }>([
    {
      name: "an existing resourcegroup.yaml without --force",
      files: { "a.yaml": cm("a", "foo"), "resourcegroup.yaml": RG() },
      message:
        "pkg/resourcegroup.yaml:1: ResourceGroup: Inventory information has already been added to the package ResourceGroup object. Changing it after a package has been applied to the cluster can lead to undesired results. Use the --force flag to suppress this error.",
    },
    {
      name: "a ResourceGroup in another file, even with --force",
      files: { "a.yaml": cm("a", "foo"), "inv.yaml": RG() },
      opts: { force: true },
      message:
        "pkg/inv.yaml:1: ResourceGroup: Inventory information has already been added to the package ResourceGroup object. Changing it after a package has been applied to the cluster can lead to undesired results. It is in inv.yaml, not resourcegroup.yaml: run with --rg-file inv.yaml to replace it.",
    },
    {
      name: "an inventory in the Kptfile, with the command that moves it unchanged",
      files: { Kptfile: "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: pkg\ninventory:\n  namespace: bar\n  name: inv-1\n  inventoryID: abc-123\n", "a.yaml": cm("a", "foo") },
      message:
        'pkg/Kptfile:5: Kptfile: Inventory information has already been added to the package Kptfile object. To move it into resourcegroup.yaml unchanged, run "kpt-ts live init --force --name inv-1 --namespace bar --inventory-id abc-123" (a new name or id would lose track of the objects already applied).',
    },
    {
      name: "an --rg-file that holds something else, even with --force",
      files: { "a.yaml": cm("a", "foo"), "resourcegroup.yaml": cm("not-an-rg", "foo") },
      opts: { force: true },
      message: "pkg/resourcegroup.yaml:1: resourcegroup.yaml exists and does not hold a ResourceGroup; choose another file with --rg-file",
    },
  ])("$name", ({ files, opts, message }) => {
    const plan = refusal(files, opts);
    expect(plan.namespace).toBe("foo");
    expect(plan.error).toBeInstanceOf(PackageError);
    expect((plan.error as PackageError).issues.map(formatIssue)).toEqual([message]);
  });

  it.each([
    { name: "--rg-file with a directory", opts: { rgFile: "sub/rg.yaml" }, message: 'rg-file must be a valid filename: "sub/rg.yaml" is not a bare file name (e.g. resourcegroup.yaml)' },
    { name: "an empty namespace", opts: { namespace: "  " }, message: "can not generate hash with empty namespace or name: give the inventory a namespace with --namespace" },
    { name: "a --name the API server would refuse", opts: { name: "My_Inventory" }, message: '--name "My_Inventory" is not valid: a lowercase RFC 1123 subdomain' },
    { name: "an --inventory-id that is not a label value", opts: { inventoryId: "bad id!" }, message: '--inventory-id "bad id!" is not valid: a valid label must be an empty string' },
  ])("$name is a usage error", ({ opts, message }) => {
    const plan = refusal({}, opts);
    expect(plan.error).toBeInstanceOf(UsageError);
    expect(plan.error.message).toContain(message);
  });

  it("bad YAML fails before a namespace is chosen (kpt prints no progress line) and names file and line", () => {
    // Line 1: where the unclosed "[" opens, not the end of the file where the parser noticed.
    const plan = refusal({ "a.yaml": cm("a", "foo"), "b.yaml": "a: [\n" });
    expect(plan.namespace).toBeUndefined();
    expect((plan.error as PackageError).issues.map(formatIssue)).toEqual([expect.stringMatching(/^pkg\/b\.yaml:1: invalid YAML: /)]);
  });
});

describe("planInit --force", () => {
  it("replaces an existing resourcegroup.yaml", () => {
    const plan = planInit(filesOf({ "a.yaml": cm("a", "foo"), "resourcegroup.yaml": RG("foo") }), { ...base, force: true, name: "new-inv" });
    expect(plan.ok && plan.writes.map((w) => w.path)).toEqual(["resourcegroup.yaml"]);
    expect(plan.ok && plan.writes[0]!.content).toContain("  name: new-inv\n");
  });

  it("moves a Kptfile inventory out of the Kptfile, keeping the rest of it as written", () => {
    const kptfile = [
      "# my package",
      "apiVersion: kpt.dev/v1",
      "kind: Kptfile",
      "metadata:",
      "  name: pkg",
      "info:",
      "  description: sample   # kept",
      "inventory:",
      "  namespace: bar",
      "  name: inv-1",
      "  inventoryID: abc-123",
      "  labels:",
      "    x: y",
      "pipeline:",
      "  mutators:",
      "    - image: gcr.io/kpt-fn/set-namespace:v0.4.1",
      "",
    ].join("\n");
    const plan = planInit(filesOf({ Kptfile: kptfile, "a.yaml": cm("a", "foo") }), { ...base, force: true, name: "inv-1", namespace: "bar", inventoryId: "abc-123" });
    expect(plan.ok && plan.writes.map((w) => w.path)).toEqual(["resourcegroup.yaml", "Kptfile"]);
    expect(plan.ok && plan.writes[1]!.content).toBe(
      "# my package\napiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: pkg\ninfo:\n  description: sample   # kept\npipeline:\n  mutators:\n    - image: gcr.io/kpt-fn/set-namespace:v0.4.1\n",
    );
    expect(plan.ok && plan.writes[0]!.content).toContain("  namespace: bar\n  labels:\n    cli-utils.sigs.k8s.io/inventory-id: abc-123\n");
  });
});

describe("formatYamlString quotes what yaml.v3 quotes (observed with kpt live init --inventory-id)", () => {
  it.each([
    ["0123", '"0123"'],
    ["123", '"123"'],
    ["017", '"017"'],
    ["08", '"08"'],
    ["0", '"0"'],
    ["00", '"00"'],
    ["1e3", '"1e3"'],
    ["1E3", '"1E3"'],
    ["1.5", '"1.5"'],
    ["3.0", '"3.0"'],
    ["0x1F", '"0x1F"'],
    ["0b101", '"0b101"'],
    ["0o17", '"0o17"'],
    ["1_000", '"1_000"'],
    ["2001-12-14", '"2001-12-14"'],
    ["true", '"true"'],
    ["False", '"False"'],
    ["null", '"null"'],
    ["NULL", '"NULL"'],
    ["y", '"y"'],
    ["n", '"n"'],
    ["Yes", '"Yes"'],
    ["NO", '"NO"'],
    ["on", '"on"'],
    ["off", '"off"'],
    ["123abc", "123abc"],
    ["1-2", "1-2"],
    ["12e", "12e"],
    ["1e", "1e"],
    ["1.2.3", "1.2.3"],
    ["2001-12-14t21", "2001-12-14t21"],
    ["e3", "e3"],
    ["nan", "nan"],
    ["Inf", "Inf"],
    ["a1", "a1"],
    ["inventory-12345678", "inventory-12345678"],
  ])("%s → %s", (value, expected) => {
    expect(formatYamlString(value)).toBe(expected);
  });
});

describe("runLiveInit", () => {
  const root = mkdtempSync(join(tmpdir(), "kpt-ts-init-"));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  writeFileSync(join(root, "cm.yaml"), cm("a", "foo"));
  const capture = () => {
    const stream = new PassThrough();
    let text = "";
    stream.on("data", (c: Buffer) => (text += c.toString()));
    return { stream, text: () => text };
  };
  const opts = (stderr: NodeJS.WritableStream, extra: Partial<Parameters<typeof runLiveInit>[0]> = {}) => ({
    dir: root,
    force: false,
    quiet: false,
    rgFile: "resourcegroup.yaml",
    contextNamespace: "ctxns",
    stderr,
    ...extra,
  });

  it("writes resourcegroup.yaml with mode 0600 and prints kpt's progress line to stderr", async () => {
    const err = capture();
    await runLiveInit(opts(err.stream, { name: "inv" }));
    expect(err.text()).toBe('initializing "resourcegroup.yaml" data (namespace: foo)...success\n');
    expect(statSync(join(root, "resourcegroup.yaml")).mode & 0o777).toBe(0o600);
    expect(readFileSync(join(root, "resourcegroup.yaml"), "utf8")).toMatch(/^apiVersion: kpt.dev\/v1alpha1\nkind: ResourceGroup\nmetadata:\n {2}name: inv\n {2}namespace: foo\n/);
  });

  it("a second run fails with ...failed and a PackageError, leaving the file alone", async () => {
    const before = readFileSync(join(root, "resourcegroup.yaml"), "utf8");
    const err = capture();
    await expect(runLiveInit(opts(err.stream))).rejects.toBeInstanceOf(PackageError);
    expect(err.text()).toBe('initializing "resourcegroup.yaml" data (namespace: foo)...failed\n');
    expect(readFileSync(join(root, "resourcegroup.yaml"), "utf8")).toBe(before);
  });

  it("--quiet prints nothing; --force replaces the file", async () => {
    const err = capture();
    await runLiveInit(opts(err.stream, { quiet: true, force: true, name: "replaced" }));
    expect(err.text()).toBe("");
    expect(readFileSync(join(root, "resourcegroup.yaml"), "utf8")).toContain("  name: replaced\n");
  });
});
