// Issue 24: kpt-ts installed the ways users install it, outside this repository, each run against
// the local cluster: the GitHub Action (action.yml's own steps, from a clean checkout), the
// tarball `npm pack` makes of a clean clone (installed with production dependencies only), and
// `npm install git+file://<clean clone>` (npm builds it on `prepare`).
//
// The clean clone is of this checkout's HEAD plus its uncommitted changes to tracked files
// (`git stash create`); new files not yet added to git are not in it.
// Cost: about 3 to 4 minutes on 2 cores, mostly npm: `npm ci` in the clone (the Action's install
// step), `npm pack` (which builds again), the git install (npm installs the build tools in a
// temporary clone and builds once more); everything comes from npm's local cache when it is warm.
import { execFileSync } from "node:child_process";
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { writeKubeconfig } from "../helpers/credentials.js";
import { writePackage } from "../helpers/fixtures.js";
import { parseMarkdownPreview } from "../helpers/markdown.js";
import { createNamespace, kptTs, kubeconfig, kubectl, kubectlJson, REPO, run, type RunResult } from "../helpers/run.js";
import { configMap, docs, getObject, printed, readInventoryFile } from "../helpers/scenario.js";

const work = mkdtempSync(join(tmpdir(), "kpt-ts-install-"));
const clone = join(work, "clone");
const namespaces: string[] = [];

/** npm's own time on a busy machine: the git install took 76 s alone and over 280 s beside four other test runs. */
const NPM_MS = 600_000;
const SLOW = { timeout: 3 * NPM_MS };

const npm = (args: string[], cwd: string, timeoutMs = NPM_MS) =>
  run("npm", [...args, "--no-audit", "--no-fund", "--prefer-offline"], { cwd, timeoutMs, env: { npm_config_update_notifier: "false" } });

function must(r: RunResult, what: string): RunResult {
  if (r.code !== 0) throw new Error(`${what} failed:\n${printed(r)}`);
  return r;
}

/** Bytes of every file under dir (symbolic links counted as themselves). */
function treeSize(dir: string): number {
  let total = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    total += e.isDirectory() ? treeSize(p) : lstatSync(p).size;
  }
  return total;
}

async function rgPackage(prefix: string): Promise<{ ns: string; dir: string }> {
  const ns = await createNamespace(prefix);
  namespaces.push(ns);
  const dir = await writePackage({ "app.yaml": docs(configMap("settings", ns, { mode: "first" }), configMap("extra", ns)) });
  return { ns, dir };
}

beforeAll(() => {
  const commit = execFileSync("git", ["stash", "create"], { cwd: REPO, encoding: "utf8" }).trim() || execFileSync("git", ["rev-parse", "HEAD"], { cwd: REPO, encoding: "utf8" }).trim();
  execFileSync("git", ["clone", "-q", "--no-checkout", REPO, clone]);
  execFileSync("git", ["-C", clone, "checkout", "-q", "--detach", commit]);
});

afterAll(async () => {
  for (const ns of namespaces) await kubectl(["delete", "namespace", ns, "--wait=false"]);
});

interface Step {
  id?: string;
  name?: string;
  shell?: string;
  run?: string;
  env?: Record<string, string>;
  "working-directory"?: string;
}

interface ActionRun {
  outputs: Record<string, string>;
  summary: string;
  steps: RunResult[];
}

/**
 * Runs action.yml's steps as a runner runs a composite action: each `run:` with `bash --noprofile
 * --norc -eo pipefail`, GitHub's variables set, the step's env with `${{ inputs.* }}`,
 * `${{ github.action_path }}` and `${{ steps.*.outputs.* }}` filled in (the only expressions it
 * may use), GITHUB_OUTPUT read back after each step, the action's outputs mapped from them.
 */
