// Property-based tests of everything that reads user input before the cluster is touched: the
// YAML reader, the package reader and the depends-on parser. Whatever the input (arbitrary
// strings, bytes, YAML-ish token soup, mutated manifests, arbitrary annotation values) they
// either accept it or refuse it with the typed PackageError; they never crash with another
// exception. KPT_TS_PROPERTY_RUNS scales the number of runs per property (default 200).
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { stringify } from "yaml";
import { describe, expect, it } from "vitest";
import { parseDependsOn } from "../../src/order/depends-on.js";
import { graphIssuesError } from "../../src/order/graph-issues.js";
import { orderWaves } from "../../src/order/graph.js";
import { prepareObjects } from "../../src/plan/prepare-objects.js";
import type { Cluster } from "../../src/cluster/types.js";
import { PackageError } from "../../src/model/errors.js";
import { decodeText } from "../../src/object/file-text.js";
import { analyzePackage, parsePackage } from "../../src/object/parse-package.js";
import { readPackage } from "../../src/object/read-package.js";
import { formatDependsOnRef, refOf, type ObjRef } from "../../src/model/ref.js";
import { parseYamlDocuments, parseYamlDocumentsPrecisely } from "../../src/object/yaml-documents.js";

const RUNS = Number(process.env.KPT_TS_PROPERTY_RUNS ?? 200);
/** Enough time for the runs asked for on a busy machine (this bounds a hang, it does not measure speed). */
const TIMEOUT = 30_000 + RUNS * 40;
const params = <T>(factor = 1): fc.Parameters<T> => ({ numRuns: Math.max(1, Math.round(RUNS * factor)) });

const RG = "apiVersion: kpt.dev/v1alpha1\nkind: ResourceGroup\nmetadata:\n  name: inv\n  namespace: ns\n  labels:\n    cli-utils.sigs.k8s.io/inventory-id: prop\n";
const CM = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web\n  namespace: ns\n  labels:\n    app: web\n  annotations:\n    note: \"hi\"\ndata:\n  key: value\n  list: [a, b]\n";

/** Text that looks like YAML: its tokens, indentation, separators, anchors, tags, quotes, in any order. */
const YAML_TOKENS = [
  "apiVersion: v1", "kind: ConfigMap", "kind: List", "items:", "metadata:", "name: x", "namespace: ns", "labels:", "annotations:",
  "config.kubernetes.io/depends-on: /namespaces/ns/ConfigMap/x", "- ", "-", "---", "...", "&a ", "*a", "<<: *a", "<<: ", "{", "}", "[", "]",
  ",", ":", ": ", "? ", "#", "|", "|-", ">", "!!str ", "!!binary ", "!foo ", "%YAML 1.2", "%TAG ! tag:x,2000:", '"', "'", "\\", "\t", " ", "  ",
  "\n", "\r\n", "\r", "\u00a0", "\ufeff", "null", "~", "true", "0x1F", "1e3", "2024-01-01", "é", "😀", "\u0000", "\u0085",
];
const yamlish = fc.array(fc.constantFrom(...YAML_TOKENS), { maxLength: 60 }).map((t) => t.join(""));

/** A valid manifest with random edits: inserted special characters, deleted spans, swapped lines. */
const mutatedManifest = fc
  .array(
    fc.oneof(
      fc.record({ op: fc.constant("insert" as const), at: fc.nat(), text: fc.constantFrom(...YAML_TOKENS) }),
      fc.record({ op: fc.constant("delete" as const), at: fc.nat(), len: fc.integer({ min: 1, max: 8 }) }),
      fc.record({ op: fc.constant("swap" as const), at: fc.nat(), with: fc.nat() }),
    ),
    { minLength: 1, maxLength: 6 },
  )
  .map((edits) => {
    let text = `${RG}---\n${CM}`;
    for (const e of edits) {
      if (e.op === "insert") {
        const at = e.at % (text.length + 1);
        text = text.slice(0, at) + e.text + text.slice(at);
      } else if (e.op === "delete") {
        const at = e.at % (text.length + 1);
        text = text.slice(0, at) + text.slice(at + e.len);
      } else {
        const lines = text.split("\n");
        const a = e.at % lines.length;
        const b = e.with % lines.length;
        [lines[a], lines[b]] = [lines[b]!, lines[a]!];
        text = lines.join("\n");
      }
    }
    return text;
  });

