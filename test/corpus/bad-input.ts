// The bad-input corpus: broken packages, each with the error a user must get. Shared by the
// library-level test (test/unit/bad-input-corpus.test.ts: the error class and the issue, no
// cluster) and the end-to-end test (test/e2e/bad-input.test.ts: the built CLI's message, exit
// code 2, and a cluster left untouched). A case is a function of the test's namespace, so
// end-to-end runs can give each case a namespace of its own.

import { execFileSync } from "node:child_process";
import { mkdir, open, symlink, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";

/** A file's content, or a special file system entry. */
export type FileSpec = string | Buffer | { symlink: string } | { fifo: true } | { sparseBytes: number } | null;

export interface BadInputCase {
  /** Short and unique; also names the case's namespace in end-to-end runs. */
  id: string;
  what: string;
  /** The package's files (relative paths); `null` removes one of the defaults (resourcegroup.yaml, good.yaml). */
  files?: (ns: string) => Record<string, FileSpec>;
  /** The package on standard input instead of a directory. */
  stdin?: (ns: string) => string | Buffer;
  /** Instead of the package directory, give the CLI this path (relative to the package's parent). */
  path?: string;
  /**
   * Where it is caught: "read" by readPackage; "prepare" by prepareObjects (needs the cluster's
   * discovery, e.g. unknown kinds, scopes); "namespaces" by the read of the namespaces the
   * package needs (plan/check-namespaces.ts); "graph" by the dependency graph (depends-on).
   */
  stage: "read" | "prepare" | "namespaces" | "graph";
  error: "PackageError" | "UsageError";
  /** What the message must say: the file (relative to the package; "stdin"), its line, the object, the words. */
  expect: { file?: string; line?: number; object?: string; message: RegExp };
  /** Extra CLI arguments (before the path), e.g. `-n`. */
  args?: (ns: string) => string[];
  /** Objects outside the case's namespace that the package names: they must not exist afterwards. */
  alsoAbsent?: (ns: string) => { resource: string; name: string; namespace?: string }[];
}

export const INVENTORY_FILE = "resourcegroup.yaml";

export function resourceGroup(ns: string, name = "inventory-bad", id = `bad-input-${ns}`): string {
  return `apiVersion: kpt.dev/v1alpha1\nkind: ResourceGroup\nmetadata:\n  name: ${name}\n  namespace: ${ns}\n  labels:\n    cli-utils.sigs.k8s.io/inventory-id: ${id}\n`;
}

export function cm(name: string, ns?: string, extraMeta = ""): string {
  return `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n${ns ? `  namespace: ${ns}\n` : ""}${extraMeta}data:\n  key: value\n`;
}

/** A ConfigMap whose depends-on annotation is `deps` (line 7 of its document). */
export function cmDependsOn(name: string, ns: string, deps: string): string {
  return `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n  namespace: ${ns}\n  annotations:\n    config.kubernetes.io/depends-on: ${JSON.stringify(deps)}\ndata:\n  key: value\n`;
}

const docs = (...d: string[]): string => d.join("---\n");

/** The API server refuses objects over this (and etcd stores less); annotations are capped at 256 KiB. */
const BIG = "x".repeat(300 * 1024);

export const BAD_INPUT_CASES: BadInputCase[] = [
  // --- YAML that does not parse ---
  {
    id: "yaml-unclosed",
    what: "an unclosed flow sequence",
    files: (ns) => ({ "broken.yaml": `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: broken\n  namespace: ${ns}\ndata:\n  a: [unclosed\n` }),
    stage: "read",
    error: "PackageError",
    expect: { file: "broken.yaml", line: 7, message: /invalid YAML: .*flow sequence/i },
  },
  {
    id: "yaml-tabs",
    what: "a tab used for indentation",
    files: (ns) => ({ "tabs.yaml": `apiVersion: v1\nkind: ConfigMap\nmetadata:\n\tname: tabs\n\tnamespace: ${ns}\n` }),
    stage: "read",
    error: "PackageError",
    expect: { file: "tabs.yaml", line: 4, message: /invalid YAML: Tabs are not allowed as indentation/ },
  },
  {
    id: "yaml-dup-key",
    what: "a key given twice in one mapping",
    files: (ns) => ({ "dupkey.yaml": `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: dupkey\n  namespace: ${ns}\n  namespace: other\n` }),
    stage: "read",
    error: "PackageError",
    expect: { file: "dupkey.yaml", line: 6, message: /invalid YAML: Map keys must be unique/ },
  },
  {
    id: "yaml-unterminated",
    what: "an unterminated quoted string",
    files: (ns) => ({ "quote.yaml": `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: "quote\n  namespace: ${ns}\n` }),
    stage: "read",
    error: "PackageError",
    expect: { file: "quote.yaml", line: 4, message: /invalid YAML: Missing closing "quote/ },
  },
  {
    id: "yaml-indent",
    what: "a mapping value where none is allowed (bad indentation)",
    files: (ns) => ({ "indent.yaml": `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: indent\n   namespace: ${ns}\n` }),
    stage: "read",
    error: "PackageError",
    expect: { file: "indent.yaml", line: 4, message: /invalid YAML: Nested mappings are not allowed in compact mappings/ },
  },
  {
    id: "yaml-alias",
    what: "an alias to an anchor that does not exist",
    files: (ns) => ({ "alias.yaml": `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: *nowhere\n  namespace: ${ns}\n` }),
    stage: "read",
    error: "PackageError",
    expect: { file: "alias.yaml", line: 1, message: /invalid YAML: Unresolved alias.*nowhere.*define the anchor/ },
  },
  {
    id: "yaml-bomb",
    what: "an alias bomb (a billion laughs)",
    files: (ns) => {
      let text = `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: bomb\n  namespace: ${ns}\ndata:\n  a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n`;
      for (let i = 1; i < 9; i++) text += `  a${i}: &a${i} [${Array(10).fill(`*a${i - 1}`).join(", ")}]\n`;
      return { "bomb.yaml": text };
    },
    stage: "read",
    error: "PackageError",
    expect: { file: "bomb.yaml", line: 1, message: /invalid YAML: excessive aliasing/ },
  },
  {
    id: "yaml-alias-loop",
    what: "an alias inside the node its anchor marks (a value that would contain itself)",
    files: (ns) => ({ "loop.yaml": `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: loop\n  namespace: ${ns}\ndata: &d\n  key: value\n  again: *d\n` }),
    stage: "read",
    error: "PackageError",
    expect: { file: "loop.yaml", line: 8, message: /invalid YAML: the alias \*d is inside the node its anchor &d marks, so its value would contain itself/ },
  },
  {
    id: "yaml-deep",
    what: "nesting deep enough to exhaust a recursive parser",
    files: () => ({ "deep.yaml": `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: deep\ndata:\n  a: ${"[".repeat(20_000)}${"]".repeat(20_000)}\n` }),
    stage: "read",
    error: "PackageError",
    expect: { file: "deep.yaml", line: 6, message: /invalid YAML: the document is nested (too deeply|more than)/ },
  },
  {
    id: "yaml-scalar",
    what: "a document that is a plain string",
    files: () => ({ "text.yaml": "just some text\n" }),
    stage: "read",
    error: "PackageError",
    expect: { file: "text.yaml", line: 1, message: /expected a Kubernetes object \(a mapping with apiVersion, kind and metadata\), found string/ },
  },
  {
    id: "yaml-list",
    what: "a document that is a list",
    files: () => ({ "list.yaml": "- one\n- two\n" }),
    stage: "read",
    error: "PackageError",
    expect: { file: "list.yaml", line: 1, message: /found a list/ },
  },
  // --- files that are not YAML text ---
  {
    id: "binary",
    what: "a binary file with a .yaml name",
    files: () => ({ "image.yaml": Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52, 0xff, 0xd8, 0xfe]) }),
    stage: "read",
    error: "PackageError",
    expect: { file: "image.yaml", line: 1, message: /not a UTF-8 text file \(byte 0x89 at line 1, column 1.*remove it from the package, or list it in \.krmignore/ },
  },
  {
    id: "nul-byte",
    what: "a NUL byte inside otherwise good YAML",
    files: (ns) => ({ "nul.yaml": `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: nul\n  namespace: ${ns}\ndata:\n  k: "a\u0000b"\n` }),
    stage: "read",
    error: "PackageError",
    expect: { file: "nul.yaml", line: 7, message: /contains a NUL byte \(line 7, column 8\)/ },
  },
  {
    id: "control-char",
    what: "a control character (BEL) in a value",
    files: (ns) => ({ "bell.yaml": `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: bell\n  namespace: ${ns}\ndata:\n  k: ding\u0007\n` }),
    stage: "read",
    error: "PackageError",
    expect: { file: "bell.yaml", line: 7, message: /control character U\+0007 at line 7, column 10 is not allowed in YAML/ },
  },
  {
    id: "latin1",
    what: "a text file saved as Latin-1, not UTF-8",
    files: (ns) => ({ "latin1.yaml": Buffer.from(`apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: latin\n  namespace: ${ns}\ndata:\n  city: Z\xfcrich\n`, "latin1") }),
    stage: "read",
    error: "PackageError",
    expect: { file: "latin1.yaml", line: 7, message: /byte 0xfc at line 7, column 10 is not UTF-8.*save it as UTF-8/ },
  },
  {
    id: "symlink-loop",
    what: "a .yaml symlink that loops",
    files: () => ({ "loop-a.yaml": { symlink: "loop-b.yaml" }, "loop-b.yaml": { symlink: "loop-a.yaml" } }),
    stage: "read",
    error: "PackageError",
    expect: { file: "loop-a.yaml", line: 1, message: /symbolic link loop/ },
  },
  {
    id: "symlink-dangling",
    what: "a .yaml symlink to nothing",
    files: () => ({ "gone.yaml": { symlink: "does-not-exist.yaml" } }),
    stage: "read",
    error: "PackageError",
    expect: { file: "gone.yaml", line: 1, message: /symbolic link to a file that does not exist/ },
  },
  {
    id: "fifo",
    what: "a named pipe with a .yaml name (reading it would block forever)",
    files: () => ({ "pipe.yaml": { fifo: true } }),
    stage: "read",
    error: "PackageError",
    expect: { file: "pipe.yaml", line: 1, message: /is a named pipe \(FIFO\), not a regular file/ },
  },
  {
    id: "krmignore-fifo",
    what: "a .krmignore that is a named pipe",
    files: () => ({ ".krmignore": { fifo: true } }),
    stage: "read",
    error: "PackageError",
    expect: { file: ".krmignore", line: 1, message: /named pipe/ },
  },
  {
    id: "huge-file",
    what: "a 300 MiB file (sparse, never read)",
    files: () => ({ "huge.yaml": { sparseBytes: 300 * 1024 * 1024 } }),
    stage: "read",
    error: "PackageError",
    expect: { file: "huge.yaml", line: 1, message: /the file is 300 MiB; kpt-ts reads package files up to 256 MiB/ },
  },
  {
    id: "huge-many",
    what: "a 5000-object file whose last object is broken: the line is still exact",
    files: (ns) => ({ "many.yaml": docs(...Array.from({ length: 5000 }, (_, i) => cm(`c${i}`, ns)), cm("Last_One", ns)) }),
    stage: "read",
    error: "PackageError",
    expect: { file: "many.yaml", line: 5000 * 8 + 4, object: "ConfigMap/Last_One", message: /metadata\.name "Last_One" is not valid/ },
  },
  {
    id: "huge-object",
    what: "one object over the API server's 3 MiB request limit (a 4 MiB ConfigMap), beside small ones",
    files: (ns) => ({ "big.yaml": `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: big\n  namespace: ${ns}\ndata:\n${[0, 1, 2, 3].map((i) => `  k${i}: ${"x".repeat(1024 * 1024)}\n`).join("")}` }),
    stage: "read",
    error: "PackageError",
    expect: { file: "big.yaml", line: 1, object: "ConfigMap/big", message: /the object is 4\.0 MiB as JSON; the API server refuses requests over 3 MiB/ },
  },
  // --- objects without identity ---
  {
    id: "no-apiversion",
    what: "no apiVersion",
    files: (ns) => ({ "noapi.yaml": `kind: ConfigMap\nmetadata:\n  name: noapi\n  namespace: ${ns}\n` }),
    stage: "read",
    error: "PackageError",
    expect: { file: "noapi.yaml", line: 1, object: "ConfigMap/noapi", message: /apiVersion: Required value/ },
  },
  {
    id: "no-kind",
    what: "no kind",
    files: (ns) => ({ "nokind.yaml": `apiVersion: v1\nmetadata:\n  name: nokind\n  namespace: ${ns}\n` }),
    stage: "read",
    error: "PackageError",
    expect: { file: "nokind.yaml", line: 1, object: "<no kind>/nokind", message: /kind: Required value: kind is required/ },
  },
  {
    id: "no-metadata",
    what: "no metadata at all",
    files: () => ({ "nometa.yaml": "apiVersion: v1\nkind: ConfigMap\ndata:\n  a: b\n" }),
    stage: "read",
    error: "PackageError",
    expect: { file: "nometa.yaml", line: 1, object: "ConfigMap", message: /metadata\.name: Required value/ },
  },
  {
    id: "no-name",
    what: "metadata without a name",
    files: (ns) => ({ "noname.yaml": `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  namespace: ${ns}\n` }),
    stage: "read",
    error: "PackageError",
    expect: { file: "noname.yaml", line: 3, object: "ConfigMap", message: /metadata\.name: Required value: name is required/ },
  },
  {
    id: "empty-name",
    what: 'name: ""',
    files: (ns) => ({ "emptyname.yaml": `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ""\n  namespace: ${ns}\n` }),
    stage: "read",
    error: "PackageError",
    expect: { file: "emptyname.yaml", line: 4, object: "ConfigMap", message: /metadata\.name: Required value/ },
  },
  {
    id: "generate-name",
    what: "generateName, which apply cannot use",
    files: (ns) => ({ "gen.yaml": `apiVersion: batch/v1\nkind: Job\nmetadata:\n  generateName: run-\n  namespace: ${ns}\n` }),
    stage: "read",
    error: "PackageError",
    expect: { file: "gen.yaml", line: 4, object: "Job", message: /generateName is not supported by apply: set metadata\.name instead/ },
  },
  {
    id: "name-invalid",
    what: "a name with upper case and an underscore",
    files: (ns) => ({ "badname.yaml": cm("Bad_Name", ns) }),
    stage: "read",
    error: "PackageError",
    expect: { file: "badname.yaml", line: 4, object: "ConfigMap/Bad_Name", message: /metadata\.name "Bad_Name" is not valid: a lowercase RFC 1123 subdomain/ },
  },
  {
    id: "name-too-long",
    what: "a name of 254 characters",
    files: (ns) => ({ "long.yaml": cm("a".repeat(254), ns) }),
    stage: "read",
    error: "PackageError",
    expect: { file: "long.yaml", line: 4, object: `ConfigMap/${"a".repeat(254)}`, message: /must be no more than 253 characters/ },
  },
  {
    id: "name-number",
    what: "a name written as a number",
    files: (ns) => ({ "num.yaml": `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: 1234\n  namespace: ${ns}\n` }),
    stage: "read",
    error: "PackageError",
    expect: { file: "num.yaml", line: 4, object: "ConfigMap", message: /metadata\.name must be a string, got number \(put it in quotes\)/ },
  },
  {
    id: "service-name",
    what: "a Service name that starts with a digit",
    files: (ns) => ({ "svc.yaml": `apiVersion: v1\nkind: Service\nmetadata:\n  name: 1web\n  namespace: ${ns}\nspec:\n  ports: [{port: 80}]\n` }),
    stage: "read",
    error: "PackageError",
    expect: { file: "svc.yaml", line: 4, object: "Service/1web", message: /a DNS-1035 label/ },
  },
  {
    id: "namespace-invalid",
    what: "a namespace that is not a DNS label",
    files: () => ({ "badns.yaml": cm("badns", "Team_A") }),
    stage: "read",
    error: "PackageError",
    expect: { file: "badns.yaml", line: 5, object: "ConfigMap/badns", message: /metadata\.namespace "Team_A" is not valid/ },
  },
  {
    id: "apiversion-bad",
    what: "an apiVersion with three parts",
    files: (ns) => ({ "apiv.yaml": `apiVersion: apps/v1/extra\nkind: Deployment\nmetadata:\n  name: apiv\n  namespace: ${ns}\n` }),
    stage: "read",
    error: "PackageError",
    expect: { file: "apiv.yaml", line: 1, object: "Deployment/apiv", message: /apiVersion "apps\/v1\/extra" is not valid/ },
  },
  {
    id: "kind-list",
    what: "kind given as a list",
    files: (ns) => ({ "kindlist.yaml": `apiVersion: v1\nkind: [ConfigMap]\nmetadata:\n  name: kindlist\n  namespace: ${ns}\n` }),
    stage: "read",
    error: "PackageError",
    expect: { file: "kindlist.yaml", line: 2, message: /kind must be a string, got a list/ },
  },
  {
    id: "metadata-list",
    what: "metadata given as a list",
    files: () => ({ "metalist.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  - name: x\n" }),
    stage: "read",
    error: "PackageError",
    expect: { file: "metalist.yaml", line: 3, object: "ConfigMap", message: /metadata must be a map, got a list/ },
  },
  {
    id: "label-value",
    what: "a label value with a space",
    files: (ns) => ({ "label.yaml": cm("label", ns, `  labels:\n    app: "two words"\n`) }),
    stage: "read",
    error: "PackageError",
    expect: { file: "label.yaml", line: 7, object: "ConfigMap/label", message: /label "app" value "two words" is not valid/ },
  },
  {
    id: "annotation-bool",
    what: "an annotation value that is a boolean",
    files: (ns) => ({ "annbool.yaml": cm("annbool", ns, `  annotations:\n    example.com/enabled: true\n`) }),
    stage: "read",
    error: "PackageError",
    expect: { file: "annbool.yaml", line: 7, object: "ConfigMap/annbool", message: /annotation "example\.com\/enabled" must be a string, got boolean \(put it in quotes\)/ },
  },
  {
    id: "annotations-huge",
    what: "annotations over the API server's 256 KiB",
    files: (ns) => ({ "bigann.yaml": cm("bigann", ns, `  annotations:\n    example.com/blob: ${BIG}\n`) }),
    stage: "read",
    error: "PackageError",
    expect: { file: "bigann.yaml", line: 6, object: "ConfigMap/bigann", message: /metadata\.annotations are too long: \d+ bytes, must have at most 262144 bytes/ },
  },
  {
    id: "crd-name",
    what: "a CRD not named <plural>.<group>",
    files: () => ({
      "crd.yaml": "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: gadget.example.com\nspec:\n  group: example.com\n  names: {kind: Gadget, plural: gadgets}\n  scope: Namespaced\n",
    }),
    stage: "read",
    error: "PackageError",
    expect: { file: "crd.yaml", line: 4, object: "CustomResourceDefinition/gadget.example.com", message: /must be spec\.names\.plural\+"\."\+spec\.group \("gadgets\.example\.com"\)/ },
  },
  // --- data that is not a map of strings (issue 36: refused by the server after the inventory was written) ---
  {
    id: "data-boolean",
    what: "a ConfigMap data value that is a boolean",
    files: (ns) => ({ "flags.yaml": `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: flags\n  namespace: ${ns}\ndata:\n  color: blue\n  enabled: true\n` }),
    stage: "read",
    error: "PackageError",
    expect: { file: "flags.yaml", line: 8, object: "ConfigMap/flags", message: /data "enabled" must be a string, got boolean \(put it in quotes\): a ConfigMap's data holds only strings/ },
  },
  {
    id: "stringdata-number",
    what: "a Secret stringData value that is a number",
    files: (ns) => ({ "db.yaml": `apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\n  namespace: ${ns}\nstringData:\n  port: 5432\n` }),
    stage: "read",
    error: "PackageError",
    expect: { file: "db.yaml", line: 7, object: "Secret/db", message: /stringData "port" must be a string, got number \(put it in quotes\): a Secret's stringData holds only strings/ },
  },
  {
    id: "binarydata-list",
    what: "a ConfigMap binaryData that is a list",
    files: (ns) => ({ "bin.yaml": `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: bin\n  namespace: ${ns}\nbinaryData:\n- aGVsbG8=\n` }),
    stage: "read",
    error: "PackageError",
    expect: { file: "bin.yaml", line: 6, object: "ConfigMap/bin", message: /binaryData must be a map of strings, got a list/ },
  },
  // --- duplicates ---
  {
    id: "duplicate",
    what: "the same object twice",
    files: (ns) => ({ "again.yaml": cm("good", ns) }),
    stage: "read",
    error: "PackageError",
    expect: { file: "good.yaml", line: 1, object: "ConfigMap/good", message: /duplicate object in namespace "[^"]+": also defined at .*again\.yaml:1/ },
  },
  {
    id: "duplicate-defaulted",
    what: "two objects that become one when the namespace is defaulted",
    files: (ns) => ({ "nons.yaml": cm("good") }),
    stage: "prepare",
    error: "PackageError",
    expect: { file: "nons.yaml", line: 1, object: "ConfigMap/good", message: /duplicate object in namespace "[^"]+": also defined at .*good\.yaml:1 \(objects without metadata\.namespace go to/ },
  },
  // --- inventory ---
  {
    id: "no-inventory",
    what: "no inventory at all",
    files: () => ({ [INVENTORY_FILE]: null }),
    stage: "read",
    error: "PackageError",
    expect: { message: /Package uninitialized: no ResourceGroup object was found in the package; run "kpt-ts live init .*" to add one/ },
  },
  {
    id: "two-inventories",
    what: "two ResourceGroups",
    files: (ns) => ({ "second-rg.yaml": resourceGroup(ns, "inventory-other", "other") }),
    stage: "read",
    error: "PackageError",
    expect: { file: "second-rg.yaml", line: 1, object: "ResourceGroup/inventory-other", message: /Multiple ResourceGroup objects found.*Others: .*resourcegroup\.yaml:1/ },
  },
  {
    id: "inventory-both",
    what: "an inventory in the Kptfile and a ResourceGroup",
    files: (ns) => ({ Kptfile: `apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: pkg\ninventory:\n  namespace: ${ns}\n  name: inv\n  inventoryID: id-1\n` }),
    stage: "read",
    error: "PackageError",
    expect: { file: "Kptfile", line: 5, message: /inventory was found in both Kptfile and ResourceGroup object/ },
  },
  {
    id: "inventory-no-id",
    what: "a ResourceGroup without the inventory-id label",
    files: (ns) => ({ [INVENTORY_FILE]: `apiVersion: kpt.dev/v1alpha1\nkind: ResourceGroup\nmetadata:\n  name: inventory-bad\n  namespace: ${ns}\n` }),
    stage: "read",
    error: "PackageError",
    expect: { file: INVENTORY_FILE, line: 1, object: "ResourceGroup/inventory-bad", message: /the provided ResourceGroup is not valid: label "cli-utils\.sigs\.k8s\.io\/inventory-id" is missing/ },
  },
  {
    id: "inventory-bad-ns",
    what: "a ResourceGroup in a namespace that is not a DNS label",
    files: () => ({ [INVENTORY_FILE]: resourceGroup("Not_A_Namespace", "inventory-bad", "id-1") }),
    stage: "read",
    error: "PackageError",
    expect: { file: INVENTORY_FILE, line: 1, object: "ResourceGroup/inventory-bad", message: /metadata\.namespace "Not_A_Namespace" is not valid/ },
  },
  {
    id: "inventory-label-elsewhere",
    what: "another object carrying the inventory-id label",
    files: (ns) => ({ "labelled.yaml": cm("labelled", ns, `  labels:\n    cli-utils.sigs.k8s.io/inventory-id: stolen\n`) }),
    stage: "read",
    error: "PackageError",
    expect: { file: "labelled.yaml", line: 7, object: "ConfigMap/labelled", message: /Package has multiple inventory object templates/ },
  },
  {
    id: "kptfile-inventory",
    what: "a Kptfile inventory without name and id",
    files: (ns) => ({ [INVENTORY_FILE]: null, Kptfile: `apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: pkg\ninventory:\n  namespace: ${ns}\n` }),
    stage: "read",
    error: "PackageError",
    expect: { file: "Kptfile", line: 5, object: "Kptfile", message: /"inventory\.name" must not be empty; "inventory\.inventoryID" must not be empty/ },
  },
  {
    id: "kptfile-yaml",
    what: "a Kptfile that is not YAML",
    files: () => ({ Kptfile: "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata: {name: pkg\n" }),
    stage: "read",
    error: "PackageError",
    expect: { file: "Kptfile", line: 3, message: /invalid YAML: Flow map in block collection must be sufficiently indented and end with a }/ },
  },
  // --- depends-on ---
  {
    id: "dep-cycle",
    what: "two objects depending on each other",
    files: (ns) => ({ "cycle.yaml": docs(cmDependsOn("a", ns, `/namespaces/${ns}/ConfigMap/b`), cmDependsOn("b", ns, `/namespaces/${ns}/ConfigMap/a`)) }),
    stage: "graph",
    error: "PackageError",
    expect: { file: "cycle.yaml", line: 7, object: "ConfigMap/a", message: /cyclic dependency:\n\s*- \/namespaces\/[^/]+\/ConfigMap\/a -> \/namespaces\/[^/]+\/ConfigMap\/b \(.*cycle\.yaml:7\)\n\s*- \/namespaces\/[^/]+\/ConfigMap\/b -> \/namespaces\/[^/]+\/ConfigMap\/a \(.*cycle\.yaml:17\)/ },
  },
  {
    id: "dep-self",
    what: "an object depending on itself",
    files: (ns) => ({ "self.yaml": cmDependsOn("self", ns, `/namespaces/${ns}/ConfigMap/self`) }),
    stage: "graph",
    error: "PackageError",
    expect: { file: "self.yaml", line: 7, object: "ConfigMap/self", message: /cyclic dependency:\n\s*- \/namespaces\/[^/]+\/ConfigMap\/self -> \/namespaces\/[^/]+\/ConfigMap\/self/ },
  },
  {
    id: "dep-missing",
    what: "depends-on an object that is in neither the package nor the inventory",
    files: (ns) => ({ "dep.yaml": cmDependsOn("dep", ns, `/namespaces/${ns}/ConfigMap/missing`) }),
    stage: "graph",
    error: "PackageError",
    expect: { file: "dep.yaml", line: 7, object: "ConfigMap/dep", message: /external dependency: \/namespaces\/[^/]+\/ConfigMap\/dep -> \/namespaces\/[^/]+\/ConfigMap\/missing\n\s*only objects of this package can be waited for/ },
  },
  {
    id: "dep-fields",
    what: "a depends-on reference with four fields",
    files: (ns) => ({ "fields.yaml": cmDependsOn("fields", ns, `/namespaces/${ns}/ConfigMap`) }),
    stage: "graph",
    error: "PackageError",
    expect: { file: "fields.yaml", line: 7, object: "ConfigMap/fields", message: /invalid "config\.kubernetes\.io\/depends-on" annotation: failed to parse object reference \(index: 0\): expected 3 or 5 fields, found 4/ },
  },
  {
    id: "dep-namespaces",
    what: 'a five-field reference without the "namespaces" field',
    files: (ns) => ({ "nsfield.yaml": cmDependsOn("nsfield", ns, `apps/ns/${ns}/Deployment/web`) }),
    stage: "graph",
    error: "PackageError",
    expect: { file: "nsfield.yaml", line: 7, object: "ConfigMap/nsfield", message: /missing "namespaces" field/ },
  },
  {
    id: "dep-second-bad",
    what: "the second of two references is malformed (empty after a trailing comma)",
    files: (ns) => ({ "trailing.yaml": cmDependsOn("trailing", ns, `/namespaces/${ns}/ConfigMap/good,`) }),
    stage: "graph",
    error: "PackageError",
    expect: { file: "trailing.yaml", line: 7, object: "ConfigMap/trailing", message: /\(index: 1\): expected 3 or 5 fields, found 1: ""/ },
  },
  {
    id: "dep-duplicate",
    what: "the same dependency listed twice",
    files: (ns) => ({ "twice.yaml": cmDependsOn("twice", ns, `/namespaces/${ns}/ConfigMap/good, /namespaces/${ns}/ConfigMap/good`) }),
    stage: "graph",
    error: "PackageError",
    expect: { file: "twice.yaml", line: 7, object: "ConfigMap/twice", message: /duplicate dependency: .*\n\s*list each dependency once/ },
  },
  {
    id: "dep-cluster-form",
    what: "a namespaced object referenced in the cluster-scoped form",
    files: (ns) => ({ "scoped.yaml": cmDependsOn("scoped", ns, "/ConfigMap/good") }),
    stage: "graph",
    error: "PackageError",
    expect: { file: "scoped.yaml", line: 7, object: "ConfigMap/scoped", message: /external dependency: .* -> \/ConfigMap\/good\n\s*did you mean "\/namespaces\/[^/]+\/ConfigMap\/good"\?/ },
  },
  {
    id: "dep-namespaced-form",
    what: "a cluster-scoped object (a ClusterRole) referenced with a namespace",
    files: (ns) => ({
      "role.yaml": `apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: ${ns}-reader\nrules: []\n`,
      "user.yaml": cmDependsOn("user", ns, `rbac.authorization.k8s.io/namespaces/${ns}/ClusterRole/${ns}-reader`),
    }),
    stage: "graph",
    error: "PackageError",
    expect: { file: "user.yaml", line: 7, object: "ConfigMap/user", message: /external dependency: .*\n\s*did you mean "rbac\.authorization\.k8s\.io\/ClusterRole\/[^"]+-reader"\?/ },
    alsoAbsent: (ns) => [{ resource: "clusterroles", name: `${ns}-reader` }],
  },
  // --- what only the cluster can tell ---
  {
    id: "namespace-missing",
    what: "an object in a namespace that neither exists nor comes with the package (issue 36)",
    files: (ns) => ({ "elsewhere.yaml": cm("elsewhere", `${ns}-missing`) }),
    stage: "namespaces",
    error: "PackageError",
    expect: { file: "elsewhere.yaml", line: 5, object: "ConfigMap/elsewhere", message: /namespace "[^"]+-missing" does not exist in the cluster, and the package does not create it: create it \(kubectl create namespace [^)]+\), add a Namespace object for it to the package, or fix metadata\.namespace/ },
    alsoAbsent: (ns) => [{ resource: "configmap", name: "elsewhere", namespace: `${ns}-missing` }],
  },
  {
    id: "inventory-namespace-missing",
    what: "an inventory in a namespace that neither exists nor comes with the package (issue 36; kpt: exit 1 at its first write)",
    files: (ns) => ({ [INVENTORY_FILE]: resourceGroup(`${ns}-inv-missing`) }),
    stage: "namespaces",
    error: "PackageError",
    expect: { file: INVENTORY_FILE, line: 5, object: "ResourceGroup/inventory-bad", message: /namespace "[^"]+-inv-missing" does not exist in the cluster, and the package does not create it/ },
  },
  {
    id: "unknown-kind",
    what: "a kind the cluster does not serve (no CRD anywhere)",
    files: (ns) => ({ "widget.yaml": `apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\n  namespace: ${ns}\n` }),
    stage: "prepare",
    error: "PackageError",
    expect: { file: "widget.yaml", line: 1, message: /1 resource type could not be found in the cluster or as CRDs among the applied resources\.[\s\S]*example\.com\/v1, Kind=Widget \(.*widget\.yaml:1\)/ },
  },
  {
    id: "unknown-kind-typo",
    what: "a typo in a built-in kind",
    files: (ns) => ({ "typo.yaml": `apiVersion: apps/v1\nkind: Deploymnet\nmetadata:\n  name: web\n  namespace: ${ns}\n` }),
    stage: "prepare",
    error: "PackageError",
    expect: { file: "typo.yaml", line: 1, message: /apps\/v1, Kind=Deploymnet[\s\S]*Check apiVersion and kind for typos/ },
  },
  {
    id: "crd-version",
    what: "a custom resource in a version its CRD (in the package) does not define",
    files: (ns) => ({
      "crd.yaml": `apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: gizmos.${ns}.example.com\nspec:\n  group: ${ns}.example.com\n  names: {kind: Gizmo, plural: gizmos}\n  scope: Namespaced\n  versions:\n  - name: v1\n    served: true\n    storage: true\n    schema: {openAPIV3Schema: {type: object}}\n`,
      "gizmo.yaml": `apiVersion: ${ns}.example.com/v2\nkind: Gizmo\nmetadata:\n  name: g\n  namespace: ${ns}\n`,
    }),
    stage: "prepare",
    error: "PackageError",
    expect: { file: "gizmo.yaml", line: 1, message: /\.example\.com\/v2, Kind=Gizmo \(.*gizmo\.yaml:1\)/ },
    alsoAbsent: (ns) => [{ resource: "customresourcedefinitions", name: `gizmos.${ns}.example.com` }],
  },
  {
    id: "scope-cluster-ns",
    what: "a cluster-scoped object (ClusterRole) given a namespace",
    files: (ns) => ({ "cr.yaml": `apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: ${ns}-viewer\n  namespace: ${ns}\nrules: []\n` }),
    stage: "prepare",
    error: "PackageError",
    expect: { file: "cr.yaml", line: 5, object: "ClusterRole/", message: /resource is cluster-scoped but has a non-empty namespace "[^"]+": remove metadata\.namespace/ },
    alsoAbsent: (ns) => [{ resource: "clusterroles", name: `${ns}-viewer` }],
  },
  {
    id: "scope-crd-cluster",
    what: "a custom resource of a cluster-scoped CRD (in the package) given a namespace",
    files: (ns) => ({
      "crd.yaml": `apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: realms.${ns}.example.com\nspec:\n  group: ${ns}.example.com\n  names: {kind: Realm, plural: realms}\n  scope: Cluster\n  versions:\n  - name: v1\n    served: true\n    storage: true\n    schema: {openAPIV3Schema: {type: object}}\n`,
      "realm.yaml": `apiVersion: ${ns}.example.com/v1\nkind: Realm\nmetadata:\n  name: r\n  namespace: ${ns}\n`,
    }),
    stage: "prepare",
    error: "PackageError",
    expect: { file: "realm.yaml", line: 5, object: "Realm/r", message: /resource is cluster-scoped but has a non-empty namespace/ },
    alsoAbsent: (ns) => [{ resource: "customresourcedefinitions", name: `realms.${ns}.example.com` }],
  },
  {
    id: "enforced-namespace",
    what: "-n given, an object in another namespace",
    files: () => ({ "elsewhere.yaml": cm("elsewhere", "kube-public") }),
    args: (ns) => ["-n", ns],
    alsoAbsent: () => [{ resource: "configmaps", name: "elsewhere", namespace: "kube-public" }],
    stage: "prepare",
    error: "PackageError",
    expect: { file: "elsewhere.yaml", line: 5, object: "ConfigMap/elsewhere", message: /found namespace "kube-public", but all resources must be in namespace "[^"]+"/ },
  },
  // --- the path itself, and standard input ---
  {
    id: "path-missing",
    what: "a package directory that does not exist",
    path: "no-such-package",
    stage: "read",
    error: "UsageError",
    expect: { message: /package directory ".*no-such-package" does not exist/ },
  },
  {
    id: "path-file",
    what: "a file given where the package directory goes",
    path: "pkg/good.yaml",
    stage: "read",
    error: "UsageError",
    expect: { message: /"[^"]*good\.yaml" is not a directory: give the package's directory, or "-" to read standard input/ },
  },
  {
    id: "stdin-binary",
    what: "binary data on standard input",
    stdin: () => Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0xff, 0xfe, 0x00]),
    stage: "read",
    error: "PackageError",
    expect: { file: "stdin", line: 1, message: /not a UTF-8 text file \(byte 0x8b at line 1, column 2/ },
  },
  {
    id: "stdin-empty",
    what: "nothing on standard input",
    stdin: () => "",
    stage: "read",
    error: "PackageError",
    expect: { message: /no ResourceGroup object was provided within the stream/ },
  },
  {
    id: "stdin-yaml",
    what: "a bad document on standard input",
    stdin: (ns) => docs(resourceGroup(ns), cm("fine", ns), `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: [oops\n`),
    stage: "read",
    error: "PackageError",
    expect: { file: "stdin", line: 20, message: /invalid YAML: Flow sequence in block collection must be sufficiently indented and end with a \]/ },
  },
];

