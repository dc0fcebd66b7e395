// Splits one YAML file into documents and keeps a way back from any field to its line, so
// every message about a package can point at the exact place to fix.

import jsyaml from "js-yaml";
import type { Document, Node } from "yaml";
import { yamlLib as yaml } from "./yaml-lib.js";

export type FieldPath = readonly (string | number)[];

interface YamlDocument {
  /** The document as plain data (mappings become objects). */
  value: unknown;
  /** 1-based line where the document's content starts. */
  line: number;
  /** 1-based line of the field at `path` (the key's line for a mapping entry), if the field exists. */
  lineOf(path: FieldPath): number | undefined;
  /** Characters of YAML text the document spans (a cheap bound on its size). */
  textLength?: number;
  /** The value holds only what JSON holds (it was read back from JSON): nothing to convert. */
  plainJson?: boolean;
  /** Its size as a request to the API server, when the parse cache has it (parse-package.ts). */
  requestBytes?: number;
  /** Checked when first read, and nothing was wrong with it (parse-package.ts). */
  valid?: true;
}

interface YamlSyntaxError {
  line: number;
  message: string;
}

export interface ParsedYaml {
  documents: YamlDocument[];
  errors: YamlSyntaxError[];
  /**
   * The result as plain data that `restoreYamlDocuments` turns back into the same documents, for
   * a cache between runs (parse-cache.ts), whichever path read the file; absent when the file has
   * errors or holds a value JSON cannot carry (NaN, infinities, -0). A document `withhold` names
   * (a Secret) is kept as its place in the text alone, and parsed again from there when restored;
   * a file read whole by the precise parser has no such places, so it is not kept at all then.
   */
  snapshot?: (withhold?: (value: unknown) => boolean) => YamlSnapshot | undefined;
}

/**
 * A file's documents as JSON: each value with the lines its chunk spans. `wholeFile`: the file
 * could not be split into chunks (unusual separators, directives), so a field's line comes from
 * parsing the whole text again, and `index` is the document's place among the file's documents.
 */
export interface YamlSnapshot {
  documents: { value: unknown; line: number; firstLine: number; lineCount: number; textLength: number; index?: number; requestBytes?: number; valid?: true; parseAgain?: true }[];
  wholeFile?: boolean;
}

/**
 * The YAML 1.2 core schema exactly as the precise parser (`yaml`) reads it, so a file means the
 * same whichever path reads it: js-yaml's own core schema differs on numbers (it reads `1_000`
 * and `0b101` as integers and `-.5` as a string). No timestamps (`2024-01-01` stays a string, as
 * kpt reads it); `<<` merge keys, which Go's yaml.v3 honours, as an implicit type (an array given
 * to extend() would add an explicit one, used only by `!!merge`-tagged keys).
 */
const jsyamlTypes = (jsyaml as unknown as { types: Record<"null" | "bool" | "merge", jsyaml.Type> }).types;

const INT = { decimal: /^[-+]?[0-9]+$/, octal: /^0o[0-7]+$/, hex: /^0x[0-9a-fA-F]+$/ };
const FLOAT = { plain: /^[-+]?(?:\.[0-9]+|[0-9]+\.[0-9]*)$/, exp: /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)[eE][-+]?[0-9]+$/, special: /^(?:[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN)$/ };

/**
 * Whether a plain scalar may be a number at all: most are words (names, descriptions), and this
 * one look at the first character spares them the regular expressions below.
 */
function mayBeNumber(s: string | null): s is string {
  if (s === null || s === "") return false;
  const c = s.charCodeAt(0);
  return (c >= 0x30 && c <= 0x39) || c === 0x2d || c === 0x2b || c === 0x2e; // 0-9 - + .
}

const CORE_INT = new jsyaml.Type("tag:yaml.org,2002:int", {
  kind: "scalar",
  resolve: (s: string | null) => mayBeNumber(s) && (INT.decimal.test(s) || INT.octal.test(s) || INT.hex.test(s)),
  construct: (s: string) => (INT.octal.test(s) ? parseInt(s.slice(2), 8) : INT.hex.test(s) ? parseInt(s.slice(2), 16) : parseInt(s, 10)),
  predicate: (v: unknown) => Number.isInteger(v),
  represent: (v: object) => String(v),
});

