#!/usr/bin/env node
// The command line. Command bodies are imported only when run, so `--help` stays fast.
// This file is the only place that ends the process: errors become exit codes here.

import { readFileSync } from "node:fs";
import { Argument, Command, CommanderError, Help, Option } from "commander";
import { CancelledError, EXIT, exitCodeFor, UsageError, type ExitCode } from "./model/errors.js";
import { formatError, githubAnnotations } from "./print/error-report.js";
import { flushOutput } from "./print/flush-output.js";
import { applyFlags, destroyFlags, diffFlags, globalFlags, historyFlags, initFlags, listFlags, migrateFlags, noFlags, rootFlags, statusFlags, commandExamples, type GlobalFlags } from "./commands/command-specs.js";
import { attributeOf, longName, parseFlags, type FlagSpec, type FlagsSpec, type FlagValues } from "./commands/flag-spec.js";
import type { CommandIO } from "./commands/io.js";

const VERSION = (JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string }).version;

const abort = new AbortController();
// Standard input only when a command reads it (`-`, a prompt): Node builds its stream on first use.
const io: CommandIO = {
  stdout: process.stdout,
  stderr: process.stderr,
  get stdin() {
    return process.stdin;
  },
  env: process.env,
  signal: abort.signal,
};

const BOOL_VALUE = /^(true|false|1|0|yes|no)$/i;

/**
 * Go-style booleans, as kpt takes them: `--flag`, `--flag=true`, `--flag=false`. Commander only
 * knows `--flag` / `--no-flag`, so `=value` forms are rewritten before parsing (a value after a
 * space is never taken: `--dry-run .` keeps `.` as the package path). Nothing after `--` (the end
 * of options, as cobra reads it: `live apply -- -dir` applies the directory `-dir`) is touched.
 */
function normalizeBooleans(argv: string[]): string[] {
  const end = argv.indexOf("--");
  const options = end < 0 ? argv : argv.slice(0, end);
  const rewritten = options.map((arg) => {
    const m = /^--([a-z-]+)=(.*)$/.exec(arg);
    if (!m || !BOOL_FLAGS.has(m[1]!) || !BOOL_VALUE.test(m[2]!)) return arg;
    return /^(true|1|yes)$/i.test(m[2]!) ? `--${m[1]}` : `--no-${m[1]}`;
  });
  return end < 0 ? rewritten : [...rewritten, ...argv.slice(end)];
}

const BOOL_FLAGS = new Set<string>();

/**
 * `-v` takes an optional level, and commander would take the next word as that level: `live apply
 * -v ./pkg` would then apply the current directory. A level is taken only when it is a number
 * (`-v 5`, `-v=5`, `--v=5`); a bare `-v` means level 1 and leaves the next word alone.
 */
function normalizeVerbosity(argv: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "--") return [...out, ...argv.slice(i)];
    const m = /^--?v(?:=(.*))?$/.exec(arg);
    if (!m) {
      out.push(arg);
      continue;
    }
    if (m[1] !== undefined) out.push(`--v=${m[1]}`);
    else if (/^\d+$/.test(argv[i + 1] ?? "")) out.push(`--v=${argv[++i]}`);
    else out.push("--v=1");
  }
  return out;
}

/** Each registered option's flag spec: shell completion offers the values the spec accepts. */
const specOf = new WeakMap<object, FlagSpec<unknown>>();

/** Registers each flag of a spec with commander (and, for booleans, the hidden `--no-` form). */
function addFlags(cmd: Command, spec: FlagsSpec): Command {
  for (const [key, f] of Object.entries(spec)) {
    const opt = new Option(f.flags, f.description);
    specOf.set(opt, f);
    if (f.default !== undefined) opt.default(f.default);
    if (f.hidden) opt.hideHelp();
    if (f.repeatable) opt.argParser((value: string, previous: string[] | undefined) => [...(previous ?? []), value]);
    if (opt.attributeName() !== attributeOf(f)) throw new Error(`flag spec "${key}": commander keeps ${f.flags} as ${opt.attributeName()}`);
    cmd.addOption(opt);
    if (f.boolean) {
      BOOL_FLAGS.add(longName(f));
      cmd.addOption(new Option(`--no-${longName(f)}`).hideHelp());
    }
  }
  return cmd;
}

let verbose = false;

/** The signal that cancelled the run, if one did. */
let stoppedBy: "SIGINT" | "SIGTERM" | undefined;

