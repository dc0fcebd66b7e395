// The command tree as completion scripts need it: for each command path, its subcommands, its
// flags (and which take a value), and whether it takes a package path. Read from the commander
// program through a few structural fields, so this file does not depend on commander.

export interface FlagSpec {
  names: string[];
  /** The flag needs a value (`--output <format>`); optional values (`-v [level]`) do not count. */
  takesValue: boolean;
}

export interface CommandSpec {
  /** Space-separated, without the program: "", "live", "live apply". */
  path: string;
  subcommands: string[];
  /** Own flags plus those inherited from parent commands (commander's optsWithGlobals). */
  flags: FlagSpec[];
  /** The command's first argument is PKG_PATH (a directory, or `-`). */
  takesPackage: boolean;
  /** Other positional values, when known (e.g. the shells of `completion`). */
  positionalChoices?: string[];
}

export interface OptionLike {
  long?: string;
  short?: string;
  required: boolean;
  hidden: boolean;
}

export interface CommandLike {
  name(): string;
  readonly commands: readonly CommandLike[];
  readonly options: readonly OptionLike[];
  readonly registeredArguments: readonly { name(): string; argChoices?: string[] }[];
  readonly _hidden?: boolean;
}

export function commandSpecs(program: CommandLike): CommandSpec[] {
  const out: CommandSpec[] = [];
  const walk = (cmd: CommandLike, path: string, inherited: FlagSpec[]) => {
    const own = cmd.options.filter((o) => !o.hidden).map((o) => ({ names: [o.short, o.long].filter((n): n is string => Boolean(n)), takesValue: o.required }));
    const flags = [...inherited, ...own, { names: ["-h", "--help"], takesValue: false }];
    const visible = cmd.commands.filter((c) => !c._hidden);
    const first = cmd.registeredArguments[0];
    out.push({
      path,
      subcommands: visible.map((c) => c.name()),
      flags,
      takesPackage: first?.name() === "PKG_PATH",
      ...(first?.argChoices ? { positionalChoices: first.argChoices } : {}),
    });
    // Only `live`'s flags are global to its subcommands (the program's --version is not).
    for (const c of visible) walk(c, path ? `${path} ${c.name()}` : c.name(), path ? [...inherited, ...own] : []);
  };
  walk(program, "", []);
  return out;
}