const CORE_FLOAT = new jsyaml.Type("tag:yaml.org,2002:float", {
  kind: "scalar",
  resolve: (s: string | null) => mayBeNumber(s) && (FLOAT.plain.test(s) || FLOAT.exp.test(s) || FLOAT.special.test(s)),
  construct: (s: string) => {
    if (!FLOAT.special.test(s)) return parseFloat(s);
    if (s.slice(-3).toLowerCase() === "nan") return NaN;
    return s.startsWith("-") ? Number.NEGATIVE_INFINITY : Number.POSITIVE_INFINITY;
  },
  predicate: (v: unknown) => typeof v === "number",
  represent: (v: object) => String(v),
});

const FAST_SCHEMA = jsyaml.FAILSAFE_SCHEMA.extend({ implicit: [jsyamlTypes.null, jsyamlTypes.bool, CORE_INT, CORE_FLOAT, jsyamlTypes.merge] });

/** A plain separator line; anything else after `---` sends the file down the precise path. */
// (A comment needs a blank before its `#`: `---#x` is a plain scalar, not a separator.)
const SEPARATOR = /^---(?:[ \t]+(?:#.*)?)?\r?$/;

/**
 * Empty documents (nothing, comments only, a bare `null`) are dropped. A document with a syntax
 * error is reported and dropped; the other documents of the file are still returned.
 *
 * Speed: js-yaml reads a document about ten times faster than `yaml`'s node tree, so documents
 * are read with it, and a document's tree (for the line of a field) is only built when a message
 * needs one. A document that defines an anchor is read again by the precise parser (alone: the
 * others keep the fast path); files js-yaml cannot read, or with unusual separators, take the
 * precise path whole.
 */
export function parseYamlDocuments(content: string): ParsedYaml {
  const text = content.charCodeAt(0) === 0xfeff ? content.slice(1) : content;
  const chunks = splitDocuments(text);
  if (!chunks) return parseWholeFilePrecisely(text);
  const documents: YamlDocument[] = [];
  const kept: YamlSnapshot["documents"] = [];
  for (const chunk of chunks) {
    let read: FastRead;
    try {
      read = readFast(chunk.text);
    } catch {
      // Let the precise parser word the error and place it.
      return parseWholeFilePrecisely(text);
    }
    if (read.anchored) {
      // js-yaml shares aliased nodes instead of copying them, so an alias "bomb" would only explode
      // when the object is sent; the precise parser counts and refuses excessive aliasing. It is
      // also stricter around anchors (js-yaml accepts `a: &x b: c`).
      const one = parseYamlDocumentsPrecisely(chunk.text);
      if (one.errors.length > 0) return parseWholeFilePrecisely(text);
      const offset = chunk.firstLine - 1;
      for (const d of one.documents) {
        const line = d.line + offset;
        documents.push({ value: d.value, line, lineOf: (path) => mapLine(d.lineOf(path), offset), textLength: d.textLength ?? chunk.text.length });
        kept.push({ value: d.value, line, firstLine: chunk.firstLine, lineCount: chunk.lineCount, textLength: d.textLength ?? chunk.text.length });
      }
      continue;
    }
    const value = read.value;
    if (value === null || value === undefined) continue;
    const line = chunk.firstLine + leadingBlankLines(chunk.text);
    documents.push(fastDocument(value, line, () => chunk.text, chunk.firstLine, chunk.text.length));
    kept.push({ value, line, firstLine: chunk.firstLine, lineCount: chunk.lineCount, textLength: chunk.text.length });
  }
  const snapshot = (withhold?: (value: unknown) => boolean): YamlSnapshot | undefined => {
    // A withheld document keeps only the lines of its chunk (value null): none of its text is stored.
    const docs = kept.map((d) => (withhold?.(d.value) ? { value: null, line: d.line, firstLine: d.firstLine, lineCount: d.lineCount, textLength: d.textLength, parseAgain: true as const } : d));
    return docs.every((d) => d.parseAgain || isJsonSafe(d.value)) ? { documents: docs } : undefined;
  };
  return { documents, errors: [], snapshot };
}

interface FastRead {
  value: unknown;
  /** The document defines an anchor (so it may use aliases), or js-yaml could not say. */
  anchored: boolean;
}

/**
 * One document by js-yaml, and whether it defined an anchor: js-yaml's own table of them, which
 * its first parse event hands over (and the listener then removes itself). Without an anchor
 * there is no alias (js-yaml refuses an alias to nothing), whatever `&` and `*` the text holds in
 * its prose (`*.example.com`, `&&`), so only documents that really use them take the slow path.
 */
function readFast(text: string): FastRead {
  let state: { anchorMap?: unknown; listener?: unknown } | undefined;
  const value: unknown = jsyaml.load(text, {
    schema: FAST_SCHEMA,
    json: false,
    listener(_event, s) {
      state = s as typeof state;
      state!.listener = null;
    },
  });
  if (value === null || value === undefined) return { value, anchored: false };
  const anchors = state?.anchorMap;
  // A js-yaml without that table: assume the worst.
  const anchored = typeof anchors !== "object" || anchors === null || Object.keys(anchors).length > 0;
  return { value, anchored };
}

/**
 * The documents a snapshot of this very text holds, as parseYamlDocuments returned them. The text
 * is asked for only when a field's line is (a message), so a caller may decode it lazily.
 */
export function restoreYamlDocuments(content: string | (() => string), snap: YamlSnapshot): ParsedYaml {
  let stripped: string | undefined;
  const text = (): string => {
    if (stripped === undefined) {
      const t = typeof content === "string" ? content : content();
      stripped = t.charCodeAt(0) === 0xfeff ? t.slice(1) : t;
    }
    return stripped;
  };
  const size = (d: YamlSnapshot["documents"][number]) => ({ plainJson: true, ...(d.valid ? { valid: true as const } : {}), ...(d.requestBytes !== undefined ? { requestBytes: d.requestBytes } : {}) });
  if (snap.wholeFile) {
    let tree: ParsedYaml | undefined;
    const documents = snap.documents.map((d, i) => ({
      value: d.value,
      line: d.line,
      lineOf: (path: FieldPath) => (tree ??= parseYamlDocumentsPrecisely(text())).documents[d.index ?? i]?.lineOf(path),
      textLength: d.textLength,
      ...size(d),
    }));
    return { documents, errors: [], snapshot: () => snap };
  }
  let lines: string[] | undefined;
  const chunkText = (firstLine: number, lineCount: number) => (lines ??= text().split("\n")).slice(firstLine - 1, firstLine - 1 + lineCount).join("\n");
  const documents: YamlDocument[] = [];
  const errors: YamlSyntaxError[] = [];
  for (const d of snap.documents) {
    if (!d.parseAgain) {
      documents.push({ ...fastDocument(d.value, d.line, () => chunkText(d.firstLine, d.lineCount), d.firstLine, d.textLength), ...size(d) });
      continue;
    }
    // A withheld document (a Secret): its chunk alone is parsed again, as the file's parse read it.
    const offset = d.firstLine - 1;
    const again = parseYamlDocuments(chunkText(d.firstLine, d.lineCount));
    for (const e of again.errors) errors.push({ line: e.line + offset, message: e.message });
    for (const one of again.documents) documents.push({ value: one.value, line: one.line + offset, lineOf: (path) => mapLine(one.lineOf(path), offset), textLength: d.textLength });
  }
  return errors.length > 0 ? { documents, errors } : { documents, errors, snapshot: () => snap };
}

/** The precise parse of a file that could not be read chunk by chunk, with its snapshot. */
function parseWholeFilePrecisely(text: string): ParsedYaml {
  const parsed = parseYamlDocumentsPrecisely(text);
  if (parsed.errors.length > 0) return parsed;
  const lineCount = text.split("\n").length;
  const snapshot = (withhold?: (value: unknown) => boolean): YamlSnapshot | undefined => {
    if (withhold && parsed.documents.some((d) => withhold(d.value))) return undefined;
    const documents = parsed.documents.map((d, index) => ({ value: d.value, line: d.line, firstLine: 1, lineCount, textLength: d.textLength ?? text.length, index }));
    return documents.every((d) => isJsonSafe(d.value)) ? { documents, wholeFile: true } : undefined;
  };
  return { ...parsed, snapshot };
}

/** A document read by the fast path: its field lines come from the precise parser, on demand. */
function fastDocument(value: unknown, line: number, chunkText: () => string, firstLine: number, textLength: number): YamlDocument {
  let tree: YamlDocument | undefined;
  const precise = (): YamlDocument | undefined => {
    if (tree) return tree;
    const offsetLines = firstLine - 1;
    const one = parseYamlDocumentsPrecisely(chunkText()).documents[0];
    if (one) tree = { value: one.value, line: one.line + offsetLines, lineOf: (path) => mapLine(one.lineOf(path), offsetLines) };
    return tree;
  };
  return { value, line, lineOf: (path) => precise()?.lineOf(path), textLength };
}

/**
 * Whether JSON gives the value back as it is, so that a cached parse reads as a fresh one: strings,
 * booleans, null, finite numbers other than -0 (JSON turns NaN and infinities into null, -0 into
 * 0), and arrays and mappings of these with the ordinary prototypes (the precise parser gives
 * `!!binary` as bytes, `!!set` as a Set, `!!omap` as a Map, `!!timestamp` as a Date; a mapping
 * without a prototype would come back with one). A `__proto__` key is an own key like any other
 * (both parsers define it so, and so does JSON.parse). A node aliases share comes back as equal
 * copies; a value that holds itself (which the parser refuses first) or nests deeper than any
 * document may is refused, not followed until the stack runs out.
 */
export function isJsonSafe(value: unknown, depth = 0): boolean {
  if (typeof value === "string" || typeof value === "boolean" || value === null) return true;
  if (typeof value === "number") return Number.isFinite(value) && !Object.is(value, -0);
  // undefined, bigint, symbol, function: JSON drops them, or cannot write them.
  if (typeof value !== "object" || depth > MAX_DEPTH) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto === Array.prototype) {
    const a = value as unknown[];
    for (let i = 0; i < a.length; i++) if (!isJsonSafe(a[i], depth + 1)) return false;
    return true;
  }
  if (proto !== Object.prototype) return false;
  for (const key of Object.keys(value)) if (!isJsonSafe((value as Record<string, unknown>)[key], depth + 1)) return false;
  return true;
}

function mapLine(line: number | undefined, offset: number): number | undefined {
  return line === undefined ? undefined : line + offset;
}

/** Lines before the document's content (comments, blank lines), so `line` points at its first key. */
function leadingBlankLines(text: string): number {
  let n = 0;
  // Line by line from the start (splitting the whole document cost more than parsing it).
  for (let start = 0; start <= text.length; n++) {
    const end = text.indexOf("\n", start);
    const line = text.slice(start, end < 0 ? text.length : end);
    const t = line.trim();
    if (!(t === "" || t.startsWith("#") || t === "---" || SEPARATOR.test(line))) break;
    if (end < 0) return n + 1;
    start = end + 1;
  }
  return n;
}

interface Chunk {
  text: string;
  /** 1-based line of the chunk's first line in the file. */
  firstLine: number;
  lineCount: number;
}

/** Splits on separator lines; undefined when the file has constructs only the full parser handles. */
function splitDocuments(text: string): Chunk[] | undefined {
  const lines = text.split("\n");
  const chunks: Chunk[] = [];
  let start = 0;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.startsWith("---")) {
      if (!SEPARATOR.test(line)) return undefined;
      if (i > start) chunks.push({ text: lines.slice(start, i).join("\n"), firstLine: start + 1, lineCount: i - start });
      start = i + 1;
    } else if (line.startsWith("...") || line.startsWith("%")) return undefined; // document end markers, directives
  }
  if (start < lines.length) chunks.push({ text: lines.slice(start).join("\n"), firstLine: start + 1, lineCount: lines.length - start });
  return chunks;
}