/** The exit code of an error; cancellation says which signal caused it (130 SIGINT, 143 SIGTERM). */
function codeFor(err: unknown): ExitCode {
  // A request cut by the cancellation surfaces as the platform's AbortError.
  const aborted = stoppedBy !== undefined && (err as Error | undefined)?.name === "AbortError";
  const code = aborted ? EXIT.cancelled : exitCodeFor(err);
  return code === EXIT.cancelled && stoppedBy === "SIGTERM" ? EXIT.terminated : code;
}

/**
 * Runs a command and exits with its code. `live diff` (diffExit) exits as diff(1) does: 0 nothing
 * would change, 1 something would, 2 for any trouble (bad flags, package, cluster access, a dry
 * run the server refused); 130 when interrupted.
 */
async function run(body: () => Promise<void | 0 | 1 | 2>, diffExit = false): Promise<void> {
  let code: ExitCode = EXIT.ok;
  try {
    const result = await body();
    if (diffExit) code = result as 0 | 1 | 2;
  } catch (err) {
    code = codeFor(err);
    if (diffExit && code !== EXIT.cancelled && code !== EXIT.terminated) code = 2;
    if (!diffExit && (err as Error | undefined)?.name === "AbortError" && stoppedBy) report(new CancelledError());
    else report(err);
  }
  await finish(code);
}

function report(err: unknown): void {
  for (const line of formatError(err, verbose)) process.stderr.write(`${line}\n`);
  // In a GitHub Actions job, problems with a file and line also show on the pull request's diff.
  if (process.env.GITHUB_ACTIONS === "true") for (const line of githubAnnotations(err, process.cwd())) process.stderr.write(`${line}\n`);
}

async function finish(code: ExitCode): Promise<never> {
  process.exitCode = code;
  await flushOutput([process.stdout, process.stderr]);
  process.exit(code);
}

/**
 * commander's Command, with one change: a typo in `--flag=value` gets the "Did you mean" that
 * `--flag value` gets (commander compares the whole argument, value included, with the flags).
 */
class KptTsCommand extends Command {
  /** The `--flag=value` argument being reported, while commander reports its flag alone. */
  private reporting?: { flag: string; argument: string };

  override createCommand(name?: string): Command {
    return new KptTsCommand(name);
  }

  // commander's own method (not in its typings): called with each argument it does not know.
  unknownOption(flag: string): void {
    const unknownOption = (Command.prototype as unknown as { unknownOption(this: Command, flag: string): void }).unknownOption;
    const eq = flag.indexOf("=");
    if (!flag.startsWith("--") || eq < 0) return unknownOption.call(this, flag);
    this.reporting = { flag: flag.slice(0, eq), argument: flag };
    try {
      unknownOption.call(this, flag.slice(0, eq));
    } finally {
      this.reporting = undefined;
    }
  }

  override error(message: string, errorOptions?: { code?: string; exitCode?: number }): never {
    const r = this.reporting;
    return super.error(r ? message.replace(`'${r.flag}'`, `'${r.argument}'`) : message, errorOptions);
  }
}

const program = addFlags(
  new KptTsCommand("kpt-ts")
    .description("Deploy Kubernetes packages: apply, prune, wait, status and destroy, compatible with `kpt live`.")
    .version(VERSION, "--version", "print the version")
    .showHelpAfterError("(run with --help for usage)")
    .helpCommand(false) // `help` below takes a whole command path
    .exitOverride(),
  rootFlags,
);
// Each command's --help shows the flags it inherits (kpt's root flags; `live`'s) under kpt's heading.
// Set before any subcommand exists: each one copies it.
program.configureHelp({
  showGlobalOptions: true,
  formatItemList(heading: string, items: string[], helper: Help) {
    return Help.prototype.formatItemList.call(this, heading === "Global Options:" ? "Global Flags:" : heading, items, helper);
  },
});
// kpt's root flags are checked before any command runs (they change nothing kpt-ts prints).
program.hook("preAction", (_program, command) => void parseFlags(rootFlags, command.optsWithGlobals()));

const live = addFlags(program.command("live").description("Deploy local packages to a cluster").exitOverride(), globalFlags);

const PKG = "the package directory, or - to read it from standard input";

