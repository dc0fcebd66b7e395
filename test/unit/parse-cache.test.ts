// Issue 17: parsed package files are kept between runs. A file read back from the cache must be
// the same package as one parsed again: the same values, the same lines for every message, the
// same errors; files holding a Secret never reach the disk.

import { mkdtemp, readdir, readFile, writeFile, mkdir, utimes } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

/** The cache's entries (not its clean-up stamp). */
async function entriesOf(dir: string): Promise<string[]> {
  return (await readdir(dir)).filter((f) => f.endsWith(".json"));
}
import { parseCacheFor, removeUnused } from "../../src/object/parse-cache.js";
import { readPackage } from "../../src/object/read-package.js";
import { isJsonSafe, parseYamlDocuments, restoreYamlDocuments } from "../../src/object/yaml-documents.js";
import { PackageError } from "../../src/model/errors.js";

const FILE = `# a comment first
apiVersion: v1
kind: ConfigMap
metadata:
  name: one
  namespace: app
data:
  key: value
---

# blank lines and a comment before the second
apiVersion: apps/v1
kind: Deployment
metadata:
  name: two
  namespace: app
spec:
  replicas: 2
  template:
    spec:
      containers:
        - name: app
          image: pause
---
---
apiVersion: v1
kind: Service
metadata: {name: three, namespace: app}
spec:
  ports: [{port: 80, targetPort: 8080}]
`;

const RG = "apiVersion: kpt.dev/v1alpha1\nkind: ResourceGroup\nmetadata:\n  name: inv\n  namespace: app\n  labels:\n    cli-utils.sigs.k8s.io/inventory-id: inv-id\n";

describe("a snapshot of parsed documents", () => {
  it("restores the same values, document lines and field lines", () => {
    const fresh = parseYamlDocuments(FILE);
    const snap = fresh.snapshot?.();
    expect(snap).toBeDefined();
    const restored = restoreYamlDocuments(FILE, JSON.parse(JSON.stringify(snap)));
    expect(restored.documents.map((d) => d.value)).toEqual(fresh.documents.map((d) => d.value));
    expect(restored.documents.map((d) => [d.line, d.textLength])).toEqual(fresh.documents.map((d) => [d.line, d.textLength]));
    for (const path of [["metadata", "name"], ["spec", "template", "spec", "containers", 0, "image"], ["spec", "ports", 0, "targetPort"], ["data", "key"]] as const) {
      expect(restored.documents.map((d) => d.lineOf(path))).toEqual(fresh.documents.map((d) => d.lineOf(path)));
    }
    expect(fresh.documents[1]!.lineOf(["spec", "template", "spec", "containers", 0, "image"])).toBe(23);
  });

  it("is offered for nulls, booleans, numbers and strings", () => {
    const text = "a: ~\nb:\n  c:\nd: [true, 1, -2.5, x, null]\n";
    expect(restoreYamlDocuments(text, JSON.parse(JSON.stringify(parseYamlDocuments(text).snapshot!()))).documents[0]!.value).toEqual({ a: null, b: { c: null }, d: [true, 1, -2.5, "x", null] });
  });

  it("is not offered for what JSON would change (NaN, infinities) or for a file with errors", () => {
    expect(parseYamlDocuments("a: .nan\n").snapshot?.()).toBeUndefined();
    expect(parseYamlDocuments("a: -.inf\n").snapshot?.()).toBeUndefined();
    expect(parseYamlDocuments("a: &x .nan\nb: *x\n").snapshot?.()).toBeUndefined();
    expect(parseYamlDocuments("ok: 1\n---\na: [unclosed\n").snapshot?.()).toBeUndefined();
  });

  // Issue 30: a file the precise parser read (all of it, or one document with anchors) was parsed again on every run.
  it.each([
    ["a document with anchors and aliases among others", "# first\na: 1\n---\nbase: &b\n  x: 1\n  list: [1, 2]\nobj:\n  <<: *b\n  y: *b\n---\nz: 3\n", [["obj", "y"], ["base", "list", 1], ["z"]]],
    ["a directive (the whole file read precisely)", "%YAML 1.2\n---\na: 1\nb:\n  c: 2\n---\nd: [3]\n", [["b", "c"], ["d", 0]]],
    ["document end markers", "a: 1\n...\n---\nb:\n  c: 2\n...\n", [["b", "c"], ["a"]]],
    ["a tag after the separator", "--- !!map\na: 1\n--- !!map\nb:\n  c: &x 2\n  d: *x\n", [["b", "d"], ["a"]]],
  ])("is offered whichever parser read the file: %s (the same values, document lines and field lines)", (_, text, paths) => {
    const fresh = parseYamlDocuments(text);
    expect(fresh.errors).toEqual([]);
    const snap = fresh.snapshot?.();
    expect(snap).toBeDefined();
    const restored = restoreYamlDocuments(text, JSON.parse(JSON.stringify(snap)));
    expect(restored.documents.map((d) => d.value)).toEqual(fresh.documents.map((d) => d.value));
    expect(restored.documents.map((d) => [d.line, d.textLength])).toEqual(fresh.documents.map((d) => [d.line, d.textLength]));
    for (const path of paths) {
      const lines = fresh.documents.map((d) => d.lineOf(path));
      expect(lines.some((l) => l !== undefined), `${path.join(".")} found somewhere`).toBe(true);
      expect(restored.documents.map((d) => d.lineOf(path))).toEqual(lines);
    }
  });
});