async function runAction(actionPath: string, inputs: Record<string, string>, cwd: string): Promise<ActionRun> {
  const action = parse(readFileSync(join(actionPath, "action.yml"), "utf8")) as {
    inputs: Record<string, { default?: string }>;
    outputs: Record<string, { value: string }>;
    runs: { using: string; steps: Step[] };
  };
  expect(action.runs.using).toBe("composite");
  const values = Object.fromEntries(Object.entries(action.inputs).map(([k, v]) => [k, inputs[k] ?? v.default ?? ""]));
  const stepOutputs: Record<string, Record<string, string>> = {};
  const expand = (text: string) =>
    text.replace(/\$\{\{\s*([^}]+?)\s*\}\}/g, (_, expr: string) => {
      let m: RegExpExecArray | null;
      if ((m = /^inputs\.([\w-]+)$/.exec(expr))) return values[m[1]!] ?? "";
      if (expr === "github.action_path") return actionPath;
      if ((m = /^steps\.([\w-]+)\.outputs\.([\w-]+)$/.exec(expr))) return stepOutputs[m[1]!]?.[m[2]!] ?? "";
      throw new Error(`action.yml uses an expression this test cannot evaluate: ${expr}`);
    });
  const temp = mkdtempSync(join(work, "runner-"));
  const summary = join(temp, "step-summary.md");
  writeFileSync(summary, "");
  const steps: RunResult[] = [];
  for (const [i, step] of action.runs.steps.entries()) {
    expect(step.shell, `step ${i} names its shell`).toBe("bash");
    const script = join(temp, `step-${i}.sh`);
    writeFileSync(script, step.run ?? "");
    const output = join(temp, `output-${i}`);
    writeFileSync(output, "");
    const env = Object.fromEntries(Object.entries(step.env ?? {}).map(([k, v]) => [k, expand(String(v))]));
    const r = await run("bash", ["--noprofile", "--norc", "-eo", "pipefail", script], {
      cwd: join(cwd, expand(step["working-directory"] ?? ".")),
      timeoutMs: NPM_MS,
      env: {
        ...env,
        GITHUB_ACTIONS: "true",
        GITHUB_ACTION_PATH: actionPath,
        GITHUB_WORKSPACE: cwd,
        GITHUB_OUTPUT: output,
        GITHUB_STEP_SUMMARY: summary,
        GITHUB_ENV: join(temp, "env"),
        GITHUB_PATH: join(temp, "path"),
        RUNNER_TEMP: temp,
        npm_config_update_notifier: "false",
        npm_config_prefer_offline: "true",
      },
    });
    steps.push(r);
    if (step.id) stepOutputs[step.id] = Object.fromEntries(readFileSync(output, "utf8").split("\n").filter((l) => l.includes("=")).map((l) => [l.slice(0, l.indexOf("=")), l.slice(l.indexOf("=") + 1)]));
    if (r.code !== 0) break;
  }
  const outputs = Object.fromEntries(Object.entries(action.outputs).map(([k, v]) => [k, expand(v.value)]));
  return { outputs, summary: readFileSync(summary, "utf8"), steps };
}

