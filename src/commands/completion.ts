// `kpt-ts completion bash|zsh|fish`: prints the completion script for the given shell.

import { commandSpecs, type CommandLike } from "../completion/command-spec.js";
import { bashCompletion, fishCompletion, zshCompletion } from "../completion/completion-script.js";
import { UsageError } from "../model/errors.js";
import type { CommandIO } from "./io.js";

export function printCompletion(shell: string, program: CommandLike, io: CommandIO): void {
  const specs = commandSpecs(program);
  if (shell === "bash") io.stdout.write(bashCompletion(specs));
  else if (shell === "zsh") io.stdout.write(zshCompletion(specs));
  else if (shell === "fish") io.stdout.write(fishCompletion(specs));
  else throw new UsageError(`unknown shell ${JSON.stringify(shell)}: use bash, zsh or fish`);
}
