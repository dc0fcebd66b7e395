// Issue 36: the docs cannot drift from what kpt-ts does. Every command block in README.md and
// docs/*.md (a bash/sh/shell/console fence, or any block of `$ ` lines) is either run here,
// as written, against the test cluster (`<!-- docs-test: run SETUP -->` on the line before it:
// SETUP names the files it needs, made below), or marked as illustrative with the reason
// (`<!-- docs-test: illustrative: why -->`). A block run here runs in bash with `set -e`, from a
// fresh directory, `kpt-ts` on PATH (the built CLI) and a kubeconfig whose context namespace is
// the test's own. Beside them: README's command table names every flag each command's --help
// lists, the tarball size README states is the one `npm pack` makes, and the error table of
// docs/beyond-kpt.md is what kpt-ts prints.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { chmod, mkdir, mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { CLI, createNamespace, kptTs, kubectl, REPO, run, type RunResult } from "../helpers/run.js";
import { configMap, kubeconfigWithNamespace, printed } from "../helpers/scenario.js";

const DOCS = ["README.md", ...readdirSync(join(REPO, "docs")).filter((f) => f.endsWith(".md")).map((f) => `docs/${f}`)];

interface Block {
  file: string;
  /** The line of the opening fence. */
  line: number;
  body: string;
  marker?: { illustrative: string } | { run: string };
}

const COMMAND_FENCES = new Set(["bash", "sh", "shell", "console"]);
const MARKER = /^<!-- docs-test: (?:illustrative: (.+?)|run (\S+)) -->$/;

/** The command blocks of one Markdown file, with the marker on the line before each. */
function commandBlocks(file: string): Block[] {
  const lines = readFileSync(join(REPO, file), "utf8").split("\n");
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\S*)\s*$/.exec(lines[i]!);
    if (!open) continue;
    const end = lines.findIndex((l, j) => j > i && l.startsWith("```"));
    const body = lines.slice(i + 1, end).join("\n");
    if (COMMAND_FENCES.has(open[1]!) || (open[1] === "" && /^\$ /m.test(body))) {
      const m = MARKER.exec(lines[i - 1] ?? "");
      blocks.push({ file, line: i + 1, body, ...(m ? { marker: m[1] !== undefined ? { illustrative: m[1] } : { run: m[2]! } } : {}) });
    }
    i = end;
  }
  return blocks;
}

const BLOCKS = DOCS.flatMap(commandBlocks);
const where = (b: Block) => `${b.file}:${b.line}`;

const cleanup: string[] = [];
afterAll(async () => {
  if (cleanup.length) await kubectl(["delete", "namespace", "--wait=false", "--ignore-not-found", ...cleanup]);
});

interface Setup {
  /** The files the block expects in its directory. */
  files(ns: string): Record<string, string>;
  /** What must hold after the block ran (beyond its exit code 0). */
  check(dir: string, ns: string, r: RunResult): Promise<void>;
}

const SETUPS: Record<string, Setup> = {
  // README: init, apply, status and destroy of a directory of manifests.
  "my-package": {
    files: () => ({ "my-package/settings.yaml": configMap("settings", undefined, { mode: "docs" }) }),
    check: async (dir, ns, r) => {
      expect(existsSync(join(dir, "my-package", "resourcegroup.yaml"))).toBe(true);
      expect(r.stdout).toMatch(/^configmap\/settings created$/m);
      expect(r.stdout).toMatch(/^configmap\/settings is Current: /m);
      expect(r.stdout).toMatch(/^configmap\/settings deleted$/m);
      expect((await kubectl(["get", "configmap", "settings", "-n", ns, "--ignore-not-found", "-o", "name"])).stdout).toBe("");
    },
  },
  // docs/beyond-kpt.md: a rendered stream whose inventory is kept in a file of its own.
  "rg-file-stream": {
    files: () => ({
      "overlays/prod/kustomization.yaml": "resources:\n- settings.yaml\n",
      "overlays/prod/settings.yaml": configMap("stream-settings", undefined, { mode: "prod" }),
    }),
    check: async (dir, ns, r) => {
      expect(readFileSync(join(dir, "inv", "inventory.yaml"), "utf8")).toContain(`namespace: ${ns}`);
      expect(r.stdout).toMatch(/^configmap\/stream-settings created$/m);
      expect(r.stdout).toMatch(/^configmap\/stream-settings is Current: /m);
      expect(r.stdout).toMatch(/^configmap\/stream-settings deleted$/m);
    },
  },
};

/** A directory with `kpt-ts` in it: the built CLI. */
async function binDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "kpt-ts-docs-bin-"));
  await writeFile(join(dir, "kpt-ts"), `#!/bin/sh\nexec "${process.execPath}" "${CLI}" "$@"\n`);
  await chmod(join(dir, "kpt-ts"), 0o755);
  return dir;
}