describe("the GitHub Action (action.yml), from a clean checkout of the repository", () => {
  it("installs kpt-ts from its own checkout, previews a package to the step summary, applies it, and previews no change after", SLOW, async () => {
    expect(existsSync(join(clone, "dist"))).toBe(false);
    const { ns, dir } = await rgPackage("e2e-action");
    must(await kptTs(["live", "init", dir, "--namespace", ns]), "live init");
    const workspace = join(dir, "..");
    const pkg = dir.slice(workspace.length + 1);
    const kc = { flags: `--kubeconfig ${kubeconfig()}` };

    const preview = await runAction(clone, { package: pkg, mode: "preview", ...kc }, workspace);
    expect(preview.steps.map((s) => s.code), preview.steps.map(printed).join("\n")).toEqual([0, 0]);
    expect(preview.steps[0]!.stdout).toMatch(/^0\.\d+\.\d+/m); // the install step ends with `kpt-ts version`
    expect(existsSync(join(clone, "dist", "cli.js"))).toBe(true);
    expect(preview.outputs).toMatchObject({ changes: "true", "exit-code": "1" });
    const md = parseMarkdownPreview(preview.summary);
    expect(md.rows.map((r) => `${r.operation} ${r.kind} ${r.namespace} ${r.name}`).sort()).toEqual([`create ConfigMap ${ns} extra`, `create ConfigMap ${ns} settings`]);
    expect(readFileSync(preview.outputs.preview!, "utf8")).toBe(preview.summary);
    expect(await getObject("configmaps", "settings", ns)).toBeUndefined();

    const applied = await runAction(clone, { package: pkg, mode: "apply", flags: `${kc.flags} --reconcile-timeout=1m` }, workspace);
    expect(applied.steps.map((s) => s.code), applied.steps.map(printed).join("\n")).toEqual([0, 0]);
    expect(applied.outputs["exit-code"]).toBe("0");
    expect(parseMarkdownPreview(applied.summary).rows.map((r) => `${r.operation} ${r.name}`).sort()).toEqual(["create extra", "create settings"]);
    expect(applied.steps[1]!.stdout).toMatch(/2 resource\(s\) applied\. 2 created/);
    expect((await getObject("configmaps", "settings", ns))?.data).toEqual({ mode: "first" });

    const again = await runAction(clone, { package: pkg, mode: "preview", ...kc }, workspace);
    expect(again.outputs).toMatchObject({ changes: "false", "exit-code": "0" });

    const bad = await runAction(clone, { package: pkg, mode: "deploy", ...kc }, workspace);
    expect(bad.steps.at(-1)!.code).toBe(2);
    expect(bad.steps.at(-1)!.stdout).toContain("::error::kpt-ts action: the mode input must be preview or apply, not 'deploy'");
    must(await kptTs(["live", "destroy", dir]), "live destroy");
  });

  // Issue 35: what each input may hold, through the action's own steps.
  it("uses the flags of every line of `flags`, takes a package whose directory begins with -, and never prints a bad mode that holds a workflow command", SLOW, async () => {
    const ns = await createNamespace("e2e-action-inputs");
    namespaces.push(ns);
    const workspace = mkdtempSync(join(work, "workspace-"));
    const dir = join(workspace, "-weird-pkg");
    for (const [file, text] of Object.entries({ "app.yaml": docs(configMap("settings", ns, { mode: "first" })) })) {
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, file), text);
    }
    must(await kptTs(["live", "init", "--namespace", ns, dir]), "live init");
    // A YAML `|` block: three lines, each with a flag.
    const flags = `--kubeconfig ${kubeconfig()}\n--server-side\n--field-manager=action-lines\n`;
    const applied = await runAction(clone, { package: "-weird-pkg", mode: "apply", flags }, workspace);
    expect(applied.steps.map((s) => s.code), applied.steps.map(printed).join("\n")).toEqual([0, 0]);
    expect(applied.outputs["exit-code"]).toBe("0");
    const live = await kubectlJson(["get", "configmap", "settings", "-n", ns, "--show-managed-fields"]);
    expect((live.metadata.managedFields as { manager: string; operation: string }[]).map((m) => `${m.manager} ${m.operation}`)).toContain("action-lines Apply");

    const preview = await runAction(clone, { package: "-weird-pkg", mode: "preview", flags }, workspace);
    expect(preview.outputs).toMatchObject({ changes: "false", "exit-code": "0" });
    // Read as a flag, `--version` printed the version: changes=false, exit 0.
    const asFlag = await runAction(clone, { package: "--version", mode: "preview", flags }, workspace);
    expect(asFlag.steps.at(-1)!.code).toBe(2);
    expect(asFlag.outputs.changes).toBe("");

    const bad = await runAction(clone, { package: "-weird-pkg", mode: "deploy\n::add-mask::hunter2\n::error::pwned", flags }, workspace);
    expect(bad.steps.at(-1)!.code).toBe(2);
    const lines = bad.steps.flatMap((s) => `${s.stdout}${s.stderr}`.split("\n"));
    expect(lines.filter((l) => /^\s*::/.test(l))).toEqual([expect.stringMatching(/^::error::kpt-ts action: the mode input must be preview or apply, not the value given \(\d+ characters, not shown/)]);
    expect(lines.join("\n")).not.toMatch(/hunter2|pwned/);
    must(await kptTs(["live", "destroy", dir]), "live destroy");
  });
});