// What may be kept: only a value JSON gives back as it is, so that a cached parse reads as a fresh one.
describe("isJsonSafe", () => {
  const cyclic: Record<string, unknown> = { a: 1 };
  cyclic.self = cyclic;
  const shared = { k: "v" };
  const protoKey = JSON.parse('{"__proto__": {"polluted": true}, "a": 1}') as object;
  it.each<[string, unknown, boolean]>([
    ["plain data", { a: [1, "x", true, null, { b: 2.5 }], c: {} }, true],
    ["a __proto__ key (an own key, as both parsers and JSON.parse make it)", protoKey, true],
    ["a node shared by aliases (comes back as equal copies)", { a: shared, b: [shared] }, true],
    ["integers beyond 2^53 (already the nearest double; JSON writes it back the same)", { a: 123456789012345678901234567890, b: 2 ** 64 }, true],
    ["-0 (JSON writes 0)", { a: [-0] }, false],
    ["NaN", { a: NaN }, false],
    ["Infinity", [Number.NEGATIVE_INFINITY], false],
    ["a Date (!!timestamp)", { a: new Date(0) }, false],
    ["bytes (!!binary)", { a: new Uint8Array([1, 2]) }, false],
    ["a Buffer", { a: Buffer.from("x") }, false],
    ["a Set (!!set)", { a: new Set([1]) }, false],
    ["a Map (!!omap)", { a: new Map([["x", 1]]) }, false],
    ["a BigInt", { a: 1n }, false],
    ["undefined in a mapping", { a: undefined }, false],
    ["a hole in an array", { a: [1, , 3] }, false],
    ["a mapping without a prototype (JSON.parse gives one back with Object.prototype)", { a: Object.create(null) as object }, false],
    ["an Array subclass", { a: new (class extends Array {})() }, false],
    ["a value that holds itself (refused, not followed until the stack runs out)", cyclic, false],
  ])("%s: %s", (_, value, safe) => {
    expect(isJsonSafe(value)).toBe(safe);
    // A safe value comes back equal, with plain prototypes all the way down.
    if (safe) expect(JSON.parse(JSON.stringify(value))).toStrictEqual(value);
  });

  it("refuses a value nested deeper than a document may be, without running out of stack", () => {
    let deep: unknown = "leaf";
    for (let i = 0; i < 20_000; i++) deep = [deep];
    expect(isJsonSafe(deep)).toBe(false);
  });
});

