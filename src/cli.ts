#!/usr/bin/env node
// The command line. Command bodies are imported only when run, so `--help` stays fast.
// This file is the only place that ends the process: errors become exit codes here.

import { readFileSync } from "node:fs";
import { Argument, Command, CommanderError, Option } from "commander";
import { CancelledError, EXIT, exitCodeFor, UsageError, type ExitCode } from "./errors.js";
import { formatError } from "./print/error-report.js";
import { flushOutput } from "./print/flush-output.js";
import type { GlobalFlags } from "./commands/flags.js";
import type { CommandIO } from "./commands/io.js";

const VERSION = (JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string }).version;

const abort = new AbortController();
const io: CommandIO = { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin, env: process.env, signal: abort.signal };

const BOOL_VALUE = /^(true|false|1|0|yes|no)$/i;

/**
 * Go-style booleans, as kpt takes them: `--flag`, `--flag=true`, `--flag=false`. Commander only
 * knows `--flag` / `--no-flag`, so `=value` forms are rewritten before parsing (a value after a
 * space is never taken: `--dry-run .` keeps `.` as the package path).
 */
function normalizeBooleans(argv: string[]): string[] {
  return argv.map((arg) => {
    const m = /^--([a-z-]+)=(.*)$/.exec(arg);
    if (!m || !BOOL_FLAGS.has(m[1]!) || !BOOL_VALUE.test(m[2]!)) return arg;
    return /^(true|1|yes)$/i.test(m[2]!) ? `--${m[1]}` : `--no-${m[1]}`;
  });
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

/** A boolean flag; `--no-<name>` (hidden) turns it off, so `--name=false` works too. */
function flagOn(name: string, description: string, defaultValue = false): Option {
  BOOL_FLAGS.add(name);
  return new Option(`--${name}`, description).default(defaultValue);
}

/** `-y, --yes`: answer yes to the question before deleting (also `--yes=false`). */
function yesFlag(): Option {
  BOOL_FLAGS.add("yes");
  return new Option("-y, --yes", "do not ask before pruning or deleting (the question comes only in a terminal)").default(false);
}

function flagOff(name: string): Option {
  return new Option(`--no-${name}`).hideHelp();
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

async function run(body: () => Promise<void>): Promise<void> {
  let code: ExitCode = EXIT.ok;
  try {
    await body();
  } catch (err) {
    code = codeFor(err);
    if ((err as Error | undefined)?.name === "AbortError" && stoppedBy) report(new CancelledError());
    else report(err);
  }
  await finish(code);
}

/**
 * `live diff` exits as diff(1) does: 0 nothing would change, 1 something would, 2 for any
 * trouble (bad flags, package, cluster access, a dry run the server refused); 130 when interrupted.
 */
async function runDiff(body: () => Promise<0 | 1 | 2>): Promise<void> {
  let code: ExitCode;
  try {
    code = await body();
  } catch (err) {
    code = codeFor(err);
    if (code !== EXIT.cancelled && code !== EXIT.terminated) code = 2;
    report(err);
  }
  await finish(code);
}

function report(err: unknown): void {
  for (const line of formatError(err, verbose)) process.stderr.write(`${line}\n`);
}

async function finish(code: ExitCode): Promise<never> {
  process.exitCode = code;
  await flushOutput([process.stdout, process.stderr]);
  process.exit(code);
}

function globals(cmd: Command): GlobalFlags {
  const g = cmd.optsWithGlobals() as GlobalFlags;
  verbose = g.v !== undefined && g.v !== false && g.v !== "0";
  return g;
}

const program = new Command("kpt-ts")
  .description("Deploy Kubernetes packages: apply, prune, wait, status and destroy, compatible with `kpt live`.")
  .version(VERSION, "--version", "print the version")
  .showHelpAfterError("(run with --help for usage)")
  .exitOverride();

const live = program
  .command("live")
  .description("Deploy local packages to a cluster")
  .option("--kubeconfig <path>", "path to the kubeconfig file (default: $KUBECONFIG, else ~/.kube/config)")
  .option("--context <name>", "the kubeconfig context to use")
  .option("-n, --namespace <namespace>", "namespace for objects without one; objects in other namespaces are refused, as in kpt")
  .option("-v, --v [level]", "verbose errors: show each error's detail and cause")
  .option("--no-color", "never colour the output (also: NO_COLOR=1)")
  .exitOverride();

live
  .command("init")
  .description("Add inventory information (a ResourceGroup) to a package")
  .argument("[PKG_PATH]", "the package directory", ".")
  .option("--name <name>", "inventory object name (default: inventory-<8 random digits>)")
  .option("--inventory-id <id>", "inventory id (default: generated from namespace, name and time)")
  .addOption(flagOn("force", "overwrite existing inventory information")).addOption(flagOff("force"))
  .addOption(flagOn("quiet", "print nothing on success")).addOption(flagOff("quiet"))
  .option("--rg-file <file>", "file name of the ResourceGroup", "resourcegroup.yaml")
  .exitOverride()
  .action((pkgPath: string, _o, cmd: Command) =>
    run(async () => {
      const f = globals(cmd) as GlobalFlags & { name?: string; inventoryId?: string; force?: boolean; quiet?: boolean; rgFile: string };
      const { liveInit } = await import("./commands/live-init-command.js");
      await liveInit(pkgPath, f, io);
    }),
  );

live
  .command("apply")
  .description("Apply a package to the cluster: create and update its objects, prune what left it, wait until reconciled")
  .argument("[PKG_PATH]", "the package directory, or - to read it from standard input", ".")
  .addOption(flagOn("dry-run", "show what would change without changing anything (client-side; server-side with --server-side)")).addOption(flagOff("dry-run"))
  .addOption(flagOn("server-side", "use server-side apply")).addOption(flagOff("server-side"))
  .option("--field-manager <name>", "field manager for server-side apply", "kubectl")
  .addOption(flagOn("force-conflicts", "server-side apply: take over fields other managers own")).addOption(flagOff("force-conflicts"))
  .option("--reconcile-timeout <duration>", "how long to wait for each wave to reconcile (e.g. 2m); 0 waits as long as it takes")
  .option("--prune-timeout <duration>", "how long to wait for pruned objects to be gone; 0 waits as long as it takes")
  .option("--prune-propagation-policy <policy>", "Background, Foreground or Orphan", "Background")
  .option("--inventory-policy <policy>", "strict: touch only objects this inventory owns; adopt: also take unowned ones", "strict")
  .addOption(flagOn("install-resource-group", "install the ResourceGroup CRD when it is missing", true)).addOption(flagOff("install-resource-group"))
  .option("--output <format>", "events, table or json", "events")
  .addOption(flagOn("show-status-events", "also print each status change")).addOption(flagOff("show-status-events"))
  .option("--status-policy <policy>", "all: record each object's status in the inventory; none: do not", "all")
  .option("--concurrency <n>", "objects applied or deleted at once within a wave (default 16)")
  .option("--poll-period <duration>", "poll period where the cluster refuses watches", "2s")
  .option("--history-limit <n>", "change records kept for this inventory, newest first (default 200; 0 records nothing)")
  .addOption(yesFlag()).addOption(flagOff("yes"))
  .exitOverride()
  .action((pkgPath: string, _o, cmd: Command) =>
    run(async () => {
      const { liveApply } = await import("./commands/live-apply.js");
      await liveApply(pkgPath, globals(cmd) as never, io);
    }),
  );

live
  .command("destroy")
  .description("Delete every object of the package's inventory from the cluster, dependents first")
  .argument("[PKG_PATH]", "the package directory, or - to read it from standard input", ".")
  .addOption(flagOn("dry-run", "show what would be deleted without deleting anything")).addOption(flagOff("dry-run"))
  .option("--inventory-policy <policy>", "strict or adopt", "strict")
  .option("--output <format>", "events, table or json", "events")
  .addOption(flagOn("show-status-events", "also print each status change")).addOption(flagOff("show-status-events"))
  .option("--status-policy <policy>", "all or none", "all")
  .option("--delete-propagation-policy <policy>", "Background, Foreground or Orphan", "Background")
  .option("--delete-timeout <duration>", "how long to wait for each wave to be gone; 0 waits as long as it takes")
  .option("--concurrency <n>", "objects deleted at once within a wave (default 16)")
  .option("--history-limit <n>", "change records kept for this inventory, newest first (default 200; 0 records nothing)")
  .addOption(yesFlag()).addOption(flagOff("yes"))
  .exitOverride()
  .action((pkgPath: string, _o, cmd: Command) =>
    run(async () => {
      const { liveDestroy } = await import("./commands/live-destroy.js");
      await liveDestroy(pkgPath, globals(cmd) as never, io);
    }),
  );

live
  .command("diff")
  .description("Show what the next apply would change: a server-side dry run against the live objects, and what it would prune (exit 0: no changes, 1: changes, 2: error)")
  .argument("[PKG_PATH]", "the package directory, or - to read it from standard input", ".")
  .addOption(flagOn("server-side", "preview a server-side apply")).addOption(flagOff("server-side"))
  .option("--field-manager <name>", "field manager for server-side apply", "kubectl")
  .addOption(flagOn("force-conflicts", "server-side apply: take over fields other managers own")).addOption(flagOff("force-conflicts"))
  .option("--inventory-policy <policy>", "strict or adopt, as for apply", "strict")
  .option("--output <format>", "text or json", "text")
  .option("--concurrency <n>", "dry runs at once (default 16)")
  .exitOverride()
  .action((pkgPath: string, _o, cmd: Command) =>
    runDiff(async () => {
      const { liveDiff } = await import("./commands/live-diff.js");
      return liveDiff(pkgPath, globals(cmd) as never, io);
    }),
  );

live
  .command("status")
  .description("Show the reconcile status of the objects in the package's inventory")
  .argument("[PKG_PATH]", "the package directory, or - to read it from standard input", ".")
  .option("--poll-period <duration>", "poll period where the cluster refuses watches", "2s")
  .option("--poll-until <when>", "known, current, deleted or forever", "known")
  .option("--timeout <duration>", "stop after this long (exit 0)")
  .option("--output <format>", "events, table or json", "events")
  .option("--statuses <list>", "only show objects with these statuses (comma-separated)")
  .option("--namespaces <list>", "only show objects in these namespaces (comma-separated)")
  .exitOverride()
  .action((pkgPath: string, _o, cmd: Command) =>
    run(async () => {
      const { liveStatus } = await import("./commands/live-status.js");
      await liveStatus(pkgPath, globals(cmd) as never, io);
    }),
  );

live
  .command("history")
  .description("List the changes kpt-ts recorded for the package's inventory: when, who, what changed, how it ended (newest first)")
  .argument("[PKG_PATH]", "the package directory, or - to read it from standard input", ".")
  .option("--output <format>", "table or json", "table")
  .exitOverride()
  .action((pkgPath: string, _o, cmd: Command) =>
    run(async () => {
      const { liveHistory } = await import("./commands/live-history.js");
      await liveHistory(pkgPath, globals(cmd) as never, io);
    }),
  );

live
  .command("list")
  .description("List every inventory in the cluster (kpt-ts' and kpt's): objects, namespaces, last change; all namespaces unless -n")
  .option("--output <format>", "table or json", "table")
  .exitOverride()
  .action((_o, cmd: Command) =>
    run(async () => {
      if (cmd.args.length > 0) throw new UsageError("too many arguments; list takes none (use -n NAMESPACE to narrow it)");
      const { liveList } = await import("./commands/live-list.js");
      await liveList(globals(cmd) as never, io);
    }),
  );

live
  .command("install-resource-group")
  .description("Install the ResourceGroup CRD that stores inventories")
  .exitOverride()
  .action((_o, cmd: Command) =>
    run(async () => {
      if (cmd.args.length > 0) throw new UsageError("too many arguments; install-resource-group takes no arguments");
      const { installResourceGroup } = await import("./commands/install-resource-group.js");
      await installResourceGroup(globals(cmd), io);
    }),
  );

program
  .command("completion")
  .description("Print a shell completion script (bash: `source <(kpt-ts completion bash)`; zsh: `source <(kpt-ts completion zsh)`)")
  .addArgument(new Argument("<shell>", "bash or zsh").choices(["bash", "zsh"]))
  .exitOverride()
  .action((shell: string) =>
    run(async () => {
      const { printCompletion } = await import("./commands/completion.js");
      printCompletion(shell, program, io);
    }),
  );

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
