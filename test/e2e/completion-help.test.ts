// Issue 24: shell completion agrees with the command line it completes. For every command (read
// from the built CLI's own --help, recursively), bash, zsh and fish each complete exactly the
// flags its --help lists, each shell offers the same values for a flag, and the command accepts
// every value offered (run with it, it gets past its flags to the package or the kubeconfig).
// No cluster: the package and the kubeconfig named are absent, so every run stops there; the
// contexts, namespaces and inventories the scripts ask `kpt-ts live __names` for come from a
// kubeconfig naming a small fake server (known words to compare across shells).
// Issue 35: those names are text, never code. Contexts from a kubeconfig and namespaces and
// inventories from a server, named `$(touch ...)`, with backticks, `;`, `*`, quotes, spaces,
// `$HOME` or a newline: TAB in a real bash, zsh and fish runs nothing and puts each name on the
// line exactly as written (read back by the same shell), or leaves out the one no line holds;
// and a --kubeconfig or --context typed earlier on the line is the one names are listed from.
import { spawn } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import type { ServerResponse } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { sendJson, startFakeApiServer, writeKubeconfigFor, type FakeServer } from "../helpers/fake-api-server.js";
import { CLI, hasBinary, kptTs, type RunResult } from "../helpers/run.js";
import { printed } from "../helpers/scenario.js";
import { afterTab, shellWords, type Shell } from "../helpers/shell-tab.js";

const dir = mkdtempSync(join(tmpdir(), "kpt-ts-completion-help-"));
const ABSENT_PKG = join(dir, "absent-package");
const ABSENT_KUBECONFIG = join(dir, "absent-kubeconfig");
/** Where the shells complete: empty, so file and directory values offer nothing to run. */
const cwd = mkdtempSync(join(tmpdir(), "kpt-ts-completion-cwd-"));
const SHELLS = ["bash", "zsh", "fish"] as const;
/** `kpt-ts` on the PATH the shells search: the built CLI. */
const BIN = join(dir, "bin");
mkdirSync(BIN);
writeFileSync(join(BIN, "kpt-ts"), `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(CLI)} "$@"\n`);
chmodSync(join(BIN, "kpt-ts"), 0o755);
const PATH = `${BIN}:${process.env.PATH ?? ""}`;

/** Aggregated discovery: namespaces (core v1) and ResourceGroups (kpt.dev). */
function discovery(path: string): unknown {
  const resource = (group: string, version: string, kind: string, plural: string, scope: string) => ({
    metadata: { name: group },
    versions: [{ version, resources: [{ resource: plural, responseKind: { group, version, kind }, scope, verbs: ["get", "list"] }] }],
  });
  const items = path === "/api" ? [resource("", "v1", "Namespace", "namespaces", "Cluster")] : [resource("kpt.dev", "v1alpha1", "ResourceGroup", "resourcegroups", "Namespaced")];
  return { apiVersion: "apidiscovery.k8s.io/v2", kind: "APIGroupDiscoveryList", items };
}

/** A server listing these namespaces and ResourceGroups (each inventory name in two namespaces). */
function namesServer(namespaces: string[], inventories: string[]): Promise<FakeServer> {
  return startFakeApiServer((req, res: ServerResponse) => {
    const path = (req.url ?? "").split("?")[0];
    const list = (apiVersion: string, kind: string, items: unknown[]) => sendJson(res, { apiVersion, kind: `${kind}List`, metadata: { resourceVersion: "1" }, items });
    if (path === "/api" || path === "/apis") return sendJson(res, discovery(path), 200, { "content-type": "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList" });
    if (path === "/api/v1/namespaces") return list("v1", "Namespace", namespaces.map((name) => ({ apiVersion: "v1", kind: "Namespace", metadata: { name } })));
    if (path === "/apis/kpt.dev/v1alpha1/resourcegroups") {
      const rg = (name: string, namespace: string) => ({ apiVersion: "kpt.dev/v1alpha1", kind: "ResourceGroup", metadata: { name, namespace } });
      return list("kpt.dev/v1alpha1", "ResourceGroup", [...inventories.map((n) => rg(n, "ns-a")), ...inventories.map((n) => rg(n, "ns-b"))]);
    }
    sendJson(res, { kind: "Status", apiVersion: "v1", status: "Failure", reason: "NotFound", code: 404 }, 404);
  });
}

/** A kubeconfig with these contexts, each (and the current one) on `server`. */
function kubeconfigWith(file: string, server: string, contexts: string[], current = contexts[0]!): string {
  writeFileSync(
    file,
    JSON.stringify({
      apiVersion: "v1",
      kind: "Config",
      clusters: [{ name: "fake", cluster: { server } }],
      users: [{ name: "fake", user: {} }],
      contexts: contexts.map((name) => ({ name, context: { cluster: "fake", user: "fake" } })),
      "current-context": current,
    }),
  );
  return file;
}

