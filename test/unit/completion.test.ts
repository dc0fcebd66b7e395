// Shell completion: the scripts generated from the command tree complete subcommands, flags,
// flag values and package directories, checked by running them in bash (and zsh, when installed).
import { spawnSync } from "node:child_process";
import { mkdir, mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { commandSpecs, type CommandLike, type OptionLike, type ValueCompletion } from "../../src/completion/command-spec.js";
import { bashCompletion, fishCompletion, zshCompletion } from "../../src/completion/completion-script.js";
import { offerable } from "../../src/commands/complete-names.js";

/** A commander option; `value`: what its flag spec says to offer for its value. */
const opt = (flags: string, value?: ValueCompletion | "hidden") => {
  const [short, long] = flags.includes(",") ? flags.split(/,\s*/) : flags.startsWith("--") ? [undefined, flags.split(" ")[0]] : [flags.split(" ")[0], undefined];
  return { short, long: long?.split(" ")[0], required: flags.includes("<"), hidden: value === "hidden", ...(value && value !== "hidden" ? { value } : {}) };
};
const valueOf = (o: OptionLike) => (o as { value?: ValueCompletion }).value;
const words = (...values: string[]) => ({ values });
const cmd = (name: string, options: ReturnType<typeof opt>[], commands: CommandLike[] = [], args: { name(): string; argChoices?: string[] }[] = []): CommandLike => ({
  name: () => name,
  options,
  commands,
  registeredArguments: args,
});
const arg = (name: string, argChoices?: string[]) => ({ name: () => name, ...(argChoices ? { argChoices } : {}) });

const program = cmd("kpt-ts", [opt("--version"), opt("--log-flush-frequency <duration>")], [
  cmd("live", [opt("--kubeconfig <path>", { kind: "file" }), opt("--context <name>", { kind: "context" })], [
    cmd("apply", [opt("--dry-run"), opt("--no-dry-run", "hidden"), opt("--output <format>", words("events", "table", "json", "markdown")), opt("--inventory-policy <policy>", words("strict", "adopt")), opt("-y, --yes")], [], [arg("PKG_PATH")]),
    cmd("diff", [opt("--output <format>", words("text", "json"))], [], [arg("PKG_PATH")]),
  ]),
  cmd("completion", [], [], [arg("shell", ["bash", "zsh"])]),
  cmd("help", [], [], [arg("command")]),
]);
const specs = commandSpecs(program, valueOf);

describe("commandSpecs", () => {
  it("lists each command's subcommands and flags, with every parent command's flags inherited and hidden ones left out", () => {
    const apply = specs.find((s) => s.path === "live apply")!;
    expect(apply.flags.flatMap((f) => f.names)).toEqual(["--version", "--log-flush-frequency", "--kubeconfig", "--context", "--dry-run", "--output", "--inventory-policy", "-y", "--yes", "-h", "--help"]);
    expect(apply.flags.find((f) => f.names.includes("--output"))!.value).toEqual(words("events", "table", "json", "markdown"));
    expect(apply.takesPackage).toBe(true);
    expect(specs.find((s) => s.path === "")!.subcommands).toEqual(["live", "completion", "help"]);
  });

  it("completes help's words as command paths", () => {
    expect(specs.find((s) => s.path === "help")!.subcommands).toEqual(["live", "completion"]);
    expect(specs.find((s) => s.path === "help live")!.subcommands).toEqual(["apply", "diff"]);
  });
});

describe("offerable: the names `live __names` prints, one a line", () => {
  it.each<[unknown, boolean]>([
    ["ns-one", true],
    ["$(touch /tmp/x)", true],
    ["a b;c*'\"`", true],
    ["arn:aws:eks:eu-west-1:1:cluster/x", true],
    ["naïve", true],
    ["", false],
    ["two\nlines", false],
    ["carriage\rreturn", false],
    ["tab\tseparated", false],
    ["nul\u0000byte", false],
    ["escape\u001b[31m", false],
    ["c1\u009bcontrol", false],
    [42, false],
    [undefined, false],
  ])("%j -> %s", (name, expected) => {
    expect(offerable(name)).toBe(expected);
  });
});

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "kpt-ts-completion-"));
  await writeFile(join(dir, "kpt-ts.bash"), bashCompletion(specs));
  await writeFile(join(dir, "_kpt-ts"), zshCompletion(specs));
  await writeFile(join(dir, "kpt-ts.fish"), fishCompletion(specs));
  await mkdir(join(dir, "pkg"));
});