describe("npm pack of a clean clone, installed with production dependencies only", () => {
  let bin = "";
  let installDir = "";

  beforeAll(async () => {
    // The Action's test may have run npm ci already; a clone on its own needs it for the build tools.
    if (!existsSync(join(clone, "node_modules"))) must(await npm(["ci"], clone), "npm ci in the clean clone");
    const packed = must(await npm(["pack", "--json"], clone), "npm pack"); // runs prepare: a fresh build
    const tarball = join(clone, (JSON.parse(packed.stdout.slice(packed.stdout.indexOf("["))) as { filename: string }[])[0]!.filename);
    installDir = mkdtempSync(join(work, "tarball-"));
    writeFileSync(join(installDir, "package.json"), JSON.stringify({ name: "uses-kpt-ts", private: true, type: "module" }));
    must(await npm(["install", "--omit=dev", tarball], installDir), "npm install of the tarball");
    bin = join(installDir, "node_modules", ".bin", "kpt-ts");
  }, SLOW.timeout);

  it("has a node_modules of at most 25 MB, without @kubernetes/client-node", () => {
    const size = treeSize(join(installDir, "node_modules"));
    expect(size).toBeLessThanOrEqual(25_000_000);
    expect(existsSync(join(installDir, "node_modules", "@kubernetes", "client-node"))).toBe(false);
  });

  it("gives a kpt-ts that prints its version, and inits, applies, reports and destroys a package on the cluster", async () => {
    const version = JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")).version as string;
    const kpt = (args: string[]) => run(bin, args, { cwd: installDir });
    expect((await kpt(["version"])).stdout.trim()).toBe(version);
    const { ns, dir } = await rgPackage("e2e-tarball");
    must(await kpt(["live", "init", dir, "--namespace", ns, "--inventory-id", `tarball-${ns}`]), "live init");
    const applied = must(await kpt(["live", "apply", "--reconcile-timeout=1m", dir]), "live apply");
    expect(applied.stdout).toMatch(/2 resource\(s\) applied\. 2 created, 0 unchanged, 0 configured, 0 failed/);
    expect((await getObject("configmaps", "settings", ns))?.data).toEqual({ mode: "first" });
    const status = must(await kpt(["live", "status", dir]), "live status");
    expect(status.stdout).toMatch(/configmap\/settings is Current/);
    expect(status.stdout).toMatch(/configmap\/extra is Current/);
    expect(await getObject("resourcegroups.kpt.dev", (await readInventoryFile(dir)).name, ns)).toBeDefined();
    const destroyed = must(await kpt(["live", "destroy", dir]), "live destroy");
    expect(destroyed.stdout).toMatch(/2 resource\(s\) deleted/);
    expect(await getObject("configmaps", "settings", ns)).toBeUndefined();
    const inv = await readInventoryFile(dir);
    expect(await getObject("resourcegroups.kpt.dev", inv.name, ns)).toBeUndefined();
  });

  it("tells a legacy auth-provider user which package to install, and where", async () => {
    const { ns, dir } = await rgPackage("e2e-authprovider");
    must(await kptTs(["live", "init", dir, "--namespace", ns]), "live init");
    const oidc = { "auth-provider": { name: "oidc", config: { "client-id": "kpt-ts", "idp-issuer-url": "https://127.0.0.1:9/", "id-token": fakeJwt() } } };
    const file = await writeKubeconfig(oidc);
    const r = await run(bin, ["live", "status", dir, "--kubeconfig", file], { cwd: installDir });
    expect(r.code, printed(r)).toBe(1);
    expect(r.stderr).toMatch(/the auth-provider "oidc" of user "user".* needs @kubernetes\/client-node, which is not installed/);
    expect(r.stderr).toContain("npm install --global @kubernetes/client-node@^1.4.0");
    // With it installed (this repository has it as a devDependency) the same user's token reaches the
    // cluster, which does not know it; the same again when the launcher's code cache is warm (code
    // read back from V8's cache once lost its import() callback).
    const cache = mkdtempSync(join(work, "code-cache-"));
    for (const attempt of ["cold", "warm"]) {
      const withIt = await kptTs(["live", "status", dir, "--kubeconfig", file], { env: { KPT_TS_CODE_CACHE: cache } });
      expect(withIt.code, `${attempt} cache: ${printed(withIt)}`).toBe(1);
      expect(withIt.stderr, `${attempt} cache`).toMatch(/^error: cannot discover the API of https:\/\/127\.0\.0\.1:\d+: Unauthorized$/m);
    }
    expect(readdirSync(cache)).toHaveLength(1);
  });

  it("exports the library by its name, with its types (`import { apply } from \"kpt-ts\"`), README's example included", async () => {
    writeFileSync(
      join(installDir, "lib.ts"),
      [
        'import { apply, plan, runOutcome, PackageError, type EngineEvent, type RunOutcome, type RunPlan, type RunFailure, type ExitCode } from "kpt-ts";',
        "const events: AsyncIterable<EngineEvent> = apply({ path: \"./pkg\" });",
        "const planned: Promise<RunPlan> = plan({ path: \"./pkg\" });",
        "const outcome: Promise<RunOutcome> = runOutcome(events);",
        "outcome.then((o) => { const code: ExitCode = o.exitCode; const f: RunFailure[] = o.failures; return [code, f, o.stats.apply.failed, o.error?.message]; }, () => {});",
        'console.log(typeof apply, typeof plan, PackageError.prototype instanceof Error, events !== undefined, planned !== undefined);',
        "planned.catch(() => {});",
        "",
      ].join("\n"),
    );
    // README's library example, as written, in a module of its own (it awaits at the top level).
    const readme = readFileSync(join(REPO, "README.md"), "utf8");
    const example = /## As a library\n\n```ts\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(example, "README.md has a ts block under \"As a library\"").toBeDefined();
    writeFileSync(join(installDir, "readme-example.mts"), example!);
    const tsc = await run(
      process.execPath,
      [join(REPO, "node_modules", "typescript", "bin", "tsc"), "--noEmit", "--strict", "--module", "nodenext", "--moduleResolution", "nodenext", "--target", "es2022", "--types", "node", "--typeRoots", join(REPO, "node_modules", "@types"), "lib.ts", "readme-example.mts"],
      { cwd: installDir },
    );
    expect(tsc.code, printed(tsc)).toBe(0);
    writeFileSync(join(installDir, "lib.mjs"), 'import { apply, plan, PackageError } from "kpt-ts";\nconsole.log(typeof apply, typeof plan, PackageError.prototype instanceof Error);\n');
    const r = await run(process.execPath, ["lib.mjs"], { cwd: installDir });
    expect(r.stdout.trim(), printed(r)).toBe("function function true");
  });
});

