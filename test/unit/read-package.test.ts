import { mkdtempSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { PackageError, UsageError, formatIssue } from "../../src/model/errors.js";
import { compileKrmIgnore } from "../../src/object/krmignore.js";
import { analyzePackage, parsePackage } from "../../src/object/parse-package.js";
import { readPackage, readPackageFiles } from "../../src/object/read-package.js";

const RG = `apiVersion: kpt.dev/v1alpha1
kind: ResourceGroup
metadata:
  name: inventory-1
  namespace: ns
  labels:
    cli-utils.sigs.k8s.io/inventory-id: abc-123
`;

const deployment = (name: string, extra = ""): string => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: ${name}
  namespace: ns${extra}
spec:
  replicas: 1
`;

const cm = (name: string, ns = "ns"): string => `apiVersion: v1
kind: ConfigMap
metadata:
  name: ${name}
  namespace: ${ns}
`;

interface Case {
  name: string;
  files: Record<string, string>;
  stdin?: boolean;
  requireInventory?: boolean;
  /** `Kind/name@file:line` of every object, in order. */
  objects?: string[];
  /** Every issue, rendered `file:line: object: message`, in order (substring or pattern). */
  issues?: (string | RegExp)[];
  inventory?: { name: string; namespace: string; id: string; origin: "resourcegroup" | "kptfile" };
  warnings?: (string | RegExp)[];
}

function analyze(c: Case) {
  const files = Object.entries(c.files).map(([path, content]) => ({ path, content }));
  return analyzePackage({ path: c.stdin ? "-" : "pkg", files, fromStdin: c.stdin ?? false }, { requireInventory: c.requireInventory ?? true });
}

const matching = (list: (string | RegExp)[]) => list.map((e) => (typeof e === "string" ? expect.stringContaining(e) : expect.stringMatching(e)));

const cases: Case[] = [
  {
    name: "a good package: objects in file order with their lines, the ResourceGroup as inventory",
    files: { "deployment.yaml": deployment("wordpress"), "resourcegroup.yaml": RG, "z.yaml": cm("config") },
    objects: ["Deployment/wordpress@pkg/deployment.yaml:1", "ConfigMap/config@pkg/z.yaml:1"],
    issues: [],
    inventory: { name: "inventory-1", namespace: "ns", id: "abc-123", origin: "resourcegroup" },
  },
  {
    name: "multi-document file: separators, empty and comment-only documents skipped, lines of each document",
    files: { "a.yaml": `# leading comment\n---\n${cm("one")}---\n---\n# nothing here\n---\n${cm("two")}\n`, "rg.yaml": RG },
    objects: ["ConfigMap/one@pkg/a.yaml:3", "ConfigMap/two@pkg/a.yaml:12"],
    issues: [],
  },
  {
    name: "CRLF line endings parse and keep line numbers",
    files: { "a.yaml": `${cm("one")}---\n${cm("Bad_Name")}`.replace(/\n/g, "\r\n"), "rg.yaml": RG },
    objects: ["ConfigMap/one@pkg/a.yaml:1", "ConfigMap/Bad_Name@pkg/a.yaml:7"],
    issues: ['pkg/a.yaml:10: ConfigMap/Bad_Name: metadata.name "Bad_Name" is not valid: a lowercase RFC 1123 subdomain'],
  },
  {
    name: "bad YAML is reported with its line and the other files are still checked",
    files: { "a.yaml": `${cm("ok")}---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: x\n  namespace: ns\n`, "b.yaml": cm("UPPER"), "rg.yaml": RG },
    objects: ["ConfigMap/ok@pkg/a.yaml:1", "ConfigMap/UPPER@pkg/b.yaml:1"],
    issues: [/^pkg\/a\.yaml:9: invalid YAML: /, 'pkg/b.yaml:4: ConfigMap/UPPER: metadata.name "UPPER" is not valid'],
  },
  {
    name: "duplicate keys are a YAML error at the second key",
    files: { "a.yaml": "apiVersion: v1\nkind: ConfigMap\nkind: Secret\nmetadata: {name: a}\n", "rg.yaml": RG },
    issues: ["pkg/a.yaml:3: invalid YAML: Map keys must be unique"],
  },
  {
    name: "a missing kind names the document's first line",
    files: { "a.yaml": "apiVersion: v1\nmetadata:\n  name: thing\n", "rg.yaml": RG },
    issues: ["pkg/a.yaml:1: <no kind>/thing: kind: Required value: kind is required"],
  },
  {
    name: "a missing apiVersion and an empty kind",
    files: { "a.yaml": 'kind: ""\nmetadata: {name: thing}\n', "rg.yaml": RG },
    issues: ["pkg/a.yaml:1: <no kind>/thing: apiVersion: Required value: apiVersion is required", "pkg/a.yaml:1: <no kind>/thing: kind: Required value: kind is required"],
  },
  {
    name: "a malformed apiVersion points at its line",
    files: { "a.yaml": "kind: ConfigMap\napiVersion: apps/v1/extra\nmetadata: {name: a}\n", "rg.yaml": RG },
    issues: ['pkg/a.yaml:2: ConfigMap/a: apiVersion "apps/v1/extra" is not valid: expected "<group>/<version>" or "<version>"'],
  },
  {
    name: "missing metadata.name, and generateName which apply cannot use",
    files: { "a.yaml": `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  namespace: ns\n---\napiVersion: batch/v1\nkind: Job\nmetadata:\n  generateName: run-\n`, "rg.yaml": RG },
    issues: ["pkg/a.yaml:3: ConfigMap: metadata.name: Required value: name is required", "pkg/a.yaml:9: Job: metadata.generateName is not supported by apply"],
  },
  {
    name: "name rules per kind: Namespace is a DNS label, Service must start with a letter, RBAC and custom resources only forbid '/', '%', '.' and '..'",
    files: {
      "a.yaml": [
        "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: my.ns\n",
        "apiVersion: v1\nkind: Service\nmetadata:\n  name: 1web\n  namespace: ns\n",
        "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: system:Reader\n",
        "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: Big_Widget\n  namespace: ns\n",
        "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: a/b\n  namespace: ns\n",
      ].join("---\n"),
      "rg.yaml": RG,
    },
    objects: ["Namespace/my.ns@pkg/a.yaml:1", "Service/1web@pkg/a.yaml:6", "ClusterRole/system:Reader@pkg/a.yaml:12", "Widget/Big_Widget@pkg/a.yaml:17", "Widget/a/b@pkg/a.yaml:23"],
    issues: [
      'pkg/a.yaml:4: Namespace/my.ns: metadata.name "my.ns" is not valid: a lowercase RFC 1123 label',
      'pkg/a.yaml:9: Service/1web: metadata.name "1web" is not valid: a DNS-1035 label',
      "pkg/a.yaml:26: Widget/a/b: metadata.name \"a/b\" is not valid: may not contain '/'",
    ],
  },
  {
    name: "a namespace that is not a DNS label, and a CRD not named <plural>.<group>",
    files: {
      "a.yaml": `${cm("a", "Team_A")}---\napiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: widget.example.com\nspec:\n  group: example.com\n  names: {kind: Widget, plural: widgets}\n  scope: Namespaced\n`,
      "rg.yaml": RG,
    },
    issues: ['pkg/a.yaml:5: ConfigMap/a: metadata.namespace "Team_A" is not valid', 'pkg/a.yaml:10: CustomResourceDefinition/widget.example.com: metadata.name "widget.example.com" is not valid: must be spec.names.plural+"."+spec.group ("widgets.example.com")'],
  },
  {
    name: "a name written as a number must be quoted",
    files: { "a.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: 123\n", "rg.yaml": RG },
    issues: ["pkg/a.yaml:4: ConfigMap: metadata.name must be a string, got number (put it in quotes)"],
  },
  {
    name: "a non-string annotation is an error naming the key (kpt beta.56 silently dropped it)",
    files: { "a.yaml": deployment("web", "\n  annotations:\n    example.com/enabled: true\n    example.com/note: fine"), "rg.yaml": RG },
    objects: [],
    issues: ['pkg/a.yaml:7: Deployment/web: annotation "example.com/enabled" must be a string, got boolean (put it in quotes)'],
  },
  {
    name: "labels: non-string value, bad key, bad value, and labels that are not a map",
    files: {
      "a.yaml": `${cm("a")}  labels:\n    replicas: 3\n    bad key: x\n    app: "two words"\n---\napiVersion: v1\nkind: Secret\nmetadata:\n  name: s\n  labels: [a, b]\n`,
      "rg.yaml": RG,
    },
    issues: [
      'pkg/a.yaml:7: ConfigMap/a: label "replicas" must be a string, got number (put it in quotes)',
      'pkg/a.yaml:8: ConfigMap/a: label key "bad key" is not valid: name part must consist of alphanumeric characters',
      'pkg/a.yaml:9: ConfigMap/a: label "app" value "two words" is not valid',
      "pkg/a.yaml:15: Secret/s: metadata.labels must be a map of strings, got a list",
    ],
  },
  {
    name: "a document that is a list or a plain string is not an object",
    files: { "a.yaml": "- one\n- two\n---\njust text\n", "rg.yaml": RG },
    issues: ["pkg/a.yaml:1: expected a Kubernetes object (a mapping with apiVersion, kind and metadata), found a list", "pkg/a.yaml:4: expected a Kubernetes object (a mapping with apiVersion, kind and metadata), found string"],
  },
  {
    name: "duplicate objects report both locations; same name with another kind or namespace is fine",
    files: { "a.yaml": `${cm("dup")}---\n${cm("dup", "other")}---\napiVersion: v1\nkind: Secret\nmetadata: {name: dup, namespace: ns}\n`, "b.yaml": cm("dup"), "rg.yaml": RG },
    issues: ['pkg/b.yaml:1: ConfigMap/dup: duplicate object in namespace "ns": also defined at pkg/a.yaml:1'],
  },
  {
    name: "`<<` merge keys merge (as Go's yaml.v3 does), inline or through an alias; a quoted \"<<\" is a plain key",
    files: {
      "a.yaml": `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  <<: {name: merged, namespace: ns}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: base\n  namespace: ns\n---\napiVersion: v1\nkind: ConfigMap\ndata: &d\n  namespace: ns\nmetadata:\n  <<: *d\n  name: from-alias\n  labels:\n    "<<": plain\n`,
      "rg.yaml": RG,
    },
    objects: ["ConfigMap/merged@pkg/a.yaml:1", "ConfigMap/base@pkg/a.yaml:6", "ConfigMap/from-alias@pkg/a.yaml:12"],
    issues: ['pkg/a.yaml:20: ConfigMap/from-alias: label key "<<" is not valid'],
  },
  {
    name: "a merge key whose value is not a map is a YAML error",
    files: { "a.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  <<: 0\n  name: a\n", "rg.yaml": RG },
    issues: ["pkg/a.yaml:1: invalid YAML: Merge sources must be maps or map aliases"],
  },
  {
    name: "kind: List is expanded; each item keeps its own line",
    files: {
      "list.yaml": "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: a, namespace: ns}\n- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: B, namespace: ns}\n",
      "rg.yaml": RG,
    },
    objects: ["ConfigMap/a@pkg/list.yaml:4", "ConfigMap/B@pkg/list.yaml:7"],
    issues: ['pkg/list.yaml:9: ConfigMap/B: metadata.name "B" is not valid'],
  },
  {
    name: "any *List kind with items is expanded, an empty list gives nothing",
    files: { "list.yaml": `apiVersion: v1\nkind: ConfigMapList\nitems:\n- ${cm("x").trimEnd().replace(/\n/g, "\n  ")}\n---\napiVersion: v1\nkind: List\nitems: []\n`, "rg.yaml": RG },
    objects: ["ConfigMap/x@pkg/list.yaml:4"],
    issues: [],
  },
  {
    name: "local-config objects are left out unless the annotation says \"false\"",
    files: {
      "a.yaml": `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: local\n  annotations:\n    config.kubernetes.io/local-config: "true"\n---\napiVersion: example.com/v1\nkind: Setters\nmetadata:\n  annotations:\n    config.kubernetes.io/local-config: "anything"\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: applied\n  namespace: ns\n  annotations:\n    config.kubernetes.io/local-config: "false"\n`,
      "rg.yaml": RG,
    },
    objects: ["ConfigMap/applied@pkg/a.yaml:14"],
    issues: [],
  },
  {
    name: "function configurations are left out: files named by the root Kptfile's pipeline and objects annotated as functions",
    files: {
      Kptfile: "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: pkg\npipeline:\n  mutators:\n    - image: gcr.io/kpt-fn/apply-setters:v0.2\n      configPath: setters.yaml\n  validators:\n    - image: gcr.io/kpt-fn/kubeval:v0.3\n      configPath: fns/kubeval.yaml\n",
      "setters.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: setters\ndata:\n  replicas: '3'\n",
      "fns/kubeval.yaml": "apiVersion: fn.kpt.dev/v1alpha1\nkind: KubevalConfig\nmetadata:\n  name: Kubeval Config\n",
      "fn.yaml": "apiVersion: fn.kpt.dev/v1alpha1\nkind: StarlarkRun\nmetadata:\n  name: run\n  annotations:\n    config.kubernetes.io/function: |\n      container: {image: x}\n",
      "app.yaml": cm("app"),
      "rg.yaml": RG,
    },
    objects: ["ConfigMap/app@pkg/app.yaml:1"],
    issues: [],
  },
  {
    name: "the Kptfile's inventory section is used when there is no ResourceGroup, with a warning",
    files: {
      Kptfile: "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: pkg\ninventory:\n  namespace: ns\n  name: inv\n  inventoryID: id-1\n  annotations:\n    team: a\n",
      "a.yaml": cm("a"),
    },
    objects: ["ConfigMap/a@pkg/a.yaml:1"],
    issues: [],
    inventory: { name: "inv", namespace: "ns", id: "id-1", origin: "kptfile" },
    warnings: ['the inventory is read from the Kptfile (pkg/Kptfile:5); a ResourceGroup file is recommended: "kpt-ts live migrate" moves it there unchanged'],
  },
  {
    name: "an incomplete Kptfile inventory is refused in kpt's words",
    files: { Kptfile: "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: pkg\ninventory:\n  namespace: ns\n", "a.yaml": cm("a") },
    issues: ['pkg/Kptfile:5: Kptfile: the inventory in the Kptfile is not valid: "inventory.name" must not be empty; "inventory.inventoryID" must not be empty'],
  },
  {
    name: "two ResourceGroups",
    files: { "a.yaml": RG, "b.yaml": RG.replace("inventory-1", "inventory-2"), "c.yaml": cm("c") },
    issues: ["pkg/b.yaml:1: ResourceGroup/inventory-2: Multiple ResourceGroup objects found. Please make sure at most one ResourceGroup object exists within the package. Others: pkg/a.yaml:1"],
  },
  {
    name: "an inventory in both the Kptfile and a ResourceGroup",
    files: { Kptfile: "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: pkg\ninventory:\n  namespace: ns\n  name: inv\n  inventoryID: id-1\n", "rg.yaml": RG },
    issues: ["pkg/Kptfile:5: inventory was found in both Kptfile and ResourceGroup object (pkg/rg.yaml:1); keep the one the package was applied with"],
  },
  {
    name: "no inventory tells the user to run live init",
    files: { "a.yaml": cm("a") },
    objects: ["ConfigMap/a@pkg/a.yaml:1"],
    issues: ['Package uninitialized: no ResourceGroup object was found in the package; run "kpt-ts live init pkg" to add one'],
  },
  {
    name: "no inventory is fine when none is required (live init)",
    files: { "a.yaml": cm("a") },
    requireInventory: false,
    objects: ["ConfigMap/a@pkg/a.yaml:1"],
    issues: [],
  },
  {
    name: "a ResourceGroup without namespace or inventory-id label is not valid",
    files: { "rg.yaml": "apiVersion: kpt.dev/v1alpha1\nkind: ResourceGroup\nmetadata:\n  name: inv\n", "a.yaml": cm("a") },
    issues: ['pkg/rg.yaml:1: ResourceGroup/inv: the provided ResourceGroup is not valid: metadata.namespace is missing; label "cli-utils.sigs.k8s.io/inventory-id" is missing'],
  },
  {
    name: "another object carrying the inventory-id label",
    files: { "a.yaml": `${cm("a")}  labels:\n    cli-utils.sigs.k8s.io/inventory-id: abc-123\n`, "rg.yaml": RG },
    issues: ["pkg/a.yaml:7: ConfigMap/a: Package has multiple inventory object templates"],
  },
  {
    name: "objects in all sub-directories are read; a ResourceGroup in a plain sub-directory is the inventory",
    files: { "base/a.yaml": cm("a"), "base/deep/b.yaml": cm("b"), "inv/rg.yaml": RG },
    objects: ["ConfigMap/a@pkg/base/a.yaml:1", "ConfigMap/b@pkg/base/deep/b.yaml:1"],
    issues: [],
    inventory: { name: "inventory-1", namespace: "ns", id: "abc-123", origin: "resourcegroup" },
  },
  {
    name: "a nested package's ResourceGroup is neither applied nor the inventory",
    files: { "a.yaml": cm("a"), "sub/Kptfile": "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: sub\n", "sub/rg.yaml": RG, "sub/b.yaml": cm("b") },
    objects: ["ConfigMap/a@pkg/a.yaml:1", "ConfigMap/b@pkg/sub/b.yaml:1"],
    issues: ['run "kpt-ts live init pkg"'],
  },
  {
    name: "every issue of the package at once, in file order",
    files: {
      "a.yaml": `${cm("ok")}---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: Bad\n  annotations:\n    n: 1\n`,
      "b.yaml": "kind: [\n",
      "c.yaml": "apiVersion: v1\nmetadata: {name: x}\n",
    },
    issues: ['pkg/a.yaml:10: ConfigMap/Bad: metadata.name "Bad" is not valid', 'pkg/a.yaml:12: ConfigMap/Bad: annotation "n" must be a string, got number', /^pkg\/b\.yaml:\d+: invalid YAML/, "pkg/c.yaml:1: <no kind>/x: kind: Required value", "Package uninitialized"],
  },
  {
    name: "stdin: the ResourceGroup comes from the stream, messages name stdin",
    stdin: true,
    files: { stdin: `${RG}---\n${cm("a")}---\n${cm("Nope")}` },
    objects: ["ConfigMap/a@stdin:9", "ConfigMap/Nope@stdin:15"],
    issues: ['stdin:18: ConfigMap/Nope: metadata.name "Nope" is not valid'],
    inventory: { name: "inventory-1", namespace: "ns", id: "abc-123", origin: "resourcegroup" },
  },
  {
    name: "stdin: a Kptfile in the stream supplies the inventory and is not applied",
    stdin: true,
    files: { stdin: `apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: pkg\ninventory:\n  namespace: ns\n  name: inv\n  inventoryID: id-9\n---\n${cm("a")}` },
    objects: ["ConfigMap/a@stdin:10"],
    issues: [],
    inventory: { name: "inv", namespace: "ns", id: "id-9", origin: "kptfile" },
  },
  {
    name: "stdin: two Kptfile inventories",
    stdin: true,
    files: { stdin: `apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata: {name: a}\ninventory: {namespace: ns, name: a, inventoryID: a}\n---\napiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata: {name: b}\ninventory: {namespace: ns, name: b, inventoryID: b}\n` },
    issues: ["stdin:9: multiple Kptfile inventories found in package (another one is at stdin:1)"],
  },
  {
    name: "stdin without any inventory",
    stdin: true,
    files: { stdin: cm("a") },
    issues: ["no ResourceGroup object was provided within the stream"],
  },
];

