// Answers that are not what a Kubernetes API server sends: a body that is not JSON (an HTML
// login page, a proxy's error page), a document of the wrong kind, list items that are not
// objects, an answer larger than any real one. Each becomes a ClusterError (exit 1) that names
// the URL and what came back, never a crash deep inside the run.

import { ClusterError } from "../model/errors.js";
import { isRecord } from "../model/kube-object.js";

/** The server's answer was not what Kubernetes sends. */
export class MalformedAnswerError extends ClusterError {}

/** The server's answer (after decompression) was larger than any real answer is. */
export class AnswerTooLargeError extends ClusterError {}

const NOT_KUBERNETES = "Check that the server in your kubeconfig is a Kubernetes API server, not a proxy, load balancer or login page in front of one.";

export function malformedAnswer(url: string, why: string): MalformedAnswerError {
  return new MalformedAnswerError(`the answer of ${url} is not what a Kubernetes API server sends: ${why}`, { detail: NOT_KUBERNETES });
}

/** The answer as JSON, or a MalformedAnswerError naming the URL and how the body begins. */
export function parseJsonAnswer(text: string, url: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    throw malformedAnswer(url, `${describeBody(text)} is not JSON (${(err as Error).message})`);
  }
}

/** `an HTML page`, `an empty body`, `"Unauthorized!"` (its first characters). */
function describeBody(text: string): string {
  const start = text.trimStart();
  if (start === "") return "an empty body";
  if (/^<(!doctype html|html|head|body)\b/i.test(start)) return "an HTML page";
  const head = start.slice(0, 60);
  return `the body ${JSON.stringify(head)}${start.length > head.length ? "..." : ""}`;
}

/** `a list`, `null`, `a string`: how a value that should be an object is named in messages. */
export function describeValue(v: unknown): string {
  if (v === null) return "null";
  if (v === undefined) return "missing";
  if (Array.isArray(v)) return "a list";
  return typeof v === "object" ? "an object" : `a ${typeof v}`;
}

/** A single object (GET, a write's answer): an object with metadata. */
export function checkObjectAnswer<T>(v: unknown, url: string): T {
  if (!isRecord(v)) throw malformedAnswer(url, `expected an object, got ${describeValue(v)}`);
  if (v.metadata !== undefined && !isRecord(v.metadata)) throw malformedAnswer(url, `its metadata is ${describeValue(v.metadata)}, not an object`);
  return v as T;
}

/** A list page: `items` a list of objects (null or absent: none, as Go reads it). */
export function checkListAnswer(v: unknown, url: string): { items: Record<string, any>[]; metadata: Record<string, any> } {
  if (!isRecord(v)) throw malformedAnswer(url, `expected a list, got ${describeValue(v)}`);
  const items = v.items ?? [];
  if (!Array.isArray(items)) throw malformedAnswer(url, `its items are ${describeValue(items)}, not a list`);
  items.forEach((it: unknown, i: number) => {
    if (!isRecord(it) || !isRecord(it.metadata)) throw malformedAnswer(url, `item ${i} is ${isRecord(it) ? "an object without metadata" : describeValue(it)}, not a Kubernetes object`);
  });
  const metadata = v.metadata ?? {};
  if (!isRecord(metadata)) throw malformedAnswer(url, `its metadata is ${describeValue(metadata)}, not an object`);
  return { items, metadata };
}
