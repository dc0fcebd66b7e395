// Issue 16: what the built CLI tells a newcomer without a cluster: `version`, the examples at the
// end of every command's --help, and a fish completion script that fish accepts. Issue 24:
// `help <command path>`, and kpt's root flags (--truncate-output, --log-flush-frequency).
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { mkdir, mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { hasBinary, kpt, kptTs, REPO } from "../helpers/run.js";
import { printed } from "../helpers/scenario.js";

const COMMANDS = ["live init", "live apply", "live destroy", "live status", "live diff", "live history", "live list", "live migrate", "live install-resource-group", "completion", "version"];

describe("the command line itself", () => {
  it("version prints package.json's version, as `kpt version` prints kpt's", async () => {
    const r = await kptTs(["version"]);
    expect(r.code, printed(r)).toBe(0);
    const { version } = JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")) as { version: string };
    expect(r.stdout).toBe(`${version}\n`);
  });

  it.each(COMMANDS)("%s --help ends with examples of itself", async (command) => {
    const r = await kptTs([...command.split(" "), "--help"]);
    expect(r.code, printed(r)).toBe(0);
    const examples = r.stdout.slice(r.stdout.indexOf("\nExamples:\n"));
    expect(r.stdout).toContain("\nExamples:\n");
    expect(examples).toMatch(/\n {2}# \S.*\n {2}\$ .*kpt-ts /);
    expect(examples).toContain(`kpt-ts ${command}`);
  });

  it.skipIf(!hasBinary("fish"))("completion fish prints a script fish parses and completes with", async () => {
    const r = await kptTs(["completion", "fish"]);
    expect(r.code, printed(r)).toBe(0);
    const file = join(await mkdtemp(join(tmpdir(), "kpt-ts-fish-")), "kpt-ts.fish");
    await writeFile(file, r.stdout);
    const fish = spawnSync("fish", ["-c", `source ${file}; complete -C 'kpt-ts live migrate --'`], { encoding: "utf8" });
    expect(fish.stderr).toBe("");
    expect(fish.stdout.split("\n").map((l) => l.split("\t")[0])).toEqual(expect.arrayContaining(["--dry-run", "--force", "--name", "--rg-file", "--kubeconfig"]));
  });

  it.each(COMMANDS)("help %s prints the same as the command's --help, exit 0", async (command) => {
    const [viaHelp, viaFlag] = await Promise.all([kptTs(["help", ...command.split(" ")]), kptTs([...command.split(" "), "--help"])]);
    expect(viaHelp.code, printed(viaHelp)).toBe(0);
    expect(viaHelp.stdout).toBe(viaFlag.stdout);
    expect(viaHelp.stdout).toMatch(new RegExp(`^Usage: kpt-ts ${command} `));
    expect(viaHelp.stderr).toBe("");
  });

  it("help with no command prints the program's help", async () => {
    const [viaHelp, viaFlag] = await Promise.all([kptTs(["help"]), kptTs(["--help"])]);
    expect(viaHelp.code, printed(viaHelp)).toBe(0);
    expect(viaHelp.stdout).toBe(viaFlag.stdout);
  });

  it.each([
    [["help", "nope"], 'error: unknown help topic "nope": "kpt-ts" has live, completion, version, help', "Usage: kpt-ts [options] [command]"],
    [["help", "live", "aply"], 'error: unknown help topic "aply": "kpt-ts live" has init, apply, destroy, diff, status, history, list, migrate, install-resource-group', "Usage: kpt-ts live [options] [command]"],
  ])("%j: says which word is unknown and what there is, with the nearest command's help, all on stderr; exit 0 as kpt's help", async (args, error, usage) => {
    const r = await kptTs(args);
    expect(r.code, printed(r)).toBe(0);
    expect(r.stdout).toBe("");
    expect(r.stderr.split("\n")[0]).toBe(error);
    expect(r.stderr).toContain(`\n${usage}\n`);
  });

  // Issue 36: status and destroy showed `kpt-ts live apply -` as their own --rg-file example.
  it.each(["apply", "status", "destroy"])("live %s --help: --rg-file's example is of that command", async (command) => {
    const r = await kptTs(["live", command, "--help"]);
    expect(r.code, printed(r)).toBe(0);
    const flag = r.stdout.slice(r.stdout.indexOf("--rg-file <file>"), r.stdout.indexOf("\n  -", r.stdout.indexOf("--rg-file <file>") + 1)).replace(/\s+/g, " ");
    expect(flag).toContain(`kustomize build | kpt-ts live ${command} - --rg-file inventory.yaml`);
  });

  // Issue 36: the docs write flags as `--flag=value`; a typo there is suggested as in `--flag value`.
  it.each([
    [["live", "apply", "--reconcile-timout=2m", "."], "error: unknown option '--reconcile-timout=2m'", "(Did you mean --reconcile-timeout?)"],
    [["live", "apply", "--reconcile-timout", "2m", "."], "error: unknown option '--reconcile-timout'", "(Did you mean --reconcile-timeout?)"],
    [["live", "apply", "--dry-rn=true", "."], "error: unknown option '--dry-rn=true'", "(Did you mean --dry-run?)"],
    [["live", "status", "--kubeconfg=/tmp/x", "."], "error: unknown option '--kubeconfg=/tmp/x'", "(Did you mean --kubeconfig?)"],
    [["live", "diff", "--no-such-flag=1", "."], "error: unknown option '--no-such-flag=1'", "(run with --help for usage)"],
  ])("%j: names the whole argument and suggests the nearest flag in either form (exit 2)", async (args, error, hint) => {
    const r = await kptTs(args);
    expect(r.code, printed(r)).toBe(2);
    expect(r.stderr.split("\n").slice(0, 2)).toEqual([error, hint]);
  });

  it.skipIf(!hasBinary("kpt"))("kpt's help exits 0 for an unknown topic too, its message on stderr", async () => {
    const r = await kpt(["help", "nope"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain("Unknown help topic");
  });
});

describe("kpt's root flags", () => {
  it.each([
    [["--truncate-output=false", "--log-flush-frequency=1s", "version"]],
    [["--truncate-output", "version", "--log-flush-frequency", "250ms"]],
    [["version", "--truncate-output=true"]],
  ])("%j: accepted before or after the command, as kpt takes them", async (args) => {
    const r = await kptTs(args);
    expect(r.code, printed(r)).toBe(0);
    const { version } = JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")) as { version: string };
    expect(r.stdout).toBe(`${version}\n`);
  });

  it.each([
    [["--log-flush-frequency=0", "version"], "error: --log-flush-frequency must be more than 0"],
    [["--log-flush-frequency=10", "version"], 'error: invalid duration "10" for --log-flush-frequency'],
  ])("%j: refused, exit 2 (kpt panics on 0 and refuses a number without a unit)", async (args, message) => {
    const r = await kptTs(args);
    expect(r.code, printed(r)).toBe(2);
    expect(r.stderr).toContain(message);
    expect(r.stdout).toBe("");
  });

  it("every command's --help lists them, as kpt's lists them (the program's under Options, the others' under Global Flags)", async () => {
    const root = await kptTs(["--help"]);
    const options = root.stdout.slice(root.stdout.indexOf("\nOptions:\n"), root.stdout.indexOf("\nCommands:\n"));
    expect(options).toMatch(/^ {2}--truncate-output [^]*\(default: true\)\n {2}--log-flush-frequency <duration> [^]*\(default: "5s"\)\n/m);
    for (const command of COMMANDS) {
      const r = await kptTs([...command.split(" "), "--help"]);
      const global = r.stdout.slice(r.stdout.indexOf("\nGlobal Flags:\n"));
      expect(global, command).toMatch(/^ {2}--truncate-output /m);
      expect(global, command).toMatch(/^ {2}--log-flush-frequency <duration> /m);
    }
  });

  // Issue 36: README said where --help lists the connection flags; now it says both places.
  it("the connection flags: under Options in `live --help` (as kpt's `live --help` lists them under Flags), under Global Flags in each live command's", async () => {
    const section = (help: string, heading: string) => {
      const at = help.indexOf(`\n${heading}:\n`);
      return at < 0 ? "" : help.slice(at, help.indexOf("\n\n", at + 1));
    };
    const live = await kptTs(["live", "--help"]);
    for (const flag of ["--kubeconfig <path>", "--context <name>", "-s, --server <address>", "--as <user>", "-n, --namespace <namespace>"]) {
      expect(section(live.stdout, "Options"), flag).toContain(`  ${flag}`);
      for (const command of ["apply", "status"]) expect(section((await kptTs(["live", command, "--help"])).stdout, "Global Flags"), `live ${command}: ${flag}`).toContain(`  ${flag}`);
    }
    const readme = readFileSync(join(REPO, "README.md"), "utf8");
    expect(readme).toContain('lists them under "Global Flags" in its `--help`');
    expect(readme).toContain('`kpt-ts live --help` lists them under "Options"');
  });

  it.skipIf(!hasBinary("kpt"))("each live command's --help lists every flag kpt's lists", async () => {
    const flags = (help: string) => new Set([...help.matchAll(/^\s+(?:-\w, )?(--[a-z][a-z-]*)/gm)].map((m) => m[1]!));
    for (const command of ["init", "apply", "destroy", "status", "migrate", "install-resource-group"]) {
      const [theirs, ours] = await Promise.all([kpt(["live", command, "--help"]), kptTs(["live", command, "--help"])]);
      expect(theirs.code).toBe(0);
      const missing = [...flags(theirs.stdout)].filter((f) => !flags(ours.stdout).has(f));
      expect(missing, `live ${command}`).toEqual([]);
      expect(flags(theirs.stdout).size, `kpt live ${command} --help`).toBeGreaterThan(5);
    }
  });
});

describe("-- ends the options (issue 35)", () => {
  it("what follows it is the package path, even one that looks like a flag, as kpt reads it", async () => {
    const dir = await mkdtemp(join(tmpdir(), "kpt-ts-dash-dash-"));
    for (const name of ["-weird-dir", "--dry-run=false"]) {
      await mkdir(join(dir, name));
      // The directory was read as the package: it holds no inventory (kpt words it its own way).
      const r = await kptTs(["live", "apply", "--", name], { cwd: dir });
      expect(r.code, printed(r)).toBe(2);
      expect(r.stderr).toContain(`run "kpt-ts live init ${name}" to add one`);
      if (hasBinary("kpt")) expect((await kpt(["live", "apply", "--", name], { cwd: dir })).stderr).toContain("no ResourceGroup object was provided within the stream or package");
    }
    // Without --, it is an option.
    const r = await kptTs(["live", "apply", "-weird-dir"], { cwd: dir });
    expect(r.code, printed(r)).toBe(2);
    expect(r.stderr).toContain("unknown option '-weird-dir'");
  });
});