describe("the docs' command blocks", () => {
  it("are each run by this test or marked illustrative with a reason", () => {
    expect(BLOCKS.length).toBeGreaterThan(10);
    const unmarked = BLOCKS.filter((b) => !b.marker).map(where);
    expect(unmarked, "add <!-- docs-test: run SETUP --> or <!-- docs-test: illustrative: why --> on the line before each").toEqual([]);
    for (const b of BLOCKS) {
      if (b.marker && "illustrative" in b.marker) expect(b.marker.illustrative.length, `${where(b)}: say why it is not run`).toBeGreaterThan(20);
      if (b.marker && "run" in b.marker) expect(Object.keys(SETUPS), where(b)).toContain(b.marker.run);
    }
  });

  const runnable = BLOCKS.filter((b) => b.marker && "run" in b.marker);
  // Each in its own namespace and directory: side by side.
  it.concurrent.each(runnable.map((b) => [where(b), b] as const))("%s runs as written against the cluster", async (_, b) => {
    const setup = SETUPS[(b.marker as { run: string }).run]!;
    const ns = await createNamespace("e2e-docs");
    cleanup.push(ns);
    const dir = await mkdtemp(join(tmpdir(), "kpt-ts-docs-"));
    for (const [path, text] of Object.entries(setup.files(ns))) {
      await mkdir(join(dir, path, ".."), { recursive: true });
      await writeFile(join(dir, path), text);
    }
    const bin = await binDir();
    const r = await run("bash", ["-e", "-o", "pipefail", "-c", b.body], { cwd: dir, env: { PATH: `${bin}:${process.env.PATH}`, KUBECONFIG: await kubeconfigWithNamespace(ns) } });
    expect(r.code, `${where(b)}\n${b.body}\n${printed(r)}`).toBe(0);
    await setup.check(dir, ns, r);
  });
});

describe.concurrent("the docs' claims", () => {
  it("README's command table names every flag each live command's --help lists", async () => {
    const readme = readFileSync(join(REPO, "README.md"), "utf8");
    const commands = ["init", "apply", "destroy", "status", "diff", "history", "list", "migrate"];
    const helps = await Promise.all(commands.map(async (command) => (await kptTs(["live", command, "--help"])).stdout));
    for (const [i, command] of commands.entries()) {
      const row = readme.split("\n").find((l) => l.startsWith(`| \`live ${command}`));
      expect(row, `README's table has a row for live ${command}`).toBeDefined();
      const help = helps[i]!;
      const own = help.slice(help.indexOf("\nOptions:\n"), help.indexOf("\nGlobal Flags:\n"));
      const flags = [...own.matchAll(/^ {2}(?:-\w, )?(--[a-z][a-z-]*)/gm)].map((m) => m[1]!).filter((f) => f !== "--help");
      expect(flags.filter((f) => !new RegExp(`\`${f}(?![a-z-])`).test(row!)), `live ${command}: flags --help lists that README's row does not name`).toEqual([]);
    }
  });

  it("README's tarball size is the one npm pack makes (within 10%)", async () => {
    const readme = readFileSync(join(REPO, "README.md"), "utf8");
    const stated = Number(/kpt-ts-[\d.]+\.tgz, about (\d+) KB/.exec(readme)?.[1]);
    const packed = await run("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], { cwd: REPO });
    expect(packed.code, printed(packed)).toBe(0);
    const size = (JSON.parse(packed.stdout) as { size: number }[])[0]!.size / 1000;
    expect(Math.abs(size - stated) / size, `npm pack: ${size} KB, README: about ${stated} KB`).toBeLessThan(0.1);
  });

  it("docs/beyond-kpt.md's error table says what kpt-ts prints", async () => {
    const doc = readFileSync(join(REPO, "docs/beyond-kpt.md"), "utf8");
    const row = (situation: string) => doc.split("\n").find((l) => l.startsWith(`| ${situation} |`)) ?? "";
    const dir = await mkdtemp(join(tmpdir(), "kpt-ts-docs-errors-"));
    await writeFile(join(dir, "resourcegroup.yaml"), "apiVersion: kpt.dev/v1alpha1\nkind: ResourceGroup\nmetadata:\n  name: inv\n  namespace: default\n  labels:\n    cli-utils.sigs.k8s.io/inventory-id: docs-errors\n");
    const missing = await kptTs(["live", "status", "--kubeconfig", "/nonexistent/path/config", dir]);
    const [first, second] = missing.stderr.split("\n");
    expect(first).toBe("error: cannot read kubeconfig /nonexistent/path/config: no such file");
    expect(row("kubeconfig missing")).toContain("`error: cannot read kubeconfig /path: no such file`");
    expect(row("kubeconfig missing")).toContain(`\`${second}\``);
    const context = await kptTs(["live", "status", "--context", "nope", dir]);
    expect(context.stderr.split("\n")[0]).toMatch(/^error: context "nope" not found in kubeconfig/);
    expect(row("wrong context")).toContain('`error: context "nope" not found in kubeconfig');
  });
});