/** Go's yaml.v3 refuses documents nested deeper than this; so do we, before the stack runs out. */
const MAX_DEPTH = 1000;

/** The `yaml` library's full parse: every node with its position. Never throws. */
export function parseYamlDocumentsPrecisely(text: string): ParsedYaml {
  try {
    return parseAllPrecisely(text);
  } catch (err) {
    // The parser's own limits (its stack on absurd nesting): say what it hit, at the file's start.
    return { documents: [], errors: [{ line: 1, message: describeYamlError(err instanceof Error ? err.message : String(err)) }] };
  }
}

function parseAllPrecisely(text: string): ParsedYaml {
  const { LineCounter, parseAllDocuments } = yaml();
  const lineCounter = new LineCounter();
  // merge: Go's yaml.v3 (what kpt reads with) honours `<<` merge keys. logLevel: the library's
  // warnings would go to the terminal; what matters is reported as an issue instead.
  const docs = parseAllDocuments(text, { lineCounter, merge: true, prettyErrors: true, logLevel: "error" });
  const documents: YamlDocument[] = [];
  const errors: YamlSyntaxError[] = [];
  const lineAt = (offset: number): number => lineCounter.linePos(offset).line;
  // An empty stream parses to an EmptyStream (an array without documents).
  for (const doc of Array.isArray(docs) ? docs : [docs]) {
    if (doc.errors.length > 0) {
      // The first error explains the document; later ones are usually its echoes.
      const err = doc.errors[0]!;
      const opened = unclosedStart(doc.contents, err.pos[0]);
      errors.push({ line: opened !== undefined ? lineAt(opened) : (err.linePos?.[0].line ?? lineAt(err.pos[0])), message: describeYamlError(err.message) });
      continue;
    }
    const depth = nestingDepth(doc.contents);
    if (depth.tooDeep) {
      errors.push({ line: lineAt(depth.at), message: `the document is nested more than ${MAX_DEPTH} levels deep` });
      continue;
    }
    const loop = selfContainingAlias(doc.contents);
    if (loop) {
      // toJS would make a circular value, which no JSON (and no request) can hold.
      errors.push({ line: lineAt(loop.at), message: `the alias *${loop.alias} is inside the node its anchor &${loop.alias} marks, so its value would contain itself: copy the values instead` });
      continue;
    }
    let value: unknown;
    try {
      value = doc.toJS({ maxAliasCount: 1000 });
    } catch (err) {
      // An alias to an anchor defined later or not at all, or aliases expanding exponentially.
      errors.push({ line: lineAt(doc.contents?.range[0] ?? 0), message: describeYamlError((err as Error).message) });
      continue;
    }
    if (value === null || value === undefined || doc.contents === null) continue;
    documents.push({ value, line: lineAt(doc.contents.range[0]), lineOf: (path) => findLine(doc, path, lineAt), textLength: doc.contents.range[2] - doc.contents.range[0] });
  }
  return { documents, errors };
}