let known: FakeServer;
/** The kubeconfig the shells complete with: contexts ctx-one and ctx-two, on the known server. */
const KNOWN_KUBECONFIG = join(dir, "known-kubeconfig");
afterAll(async () => void (await known?.close()));



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
  known = await namesServer(["ns-one", "ns-two"], ["inv-one", "inv-two"]);
  kubeconfigWith(KNOWN_KUBECONFIG, known.url, ["ctx-one", "ctx-two"]);
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
async function completeAll(shell: Shell, lines: string[][]): Promise<string[][]> {
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
  const env = { ...process.env, KUBECONFIG: KNOWN_KUBECONFIG, PATH };
  // Not spawnSync: the fake server answering kpt-ts runs in this process.
  const r = await new Promise<{ stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn(shell, ["-c", script], { env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (c: string) => (stdout += c));
    child.stderr.setEncoding("utf8").on("data", (c: string) => (stderr += c));
    child.on("error", reject);
    child.on("close", () => resolve({ stdout, stderr }));
  });
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
  it.skipIf(!hasBinary(shell))("completes exactly the flags and subcommands each command's --help lists", async () => {
    const flags = await completeAll(shell, pages.map((p) => [...wordsOf(p.path), "-"]));
    const subcommands = await completeAll(shell, pages.map((p) => [...wordsOf(p.path), ""]));
    for (const [i, page] of pages.entries()) {
      expect(flags[i]!.filter(isFlag), `kpt-ts ${page.path} -<TAB>`).toEqual(page.flags);
      if (page.subcommands.length) expect(subcommands[i], `kpt-ts ${page.path} <TAB>`).toEqual([...page.subcommands].sort());
    }
    expect(pages.map((p) => p.path)).toEqual(expect.arrayContaining(["live apply", "live status", "help", "completion"]));
  });
});