/** Any YAML value a manifest field could hold, as YAML text. */
const anyValue = fc.oneof(fc.string(), fc.string({ unit: "binary" }), fc.integer(), fc.double(), fc.boolean(), fc.constant(null), fc.array(fc.string(), { maxLength: 3 }), fc.dictionary(fc.string(), fc.string(), { maxKeys: 3 }));

function analyze(files: Record<string, string>, fromStdin = false) {
  return analyzePackage({ path: "pkg", fromStdin, files: Object.entries(files).map(([path, content]) => ({ path, content })) }, { requireInventory: true });
}

/** Either a package, or the typed refusal; anything else escapes and fails the property. */
function parseOrRefuse(files: Record<string, string>): "ok" | "refused" {
  try {
    parsePackage({ path: "pkg", fromStdin: false, files: Object.entries(files).map(([path, content]) => ({ path, content })) }, { requireInventory: true });
    return "ok";
  } catch (err) {
    if (err instanceof PackageError) return "refused";
    throw err;
  }
}

const lineCount = (text: string): number => text.split(/\r\n|\r|\n/).length;

function checkLines(text: string): void {
  const parsed = parseYamlDocuments(text);
  const max = lineCount(text) + 1;
  for (const e of parsed.errors) {
    expect(e.line).toBeGreaterThanOrEqual(1);
    expect(e.line).toBeLessThanOrEqual(max);
    expect(typeof e.message).toBe("string");
  }
  for (const d of parsed.documents) {
    expect(d.line).toBeGreaterThanOrEqual(1);
    expect(d.line).toBeLessThanOrEqual(max);
  }
}

describe("the YAML reader never throws", { timeout: TIMEOUT }, () => {
  it.each<[string, fc.Arbitrary<string>]>([
    ["arbitrary strings", fc.string({ maxLength: 300 })],
    ["arbitrary unicode", fc.string({ unit: "binary", maxLength: 300 })],
    ["YAML-ish token soup", yamlish],
    ["manifests with random edits", mutatedManifest],
  ])("%s: documents or located syntax errors, every line within the text", (_, arb) => {
    fc.assert(fc.property(arb, (text) => checkLines(text)), params());
  });

  it("the fast path and the precise parser agree on any YAML document a serializer writes", () => {
    const doc = fc.dictionary(fc.string({ minLength: 1, maxLength: 10 }), fc.jsonValue({ maxDepth: 3 }), { minKeys: 1, maxKeys: 6 });
    fc.assert(
      fc.property(fc.array(doc, { minLength: 1, maxLength: 3 }), (values) => {
        const text = values.map((v) => stringify(v)).join("---\n");
        const fast = parseYamlDocuments(text);
        const precise = parseYamlDocumentsPrecisely(text);
        // (The serializer may write a key "<<" unquoted, a merge key for a YAML 1.1 reader: then both must refuse it.)
        expect(fast.errors).toEqual(precise.errors);
        expect(fast.documents.map((d) => d.value)).toEqual(precise.documents.map((d) => d.value));
        expect(fast.documents.map((d) => d.line)).toEqual(precise.documents.map((d) => d.line));
      }),
      params(),
    );
  });
});

describe("the fast path reads what the precise parser reads (cases fast-check found)", () => {
  it.each([
    ["a signed float without a leading digit", "a: -.5\n", { a: -0.5 }],
    ["underscores are not digits in YAML 1.2", "a: 1_000\n", { a: "1_000" }],
    ["no binary integers in YAML 1.2", "a: 0b101\n", { a: "0b101" }],
    ["octal and hexadecimal", "a: 0o17\nb: 0x1F\nc: 017\n", { a: 15, b: 31, c: 17 }],
    ["infinity and exponents", "a: .inf\nb: -.Inf\nc: 1e3\n", { a: Infinity, b: -Infinity, c: 1000 }],
    ["an inline merge key merges", "a:\n  <<: {b: 1}\n  c: 2\n", { a: { b: 1, c: 2 } }],
    ["a quoted merge key is a plain key", 'a:\n  "<<": {b: 1}\n', { a: { "<<": { b: 1 } } }],
    ["`---#` is a scalar, not a separator", "---#\n", "---#"],
  ])("%s", (_, text, value) => {
    expect(parseYamlDocuments(text).documents.map((d) => d.value)).toEqual([value]);
    expect(parseYamlDocumentsPrecisely(text).documents.map((d) => d.value)).toEqual([value]);
  });
});

