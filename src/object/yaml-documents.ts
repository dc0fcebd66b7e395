// Splits one YAML file into documents and keeps a way back from any field to its line, so
// every message about a package can point at the exact place to fix.

import { createRequire } from "node:module";
import jsyaml from "js-yaml";
import type { Document, Node } from "yaml";

// The precise parser is only needed for messages and unusual files; loading it on every run would
// cost every command its start-up time. Its CommonJS build can be required synchronously.
let yamlLib: typeof import("yaml") | undefined;
const yaml = (): typeof import("yaml") => (yamlLib ??= createRequire(import.meta.url)("yaml") as typeof import("yaml"));

export type FieldPath = readonly (string | number)[];

export interface YamlDocument {
  /** The document as plain data (mappings become objects). */
  value: unknown;
  /** 1-based line where the document's content starts. */
  line: number;
  /** 1-based line of the field at `path` (the key's line for a mapping entry), if the field exists. */
  lineOf(path: FieldPath): number | undefined;
}

export interface YamlSyntaxError {
  line: number;
  message: string;
}

export interface ParsedYaml {
  documents: YamlDocument[];
  errors: YamlSyntaxError[];
}

/**
 * YAML 1.2 core types (no timestamps: `2024-01-01` stays a string, as kpt reads it) plus `<<`
 * merge keys, which Go's yaml.v3 honours.
 */
const FAST_SCHEMA = jsyaml.CORE_SCHEMA.extend([(jsyaml as unknown as { types: { merge: jsyaml.Type } }).types.merge]);

/** A plain separator line; anything else after `---` sends the file down the precise path. */
const SEPARATOR = /^---[ \t]*(#.*)?\r?$/;

/**
 * Empty documents (nothing, comments only, a bare `null`) are dropped. A document with a syntax
 * error is reported and dropped; the other documents of the file are still returned.
 *
 * Speed: js-yaml reads a document about eight times faster than `yaml`'s node tree, so documents
 * are read with it, and a document's tree (for the line of a field) is only built when a message
 * needs one. Files js-yaml cannot read, or with unusual separators, take the precise path.
 */
export function parseYamlDocuments(content: string): ParsedYaml {
  const text = content.charCodeAt(0) === 0xfeff ? content.slice(1) : content;
  const chunks = splitDocuments(text);
  if (!chunks) return parseYamlDocumentsPrecisely(text);
  const documents: YamlDocument[] = [];
  for (const chunk of chunks) {
    let value: unknown;
    try {
      value = jsyaml.load(chunk.text, { schema: FAST_SCHEMA, json: false });
    } catch {
      // Let the precise parser word the error and place it.
      return parseYamlDocumentsPrecisely(text);
    }
    if (value === null || value === undefined) continue;
    let tree: YamlDocument | undefined;
    const precise = (): YamlDocument | undefined => {
      if (tree) return tree;
      const offsetLines = chunk.firstLine - 1;
      const one = parseYamlDocumentsPrecisely(chunk.text).documents[0];
      if (one) tree = { value: one.value, line: one.line + offsetLines, lineOf: (path) => mapLine(one.lineOf(path), offsetLines) };
      return tree;
    };
    documents.push({ value, line: chunk.firstLine + leadingBlankLines(chunk.text), lineOf: (path) => precise()?.lineOf(path) });
  }
  return { documents, errors: [] };
}

function mapLine(line: number | undefined, offset: number): number | undefined {
  return line === undefined ? undefined : line + offset;
}

/** Lines before the document's content (comments, blank lines), so `line` points at its first key. */
function leadingBlankLines(text: string): number {
  let n = 0;
  for (const line of text.split("\n")) {
    const t = line.trim();
    if (t === "" || t.startsWith("#") || t === "---" || SEPARATOR.test(line)) n++;
    else break;
  }
  return n;
}

interface Chunk {
  text: string;
  /** 1-based line of the chunk's first line in the file. */
  firstLine: number;
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
      if (i > start) chunks.push({ text: lines.slice(start, i).join("\n"), firstLine: start + 1 });
      start = i + 1;
    } else if (line.startsWith("...") || line.startsWith("%")) return undefined; // document end markers, directives
  }
  if (start < lines.length) chunks.push({ text: lines.slice(start).join("\n"), firstLine: start + 1 });
  return chunks;
}

/** The `yaml` library's full parse: every node with its position. */
export function parseYamlDocumentsPrecisely(text: string): ParsedYaml {
  const { LineCounter, parseAllDocuments } = yaml();
  const lineCounter = new LineCounter();
  // merge: Go's yaml.v3 (what kpt reads with) honours `<<` merge keys.
  const docs = parseAllDocuments(text, { lineCounter, merge: true, prettyErrors: true });
  const documents: YamlDocument[] = [];
  const errors: YamlSyntaxError[] = [];
  const lineAt = (offset: number): number => lineCounter.linePos(offset).line;
  // An empty stream parses to an EmptyStream (an array without documents).
  for (const doc of Array.isArray(docs) ? docs : [docs]) {
    if (doc.errors.length > 0) {
      // The first error explains the document; later ones are usually its echoes.
      const err = doc.errors[0]!;
      errors.push({ line: err.linePos?.[0].line ?? lineAt(err.pos[0]), message: describeYamlError(err.message) });
      continue;
    }
    const value: unknown = doc.toJS({ maxAliasCount: 1000 });
    if (value === null || value === undefined || doc.contents === null) continue;
    documents.push({ value, line: lineAt(doc.contents.range[0]), lineOf: (path) => findLine(doc, path, lineAt) });
  }
  return { documents, errors };
}

/** The library's first message line without its own "at line L, column C:" suffix. */
function describeYamlError(message: string): string {
  const first = message.split("\n")[0] ?? message;
  return first.replace(/ at line \d+, column \d+:?$/, "");
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