describe("npm install git+file://<clean clone>", () => {
  it("builds on prepare and gives a working kpt-ts", SLOW, async () => {
    const dir = mkdtempSync(join(work, "git-"));
    writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "uses-kpt-ts-from-git", private: true }));
    const installed = must(await npm(["install", `git+file://${clone}`], dir), "npm install git+file://");
    const bin = join(dir, "node_modules", ".bin", "kpt-ts");
    expect(existsSync(join(dir, "node_modules", "kpt-ts", "dist", "cli-program.cjs")), installed.stderr).toBe(true);
    expect(treeSize(join(dir, "node_modules"))).toBeLessThanOrEqual(25_000_000);
    const { ns, dir: pkg } = await rgPackage("e2e-git");
    must(await run(bin, ["live", "init", pkg, "--namespace", ns], { cwd: dir }), "live init");
    const applied = must(await run(bin, ["live", "apply", pkg], { cwd: dir }), "live apply");
    expect(applied.stdout).toMatch(/2 resource\(s\) applied/);
    must(await run(bin, ["live", "destroy", pkg], { cwd: dir }), "live destroy");
    expect(await getObject("configmaps", "settings", ns)).toBeUndefined();
  });
});

/** An unsigned JWT that expires in a day (client-node's oidc provider only reads its expiry). */
function fakeJwt(): string {
  const b64 = (o: object) => Buffer.from(JSON.stringify(o)).toString("base64url");
  return `${b64({ alg: "RS256", typ: "JWT" })}.${b64({ iss: "https://127.0.0.1:9/", sub: "someone", exp: Math.floor(Date.now() / 1000) + 86_400 })}.c2lnbmF0dXJl`;
}