interface CommandDef<S extends FlagsSpec> {
  description: string;
  flags: S;
  /** `[PKG_PATH]` with its description and default; absent: the command takes no arguments. */
  pkg?: { description: string };
  /** live diff: exit codes as diff(1) (the body returns it; any error is 2). */
  diffExit?: boolean;
  body(a: { pkgPath: string; flags: FlagValues<S>; globals: GlobalFlags }): Promise<void | 0 | 1 | 2>;
}

/** The command's examples from its spec, after the flags in `--help`, as kpt shows them. */
function withExamples(cmd: Command, path: string): Command {
  const examples = commandExamples[path];
  if (examples) cmd.addHelpText("after", `\nExamples:\n${examples.map(([what, line]) => `\n  # ${what}\n  $ ${line}\n`).join("")}`);
  return cmd;
}

/** Registers a `live` subcommand from its flag spec; the body receives the flags parsed and typed. */
function liveCommand<S extends FlagsSpec>(name: string, def: CommandDef<S>): Command {
  const cmd = withExamples(addFlags(live.command(name).description(def.description).exitOverride(), def.flags), `live ${name}`);
  if (def.pkg) cmd.argument("[PKG_PATH]", def.pkg.description, ".");
  return cmd.action((...args: unknown[]) => {
    const c = args[args.length - 1] as Command;
    const body = async () => {
      if (!def.pkg && c.args.length > 0) throw new UsageError(`too many arguments; ${name} takes none`);
      const all = c.optsWithGlobals() as Record<string, unknown>;
      const globals = parseFlags(globalFlags, all);
      verbose = globals.v;
      io.verbose = globals.v;
      return def.body({ pkgPath: def.pkg ? (args[0] as string) : ".", flags: parseFlags(def.flags, all), globals });
    };
    return run(body, def.diffExit);
  });
}

liveCommand("init", {
  description: "Add inventory information (a ResourceGroup) to a package",
  flags: initFlags,
  pkg: { description: "the package directory" },
  body: async ({ pkgPath, flags, globals }) => (await import("./commands/live-init-command.js")).liveInit(pkgPath, flags, globals, io),
});

liveCommand("apply", {
  description: "Apply a package to the cluster: create and update its objects, prune what left it, wait until reconciled",
  flags: applyFlags,
  pkg: { description: PKG },
  body: async ({ pkgPath, flags, globals }) => (await import("./commands/live-apply.js")).liveApply(pkgPath, flags, globals, io),
});

liveCommand("destroy", {
  description: "Delete every object of the package's inventory from the cluster, dependents first",
  flags: destroyFlags,
  pkg: { description: PKG },
  body: async ({ pkgPath, flags, globals }) => (await import("./commands/live-destroy.js")).liveDestroy(pkgPath, flags, globals, io),
});

liveCommand("diff", {
  description: "Show what the next apply would change: a server-side dry run against the live objects, and what it would prune (exit 0: no changes, 1: changes, 2: error)",
  flags: diffFlags,
  pkg: { description: PKG },
  diffExit: true,
  body: async ({ pkgPath, flags, globals }) => (await import("./commands/live-diff.js")).liveDiff(pkgPath, flags, globals, io),
});

liveCommand("status", {
  description: "Show the reconcile status of the objects in the package's inventory, or (--inv-type remote) in every inventory in the cluster",
  flags: statusFlags,
  pkg: { description: PKG },
  body: async ({ pkgPath, flags, globals }) => (await import("./commands/live-status.js")).liveStatus(pkgPath, flags, globals, io),
});

liveCommand("history", {
  description: "List the changes kpt-ts recorded for the package's inventory: when, who, what changed, how it ended (newest first)",
  flags: historyFlags,
  pkg: { description: PKG },
  body: async ({ pkgPath, flags, globals }) => (await import("./commands/live-history.js")).liveHistory(pkgPath, flags, globals, io),
});

liveCommand("list", {
  description: "List every inventory in the cluster (kpt-ts' and kpt's): objects, namespaces, last change; all namespaces unless -n",
  flags: listFlags,
  body: async ({ flags, globals }) => (await import("./commands/live-list.js")).liveList(flags, globals, io),
});

liveCommand("migrate", {
  description: "Migrate a package and its inventory object to a ResourceGroup: from the Kptfile's inventory section, or from a ConfigMap inventory (package and cluster)",
  flags: migrateFlags,
  pkg: { description: "the package directory" },
  body: async ({ pkgPath, flags, globals }) => (await import("./commands/live-migrate.js")).liveMigrate(pkgPath, flags, globals, io),
});

liveCommand("install-resource-group", {
  description: "Install the ResourceGroup CRD that stores inventories",
  flags: noFlags,
  body: async ({ globals }) => (await import("./commands/install-resource-group.js")).installResourceGroup(globals, io),
});

// Hidden: the names completion offers (contexts, namespaces, inventories), listed with the
// connection flags typed on the line; the scripts of `completion` run it on TAB.
live
  .command("__names", { hidden: true })
  .argument("<kind>", "context, namespace or inventory")
  .exitOverride()
  .action((kind: string, _opts: unknown, c: Command) =>
    run(async () => {
      const { completeNames } = await import("./commands/complete-names.js");
      await completeNames(kind, parseFlags(globalFlags, c.optsWithGlobals()), io);
    }),
  );

withExamples(program.command("completion"), "completion")
  .description("Print a shell completion script (bash: `source <(kpt-ts completion bash)`; zsh: `source <(kpt-ts completion zsh)`; fish: `kpt-ts completion fish | source`)")
  .addArgument(new Argument("<shell>", "bash, zsh or fish").choices(["bash", "zsh", "fish"]))
  .exitOverride()
  .action((shell: string) =>
    run(async () => {
      const { printCompletion } = await import("./commands/completion.js");
      printCompletion(shell, program, (option) => specOf.get(option)?.completion, io);
    }),
  );

withExamples(program.command("version"), "version")
  .description("Print the version of kpt-ts")
  .exitOverride()
  .action(() => run(async () => void io.stdout.write(`${VERSION}\n`)));

// `kpt-ts help live apply`: that command's --help (commander's own help command takes one word).
// An unknown word is reported with the help of the command it was looked for in, on stderr, and
// exits 0, as `kpt help nope` does (cobra's help command never fails).
withExamples(program.command("help"), "help")
  .description("Show a command's help: kpt-ts help live apply")
  .argument("[command...]", "the command's path, e.g. live apply")
  .exitOverride()
  .action(async (words: string[]) => {
    let cmd = program;
    for (const [i, word] of words.entries()) {
      const next = cmd.commands.find((c) => c.name() === word);
      if (!next) {
        const where = ["kpt-ts", ...words.slice(0, i)].join(" ");
        const shown = cmd.commands.filter((c) => !(c as unknown as { _hidden?: boolean })._hidden);
        report(new UsageError(`unknown help topic ${JSON.stringify(word)}: "${where}" has ${shown.map((c) => c.name()).join(", ")}`));
        process.stderr.write("\n");
        cmd.outputHelp({ error: true });
        return finish(EXIT.ok);
      }
      cmd = next;
    }
    cmd.help(); // prints it and ends through exitOverride (exit 0)
  });

// A closed pipe (`kpt-ts ... | head`) means nobody reads any more: the run goes on (stopping an
// apply half way is worse), its output is dropped.
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (err: NodeJS.ErrnoException) => {
    if (err.code !== "EPIPE") throw err;
    stream.write = (() => true) as typeof stream.write;
  });
}

