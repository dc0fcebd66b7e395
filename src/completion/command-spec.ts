// The command tree as completion scripts need it: for each command path, its subcommands, its
// flags (which take a value, and what to offer for it), and whether it takes a package path. Read
// from the commander program through a few structural fields, and each flag's value completion
// from the flag specs the commands parse with (src/commands/command-specs.ts), so a shell offers
// exactly the values a command accepts. This file depends on neither commander nor the specs.

/** What to offer for a flag's value: a fixed set of words, or what kind of thing it names. */
export type ValueCompletion = { values: readonly string[] } | { kind: "file" | "directory" | "context" | "namespace" | "inventory" };

export interface CompletionFlag {
  names: string[];
  /** The flag needs a value (`--output <format>`); optional values (`-v [level]`) do not count. */
  takesValue: boolean;
  /** What to offer for the value; absent: nothing (any text). */
  value?: ValueCompletion;
}

export interface CommandSpec {
  /** Space-separated, without the program: "", "live", "live apply". */
  path: string;
  subcommands: string[];
  /** Own flags plus those of every parent command (commander's optsWithGlobals; `--help`'s "Global Flags"). */
  flags: CompletionFlag[];
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

/** The help command's path: `kpt-ts help live apply` completes the command path after it. */
const HELP = "help";

export function commandSpecs(program: CommandLike, valueOf: (option: OptionLike) => ValueCompletion | undefined = () => undefined): CommandSpec[] {
  const out: CommandSpec[] = [];
  const walk = (cmd: CommandLike, path: string, inherited: CompletionFlag[]) => {
    const own = cmd.options
      .filter((o) => !o.hidden)
      .map((o): CompletionFlag => {
        const value = o.required ? valueOf(o) : undefined;
        return { names: [o.short, o.long].filter((n): n is string => Boolean(n)), takesValue: o.required, ...(value ? { value } : {}) };
      });
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
    for (const c of visible) walk(c, path ? `${path} ${c.name()}` : c.name(), [...inherited, ...own]);
  };
  walk(program, "", []);
  return withHelpPaths(out);
}

/** `help`'s words are command paths: `help live` offers live's subcommands, as `live` does. */
function withHelpPaths(specs: CommandSpec[]): CommandSpec[] {
  const help = specs.find((s) => s.path === HELP);
  if (!help) return specs;
  const mirrored = specs
    .filter((s) => s.path !== "" && s.path !== HELP && s.subcommands.length > 0)
    .map((s) => ({ path: `${HELP} ${s.path}`, subcommands: s.subcommands, flags: help.flags, takesPackage: false }));
  const root = specs.find((s) => s.path === "")!;
  return [...specs.map((s) => (s === help ? { ...help, subcommands: root.subcommands.filter((c) => c !== HELP) } : s)), ...mirrored];
}
