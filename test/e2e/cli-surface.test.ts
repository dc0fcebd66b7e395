// Issue 16: what the built CLI tells a newcomer without a cluster: `version`, the examples at the
// end of every command's --help, and a fish completion script that fish accepts.
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { hasBinary, kptTs, REPO } from "../helpers/run.js";
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
});