describe("a YAML file read back from the disk cache reads as a fresh parse", () => {
  async function roundTrip(text: string) {
    const cacheDir = await mkdtemp(join(tmpdir(), "kpt-ts-pc-"));
    const pkgDir = await mkdtemp(join(tmpdir(), "kpt-ts-pc-pkg-"));
    await writeFile(join(pkgDir, "rg.yaml"), RG);
    await writeFile(join(pkgDir, "cm.yaml"), text);
    const cache = parseCacheFor({ KPT_TS_PARSE_CACHE: cacheDir })!;
    const fresh = await readPackage(pkgDir);
    const first = await readPackage(pkgDir, { parseCache: cache });
    const [file] = await entriesOf(cacheDir);
    const kept = Object.keys(JSON.parse(await readFile(join(cacheDir, file!), "utf8")).entries).length;
    const second = await readPackage(pkgDir, { parseCache: cache });
    return { fresh, first, second, kept };
  }
  const cm = (data: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  namespace: app\n${data}`;

  it.each<[string, string, number]>([
    // kept: the entries of the package's cache file (rg.yaml is always one).
    ["a CRD's prose full of * and & (the fast path)", cm("data:\n  a: '*.example.com && R&D'\n  b: see *this* & that\n  c: |\n    &amp; *ptr\n"), 2],
    ["anchors and aliases, a merge key among them", cm("data: &d\n  a: x\n  b: y\nextra:\n  copy: *d\n  merged:\n    <<: *d\n    c: z\n"), 2],
    ["a __proto__ key", cm("data:\n  __proto__: x\n  a: y\n"), 2],
    ["an anchored __proto__ key", cm("data: &d\n  __proto__: x\nmore: *d\n"), 2],
    ["-0 (not kept: JSON would write 0)", cm("data: {a: x}\nn: -0\n"), 1],
    ["a timestamp tag (not kept: a Date)", cm("data: {a: x}\nwhen: !!timestamp 2024-01-01\n"), 1],
    ["an untagged date (a string, as kpt reads it: kept)", cm("data: {a: x}\nwhen: 2024-01-01\n"), 2],
    ["an integer beyond 2^53", cm("data: {a: x}\nbig: 123456789012345678901234567890\n"), 2],
  ])("%s", async (_, text, kept) => {
    const { fresh, first, second, kept: n } = await roundTrip(text);
    expect(n).toBe(kept);
    const view = (p: typeof fresh) => p.objects.map((o) => [o.object, o.source]);
    expect(view(first)).toStrictEqual(view(fresh));
    expect(view(second)).toStrictEqual(view(fresh));
    const own = (o: object) => Object.prototype.hasOwnProperty.call(o, "__proto__");
    expect(own(second.objects.find((o) => o.object.kind === "ConfigMap")!.object.data ?? {})).toBe(own(fresh.objects.find((o) => o.object.kind === "ConfigMap")!.object.data ?? {}));
  });
});

describe("the package reader with a parse cache", () => {
  async function pkg(files: Record<string, string>): Promise<string> {
    const dir = await mkdtemp(join(tmpdir(), "kpt-ts-pc-pkg-"));
    for (const [name, text] of Object.entries(files)) await writeFile(join(dir, name), text);
    return dir;
  }

  it("reads the second time from the cache, with the same objects and the same error lines", async () => {
    const cacheDir = await mkdtemp(join(tmpdir(), "kpt-ts-pc-"));
    const cache = parseCacheFor({ KPT_TS_PARSE_CACHE: cacheDir })!;
    const broken = FILE.replace("name: two", "name: Two_Bad");
    const dir = await pkg({ "resources.yaml": broken, "rg.yaml": RG });
    const errorOf = async () => (await readPackage(dir, { parseCache: cache }).catch((e: unknown) => e)) as PackageError;
    const first = await errorOf();
    expect(first).toBeInstanceOf(PackageError);
    // One file for the package, with its two files' parses.
    const files = await entriesOf(cacheDir);
    expect(files).toHaveLength(1);
    const entries = Object.values(JSON.parse(await readFile(join(cacheDir, files[0]!), "utf8")).entries) as { documents: { value: any; valid?: true }[] }[];
    expect(entries).toHaveLength(2);
    // Only what was found valid is taken as valid when read back: the bad name is checked again, every run.
    const validity = Object.fromEntries(entries.flatMap((e) => e.documents).map((d) => [d.value?.metadata?.name, d.valid === true]));
    expect(validity).toMatchObject({ one: true, Two_Bad: false, three: true });
    const second = await errorOf();
    expect(second.issues).toEqual(first.issues);
    expect(first.issues[0]!.source).toEqual({ file: join(dir, "resources.yaml"), line: 15 });

    const good = await pkg({ "resources.yaml": FILE, "rg.yaml": RG });
    const a = await readPackage(good, { parseCache: cache });
    const b = await readPackage(good, { parseCache: cache });
    const c = await readPackage(good);
    expect(b.objects.map((o) => [o.object, o.source])).toEqual(a.objects.map((o) => [o.object, o.source]));
    expect(c.objects.map((o) => [o.object, o.source])).toEqual(a.objects.map((o) => [o.object, o.source]));
  });

  it("uses what the cache holds for the same text (so a second read parses nothing)", async () => {
    const cacheDir = await mkdtemp(join(tmpdir(), "kpt-ts-pc-"));
    const cache = parseCacheFor({ KPT_TS_PARSE_CACHE: cacheDir })!;
    const dir = await pkg({ "resources.yaml": FILE, "rg.yaml": RG });
    await readPackage(dir, { parseCache: cache });
    for (const f of await entriesOf(cacheDir)) {
      const stored = JSON.parse(await readFile(join(cacheDir, f), "utf8"));
      for (const snap of Object.values(stored.entries) as { documents: { value: any }[] }[]) {
        for (const d of snap.documents) if (d.value?.metadata?.name === "one") d.value.data.key = "from the cache";
      }
      await writeFile(join(cacheDir, f), JSON.stringify(stored));
    }
    const read = await readPackage(dir, { parseCache: cache });
    expect(read.objects.find((o) => o.object.metadata.name === "one")!.object.data).toEqual({ key: "from the cache" });
  });

  // (The timeout bounds a hang on a busy machine; it measures nothing.)
  it("keeps every file of a CRD bundle whose descriptions are full of `*` and `&` (a second read parses nothing)", { timeout: 60_000 }, async () => {
    const bundle = join(import.meta.dirname, "..", "..", "fixtures", "field", "prometheus-operator");
    const files = Object.fromEntries(await Promise.all((await readdir(bundle)).filter((f) => f.endsWith(".yaml")).map(async (f) => [f, await readFile(join(bundle, f), "utf8")] as const)));
    const cacheDir = await mkdtemp(join(tmpdir(), "kpt-ts-pc-"));
    const cache = parseCacheFor({ KPT_TS_PARSE_CACHE: cacheDir })!;
    const dir = await pkg({ ...files, "rg.yaml": RG.replace(/namespace: app/, "namespace: monitoring") });
    const first = await readPackage(dir, { parseCache: cache });
    const [file] = await entriesOf(cacheDir);
    expect(Object.keys(JSON.parse(await readFile(join(cacheDir, file!), "utf8")).entries)).toHaveLength(Object.keys(files).length + 1);
    const second = await readPackage(dir, { parseCache: cache });
    expect(second.objects.map((o) => [o.object, o.source])).toEqual(first.objects.map((o) => [o.object, o.source]));
  });

  it("a value JSON has no form for (!!binary, !!set, !!omap) reads the same the second time: bytes as base64, the others refused", async () => {
    const cacheDir = await mkdtemp(join(tmpdir(), "kpt-ts-pc-"));
    const cache = parseCacheFor({ KPT_TS_PARSE_CACHE: cacheDir })!;
    const binary = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: bin, namespace: app}\nbinaryData:\n  b: !!binary aGVsbG8=\n";
    const dir = await pkg({ "bin.yaml": binary, "rg.yaml": RG });
    for (let run = 0; run < 2; run++) {
      const read = await readPackage(dir, { parseCache: cache });
      expect(read.objects[0]!.object.binaryData, `run ${run + 1}`).toEqual({ b: "aGVsbG8=" });
    }
    for (const [tag, value] of [["!!set", "{a, b}"], ["!!omap", "[{a: 1}]"]]) {
      const bad = await pkg({ "bad.yaml": `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: bad, namespace: app}\ndata:\n  x: ${tag} ${value}\n`, "rg.yaml": RG });
      for (let run = 0; run < 2; run++) {
        const err = await readPackage(bad, { parseCache: cache }).catch((e: unknown) => e);
        expect(err, `${tag}, run ${run + 1}`).toBeInstanceOf(PackageError);
      }
    }
  });

  it("measures a large document's request size once: read back, an object over the API server's limit is refused alike", { timeout: 60_000 }, async () => {
    const cacheDir = await mkdtemp(join(tmpdir(), "kpt-ts-pc-"));
    const cache = parseCacheFor({ KPT_TS_PARSE_CACHE: cacheDir })!;
    const data = Array.from({ length: 40 }, (_, i) => `  k${i}: ${"x".repeat(80 * 1024)}\n`).join("");
    const dir = await pkg({ "big.yaml": `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: big, namespace: app}\ndata:\n${data}`, "rg.yaml": RG });
    const issues = async () => ((await readPackage(dir, { parseCache: cache }).catch((e: unknown) => e)) as PackageError).issues;
    const first = await issues();
    expect(first).toEqual([expect.objectContaining({ object: "ConfigMap/big", message: expect.stringMatching(/^the object is 3\.1 MiB as JSON; the API server refuses requests over 3 MiB/) })]);
    const [file] = await entriesOf(cacheDir);
    const stored = Object.values(JSON.parse(await readFile(join(cacheDir, file!), "utf8")).entries) as { documents: { requestBytes?: number }[] }[];
    expect(stored.flatMap((e) => e.documents.map((d) => d.requestBytes)).filter((b) => b !== undefined)).toEqual([expect.any(Number)]);
    expect(await issues()).toEqual(first);
  });

  it("never writes anything of a Secret (or of a List with one) to the cache: its document is parsed again from the file, the rest of the file is kept", async () => {
    const cacheDir = await mkdtemp(join(tmpdir(), "kpt-ts-pc-"));
    const cache = parseCacheFor({ KPT_TS_PARSE_CACHE: cacheDir })!;
    const secret = "apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\n  namespace: app\nstringData:\n  password: hunter2\n";
    const list = "apiVersion: v1\nkind: List\nitems:\n  - apiVersion: v1\n    kind: Secret\n    metadata: {name: t, namespace: app}\n    stringData: {token: tokenvalue-xyz}\n";
    // One document has anchors (the precise parser reads that one); the Secret beside it has an anchor too.
    const anchored = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: app}\ndata: {a: &v x, b: *v}\n---\napiVersion: v1\nkind: Secret\nmetadata: {name: u, namespace: app}\nstringData: &p {pass: swordfish}\n";
    // Prose like a bundle's, a Secret among its objects (Argo CD's install.yaml holds three).
    const bundle = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: d, namespace: app}\ndata: {hosts: '*.example.com & more'}\n---\n# the Secret\napiVersion: v1\nkind: Secret\nmetadata:\n  name: v\n  namespace: app\ndata:\n  key: c2VzYW1l\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: e, namespace: app}\n";
    // Read whole by the precise parser (a directive): it has no chunks to parse again, so not kept.
    const directive = "%YAML 1.2\n---\napiVersion: v1\nkind: Secret\nmetadata: {name: w, namespace: app}\nstringData: {key: opensesame}\n";
    const dir = await pkg({ "secret.yaml": secret, "list.yaml": list, "anchored.yaml": anchored, "bundle.yaml": bundle, "directive.yaml": directive, "rg.yaml": RG });
    const fresh = await readPackage(dir);
    const first = await readPackage(dir, { parseCache: cache });
    const entries = await entriesOf(cacheDir);
    expect(entries).toHaveLength(1);
    const stored = await readFile(join(cacheDir, entries[0]!), "utf8");
    expect(Object.keys(JSON.parse(stored).entries)).toHaveLength(5); // all but directive.yaml
    expect(stored).not.toMatch(/hunter2|tokenvalue|swordfish|opensesame|c2VzYW1l|Secret/);
    // Read back: the same objects, Secrets included (their values from the files), at the same lines.
    const second = await readPackage(dir, { parseCache: cache });
    const view = (p: typeof fresh) => p.objects.map((o) => [o.object, o.source]);
    expect(view(first)).toStrictEqual(view(fresh));
    expect(view(second)).toStrictEqual(view(fresh));
    expect(second.objects.find((o) => o.object.metadata.name === "v")!.source.line).toBe(7);
    // A Secret's file changed: read as it now is.
    await writeFile(join(dir, "bundle.yaml"), bundle.replace("c2VzYW1l", "b3BlbiBzZXNhbWU="));
    const third = await readPackage(dir, { parseCache: cache });
    expect(third.objects.find((o) => o.object.metadata.name === "v")!.object.data).toEqual({ key: "b3BlbiBzZXNhbWU=" });
  });

  it("a Secret's document that does not read as it did (a cache entry made for other text) is an error with its line, not an empty object", () => {
    const text = "a: 1\n---\nkind: Secret\nmetadata: {name: s}\n";
    const snap = parseYamlDocuments(text).snapshot!((v) => (v as { kind?: string }).kind === "Secret")!;
    expect(snap.documents[1]).toMatchObject({ value: null, parseAgain: true });
    expect(restoreYamlDocuments(text, snap).documents.map((d) => d.value)).toEqual([{ a: 1 }, { kind: "Secret", metadata: { name: "s" } }]);
    const broken = restoreYamlDocuments("a: 1\n---\nkind: [Secret\nmetadata: {name: s}\n", snap);
    expect(broken.errors).toEqual([expect.objectContaining({ line: 3 })]);
    expect(broken.snapshot).toBeUndefined();
  });

  it("removes entries unused for longer than the age it is given, and keeps the others", async () => {
    const dir = await mkdtemp(join(tmpdir(), "kpt-ts-pc-"));
    await writeFile(join(dir, "old.json"), "{}");
    await writeFile(join(dir, "new.json"), "{}");
    const monthAgo = new Date(Date.now() - 31 * 24 * 3600 * 1000);
    await utimes(join(dir, "old.json"), monthAgo, monthAgo);
    await removeUnused(dir, 30 * 24 * 3600 * 1000);
    expect(await readdir(dir)).toEqual(["new.json"]);
  });

  it("is off with KPT_TS_PARSE_CACHE=off, and under the user's cache directory by default", async () => {
    expect(parseCacheFor({ KPT_TS_PARSE_CACHE: "off" })).toBeUndefined();
    const home = await mkdtemp(join(tmpdir(), "kpt-ts-pc-home-"));
    await mkdir(join(home, "c"));
    const cache = parseCacheFor({ XDG_CACHE_HOME: join(home, "c") })!;
    const pkgCache = cache.open("/some/package");
    pkgCache.write("x: 1\n", { documents: [] });
    await pkgCache.save();
    expect(await entriesOf(join(home, "c", "kpt-ts", "parsed"))).toHaveLength(1);
  });
});
