// Issue 24: shell completion agrees with the command line it completes. For every command (read
// from the built CLI's own --help, recursively), bash, zsh and fish each complete exactly the
// flags its --help lists, each shell offers the same values for a flag, and the command accepts
// every value offered (run with it, it gets past its flags to the package or the kubeconfig).
// No cluster: the package and the kubeconfig named are absent, so every run stops there; the
// contexts, namespaces and inventories the scripts ask kubectl for come from a stand-in kubectl
// (fast, and known words to compare across shells).
import { spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { hasBinary, kptTs, type RunResult } from "../helpers/run.js";
import { printed } from "../helpers/scenario.js";

const dir = mkdtempSync(join(tmpdir(), "kpt-ts-completion-help-"));
const ABSENT_PKG = join(dir, "absent-package");
const ABSENT_KUBECONFIG = join(dir, "absent-kubeconfig");
/** Where the shells complete: empty, so file and directory values offer nothing to run. */
const cwd = mkdtempSync(join(tmpdir(), "kpt-ts-completion-cwd-"));
const SHELLS = ["bash", "zsh", "fish"] as const;
/** A kubectl answering exactly the three questions the scripts ask it (anything else fails). */
const FAKE_BIN = join(dir, "bin");
mkdirSync(FAKE_BIN);
writeFileSync(
  join(FAKE_BIN, "kubectl"),
  `#!/bin/sh
case "$*" in
  "config get-contexts -o name") printf 'ctx-one\\nctx-two\\n' ;;
  "get namespaces -o name") printf 'namespace/ns-one\\nnamespace/ns-two\\n' ;;
  "get resourcegroups.kpt.dev --all-namespaces -o name") printf 'resourcegroup.kpt.dev/inv-one\\nresourcegroup.kpt.dev/inv-two\\nresourcegroup.kpt.dev/inv-one\\n' ;;
  *) echo "unexpected: kubectl $*" >&2; exit 1 ;;
esac
`,
);
chmodSync(join(FAKE_BIN, "kubectl"), 0o755);
type Shell = (typeof SHELLS)[number];

interface HelpPage {
  path: string;
  flags: string[];
  /** The long flags that take a value (`--output <format>`), each with where --help lists it. */
  valueFlags: { flag: string; global: boolean }[];
  subcommands: string[];
  takesPackage: boolean;
}

/** Flags (short and long) and subcommands as `--help` lists them. */
function parseHelp(path: string, text: string): HelpPage {
  const flags: string[] = [];
  const valueFlags: HelpPage["valueFlags"] = [];
  const subcommands: string[] = [];
  let section = "";
  for (const line of text.split("\n")) {
    if (/^\S.*:$/.test(line)) section = line;
    const flag = /^ {2}(-{1,2}[\w-]+)(?:, (--[\w-]+))?/.exec(line);
    if (flag && (section === "Options:" || section === "Global Flags:")) {
      flags.push(...[flag[1]!, flag[2]].filter((f): f is string => Boolean(f)));
      const long = [flag[1]!, flag[2]].find((f) => f?.startsWith("--"));
      if (long && /^ {2}\S+(?:, \S+)? <\w+>/.test(line)) valueFlags.push({ flag: long, global: section === "Global Flags:" });
    }
    const command = /^ {2}([a-z][\w-]*)/.exec(line);
    if (command && section === "Commands:") subcommands.push(command[1]!);
  }
  return { path, flags: flags.sort(), valueFlags, subcommands, takesPackage: /^Usage: .*\[PKG_PATH\]/m.test(text) };
}

const pages: HelpPage[] = [];
const scripts: Partial<Record<Shell, string>> = {};

beforeAll(async () => {
  const queue = [""];
  while (queue.length) {
    const path = queue.shift()!;
    const r = await kptTs([...(path ? path.split(" ") : []), "--help"]);
    expect(r.code, printed(r)).toBe(0);
    const page = parseHelp(path, r.stdout);
    // `live help [command]` is commander's own (the same as `--help`); completion offers `help` at the top only.
    if (path !== "") page.subcommands = page.subcommands.filter((c) => c !== "help");
    pages.push(page);
    for (const c of page.subcommands) queue.push(path ? `${path} ${c}` : c);
  }
  for (const shell of SHELLS) {
    const r = await kptTs(["completion", shell]);
    expect(r.code, printed(r)).toBe(0);
    scripts[shell] = join(dir, `kpt-ts.${shell}`);
    writeFileSync(scripts[shell], r.stdout);
  }
});

/** Each line's completions (the words offered, sorted), one shell process for all of them. */
function completeAll(shell: Shell, lines: string[][]): string[][] {
  const sq = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  const MARK = "@@next@@";
  const body = lines
    .map((words) => {
      if (shell === "bash") return `COMP_WORDS=(${words.map(sq).join(" ")}); COMP_CWORD=${words.length - 1}; COMPREPLY=(); _kpt_ts; printf '%s\\n' "\${COMPREPLY[@]}"; echo ${MARK}`;
      if (shell === "zsh") return `words=(${words.map(sq).join(" ")}); CURRENT=${words.length}; _kpt_ts; echo ${MARK}`;
      return `complete -C ${sq(words.join(" "))}; echo ${MARK}`;
    })
    .join("\n");
  const script =
    shell === "bash"
      ? `source ${sq(scripts.bash!)}\ncd ${sq(cwd)}\n${body}`
      : shell === "zsh"
        ? `compdef() { :; }; compadd() { [[ "$1" == -- ]] && shift; print -rl -- "$@"; }; _files() { print @files; }; _path_files() { print @dirs; }\nsource ${sq(scripts.zsh!)}\ncd ${sq(cwd)}\n${body}`
        : `source ${sq(scripts.fish!)}\ncd ${sq(cwd)}\n${body}`;
  const env = { ...process.env, KUBECONFIG: ABSENT_KUBECONFIG, PATH: `${FAKE_BIN}:${process.env.PATH ?? ""}` };
  const r = spawnSync(shell, ["-c", script], { encoding: "utf8", maxBuffer: 64 * 1024 * 1024, env });
  expect(r.stderr, `${shell} complained`).toBe("");
  const out = r.stdout.split(`${MARK}\n`).slice(0, lines.length);
  expect(out).toHaveLength(lines.length);
  return out.map((chunk) =>
    chunk
      .split("\n")
      .filter(Boolean)
      .map((l) => l.split("\t")[0]!)
      .sort(),
  );
}

const wordsOf = (path: string) => ["kpt-ts", ...(path ? path.split(" ") : [])];
const isFlag = (w: string) => /^-{1,2}[\w-]+$/.test(w);

describe.each(SHELLS)("%s completion against --help", (shell) => {
  it.skipIf(!hasBinary(shell))("completes exactly the flags and subcommands each command's --help lists", () => {
    const flags = completeAll(shell, pages.map((p) => [...wordsOf(p.path), "-"]));
    const subcommands = completeAll(shell, pages.map((p) => [...wordsOf(p.path), ""]));
    for (const [i, page] of pages.entries()) {
      expect(flags[i]!.filter(isFlag), `kpt-ts ${page.path} -<TAB>`).toEqual(page.flags);
      if (page.subcommands.length) expect(subcommands[i], `kpt-ts ${page.path} <TAB>`).toEqual([...page.subcommands].sort());
    }
    expect(pages.map((p) => p.path)).toEqual(expect.arrayContaining(["live apply", "live status", "help", "completion"]));
  });
});

/** Extra words a command needs for a value to be taken: apply's Markdown preview needs --dry-run; --inv-names, --inv-type remote. */
function needs(path: string, flag: string): string[] {
  if (path === "live apply") return ["--dry-run"];
  if (path === "live status" && flag === "--inv-names") return ["--inv-type", "remote"];
  return [];
}

/** Runs a command with a flag value, the package and kubeconfig absent: taken when the run reaches them. */
async function takes(path: string, args: string[]): Promise<{ taken: boolean; r: RunResult }> {
  const page = pages.find((p) => p.path === path)!;
  const r = await kptTs([...(path ? path.split(" ") : []), ...needs(path, args[0]!), ...args, ...(page.takesPackage ? [ABSENT_PKG] : [])], { env: { KUBECONFIG: ABSENT_KUBECONFIG } });
  return { taken: r.code === 0 || r.stderr.includes(dir), r };
}

/** Every long flag that takes a value, of every command, and the words bash offers for it. */
let offered: { path: string; flag: string; global: boolean; words: string[]; values: string[] }[] = [];

describe("the values completion offers", () => {
  beforeAll(() => {
    const lines = pages.flatMap((p) => p.valueFlags.map(({ flag, global }) => ({ path: p.path, flag, global, words: [...wordsOf(p.path), flag, ""] })));
    const values = completeAll("bash", lines.map((l) => l.words));
    offered = lines.map((l, i) => ({ ...l, values: values[i]! }));
  });

  it("are the spec's words: each command's own --output values, kpt's statuses, the cluster's names", () => {
    const at = (path: string, flag: string) => offered.find((o) => o.path === path && o.flag === flag)?.values;
    expect(at("live apply", "--output")).toEqual(["events", "json", "markdown", "table"]);
    expect(at("live diff", "--output")).toEqual(["json", "markdown", "text"]);
    expect(at("live history", "--output")).toEqual(["json", "table"]);
    expect(at("live status", "--statuses")).toEqual(["Current", "Failed", "InProgress", "NotFound", "Terminating", "Unknown"]);
    expect(at("live status", "--inv-type")).toEqual(["local", "remote"]);
    expect(at("live status", "--inv-names")).toEqual(["inv-one", "inv-two"]);
    expect(at("live status", "--namespaces")).toEqual(["ns-one", "ns-two"]);
    expect(at("live apply", "--namespace")).toEqual(["ns-one", "ns-two"]);
    expect(at("live list", "--context")).toEqual(["ctx-one", "ctx-two"]);
  });

  it.each(SHELLS.filter((s) => s !== "bash"))("are the same in %s as in bash", (shell) => {
    if (!hasBinary(shell)) return void console.warn(`${shell} is not installed: its completion is not compared`);
    const other = completeAll(shell, offered.map((l) => l.words));
    for (const [i, l] of offered.entries()) {
      // Files and directories are each shell's own listing (the directory is empty); words must agree.
      if (!other[i]!.some((w) => w.startsWith("@"))) expect(other[i], `${shell}: kpt-ts ${l.path} ${l.flag} <TAB>`).toEqual(l.values);
    }
    expect(offered.filter((l) => l.values.length).length).toBeGreaterThan(20);
  });

  it("are each accepted by the command they are offered for", { timeout: 600_000 }, async () => {
    // A command group runs nothing (`kpt-ts live --context x` prints its usage): its flags run on
    // its subcommands, which list them under Global Flags. A flag listed there is its parent's,
    // parsed the same for every subcommand: each of its values runs once (on one subcommand
    // listing it), the commands' own flags' values on each.
    const groups = new Set(pages.filter((p) => p.subcommands.length).map((p) => p.path));
    const byKey = new Map<string, { path: string; args: string[] }>();
    for (const l of offered.filter((o) => !groups.has(o.path))) {
      for (const value of l.values) byKey.set(l.global ? `${l.flag}=${value}` : `${l.path} ${l.flag}=${value}`, { path: l.path, args: [l.flag, value] });
    }
    const cases = [...byKey.values()];
    const completion = completeAll("bash", [["kpt-ts", "completion", ""]])[0]!;
    expect(completion).toEqual(["bash", "fish", "zsh"]);
    for (const value of completion) cases.push({ path: "completion", args: [value] });
    const refused: string[] = [];
    for (let i = 0; i < cases.length; i += 4) {
      await Promise.all(
        cases.slice(i, i + 4).map(async (c) => {
          const { taken, r } = await takes(c.path, c.args);
          if (!taken) refused.push(`kpt-ts ${c.path} ${c.args.join(" ")}: ${printed(r)}`);
        }),
      );
    }
    expect(refused).toEqual([]);
    expect(cases.length).toBeGreaterThan(30);
  });

  it("the acceptance check itself: a value the command refuses is caught", async () => {
    const { taken, r } = await takes("live history", ["--output", "events"]);
    expect(taken, printed(r)).toBe(false);
    expect(r.code).toBe(2);
  });
});
