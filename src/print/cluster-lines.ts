// A fleet run's output: each cluster's lines, from the very printers a one-cluster run uses,
// marked with the cluster: `[prod-eu] deployment.apps/web created`, and in JSON a `cluster` field
// on every line (kpt's keys and types unchanged). Lines are passed on whole, so clusters running
// at once never mix inside a line. The transforms are pure.

import { Writable } from "node:stream";
import { StringDecoder } from "node:string_decoder";
import { formatGoJsonLine, type JsonRecord } from "./go-json.js";
import { escapeTerminal } from "./terminal-text.js";

/** `[prod-eu] ` (the name escaped: it comes from the kubeconfig). */
export function clusterPrefix(cluster: string): string {
  return `[${escapeTerminal(cluster)}] `;
}

/** A GitHub workflow command printers write (an annotation): `::error file=...,line=3::` then its message. */
const WORKFLOW_COMMAND = /^(::[a-z-]+(?: [^:]*)?::)/;

/**
 * The line (without its newline) marked for a text output. An empty line stays empty; an
 * annotation for GitHub Actions keeps its command first (else the runner would not read it) and
 * names the cluster in its message. (Text from outside never starts a line with `::`: printers
 * defuse it, terminal-text.ts.)
 */
export function prefixLine(line: string, cluster: string): string {
  if (line === "") return line;
  const command = WORKFLOW_COMMAND.exec(line);
  return command ? `${command[1]}${clusterPrefix(cluster)}${line.slice(command[1]!.length)}` : clusterPrefix(cluster) + line;
}

/** A JSON event line with `cluster` added among its sorted keys; a line that is no JSON object is left alone. */
export function addClusterField(line: string, cluster: string): string {
  let record: unknown;
  try {
    record = JSON.parse(line);
  } catch {
    return line;
  }
  if (!record || typeof record !== "object" || Array.isArray(record)) return line;
  return formatGoJsonLine({ ...(record as JsonRecord), cluster }).replace(/\n$/, "");
}

/** Splits written text into whole lines: `push` returns the complete ones, `end` what is left. */
export class LineSplitter {
  private pending = "";
  push(text: string): string[] {
    const parts = (this.pending + text).split("\n");
    this.pending = parts.pop()!;
    return parts;
  }
  end(): string | undefined {
    const rest = this.pending;
    this.pending = "";
    return rest === "" ? undefined : rest;
  }
}

export type LineMark = "prefix" | "json";

/**
 * A stream for one cluster's printer: each whole line written to it goes to `write` (with its
 * newline) marked for `cluster`; `end()` passes on an unfinished last line.
 */
export function clusterStream(cluster: string, mark: LineMark, write: (text: string) => void): Writable {
  const lines = new LineSplitter();
  const decoder = new StringDecoder("utf8");
  const out = (ls: string[]) => {
    if (ls.length) write(ls.map((l) => (mark === "json" ? addClusterField(l, cluster) : prefixLine(l, cluster)) + "\n").join(""));
  };
  return new Writable({
    decodeStrings: false,
    write(chunk: string | Buffer, _enc, done) {
      out(lines.push(typeof chunk === "string" ? chunk : decoder.write(chunk)));
      done();
    },
    final(done) {
      const rest = lines.end();
      if (rest !== undefined) out([rest]);
      done();
    },
  });
}
