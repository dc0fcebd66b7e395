// What a command needs from the process, passed in so commands stay testable and only printers write.

import { readFile } from "node:fs/promises";
import { resolveColor } from "../print/color.js";
import type { GlobalFlags } from "./flags.js";

export interface CommandIO {
  stdout: NodeJS.WriteStream;
  stderr: NodeJS.WriteStream;
  stdin: NodeJS.ReadStream;
  env: NodeJS.ProcessEnv;
  signal: AbortSignal;
}

export function colorFor(io: CommandIO, g: GlobalFlags): boolean {
  return resolveColor({ flag: g.color === false ? false : undefined, env: io.env, isTTY: Boolean(io.stdout.isTTY) });
}

/** Standard input's text, for the `-` package argument. */
export async function readStdin(io: CommandIO): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of io.stdin) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

export async function packageText(path: string, io: CommandIO): Promise<string | undefined> {
  return path === "-" ? readStdin(io) : undefined;
}

export { readFile };