// SIGINT (Ctrl-C) and SIGTERM (a CI job cancelled, a pod stopping) both stop the run cleanly: no
// new work starts, requests in flight finish, the inventory is saved; a second one quits at once.
for (const sig of ["SIGINT", "SIGTERM"] as const) {
  process.on(sig, () => {
    const code = sig === "SIGTERM" ? EXIT.terminated : EXIT.cancelled;
    if (abort.signal.aborted) process.exit(code); // the second signal: now
    stoppedBy = sig;
    abort.abort(); // first, so a live progress view erases itself before the note below
    const again = sig === "SIGINT" ? "Ctrl-C" : "SIGTERM";
    process.stderr.write(`\n${sig === "SIGINT" ? "interrupted" : "terminated"}: finishing the objects in flight and saving the inventory (${again} again to quit now)\n`);
  });
}

// No top-level await: the launcher (cli-launcher.ts) runs this file as one CommonJS script.
async function main(): Promise<void> {
  try {
    await program.parseAsync(normalizeVerbosity(normalizeBooleans(process.argv)));
  } catch (err) {
    if (err instanceof CommanderError) {
      // Help and version exit 0; every other commander error is a usage error.
      await finish(err.exitCode === 0 ? EXIT.ok : EXIT.badInput);
    }
    report(err);
    await finish(codeFor(err));
  }
}

void main();
