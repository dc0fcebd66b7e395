// Issue 30: a document goes to the precise parser only when it really defines an anchor. CRD
// prose is full of `*` and `&` (`*.example.com`, `&&`, `*experimental*`) inside plain, quoted and
// block scalars; such documents keep the fast path (the precise parser, which costs about ten
// times as much and 25 ms to load, is not even loaded), while a document with anchors and aliases
// still reads exactly as YAML says, and what YAML refuses (alias bombs, aliases that contain
// themselves, js-yaml's leniency around anchors) is still refused.
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { Document, Scalar, stringify } from "yaml";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { parseYamlDocuments, parseYamlDocumentsPrecisely } from "../../src/object/yaml-documents.js";
import { yamlLib } from "../../src/object/yaml-lib.js";

// The precise parser's loader, watched: the fast path never calls it.
vi.mock("../../src/object/yaml-lib.js", async (importOriginal) => {
  const real = await importOriginal<typeof import("../../src/object/yaml-lib.js")>();
  return { yamlLib: vi.fn(real.yamlLib) };
});
const preciseLoads = vi.mocked(yamlLib);
beforeEach(() => preciseLoads.mockClear());

const RUNS = Number(process.env.KPT_TS_PROPERTY_RUNS ?? 200);
const TIMEOUT = 30_000 + RUNS * 40;
const FIELD = join(import.meta.dirname, "..", "..", "fixtures", "field");

/** Prose as CRD descriptions have it. */
const PROSE = ["*.example.com", "a && b", "R&D", "&amp;", "*experimental*", "**Warning:**", "e.g. *.yaml.sealed", "x *y", "&x", "*x", "[*]", "{&}", "a: b", "#", "- item", "'", '"', "\\"];
const prose = fc.array(fc.oneof(fc.constantFrom(...PROSE), fc.string({ maxLength: 8 })), { minLength: 1, maxLength: 12 }).map((words) => words.join(" "));
const STYLES = [Scalar.PLAIN, Scalar.QUOTE_DOUBLE, Scalar.QUOTE_SINGLE, Scalar.BLOCK_LITERAL, Scalar.BLOCK_FOLDED] as const;

describe("prose with `*` and `&` stays on the fast path", { timeout: TIMEOUT }, () => {
  it("whatever scalar style holds it (plain over several lines, quoted, block): the same values and lines as the precise parser, which is never loaded", () => {
    const doc = fc.record({ description: prose, nested: fc.dictionary(fc.constantFrom("a", "b", "c"), prose, { maxKeys: 3 }), list: fc.array(prose, { maxLength: 3 }) });
    fc.assert(
      fc.property(fc.array(doc, { minLength: 1, maxLength: 3 }), fc.constantFrom(...STYLES), fc.integer({ min: 20, max: 80 }), (values, style, lineWidth) => {
        const text = values.map((v) => stringify({ apiVersion: "v1", kind: "X", spec: v }, { defaultStringType: style, lineWidth, minContentWidth: 10 })).join("---\n");
        preciseLoads.mockClear();
        const fast = parseYamlDocuments(text);
        expect(preciseLoads).not.toHaveBeenCalled();
        const precise = parseYamlDocumentsPrecisely(text);
        expect(fast.errors).toEqual([]);
        expect(fast.documents.map((d) => d.value)).toEqual(precise.documents.map((d) => d.value));
        expect(fast.documents.map((d) => d.line)).toEqual(precise.documents.map((d) => d.line));
      }),
      { numRuns: RUNS },
    );
  });

  it.each(["argocd", "prometheus-operator", "argo-rollouts", "metrics-server"])("the %s bundle: every file read without the precise parser, each with a snapshot for the cache", (bundle) => {
    const dir = join(FIELD, bundle);
    for (const name of readdirSync(dir).filter((f) => f.endsWith(".yaml"))) {
      const parsed = parseYamlDocuments(readFileSync(join(dir, name), "utf8"));
      expect(parsed.errors, name).toEqual([]);
      expect(parsed.snapshot?.(), name).toBeDefined();
    }
    expect(preciseLoads).not.toHaveBeenCalled();
  });
});