/** Extra words a command needs for a value to be taken: apply's Markdown preview needs --dry-run; --inv-names, --inv-type remote. */
function needs(path: string, flag: string): string[] {
  const needed: string[] = path === "live apply" ? ["--dry-run"] : [];
  if (path === "live status" && flag === "--inv-names") needed.push("--inv-type", "remote");
  // An ApplySet's parent lives in a namespace (kubectl takes it from -n only); a parent kind is for an ApplySet.
  if (flag === "--applyset") needed.push("--namespace", "ns-one");
  if (path === "live init" && flag === "--applyset-parent") needed.push("--inventory-kind", "applyset");
  return needed;
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
  beforeAll(async () => {
    const lines = pages.flatMap((p) => p.valueFlags.map(({ flag, global }) => ({ path: p.path, flag, global, words: [...wordsOf(p.path), flag, ""] })));
    const values = await completeAll("bash", lines.map((l) => l.words));
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

  it.each(SHELLS.filter((s) => s !== "bash"))("are the same in %s as in bash", async (shell) => {
    if (!hasBinary(shell)) return void console.warn(`${shell} is not installed: its completion is not compared`);
    const other = await completeAll(shell, offered.map((l) => l.words));
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
    const completion = (await completeAll("bash", [["kpt-ts", "completion", ""]]))[0]!;
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

describe("names from a kubeconfig or a server are text, never code (issue 35)", () => {
  const hostileDir = mkdtempSync(join(tmpdir(), "kpt-ts-completion-hostile-"));
  /** A file whose name starts with this appears when any name is run as a command. */
  const MARK = join(hostileDir, "executed");
  /** Each name starts with its own prefix (q1 to q9), so one TAB after the prefix completes it alone. */
  const HOSTILE = [
    `q1$(touch ${MARK}-1)`,
    `q2\`touch ${MARK}-2\``,
    `q3;touch ${MARK}-3`,
    "q4*",
    `q5'single"double`,
    "q6 with spaces",
    "q7$HOME",
    "q8\nq8-second-line",
    "q9\\back|pipe&amp>redir{a,b}",
  ];
  /** No line holds a newline: that name is left out, never offered in pieces. */
  const LEFT_OUT = "q8";
  const hostileCwd = mkdtempSync(join(tmpdir(), "kpt-ts-completion-hostile-cwd-"));
  // A file `q4*` would match as a glob, and one `q6` a split name would leave.
  writeFileSync(join(hostileCwd, "q4-globbed"), "");
  writeFileSync(join(hostileCwd, "q6"), "");
  let server: FakeServer;
  let hostileKubeconfig: string;
  const env = () => ({ ...process.env, PATH, KUBECONFIG: hostileKubeconfig, HOME: hostileDir });
  const scriptOf = (shell: Shell) => join(dir, `kpt-ts.${shell}`);
  const executed = () => readdirSync(hostileDir).filter((f) => f.startsWith("executed"));
  // Each test starts with no marker, so what one shell ran is not blamed on the next.
  beforeEach(() => {
    for (const f of executed()) rmSync(join(hostileDir, f));
  });

  beforeAll(async () => {
    server = await namesServer(HOSTILE, HOSTILE);
    hostileKubeconfig = kubeconfigWith(join(hostileDir, "kubeconfig"), server.url, ["fake", ...HOSTILE], "fake");
  });
  afterAll(async () => void (await server?.close()));

  it("the issue's reproduction: a context named $(touch ...) is not run when bash completes --context", async () => {
    const marker = join(hostileDir, "executed-repro");
    const kc = kubeconfigWith(join(hostileDir, "repro-kubeconfig"), server.url, [`$(touch ${marker})`]);
    const r = await new Promise<string>((resolve) => {
      const child = spawn("bash", ["-c", `source <(kpt-ts completion bash); COMP_WORDS=(kpt-ts live apply --context ""); COMP_CWORD=4; _kpt_ts; printf '%s\\n' "\${COMPREPLY[@]}"`], {
        env: { ...process.env, PATH, KUBECONFIG: kc },
        stdio: ["ignore", "pipe", "inherit"],
      });
      let out = "";
      child.stdout.setEncoding("utf8").on("data", (c: string) => (out += c));
      child.on("close", () => resolve(out));
    });
    expect(existsSync(marker)).toBe(false);
    expect(await shellWords("bash", r.trim())).toEqual([`$(touch ${marker})`]);
  });

  /** The command lines that end in a name of each source, and what completes them. */
  const SOURCES = [
    { what: "contexts from the kubeconfig", line: "kpt-ts live apply --context" },
    { what: "namespaces from the server", line: "kpt-ts live apply -n" },
    { what: "inventories from the server", line: "kpt-ts live status --inv-type remote --inv-names" },
  ];

  describe.each(SHELLS)("%s", (shell) => {
    it.skipIf(!hasBinary(shell) || !hasBinary("zsh"))("TAB runs nothing, and puts every name on the line exactly as written", { timeout: 600_000 }, async () => {
      const lines = SOURCES.flatMap((s) => HOSTILE.map((name) => `${s.line} ${name.slice(0, 2)}`));
      const after = await afterTab(shell, { script: scriptOf(shell), cwd: hostileCwd, env: env() }, lines);
      expect(executed()).toEqual([]);
      const wrong: string[] = [];
      for (const [i, line] of lines.entries()) {
        const name = HOSTILE[i % HOSTILE.length]!;
        if (name.startsWith(LEFT_OUT)) {
          if (after[i] !== line) wrong.push(`${line}<TAB> gave ${JSON.stringify(after[i])}, offering part of a name with a newline`);
          continue;
        }
        const words = await shellWords(shell, after[i]!);
        const expected = [...line.split(" ").slice(0, -1), name];
        if (JSON.stringify(words) !== JSON.stringify(expected)) wrong.push(`${line}<TAB> gave ${JSON.stringify(after[i])}, which ${shell} reads as ${JSON.stringify(words)}`);
      }
      expect(executed()).toEqual([]);
      expect(wrong).toEqual([]);
    });

    it.skipIf(!hasBinary(shell) || !hasBinary("zsh"))("lists from the --kubeconfig and --context typed earlier on the line", { timeout: 300_000 }, async () => {
      // The environment's kubeconfig is absent; the typed one's current context is a server that
      // is not there, its context `other` the fake server's.
      const typed = join(hostileDir, `typed-${shell}`);
      writeFileSync(
        typed,
        JSON.stringify({
          apiVersion: "v1",
          kind: "Config",
          clusters: [
            { name: "absent", cluster: { server: "http://127.0.0.1:1" } },
            { name: "served", cluster: { server: server.url } },
          ],
          users: [{ name: "fake", user: {} }],
          contexts: [
            { name: "current", context: { cluster: "absent", user: "fake" } },
            { name: "other", context: { cluster: "served", user: "fake" } },
          ],
          "current-context": "current",
        }),
      );
      const cases: [string, string[]][] = [
        [`kpt-ts live apply --kubeconfig ${typed} --context o`, ["--kubeconfig", typed, "--context", "other"]],
        [`kpt-ts live apply --kubeconfig=${typed} --context o`, [`--kubeconfig=${typed}`, "--context", "other"]],
        [`kpt-ts live apply --kubeconfig ${typed} --context other -n q6`, ["--kubeconfig", typed, "--context", "other", "-n", "q6 with spaces"]],
        [`kpt-ts live apply --kubeconfig=${typed} --context=other -n q6`, [`--kubeconfig=${typed}`, "--context=other", "-n", "q6 with spaces"]],
        // The typed kubeconfig's current context is a server that is not there: nothing offered.
        [`kpt-ts live apply --kubeconfig ${typed} -n q6`, ["--kubeconfig", typed, "-n", "q6"]],
        // Nothing typed, and the environment's kubeconfig absent: no contexts.
        ["kpt-ts live apply --context o", ["--context", "o"]],
      ];
      const after = await afterTab(shell, { script: scriptOf(shell), cwd: hostileCwd, env: { ...env(), KUBECONFIG: ABSENT_KUBECONFIG } }, cases.map(([line]) => line));
      const words = await Promise.all(after.map((l) => shellWords(shell, l)));
      expect(words).toEqual(cases.map(([, expected]) => ["kpt-ts", "live", "apply", ...expected]));
    });
  });
});