describe("analyzePackage", () => {
  it.each(cases)("$name", (c) => {
    const result = analyze(c);
    if (c.objects) expect(result.objects.map((o) => `${o.object.kind}/${o.object.metadata.name}@${o.source.file}:${o.source.line}`)).toEqual(c.objects);
    if (c.issues) expect(result.issues.map(formatIssue)).toEqual(matching(c.issues));
    if (c.inventory) expect(result.inventory).toMatchObject(c.inventory);
    if (c.warnings) expect(result.warnings).toEqual(matching(c.warnings));
  });

  it("keeps the ResourceGroup's own labels and annotations for the cluster copy, without kpt's bookkeeping annotations", () => {
    const rg = RG.replace("  labels:\n", "  annotations:\n    config.kubernetes.io/path: rg.yaml\n    internal.config.kubernetes.io/index: '0'\n    team: web\n  labels:\n    env: prod\n");
    const result = analyze({ name: "", files: { "rg.yaml": rg } });
    expect(result.issues).toEqual([]);
    expect(result.inventory).toEqual({
      name: "inventory-1",
      namespace: "ns",
      id: "abc-123",
      labels: { env: "prod" },
      annotations: { team: "web" },
      origin: "resourcegroup",
      source: { file: "pkg/rg.yaml", line: 1 },
      namespaceLine: expect.any(Function),
    });
    // where metadata.namespace is written, found when asked: a missing namespace is reported at it
    expect(result.inventory?.namespaceLine?.()).toBe(5);
  });

  it("finds the lines of metadata.namespace and depends-on for later checks", () => {
    const doc = `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  annotations:\n    config.kubernetes.io/depends-on: /namespaces/ns/Secret/s\n  namespace: ns\n`;
    const [obj] = analyze({ name: "", files: { "a.yaml": doc, "rg.yaml": RG } }).objects;
    expect(obj?.lineOf?.(["metadata", "namespace"])).toBe(7);
    expect(obj?.lineOf?.(["metadata", "annotations", "config.kubernetes.io/depends-on"])).toBe(6);
  });
});