/** Writes a case's package under `parent/pkg` and returns the path to give the CLI (and the package dir). */
export async function writeBadInputCase(c: BadInputCase, parent: string, ns: string): Promise<{ dir: string; path: string }> {
  const dir = join(parent, "pkg");
  const files: Record<string, FileSpec> = { [INVENTORY_FILE]: resourceGroup(ns), "good.yaml": cm("good", ns), ...(c.files?.(ns) ?? {}) };
  await mkdir(dir, { recursive: true });
  for (const [rel, spec] of Object.entries(files)) {
    if (spec === null) continue;
    const p = join(dir, rel);
    await mkdir(dirname(p), { recursive: true });
    if (typeof spec === "string" || Buffer.isBuffer(spec)) await writeFile(p, spec);
    else if ("symlink" in spec) await symlink(spec.symlink, p);
    else if ("fifo" in spec) execFileSync("mkfifo", [p]);
    else {
      const fh = await open(p, "w");
      await fh.truncate(spec.sparseBytes);
      await fh.close();
    }
  }
  return { dir, path: c.stdin ? "-" : c.path ? join(parent, c.path) : dir };
}

/**
 * The start of the expected issue as formatIssue words it, `file:line: Kind/name` (the file
 * joined to the package dir as the user gave it); the object may be a prefix of the name.
 */
export function expectedPrefix(c: BadInputCase, dir: string): string {
  const file = c.expect.file === undefined ? "" : c.expect.file === "stdin" ? "stdin" : join(dir, c.expect.file);
  const where = file ? `${file}${c.expect.line !== undefined ? `:${c.expect.line}` : ""}: ` : "";
  return `${where}${c.expect.object ?? ""}`;
}
