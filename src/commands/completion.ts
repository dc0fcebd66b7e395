// `kpt-ts completion bash|zsh`: prints the completion script for the given shell.

import { commandSpecs, type CommandLike } from "../completion/command-spec.js";
import { bashCompletion, zshCompletion } from "../completion/completion-script.js";
import { UsageError } from "../errors.js";
import type { CommandIO } from "./io.js";

export function printCompletion(shell: string, program: CommandLike, io: CommandIO): void {
  const specs = commandSpecs(program);
  if (shell === "bash") io.stdout.write(bashCompletion(specs));
  else if (shell === "zsh") io.stdout.write(zshCompletion(specs));
  else throw new UsageError(`unknown shell ${JSON.stringify(shell)}: use bash or zsh`);
}