describe("decoding a file's bytes never throws", { timeout: TIMEOUT }, () => {
  it("arbitrary bytes: text with only YAML's printable characters, or a located refusal", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 400 }), (bytes) => {
        const d = decodeText(bytes);
        if (d.ok) expect(d.text).not.toMatch(/[\x00-\x08\x0B\x0C\x0E-\x1F\x7F]/);
        else {
          expect(d.line).toBeGreaterThanOrEqual(1);
          expect(d.line).toBeLessThanOrEqual(bytes.filter((b) => b === 10).length + 1);
        }
      }),
      params(),
    );
  });

  it("UTF-8 text of printable characters decodes to itself; with a UTF-16 byte order mark, too", () => {
    const printable = fc.string({ unit: "binary", maxLength: 200 }).filter((s) => !/[\x00-\x08\x0B\x0C\x0E-\x1F\x7F-\x84\x86-\x9F\uFFFE\uFFFF]/.test(s));
    fc.assert(
      fc.property(printable, (s) => {
        expect(decodeText(Buffer.from(s, "utf8"))).toEqual({ ok: true, text: s });
        expect(decodeText(Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(s, "utf16le")]))).toEqual({ ok: true, text: s });
        expect(decodeText(Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(s, "utf16le").swap16()]))).toEqual({ ok: true, text: s });
      }),
      params(),
    );
  });
});

