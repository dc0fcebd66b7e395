// The GitHub Action (action.yml) and the documents that use it: the workflow in docs/ci.md asks
// only for inputs and outputs the action has, every mention of the repository (README, docs,
// action) is the one package.json's `repository` names, and the action's scripts take outside
// values only through env (an input pasted into a script could run as code).
// Its steps run against the real cluster in test/e2e/install.test.ts.
import { readdirSync, readFileSync } from "node:fs";
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