/** The library's first message line without its own "at line L, column C:" suffix, in our words where its own are obscure. */
function describeYamlError(message: string): string {
  const first = (message.split("\n")[0] ?? message).replace(/ at line \d+, column \d+:?$/, "");
  if (/Maximum call stack size exceeded/.test(first)) return "the document is nested too deeply to read";
  if (/Excessive alias count/.test(first)) return "excessive aliasing: its aliases (*name) expand to too many nodes (an alias bomb?)";
  if (/^Unresolved alias/.test(first)) return `${first}: define the anchor (&name) before its alias (*name)`;
  return first;
}

/**
 * The parser notices an unclosed quote or flow collection where the text ends; the user needs
 * the line where it was opened: the innermost quoted scalar or flow collection that runs up to
 * the error's position.
 */
function unclosedStart(root: unknown, errorAt: number): number | undefined {
  let found: number | undefined;
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const node = stack.pop();
    if (yaml().isPair(node)) {
      stack.push(node.key, node.value);
      continue;
    }
    if (!isNodeWithRange(node) || node.range[0] > errorAt || node.range[2] < errorAt) continue;
    const quoted = yaml().isScalar(node) && (node.type === "QUOTE_DOUBLE" || node.type === "QUOTE_SINGLE");
    const flow = (yaml().isMap(node) || yaml().isSeq(node)) && node.flow === true;
    if ((quoted || flow) && (found === undefined || node.range[0] > found)) found = node.range[0];
    if (yaml().isMap(node) || yaml().isSeq(node)) stack.push(...(node.items as unknown[]));
  }
  return found;
}