describe("a document with anchors reads as YAML says", { timeout: TIMEOUT }, () => {
  it("shared values written as anchors and aliases: the values the serializer was given, and the precise parser's lines", () => {
    const leaf = fc.dictionary(fc.string({ minLength: 1, maxLength: 6 }), fc.jsonValue({ maxDepth: 2 }), { minKeys: 1, maxKeys: 3 });
    fc.assert(
      fc.property(leaf, fc.array(fc.string({ minLength: 1, maxLength: 6 }), { minLength: 2, maxLength: 4 }), fc.boolean(), (shared, keys, withPlainDocBefore) => {
        // One object under several keys: the serializer writes it once with an anchor, then aliases.
        const value = Object.fromEntries(keys.map((k) => [k, shared]));
        // (A key "<<" it writes unquoted is a merge key to a YAML 1.1 reader, Go's yaml.v3 and both of ours.)
        fc.pre(!JSON.stringify(value).includes('"<<"'));
        const anchored = new Document(value, { aliasDuplicateObjects: true }).toString();
        const text = withPlainDocBefore ? `a: "*.example.com & more"\n---\n${anchored}` : anchored;
        const fast = parseYamlDocuments(text);
        const precise = parseYamlDocumentsPrecisely(text);
        expect(fast.errors).toEqual([]);
        expect(fast.documents.at(-1)!.value).toEqual(value);
        expect(fast.documents.map((d) => d.value)).toEqual(precise.documents.map((d) => d.value));
        expect(fast.documents.map((d) => d.line)).toEqual(precise.documents.map((d) => d.line));
        const first = [Object.keys(value)[0]!];
        expect(fast.documents.at(-1)!.lineOf(first)).toBe(precise.documents.at(-1)!.lineOf(first));
      }),
      { numRuns: RUNS },
    );
  });

  it.each([
    ["an anchor and its alias", "a: &x {b: 1}\nc: *x\n", [{ a: { b: 1 }, c: { b: 1 } }]],
    ["a merge key through an alias", "base: &b {x: 1}\nobj:\n  <<: *b\n  y: 2\n", [{ base: { x: 1 }, obj: { x: 1, y: 2 } }]],
    ["an anchor redefined: an alias takes the last one before it", "a: &x 1\nb: *x\nc: &x 2\nd: *x\n", [{ a: 1, b: 1, c: 2, d: 2 }]],
    ["anchors in one document of several, prose in the others", "d: '*.example.com'\n---\na: &x 1\nb: *x\n---\ne: R&D\n", [{ d: "*.example.com" }, { a: 1, b: 1 }, { e: "R&D" }]],
  ])("%s", (_, text, values) => {
    const parsed = parseYamlDocuments(text);
    expect(parsed.errors).toEqual([]);
    expect(parsed.documents.map((d) => d.value)).toEqual(values);
    expect(parsed.documents.map((d) => d.line)).toEqual(parseYamlDocumentsPrecisely(text).documents.map((d) => d.line));
  });

  it.each([
    ["js-yaml's leniency (an anchor before a compact mapping)", "ok: 1\n---\na: &x b: c\n", 3, /Nested mappings are not allowed in compact mappings/],
    ["an alias to an anchor defined nowhere", "a: *nowhere\n", 1, /Unresolved alias/],
    ["an alias inside its own anchor's node", "ok: 1\n---\na: &x\n  b: [1, *x]\n", 4, /the alias \*x is inside the node its anchor &x marks/],
    ["an alias bomb", `a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n${Array.from({ length: 8 }, (_, i) => `a${i + 1}: &a${i + 1} [${Array(10).fill(`*a${i}`).join(", ")}]`).join("\n")}\n`, 1, /excessive aliasing/],
  ])("refused as YAML refuses it: %s", (_, text, line, message) => {
    const parsed = parseYamlDocuments(text);
    expect(parsed.errors).toHaveLength(1);
    expect(parsed.errors[0]!.line).toBe(line);
    expect(parsed.errors[0]!.message).toMatch(message);
    expect(parsed.snapshot?.()).toBeUndefined();
  });
});
