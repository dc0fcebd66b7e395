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
/** Anything escapeTerminalLines would change (the fast path: most text has none of it). */
const NEEDS_WORK = /[\x00-\x08\x0b-\x1f\x7f-\x9f]|##\[|(?:^|\n)\s*::/;

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
  CONTROL.lastIndex = 0;
  if (!CONTROL.test(s) && !s.includes("##[") && !/^\s*::/.test(s)) return s;
  return defuseCommands(s.replace(CONTROL, visible));
}

/** Text of several lines (a message): line breaks kept, each line escaped as escapeTerminal does. */
export function escapeTerminalLines(s: string): string {
  if (!NEEDS_WORK.test(s)) return s;
  return s.replace(CONTROL_KEEPING_LINES, visible).split("\n").map(defuseCommands).join("\n");
}

/**
 * Every string in `value` escaped (escapeTerminalLines), in a copy; other values as they are.
 * Names of things (`name`, `namespace`, `kind`, `group`, `file`) are one line: escapeTerminal.
 */
export function escapeDeep<T>(value: T): T {
  return walk(value, false) as T;
}

const ONE_LINE_KEYS = new Set(["name", "namespace", "kind", "group", "file", "pkgFile"]);

function walk(v: unknown, oneLine: boolean): unknown {
  if (typeof v === "string") return oneLine ? escapeTerminal(v) : escapeTerminalLines(v);
  if (Array.isArray(v)) return v.map((x) => walk(x, false));
  if (v === null || typeof v !== "object" || v instanceof Date || v instanceof Map || v instanceof Set) return v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) out[k] = walk(x, ONE_LINE_KEYS.has(k));
  return out;
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
