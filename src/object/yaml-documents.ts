// Splits one YAML file into documents and keeps a way back from any field to its line, so
// every message about a package can point at the exact place to fix.

import { LineCounter, isMap, isPair, isScalar, isSeq, parseAllDocuments } from "yaml";
import type { Document, Node } from "yaml";

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
 * Empty documents (nothing, comments only, a bare `null`) are dropped. A document with a syntax
 * error is reported and dropped; the other documents of the file are still returned.
 */
export function parseYamlDocuments(content: string): ParsedYaml {
  const text = content.charCodeAt(0) === 0xfeff ? content.slice(1) : content;
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
      if (!isSeq(node)) return undefined;
      node = node.items[key];
      if (!isNodeWithRange(node)) return undefined;
      line = lineAt(node.range[0]);
      continue;
    }
    if (!isMap(node)) return undefined;
    const pair = node.items.find((p) => isPair(p) && keyString(p.key) === key);
    if (!pair) return undefined;
    line = isNodeWithRange(pair.key) ? lineAt(pair.key.range[0]) : line;
    node = pair.value;
  }
  return line;
}

function keyString(key: unknown): string | undefined {
  if (isScalar(key)) return String(key.value);
  return typeof key === "string" ? key : undefined;
}

function isNodeWithRange(n: unknown): n is Node & { range: [number, number, number] } {
  return typeof n === "object" && n !== null && Array.isArray((n as { range?: unknown }).range);
}