/** The deepest nesting of collections, iteratively (the point is not to need the stack). */
function nestingDepth(root: unknown): { tooDeep: boolean; at: number } {
  const stack: { node: unknown; depth: number }[] = [{ node: root, depth: 0 }];
  while (stack.length > 0) {
    const { node, depth } = stack.pop()!;
    if (depth > MAX_DEPTH) return { tooDeep: true, at: isNodeWithRange(node) ? node.range[0] : 0 };
    if (yaml().isMap(node) || yaml().isSeq(node)) {
      for (const item of node.items as unknown[]) {
        if (yaml().isPair(item)) {
          stack.push({ node: item.key, depth: depth + 1 }, { node: item.value, depth: depth + 1 });
        } else stack.push({ node: item, depth: depth + 1 });
      }
    }
  }
  return { tooDeep: false, at: 0 };
}

/**
 * An alias to a node that holds it (`a: &x [*x]`), as Go's yaml.v3 refuses ("anchor value
 * contains itself"). Nodes in document order, so an alias meets the last anchor of its name
 * before it, as the YAML spec resolves it.
 */
function selfContainingAlias(root: unknown): { alias: string; at: number } | undefined {
  const anchors = new Map<string, unknown>();
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const node = stack.pop();
    if (yaml().isPair(node)) {
      stack.push(node.value, node.key);
      continue;
    }
    if (yaml().isAlias(node)) {
      const target = anchors.get(node.source);
      if (isNodeWithRange(target) && isNodeWithRange(node) && target.range[0] <= node.range[0] && node.range[1] <= target.range[2]) return { alias: node.source, at: node.range[0] };
      continue;
    }
    if (!isNodeWithRange(node)) continue;
    if (node.anchor) anchors.set(node.anchor, node);
    if (yaml().isMap(node) || yaml().isSeq(node)) for (let i = node.items.length - 1; i >= 0; i--) stack.push(node.items[i]);
  }
  return undefined;
}

function findLine(doc: Document, path: FieldPath, lineAt: (offset: number) => number): number | undefined {
  let node: unknown = doc.contents;
  let line: number | undefined = node && isNodeWithRange(node) ? lineAt(node.range[0]) : undefined;
  for (const key of path) {
    if (typeof key === "number") {
      if (!yaml().isSeq(node)) return undefined;
      node = node.items[key];
      if (!isNodeWithRange(node)) return undefined;
      line = lineAt(node.range[0]);
      continue;
    }
    if (!yaml().isMap(node)) return undefined;
    const pair = node.items.find((p) => yaml().isPair(p) && keyString(p.key) === key);
    if (!pair) return undefined;
    line = isNodeWithRange(pair.key) ? lineAt(pair.key.range[0]) : line;
    node = pair.value;
  }
  return line;
}

function keyString(key: unknown): string | undefined {
  if (yaml().isScalar(key)) return String(key.value);
  return typeof key === "string" ? key : undefined;
}

function isNodeWithRange(n: unknown): n is Node & { range: [number, number, number] } {
  return typeof n === "object" && n !== null && Array.isArray((n as { range?: unknown }).range);
}
