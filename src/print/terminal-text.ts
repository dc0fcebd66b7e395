// Text from outside (file names, object names, what servers and controllers say, a credential
// plugin's stderr) shown without letting it drive the terminal or a CI log. kubectl escapes
// terminal control sequences since CVE-2021-25743 (ESC as `^[`, CR as `\r`); kpt-ts escapes every
// control character, and also defuses GitHub Actions workflow commands, which the runner reads
// from any line of a job's output: a line starting (after blanks) with `::` (`::add-mask::`,
// `::stop-commands::`...) and `##[command]` anywhere in a line (the legacy form).
//
// Printers escape what they are given once, at their entry (escapeDeep over events, change sets,
// history records; escapeTerminalLines over error lines), so no single message can be forgotten.
// Pure.

import { Writable } from "node:stream";
import { StringDecoder } from "node:string_decoder";

/** C0 controls but tab and line feed, DEL, and the C1 controls. */
const CONTROL = /[\x00-\x08\x0a-\x1f\x7f-\x9f]/g;
const CONTROL_KEEPING_LINES = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/g;
/** Control characters but tab and line feed, tested without the global flag's state. */
const HAS_CONTROL_KEEPING_LINES = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/;
const HAS_CONTROL = /[\x00-\x08\x0a-\x1f\x7f-\x9f]/;
const COMMAND_AT_LINE_START = /(?:^|\n)\s*::/;

function visible(c: string): string {
  const code = c.charCodeAt(0);
  if (code === 0x1b) return "^["; // kubectl's form
  if (code === 0x0d) return "\\r";
  if (code === 0x0a) return "\\n";
  if (code === 0x09) return "\\t";
  if (code < 0x20) return `^${String.fromCharCode(code + 0x40)}`; // ^@ .. ^_
  if (code === 0x7f) return "^?";
  return `\\u${code.toString(16).padStart(4, "0")}`; // C1
}

/** One physical line, its control characters already escaped: no workflow command left in it. */
function defuseCommands(line: string): string {
  const out = line.includes("##[") ? line.replace(/##\[/g, "##\\[") : line;
  return /^\s*::/.test(out) ? out.replace(/::/, "\\::") : out;
}

/** A value shown on one line (a name, a file name): every control character escaped, `\n` too. */
export function escapeTerminal(s: string): string {
  // The fast path (most text needs nothing): one character class, then substring checks.
  if (!HAS_CONTROL.test(s) && !s.includes("##[") && !(s.includes("::") && /^\s*::/.test(s))) return s;
  return defuseCommands(s.replace(CONTROL, visible));
}

/** Text of several lines (a message): line breaks kept, each line escaped as escapeTerminal does. */
export function escapeTerminalLines(s: string): string {
  if (!HAS_CONTROL_KEEPING_LINES.test(s) && !s.includes("##[") && !(s.includes("::") && COMMAND_AT_LINE_START.test(s))) return s;
  return s.replace(CONTROL_KEEPING_LINES, visible).split("\n").map(defuseCommands).join("\n");
}

/**
 * Every string in `value` escaped (escapeTerminalLines); what needs no escaping is returned as it
 * is (no copy), so escaping costs a look at each string. Names of things (`name`, `namespace`,
 * `kind`, `group`, `file`) are one line: escapeTerminal. A live object under `object` (a status
 * event's) is escaped where printers read it: see escapeLiveObject.
 */
export function escapeDeep<T>(value: T): T {
  return walk(value, false) as T;
}

const ONE_LINE_KEYS = new Set(["name", "namespace", "kind", "group", "file", "pkgFile"]);

function walk(v: unknown, oneLine: boolean): unknown {
  if (typeof v === "string") return oneLine ? escapeTerminal(v) : escapeTerminalLines(v);
  if (Array.isArray(v)) {
    let copy: unknown[] | undefined;
    for (let i = 0; i < v.length; i++) {
      const x = walk(v[i], false);
      if (x !== v[i]) (copy ??= [...v])[i] = x;
    }
    return copy ?? v;
  }
  if (v === null || typeof v !== "object" || v instanceof Date || v instanceof Map || v instanceof Set) return v;
  let copy: Record<string, unknown> | undefined;
  const obj = v as Record<string, unknown>;
  for (const k in obj) {
    const x = obj[k];
    if (x === null || (typeof x !== "string" && typeof x !== "object")) continue;
    const y = k === "object" && isLiveObject(x) ? escapeLiveObject(x) : walk(x, ONE_LINE_KEYS.has(k));
    if (y !== x) (copy ??= { ...obj })[k] = y;
  }
  return copy ?? v;
}

function isLiveObject(v: unknown): v is { metadata?: unknown; status?: unknown } {
  return typeof v === "object" && v !== null && "metadata" in v && "apiVersion" in v;
}

/**
 * A live object as printers read it (its name and namespace, its conditions), escaped there; the
 * rest (spec, managedFields...) is passed on as it is: walking every field of every object of a
 * run on each status change cost more than the rest of the printing.
 */
function escapeLiveObject<T extends { metadata?: unknown; status?: unknown }>(obj: T): T {
  const meta = (obj.metadata ?? {}) as { name?: unknown; namespace?: unknown };
  const name = walk(meta.name, true);
  const namespace = walk(meta.namespace, true);
  const status = obj.status as { conditions?: unknown } | undefined;
  const conditions = status && typeof status === "object" ? walk(status.conditions, false) : undefined;
  if (name === meta.name && namespace === meta.namespace && conditions === status?.conditions) return obj;
  return { ...obj, metadata: { ...meta, name, namespace }, ...(conditions !== status?.conditions ? { status: { ...status, conditions } } : {}) };
}

/** A stream that writes what it is given to `out`, escaped (a credential plugin's stderr). */
export function escapingStream(out: NodeJS.WritableStream): NodeJS.WritableStream {
  const decoder = new StringDecoder("utf8");
  return new Writable({
    write(chunk: Buffer | string, _enc, done) {
      const text = typeof chunk === "string" ? chunk : decoder.write(chunk);
      if (text) out.write(escapeTerminalLines(text));
      done();
    },
  });
}

/** `[WARN] <message>`: a warning line on stderr, escaped. */
export function warningLine(message: string): string {
  return `[WARN] ${escapeTerminalLines(message)}\n`;
}

/** `kpt-ts: <note>`: what the run goes without (a cache), shown with -v, escaped. */
export function noteLine(message: string): string {
  return `kpt-ts: ${escapeTerminalLines(message)}\n`;
}