describe("parsePackage", () => {
  const input = (files: Record<string, string>) => ({ path: "pkg", fromStdin: false, files: Object.entries(files).map(([path, content]) => ({ path, content })) });

  it("throws one PackageError listing every issue", () => {
    let caught: unknown;
    try {
      parsePackage(input({ "a.yaml": cm("A"), "b.yaml": "apiVersion: v1\nkind: Secret\nmetadata: {}\n" }), { requireInventory: true });
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(PackageError);
    const err = caught as PackageError;
    expect(err.issues).toHaveLength(3);
    expect(err.message.split("\n")[0]).toBe("3 problems in the package:");
    expect(err.message).toContain("- pkg/b.yaml:3: Secret: metadata.name: Required value: name is required");
  });

  it("returns the package when it is clean", () => {
    const pkg = parsePackage(input({ "a.yaml": cm("a"), "rg.yaml": RG }), { requireInventory: true });
    expect(pkg.inventory.name).toBe("inventory-1");
    expect(pkg.objects).toHaveLength(1);
  });
});

describe("readPackage (file system)", () => {
  const root = mkdtempSync(join(tmpdir(), "kpt-ts-read-"));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const write = (rel: string, content: string): void => {
    mkdirSync(join(root, rel, ".."), { recursive: true });
    writeFileSync(join(root, rel), content);
  };
  write("p/a.yaml", cm("a"));
  write("p/rg.yml", RG);
  write("p/notes.txt", "not yaml");
  write("p/data.json", '{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "json"}}');
  write("p/sub/deeper/b.yaml", cm("b"));
  write("p/ignored/c.yaml", cm("c"));
  write("p/tmp-d.yaml", cm("d"));
  write("p/.krmignore", "# comment\nignored/\ntmp-*.yaml\n");
  write("p/Kptfile", "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: p\n");
  symlinkSync(join(root, "p"), join(root, "link"));

  it("collects .yaml/.yml files and Kptfiles from every sub-directory, honouring .krmignore", async () => {
    const files = await readPackageFiles(join(root, "p"));
    expect(files.map((f) => f.path)).toEqual(["Kptfile", "a.yaml", "rg.yml", "sub/deeper/b.yaml"]);
  });

  it("reads a package and names files as the user gave the directory", async () => {
    const pkg = await readPackage(join(root, "p"));
    expect(pkg.objects.map((o) => `${o.object.metadata.name}@${o.source.file}`)).toEqual([`a@${join(root, "p", "a.yaml")}`, `b@${join(root, "p", "sub/deeper/b.yaml")}`]);
    expect(pkg.inventory.id).toBe("abc-123");
  });

  it("resolves a symlinked package directory and warns like kpt", async () => {
    const warnings: string[] = [];
    const pkg = await readPackage(join(root, "link"), { onWarning: (w) => warnings.push(w) });
    expect(pkg.objects).toHaveLength(2);
    expect(warnings).toEqual([`resolved symlink "${join(root, "link")}" to "${join(root, "p")}", please note that the symlinks within the package are ignored`]);
  });

  it("reads standard input when the path is -", async () => {
    const pkg = await readPackage("-", { stdin: `${RG}---\n${cm("from-stdin")}` });
    expect(pkg.objects.map((o) => o.object.metadata.name)).toEqual(["from-stdin"]);
  });

  it("a missing directory is a usage error", async () => {
    await expect(readPackage(join(root, "nope"))).rejects.toBeInstanceOf(UsageError);
  });
});

describe("compileKrmIgnore", () => {
  const ignore = compileKrmIgnore(["# generated files", "*.gen.yaml", "!keep.gen.yaml", "/only-root.yaml", "build/", "docs/**/example.yaml", ""].join("\n"));
  it.each([
    { path: "a.gen.yaml", isDir: false, ignored: true },
    { path: "deep/b.gen.yaml", isDir: false, ignored: true },
    { path: "keep.gen.yaml", isDir: false, ignored: false },
    { path: "only-root.yaml", isDir: false, ignored: true },
    { path: "sub/only-root.yaml", isDir: false, ignored: false },
    { path: "build", isDir: true, ignored: true },
    { path: "build", isDir: false, ignored: false },
    { path: "docs/example.yaml", isDir: false, ignored: true },
    { path: "docs/a/b/example.yaml", isDir: false, ignored: true },
    { path: "app.yaml", isDir: false, ignored: false },
  ])("$path (dir: $isDir) ignored: $ignored", ({ path, isDir, ignored }) => {
    expect(ignore(path, isDir)).toBe(ignored);
  });
});

describe("--rg-file: the inventory kept outside the package or stream", () => {
  const root = mkdtempSync(join(tmpdir(), "kpt-ts-rgfile-"));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const write = (rel: string, content: string): string => {
    mkdirSync(join(root, rel, ".."), { recursive: true });
    writeFileSync(join(root, rel), content);
    return join(root, rel);
  };
  const rgFile = write("inventory.yaml", RG);
  const stream = `${cm("a")}---\n${deployment("web")}`;
  const issuesOf = async (p: Promise<unknown>): Promise<string[]> => {
    const err = await p.then(() => undefined, (e: unknown) => e);
    expect(err).toBeInstanceOf(PackageError);
    return (err as PackageError).issues.map(formatIssue);
  };

  it("a stream without an inventory takes the file's ResourceGroup", async () => {
    const pkg = await readPackage("-", { stdin: stream, rgFile });
    expect(pkg.inventory).toMatchObject({ name: "inventory-1", namespace: "ns", id: "abc-123", origin: "resourcegroup", source: { file: rgFile, line: 1 } });
    expect(pkg.objects.map((o) => o.object.metadata.name)).toEqual(["a", "web"]);
  });

  it("a directory without an inventory takes it too", async () => {
    write("plain/a.yaml", cm("a"));
    const pkg = await readPackage(join(root, "plain"), { rgFile });
    expect(pkg.inventory.id).toBe("abc-123");
  });

  it("naming the package's own ResourceGroup file reads it once", async () => {
    const own = write("withrg/resourcegroup.yaml", RG);
    write("withrg/a.yaml", cm("a"));
    const pkg = await readPackage(join(root, "withrg"), { rgFile: own });
    expect(pkg.inventory.id).toBe("abc-123");
  });

  it("a stream that carries its own inventory is refused, naming both", async () => {
    const issues = await issuesOf(readPackage("-", { stdin: `${stream}---\n${RG}`, rgFile }));
    expect(issues).toEqual([`${rgFile}:1: --rg-file gives the inventory, but the stream has one too (stdin:15): remove one of them, or drop --rg-file`]);
  });

  it("a file holding anything but the ResourceGroup is refused, with its line", async () => {
    const mixed = write("mixed.yaml", `${RG}---\n${cm("x")}`);
    const issues = await issuesOf(readPackage("-", { stdin: stream, rgFile: mixed }));
    expect(issues).toEqual([expect.stringMatching(new RegExp(`^${mixed}:9: ConfigMap/x: --rg-file must hold only the package's ResourceGroup`))]);
  });

  it("a file without a ResourceGroup, or no file at all, is refused", async () => {
    const empty = write("empty.yaml", cm("x"));
    expect((await issuesOf(readPackage("-", { stdin: stream, rgFile: empty }))).join("\n")).toContain("--rg-file must hold only");
    await expect(readPackage("-", { stdin: stream, rgFile: join(root, "missing.yaml") })).rejects.toThrow(UsageError);
  });
});
