// The GitHub Action (action.yml) and the documents that use it: the workflow in docs/ci.md asks
// only for inputs and outputs the action has, every mention of the repository (README, docs,
// action) is the one package.json's `repository` names, and the action's scripts take outside
// values only through env (an input pasted into a script could run as code).
// Its steps run against the real cluster in test/e2e/install.test.ts.
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";

const root = join(import.meta.dirname, "..", "..");
const read = (f: string) => readFileSync(join(root, f), "utf8");
const action = parse(read("action.yml")) as {
  inputs: Record<string, { description: string; default?: string }>;
  outputs: Record<string, { value: string }>;
  runs: { using: string; steps: { shell?: string; run?: string; env?: Record<string, string> }[] };
};
const repository = /github\.com\/([^/]+\/[^/.]+)(?:\.git)?$/.exec((JSON.parse(read("package.json")) as { repository: { url: string } }).repository.url)![1]!;

describe("action.yml", () => {
  it("is a composite action of bash steps whose scripts hold no ${{ }} expression (values come through env)", () => {
    expect(action.runs.using).toBe("composite");
    for (const step of action.runs.steps) {
      expect(step.shell).toBe("bash");
      expect(step.run ?? "").not.toContain("${{");
    }
    expect(Object.keys(action.inputs).sort()).toEqual(["flags", "mode", "package", "working-directory"]);
    expect(Object.keys(action.outputs).sort()).toEqual(["changes", "exit-code", "preview"]);
  });
});

/**
 * The `run` step's script as GitHub runs it (bash -e, the inputs in env, GITHUB_OUTPUT a file),
 * with the built CLI and no cluster: every case here ends before one is needed.
 */
function runStep(inputs: { mode?: string; flags?: string; package?: string }): { code: number | null; stdout: string; stderr: string; outputs: string } {
  const step = action.runs.steps.find((s) => s.run?.includes("KPT_TS_MODE"))!;
  const temp = mkdtempSync(join(tmpdir(), "kpt-ts-action-step-"));
  writeFileSync(join(temp, "step.sh"), step.run!);
  writeFileSync(join(temp, "output"), "");
  const r = spawnSync("bash", ["--noprofile", "--norc", "-eo", "pipefail", join(temp, "step.sh")], {
    cwd: temp,
    encoding: "utf8",
    env: {
      ...process.env,
      KPT_TS_CLI: join(root, "dist", "cli.cjs"),
      KPT_TS_MODE: inputs.mode ?? "preview",
      KPT_TS_FLAGS: inputs.flags ?? "",
      KPT_TS_PACKAGE: inputs.package ?? ".",
      KUBECONFIG: join(temp, "absent-kubeconfig"),
      GITHUB_ACTIONS: "true",
      GITHUB_OUTPUT: join(temp, "output"),
      GITHUB_STEP_SUMMARY: join(temp, "summary"),
      RUNNER_TEMP: temp,
    },
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr, outputs: readFileSync(join(temp, "output"), "utf8") };
}

/** Lines a runner would read as workflow commands, other than the step's own ::error:: line. */
const workflowCommands = (text: string) => text.split("\n").filter((l) => /^\s*::/.test(l) && !l.startsWith("::error::kpt-ts action: "));

// Issue 35: what each input may hold.
describe.skipIf(!existsSync(join(root, "dist", "cli.cjs")))("the action's run step, with the inputs as GitHub passes them (run npm run build first)", () => {
  it("uses the flags of every line of `flags` (a YAML | block), not the first line's alone", () => {
    const r = runStep({ flags: "--server-side\n--no-such-flag" });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("unknown option '--no-such-flag'");
    const tabs = runStep({ flags: "--server-side\t--no-such-flag-either\n" });
    expect(tabs.stderr).toContain("unknown option '--no-such-flag-either'");
  });

  it("refuses a bad mode without printing it when it could hold a workflow command", () => {
    const mode = "deploy\n::add-mask::hunter2\n::error title=x::pwned";
    const r = runStep({ mode });
    expect(r.code).toBe(2);
    const all = `${r.stdout}${r.stderr}`;
    expect(workflowCommands(all)).toEqual([]);
    expect(all).not.toContain("hunter2");
    expect(all).not.toContain("pwned");
    expect(r.stdout).toContain(`::error::kpt-ts action: the mode input must be preview or apply, not the value given (${mode.length} characters, not shown`);
    // A plain word is still named, to help with a typo.
    expect(runStep({ mode: "Preview" }).stdout).toContain("::error::kpt-ts action: the mode input must be preview or apply, not 'Preview'");
  });

  it("passes a package beginning with - as a directory, never as a flag", () => {
    // Read as a flag, `--version` printed the version and the step said changes=false, exit 0.
    for (const mode of ["preview", "apply"]) {
      const r = runStep({ mode, package: "--version" });
      expect(r.code, `${mode}: ${r.stdout}${r.stderr}`).toBe(2);
      expect(r.stderr).toContain('package directory "--version" does not exist');
      expect(r.outputs).not.toContain("changes=");
    }
  });
});

describe("docs/ci.md's workflow", () => {
  const workflow = parse(/```yaml\n(name: deploy[\s\S]*?)```/.exec(read("docs/ci.md"))![1]!) as { jobs: Record<string, { steps: { id?: string; uses?: string; with?: Record<string, string> }[] }> };
  const steps = Object.values(workflow.jobs).flatMap((j) => j.steps);
  const ours = steps.filter((s) => s.uses?.startsWith(`${repository}@`));

  it("uses the action once, by the repository package.json names, with inputs it has", () => {
    expect(ours).toHaveLength(1);
    expect(Object.keys(ours[0]!.with ?? {}).filter((k) => !(k in action.inputs))).toEqual([]);
    expect(steps.filter((s) => s.uses && !s.uses.startsWith("actions/") && s !== ours[0])).toEqual([]);
  });

  it("reads only outputs the action has", () => {
    const id = ours[0]!.id!;
    const used = [...JSON.stringify(workflow).matchAll(new RegExp(`steps\\.${id}\\.outputs\\.([\\w-]+)`, "g"))].map((m) => m[1]!);
    expect(used.length).toBeGreaterThan(0);
    expect(used.filter((o) => !(o in action.outputs))).toEqual([]);
  });

  it("installs nothing named kpt-ts from the npm registry", () => {
    expect(read("docs/ci.md")).not.toMatch(/npm install (--global |-g )?kpt-ts\b/);
  });
});

describe("the repository is named in one place", () => {
  it("every mention of it in README, docs and action.yml is package.json's", () => {
    const files = ["README.md", "action.yml", ...readdirSync(join(root, "docs")).filter((f) => f.endsWith(".md")).map((f) => `docs/${f}`)];
    const mentions = files.flatMap((f) =>
      [...read(f).matchAll(/(github\.com\/|github:|uses: )([\w.-]+\/[\w.-]+?)(?:\.git)?(?=[@#/\s)`]|$)/gm)]
        // Other projects' repositories (cli-utils, kpt...) are named as sources; ours is the one installed or named kpt-ts.
        .filter((m) => m[1] !== "github.com/" || m[2]!.endsWith("/kpt-ts"))
        .map((m) => m[2]!)
        .filter((r) => !r.startsWith("actions/"))
        .map((r) => `${f}: ${r}`),
    );
    expect(mentions.length).toBeGreaterThan(3);
    expect(mentions.filter((m) => !m.endsWith(`: ${repository}`))).toEqual([]);
  });
});
