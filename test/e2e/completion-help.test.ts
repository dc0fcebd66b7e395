// Issue 24: shell completion agrees with the command line it completes. For every command (read
// from the built CLI's own --help, recursively), bash, zsh and fish each complete exactly the
// flags its --help lists, each shell offers the same values for a flag, and the command accepts
// every value offered (run with it, it gets past its flags to the package or the kubeconfig).
// No cluster: the package and the kubeconfig named are absent, so every run stops there.
import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
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
type Shell = (typeof SHELLS)[number];

interface HelpPage {
  path: string;
  flags: string[];
  subcommands: string[];
  takesPackage: boolean;
}

/** Flags (short and long) and subcommands as `--help` lists them. */
function parseHelp(path: string, text: string): HelpPage {
  const flags: string[] = [];
  const subcommands: string[] = [];
  let section = "";
  for (const line of text.split("\n")) {
    if (/^\S.*:$/.test(line)) section = line;
    const flag = /^ {2}(-{1,2}[\w-]+)(?:, (--[\w-]+))?/.exec(line);
    if (flag && (section === "Options:" || section === "Global Flags:")) flags.push(...[flag[1]!, flag[2]].filter((f): f is string => Boolean(f)));
    const command = /^ {2}([a-z][\w-]*)/.exec(line);
    if (command && section === "Commands:") subcommands.push(command[1]!);
  }
  return { path, flags: flags.sort(), subcommands, takesPackage: /^Usage: .*\[PKG_PATH\]/m.test(text) };
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
  // kubectl (contexts, namespaces, inventories) finds no cluster: nothing but fixed words to run.
  const r = spawnSync(shell, ["-c", script], { encoding: "utf8", maxBuffer: 64 * 1024 * 1024, env: { ...process.env, KUBECONFIG: ABSENT_KUBECONFIG } });
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

/** Extra words a command needs for a value to be taken: apply's Markdown preview needs --dry-run. */
const NEEDS: Record<string, string[]> = { "live apply": ["--dry-run"] };

/** Runs a command with a flag value, the package and kubeconfig absent: taken when the run reaches them. */
async function takes(path: string, args: string[]): Promise<{ taken: boolean; r: RunResult }> {
  const page = pages.find((p) => p.path === path)!;
  const r = await kptTs([...path.split(" "), ...(NEEDS[path] ?? []), ...args, ...(page.takesPackage ? [ABSENT_PKG] : [])], { env: { KUBECONFIG: ABSENT_KUBECONFIG } });
  return { taken: r.code === 0 || r.stderr.includes(dir), r };
}

describe("the values completion offers", () => {
  it.skipIf(!hasBinary("bash"))("are the same in every shell, and every command accepts each one", { timeout: 300_000 }, async () => {
    const flagLines = pages.flatMap((p) => p.flags.filter((f) => f.startsWith("--")).map((f) => ({ path: p.path, flag: f, words: [...wordsOf(p.path), f, ""] })));
    console.error("A", Date.now());
    const offered = completeAll("bash", flagLines.map((l) => l.words));
    console.error("B", Date.now(), flagLines.length);
    for (const shell of SHELLS.filter((s) => s !== "bash" && hasBinary(s))) {
      const other = completeAll(shell, flagLines.map((l) => l.words));
      console.error("C", shell, Date.now());
      for (const [i, l] of flagLines.entries()) {
        // Files and directories are each shell's own listing; fixed words must agree.
        if (offered[i]!.length && !other[i]!.some((w) => w.startsWith("@"))) expect(other[i], `${shell}: kpt-ts ${l.path} ${l.flag} <TAB>`).toEqual(offered[i]);
      }
    }
    const cases: { path: string; args: string[] }[] = [];
    for (const [i, l] of flagLines.entries()) for (const value of offered[i]!) cases.push({ path: l.path, args: [l.flag, value] });
    const completion = completeAll("bash", [["kpt-ts", "completion", ""]])[0]!;
    expect(completion).toEqual(["bash", "fish", "zsh"]);
    for (const value of completion) cases.push({ path: "completion", args: [value] });
    // The values bash offers where it offers words (not files, as there are none in the directory).
    expect(cases.filter((c) => c.args[0] === "--output").map((c) => `${c.path} ${c.args[1]}`)).toEqual(
      expect.arrayContaining(["live apply markdown", "live diff markdown", "live history json", "live history table"]),
    );
    expect(cases.find((c) => c.path === "live history" && c.args[1] === "events")).toBeUndefined();

    const refused: string[] = [];
    for (let i = 0; i < cases.length; i += 4) {
      await Promise.all(
        cases.slice(i, i + 4).map(async (c) => {
          console.error("run", c.path, c.args.join(" "), Date.now());
          const { taken, r } = await takes(c.path, c.args);
          if (!taken) refused.push(`kpt-ts ${c.path} ${c.args.join(" ")}: ${printed(r)}`);
        }),
      );
    }
    expect(refused).toEqual([]);
    expect(cases.length).toBeGreaterThan(40);
  });

  it("the acceptance check itself: a value the command refuses is caught", async () => {
    const { taken, r } = await takes("live history", ["--output", "events"]);
    expect(taken, printed(r)).toBe(false);
    expect(r.code).toBe(2);
  });
});