const hasShell = (sh: string) => spawnSync("sh", ["-c", `command -v ${sh}`]).status === 0;

describe.skipIf(!hasShell("bash"))("the bash script", () => {
  const complete = (...words: string[]) => {
    const script = `source ${JSON.stringify(join(dir, "kpt-ts.bash"))}; cd ${JSON.stringify(dir)}; COMP_WORDS=(${words.map((w) => JSON.stringify(w)).join(" ")}); COMP_CWORD=${words.length - 1}; _kpt_ts; printf '%s\\n' "\${COMPREPLY[@]}"`;
    const r = spawnSync("bash", ["-c", script], { encoding: "utf8" });
    expect(r.stderr).toBe("");
    return r.stdout.split("\n").filter(Boolean);
  };
  it.each<[string[], string[]]>([
    [["kpt-ts", ""], ["live", "completion", "help"]],
    [["kpt-ts", "live", "a"], ["apply"]],
    [["kpt-ts", "help", "live", "a"], ["apply"]],
    [["kpt-ts", "live", "apply", "--d"], ["--dry-run"]],
    [["kpt-ts", "live", "apply", "--output", ""], ["events", "table", "json", "markdown"]],
    [["kpt-ts", "live", "apply", "--log-flush-frequency", ""], []],
    [["kpt-ts", "live", "diff", "--output", ""], ["text", "json"]],
    [["kpt-ts", "live", "--context", "x", "apply", "--inventory-policy", ""], ["strict", "adopt"]],
    [["kpt-ts", "completion", ""], ["bash", "zsh"]],
  ])("%j -> %j", (words, expected) => {
    expect(complete(...words)).toEqual(expected);
  });

  it("completes PKG_PATH with directories (and - for standard input)", () => {
    expect(complete("kpt-ts", "live", "apply", "")).toContain("-");
  });
});

describe.skipIf(!hasShell("zsh"))("the zsh script", () => {
  it("parses, and completes the same words", () => {
    const file = join(dir, "_kpt-ts");
    expect(spawnSync("zsh", ["-n", file]).status).toBe(0);
    const script = `compdef() { :; }; compadd() { [[ "$1" == -- ]] && shift; print -rl -- "$@"; }; _files() { print files; }; _path_files() { print dirs; }
source ${JSON.stringify(file)}; words=(kpt-ts live diff --output ""); CURRENT=5; _kpt_ts`;
    expect(spawnSync("zsh", ["-c", script], { encoding: "utf8" }).stdout.split("\n").filter(Boolean)).toEqual(["text", "json"]);
  });
});

describe.skipIf(!hasShell("fish"))("the fish script", () => {
  const complete = (line: string) => {
    const r = spawnSync("fish", ["-c", `source ${JSON.stringify(join(dir, "kpt-ts.fish"))}; cd ${JSON.stringify(dir)}; complete -C ${JSON.stringify(line)}`], { encoding: "utf8" });
    expect(r.stderr).toBe("");
    return r.stdout.split("\n").filter(Boolean).map((l) => l.split("\t")[0]!).sort();
  };
  it("parses", () => expect(spawnSync("fish", ["-n", join(dir, "kpt-ts.fish")]).status).toBe(0));
  it.each<[string, string[]]>([
    ["kpt-ts ", ["completion", "help", "live"]],
    ["kpt-ts live a", ["apply"]],
    ["kpt-ts help live a", ["apply"]],
    ["kpt-ts live apply --d", ["--dry-run"]],
    ["kpt-ts live apply --output ", ["events", "json", "markdown", "table"]],
    ["kpt-ts live diff --output ", ["json", "text"]],
    ["kpt-ts live --context x apply --inventory-policy ", ["adopt", "strict"]],
    ["kpt-ts completion ", ["bash", "zsh"]],
    ["kpt-ts live apply ", ["-", "pkg/"]],
  ])("%j -> %j", (line, expected) => {
    expect(complete(line)).toEqual(expected);
  });
});
