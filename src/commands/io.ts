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

/** Standard input's bytes, for the `-` package argument (the package reader decodes them). */
export async function readStdin(io: CommandIO): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of io.stdin) chunks.push(typeof c === "string" ? Buffer.from(c) : (c as Buffer));
  return Buffer.concat(chunks);
}

export async function packageText(path: string, io: CommandIO): Promise<Buffer | undefined> {
  return path === "-" ? readStdin(io) : undefined;
}

export { readFile };
