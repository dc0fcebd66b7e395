// `kpt-ts completion bash|zsh|fish`: prints the completion script for the given shell.

import { commandSpecs, type CommandLike, type OptionLike, type ValueCompletion } from "../completion/command-spec.js";
import { bashCompletion, fishCompletion, zshCompletion } from "../completion/completion-script.js";
import { UsageError } from "../model/errors.js";
import type { CommandIO } from "./io.js";

/** `valueOf`: what to offer for an option's value, from the flag spec the command parses it with. */
export function printCompletion(shell: string, program: CommandLike, valueOf: (option: OptionLike) => ValueCompletion | undefined, io: CommandIO): void {
  const specs = commandSpecs(program, valueOf);
  if (shell === "bash") io.stdout.write(bashCompletion(specs));
  else if (shell === "zsh") io.stdout.write(zshCompletion(specs));
  else if (shell === "fish") io.stdout.write(fishCompletion(specs));
  else throw new UsageError(`unknown shell ${JSON.stringify(shell)}: use bash, zsh or fish`);
}