describe("the package reader accepts or refuses with PackageError, nothing else", { timeout: TIMEOUT }, () => {
  it("arbitrary files beside a valid inventory", () => {
    const files = fc.dictionary(fc.constantFrom("a.yaml", "b.yml", "sub/c.yaml", "Kptfile", "sub/Kptfile"), fc.oneof(fc.string({ maxLength: 200 }), yamlish, mutatedManifest), { maxKeys: 4 });
    fc.assert(
      fc.property(files, (f) => {
        const result = analyze({ "rg.yaml": RG, ...f });
        for (const i of result.issues) expect(typeof i.message).toBe("string");
        expect(["ok", "refused"]).toContain(parseOrRefuse({ "rg.yaml": RG, ...f }));
      }),
      params(),
    );
  });

  it("standard input of any YAML-ish text", () => {
    fc.assert(
      fc.property(fc.oneof(yamlish, mutatedManifest), (text) => {
        const result = analyze({ stdin: text }, true);
        for (const i of result.issues) if (i.source) expect(i.source.file).toBe("stdin");
      }),
      params(),
    );
  });

  it("arbitrary values in any metadata field and annotation, through the checks before the first write", async () => {
    const field = fc.constantFrom("name", "namespace", "generateName", "labels", "annotations", "uid");
    const annotationKey = fc.constantFrom("config.kubernetes.io/depends-on", "config.kubernetes.io/local-config", "config.kubernetes.io/function", "example.com/x", "Bad Key", "");
    const cluster = discoveryOnly();
    await fc.assert(
      fc.asyncProperty(field, anyValue, annotationKey, anyValue, async (f, v, key, annotation) => {
        const meta: Record<string, unknown> = { name: "obj", namespace: "ns", [f]: v, annotations: { [key]: annotation } };
        const text = stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: meta });
        await acceptOrRefuse({ "rg.yaml": RG, "a.yaml": text, "b.yaml": CM }, cluster);
      }),
      params(0.5),
    );
  });

  it("arbitrary bytes in a package file on disk", async () => {
    const root = await mkdtemp(join(tmpdir(), "kpt-ts-prop-"));
    try {
      await writeFile(join(root, "rg.yaml"), RG);
      await fc.assert(
        fc.asyncProperty(fc.oneof(fc.uint8Array({ maxLength: 300 }), mutatedManifest.map((t) => Buffer.from(t))), async (bytes) => {
          await writeFile(join(root, "a.yaml"), bytes);
          try {
            await readPackage(root);
          } catch (err) {
            if (!(err instanceof PackageError)) throw err;
          }
        }),
        params(0.25),
      );
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});

describe("the depends-on parser", { timeout: TIMEOUT }, () => {
  it("never throws on any annotation value: references or cli-utils' parse error", () => {
    const value = fc.oneof(
      fc.string({ maxLength: 120 }),
      fc.string({ unit: "binary", maxLength: 60 }),
      fc.array(fc.constantFrom("/", ",", " ", "namespaces", "ns", "apps", "Deployment", "web", "", "\t", "\n"), { maxLength: 20 }).map((t) => t.join("")),
    );
    fc.assert(
      fc.property(value, (v) => {
        const r = parseDependsOn(v);
        if (r.ok) expect(r.refs.length).toBe(v.split(",").length);
        else expect(r.message).toMatch(/^invalid "config\.kubernetes\.io\/depends-on" annotation: failed to parse object reference \(index: \d+\): /);
      }),
      params(),
    );
  });

  it("reads back what it writes", () => {
    const segment = fc.stringMatching(/^[a-z0-9][a-z0-9.-]{0,15}$/);
    const ref = fc.record({ group: fc.oneof(fc.constant(""), segment), kind: fc.stringMatching(/^[A-Z][A-Za-z]{0,12}$/), namespace: fc.oneof(fc.constant(""), segment), name: segment });
    fc.assert(
      fc.property(fc.array(ref, { minLength: 1, maxLength: 5 }), (refs: ObjRef[]) => {
        expect(parseDependsOn(refs.map(formatDependsOnRef).join(","))).toEqual({ ok: true, refs });
        // Whitespace around references is trimmed, as cli-utils does.
        expect(parseDependsOn(refs.map((r) => ` ${formatDependsOnRef(r)} `).join(","))).toEqual({ ok: true, refs });
      }),
      params(),
    );
  });

  it("any depends-on graph among a package's objects: waves, or located PackageErrors", async () => {
    const names = ["a", "b", "c", "d"];
    const dep = fc.oneof(fc.constantFrom(...names).map((n) => `/namespaces/ns/ConfigMap/${n}`), fc.constantFrom("/ConfigMap/a", "/namespaces/other/ConfigMap/a", "apps/namespaces/ns/Deployment/a", "bad", ""));
    const cluster = discoveryOnly();
    await fc.assert(
      fc.asyncProperty(fc.array(fc.array(dep, { maxLength: 3 }), { minLength: 4, maxLength: 4 }), async (deps) => {
        const docs = names.map((n, i) =>
          stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: n, namespace: "ns", ...(deps[i]!.length ? { annotations: { "config.kubernetes.io/depends-on": deps[i]!.join(",") } } : {}) } }),
        );
        const outcome = await acceptOrRefuse({ "rg.yaml": RG, "cms.yaml": docs.join("---\n") }, cluster);
        if (outcome instanceof PackageError) for (const i of outcome.issues) expect(i.source?.file).toBe("pkg/cms.yaml");
      }),
      params(0.5),
    );
  });
});

/** A cluster that only answers discovery (built-in kinds): nothing else may happen before the input is checked. */
function discoveryOnly(): Cluster {
  const scopes: Record<string, "Namespaced" | "Cluster"> = { "/ConfigMap": "Namespaced", "/Namespace": "Cluster", "apps/Deployment": "Namespaced" };
  const refuse = (): never => {
    throw new Error("the cluster was used beyond discovery");
  };
  return {
    defaultNamespace: "ns",
    namespaceEnforced: false,
    server: "https://fake",
    scopeOf: async (group, kind) => scopes[`${group}/${kind}`],
    serves: refuse,
    resetDiscovery: () => undefined,
    get: refuse,
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

/** parsePackage, prepareObjects and the dependency graph, as `live apply` runs them before writing. */
async function acceptOrRefuse(files: Record<string, string>, cluster: Cluster): Promise<"ok" | PackageError> {
  try {
    const pkg = parsePackage({ path: "pkg", fromStdin: false, files: Object.entries(files).map(([path, content]) => ({ path, content })) }, { requireInventory: true });
    const prepared = await prepareObjects(pkg, cluster, pkg.inventory);
    const ordered = orderWaves(prepared.map((po) => ({ ref: refOf(po.object), object: po.object })));
    if (ordered.issues.length) throw graphIssuesError(ordered.issues, prepared);
    return "ok";
  } catch (err) {
    if (err instanceof PackageError) return err;
    throw err;
  }
}

