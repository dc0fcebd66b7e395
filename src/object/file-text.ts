// Package files arrive as bytes; YAML is text. Decodes them as Go's yaml.v3 (what kpt reads
// with) does, UTF-8 or UTF-16 with a byte order mark, and refuses what is not YAML text with
// the line to look at, instead of parsing replacement characters into confusing errors.

import { isUtf8 } from "node:buffer";

type DecodedText = { ok: true; text: string } | { ok: false; line: number; message: string };

const SKIP_HINT = "remove it from the package, or list it in .krmignore";

/**
 * YAML allows only printable characters (YAML 1.2 §5.1): tab, line feed and carriage return
 * are the only C0 controls; DEL, the C1 controls but NEL, and U+FFFE/U+FFFF are out too.
 */
const NOT_PRINTABLE = /[\x00-\x08\x0B\x0C\x0E-\x1F\x7F-\x84\x86-\x9F\uFFFE\uFFFF]/;

export function decodeText(bytes: Uint8Array): DecodedText {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let text: string;
  if (buf[0] === 0xff && buf[1] === 0xfe) text = buf.subarray(2).toString("utf16le");
  else if (buf[0] === 0xfe && buf[1] === 0xff) text = swapBytes(buf.subarray(2)).toString("utf16le");
  else if (isUtf8(buf)) text = buf.toString("utf8");
  else {
    const at = firstInvalidUtf8(buf);
    const { line, column } = positionOfByte(buf, at);
    return {
      ok: false,
      line,
      message: `not a UTF-8 text file (byte 0x${buf[at]!.toString(16).padStart(2, "0")} at line ${line}, column ${column} is not UTF-8): if it is binary data, ${SKIP_HINT}; if it is text, save it as UTF-8`,
    };
  }
  const bad = NOT_PRINTABLE.exec(text);
  if (!bad) return { ok: true, text };
  const line = lineOfOffset(text, bad.index);
  const column = bad.index - text.lastIndexOf("\n", bad.index - 1);
  const code = bad[0].charCodeAt(0);
  const u = `U+${code.toString(16).toUpperCase().padStart(4, "0")}`;
  if (code === 0) return { ok: false, line, message: `contains a NUL byte (line ${line}, column ${column}): a binary file is not YAML; ${SKIP_HINT}` };
  return {
    ok: false,
    line,
    message: `control character ${u} at line ${line}, column ${column} is not allowed in YAML: delete it, or write it as an escape ("\\u${code.toString(16).padStart(4, "0")}") inside a double-quoted string`,
  };
}

function swapBytes(b: Buffer): Buffer {
  const out = Buffer.from(b.subarray(0, b.length - (b.length % 2)));
  return out.swap16();
}

/** Offset of the first byte that does not start or continue a valid UTF-8 sequence. */
function firstInvalidUtf8(b: Buffer): number {
  let i = 0;
  while (i < b.length) {
    const c = b[i]!;
    const n = c < 0x80 ? 0 : c >= 0xc2 && c <= 0xdf ? 1 : c >= 0xe0 && c <= 0xef ? 2 : c >= 0xf0 && c <= 0xf4 ? 3 : -1;
    if (n < 0) return i;
    if (n > 0 && !isUtf8(b.subarray(i, i + n + 1))) return i;
    i += n + 1;
  }
  return Math.max(0, b.length - 1);
}

function positionOfByte(b: Buffer, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = b.indexOf(10); i !== -1 && i < offset; i = b.indexOf(10, i + 1)) {
    line++;
    lineStart = i + 1;
  }
  return { line, column: offset - lineStart + 1 };
}

function lineOfOffset(text: string, offset: number): number {
  let line = 1;
  for (let i = text.indexOf("\n"); i !== -1 && i < offset; i = text.indexOf("\n", i + 1)) line++;
  return line;
}
