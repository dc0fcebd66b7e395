// Issue 14: previews in CI with a read-only identity. A ServiceAccount bound to exactly the
// README's `kpt-ts-preview` ClusterRole previews a change (a changed ConfigMap and Secret, a new
// object, a pruned one, a protected one, one a depends-on keeps) with `live diff` and `live apply
// --dry-run`: no 403, the same operations as the admin's real apply that follows. The Markdown
// preview and the step summary are read back by structure; GitHub annotations name the file and
// line the plain error names; with one verb less, the error names the missing permission.
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import { writePackage } from "../helpers/fixtures.js";
import { serviceAccountToken, writeKubeconfig, type PolicyRule } from "../helpers/credentials.js";
import { parseMarkdownPreview } from "../helpers/markdown.js";
import { createNamespace, kptTs, kubectl, kubectlJson, REPO } from "../helpers/run.js";
import { configMap, docs, lines, printed } from "../helpers/scenario.js";

const b64 = (s: string) => Buffer.from(s).toString("base64");
const SECRET_VALUES = ["first-password", "second-password", "admin-user"];

interface DocumentedRole {
  kind: string;
  metadata: { name: string };
  rules: PolicyRule[];
}

/** The ClusterRole as the README documents it (its YAML block), so the test and the doc cannot drift. */
async function documentedRole(name: string): Promise<DocumentedRole> {
  const readme = await readFile(join(REPO, "README.md"), "utf8");
  const roles = [...readme.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => parse(m[1]!) as DocumentedRole | null);
  const role = roles.find((r) => r?.kind === "ClusterRole" && r.metadata?.name === name);
  if (!role) throw new Error(`README.md has no ClusterRole ${name} in a yaml block`);
  return role;
}

const clusterScoped: string[] = [];
afterAll(async () => {
  if (clusterScoped.length) await kubectl(["delete", "--ignore-not-found", ...clusterScoped]);
});

/** A ServiceAccount bound (ClusterRoleBinding) to a ClusterRole with exactly these rules; its token's kubeconfig. */
async function boundAccount(ns: string, name: string, rules: PolicyRule[]): Promise<string> {
  const role = `${name}-${ns}`;
  const manifests = [
    { apiVersion: "v1", kind: "ServiceAccount", metadata: { name, namespace: ns } },
    { apiVersion: "rbac.authorization.k8s.io/v1", kind: "ClusterRole", metadata: { name: role }, rules },
    {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "ClusterRoleBinding",
      metadata: { name: role },
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: role },
      subjects: [{ kind: "ServiceAccount", name, namespace: ns }],
    },
  ];
  const r = await kubectl(["apply", "-f", "-"], { input: manifests.map((m) => stringify(m)).join("---\n") });
  if (r.code !== 0) throw new Error(`binding ${ns}/${name}: ${r.stderr}`);
  clusterScoped.push(`clusterrole/${role}`, `clusterrolebinding/${role}`);
  return writeKubeconfig({ token: await serviceAccountToken(ns, name) }, { namespace: ns });
}

const rg = (ns: string) => `apiVersion: kpt.dev/v1alpha1\nkind: ResourceGroup\nmetadata:\n  name: inventory-ci\n  namespace: ${ns}\n  labels:\n    cli-utils.sigs.k8s.io/inventory-id: ci-${ns}\n`;
const secret = (ns: string, password: string) => `apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\n  namespace: ${ns}\nstringData:\n  user: admin-user\n  password: ${password}\n`;

/** The package before and after the pull request's change. */
function packageFiles(ns: string, version: 1 | 2): Record<string, string> {
  const files: Record<string, string> = {
    "resourcegroup.yaml": rg(ns),
    "cfg.yaml": configMap("cfg", ns, { color: version === 1 ? "blue" : "green" }),
    "secret.yaml": secret(ns, version === 1 ? "first-password" : "second-password"),
    "same.yaml": configMap("same", ns, { x: "1" }),
    // `user` depends on `base`: when base leaves the package, its prune is skipped while user stays.
    "user.yaml": configMap("user", ns, { x: "1" }, { annotations: { "config.kubernetes.io/depends-on": `/namespaces/${ns}/ConfigMap/base` } }),
  };
  if (version === 1) {
    files["old.yaml"] = configMap("old", ns, { x: "1" });
    files["keep.yaml"] = configMap("keep", ns, { x: "1" }, { annotations: { "cli-utils.sigs.k8s.io/on-remove": "keep" } });
    files["base.yaml"] = configMap("base", ns, { x: "1" });
  } else files["fresh.yaml"] = configMap("fresh", ns, { y: "2" });
  return files;
}

async function rewrite(dir: string, files: Record<string, string>): Promise<void> {
  for (const f of ["old.yaml", "keep.yaml", "base.yaml"]) await rm(join(dir, f), { force: true });
  for (const [name, text] of Object.entries(files)) await writeFile(join(dir, name), text);
}

/** `live diff --output json`'s changes, as `name operation[ skipped]`. */
function diffOperations(stdout: string): string[] {
  const doc = JSON.parse(stdout) as { changes: { name: string; operation: string; skip?: string; error?: string }[] };
  return doc.changes.map((c) => `${c.name} ${c.skip ? (c.operation === "delete" ? "delete skipped" : "apply skipped") : c.operation}${c.error ? " error" : ""}`).sort();
}

/** The admin's real apply's event lines in the same words: created/configured/unchanged -> create/update/noop, pruned -> delete, skips as skips. */
function applyOperations(out: string): string[] {
  const ops: string[] = [];
  for (const l of out.split("\n")) {
    const m = /^(?:configmap|secret)\/(\S+) (created|configured|unchanged|pruned|prune skipped|apply skipped)/.exec(l);
    if (!m) continue;
    const op = { created: "create", configured: "update", unchanged: "noop", pruned: "delete", "prune skipped": "delete skipped", "apply skipped": "apply skipped" }[m[2]!]!;
    ops.push(`${m[1]} ${op}`);
  }
  return ops.sort();
}

function expectNoSecrets(...outputs: string[]): void {
  for (const out of outputs) {
    for (const v of SECRET_VALUES) {
      expect(out).not.toContain(v);
      expect(out).not.toContain(b64(v));
    }
  }
}

describe("a CI identity with the documented read-only role", () => {
  it("previews a change with live diff and live apply --dry-run: no 403, Secrets masked, the same operations as the real apply", async () => {
    const ns = await createNamespace("e2e-ci-preview");
    const role = await documentedRole("kpt-ts-preview");
    const kubeconfig = await boundAccount(ns, "preview", role.rules);
    const dir = await writePackage(packageFiles(ns, 1));
    const first = await kptTs(["live", "apply", dir]);
    expect(first.code, printed(first)).toBe(0);
    await rewrite(dir, packageFiles(ns, 2));
    const before = await kubectlJson<{ items: { metadata: { name: string; resourceVersion: string } }[] }>(["get", "configmaps,secrets,resourcegroups.kpt.dev", "-n", ns]);

    // Text: the local-preview line, the ConfigMap's new value, the Secret masked.
    const text = await kptTs(["live", "diff", "--kubeconfig", kubeconfig, dir]);
    expect(text.code, printed(text)).toBe(1);
    expect(text.stdout + text.stderr).not.toContain("403");
    const note = lines(text).filter((l) => l.startsWith("Preview computed locally"));
    expect(note, printed(text)).toHaveLength(1);
    expect(note[0]).toMatch(/the server refused dry-run writes: forbidden: user "system:serviceaccount:[^"]+:preview" may not (create|patch) /);
    expect(note[0]).toMatch(/last-applied annotation and the live object; it cannot show what admission webhooks or the server's defaulting would change/);
    expect(text.stdout).toContain("-  color: blue\n+  color: green");
    expect(text.stdout).toContain("-  password: <masked>\n+  password: <masked (changed)>");
    expect(text.stdout).toContain(`--- /dev/null\n+++ ${ns}/configmap/fresh (after apply)`);
    expect(text.stdout).toContain(`--- ${ns}/configmap/old (live)\n+++ /dev/null`);
    expect(text.stdout).toMatch(/keep +ConfigMap +delete +skip: annotation prevents deletion/);
    expect(text.stdout).toMatch(/base +ConfigMap +delete +skip: .*user/);

    // The same operations as a server dry run would give, forced locally or not.
    const json = await kptTs(["live", "diff", "--output", "json", "--kubeconfig", kubeconfig, dir]);
    expect(json.code, printed(json)).toBe(1);
    const previewed = diffOperations(json.stdout);
    // `user` depends on `base`, which left the package: kpt skips both (the depends-on skips).
    expect(previewed).toEqual(["base delete skipped", "cfg update", "db update", "fresh create", "keep delete skipped", "old delete", "same noop", "user apply skipped"]);
    // The usual read-only role (get, list, watch) previews the same.
    const reader = await boundAccount(ns, "reader", [{ apiGroups: ["*"], resources: ["*"], verbs: ["get", "list", "watch"] }]);
    const byReader = await kptTs(["live", "diff", "--output", "json", "--kubeconfig", reader, dir]);
    expect(byReader.code, printed(byReader)).toBe(1);
    expect(diffOperations(byReader.stdout)).toEqual(previewed);
    expect(byReader.stdout + byReader.stderr).not.toContain("403");
    const adminLocal = await kptTs(["live", "diff", "--local", "--output", "json", dir]);
    expect(diffOperations(adminLocal.stdout)).toEqual(previewed);
    expect(JSON.parse(adminLocal.stdout).local).toMatch(/^Preview computed locally \(--local\)/);
    const adminServer = await kptTs(["live", "diff", "--output", "json", dir]);
    expect(diffOperations(adminServer.stdout)).toEqual(previewed);
    expect(JSON.parse(adminServer.stdout).local).toBeUndefined();

    // live apply --dry-run, client-side and server-side, as the read-only identity.
    const dry = await kptTs(["live", "apply", "--dry-run", "--kubeconfig", kubeconfig, dir]);
    expect(dry.code, printed(dry)).toBe(0);
    expect(applyOperations(dry.stdout)).toEqual(previewed);
    const drySsa = await kptTs(["live", "apply", "--dry-run", "--server-side", "--kubeconfig", kubeconfig, dir]);
    expect(drySsa.code, printed(drySsa)).toBe(0);
    expect(drySsa.stdout + drySsa.stderr).not.toContain("403");
    expect(drySsa.stderr).toMatch(/^Preview computed locally \(the server refused dry-run writes: .*may not patch configmaps.*field manager owns/m);
    expectNoSecrets(text.stdout, text.stderr, json.stdout, dry.stdout, drySsa.stdout, drySsa.stderr);

    // Nothing the previews did changed the cluster.
    const after = await kubectlJson<typeof before>(["get", "configmaps,secrets,resourcegroups.kpt.dev", "-n", ns]);
    expect(after.items.map((o) => `${o.metadata.name}@${o.metadata.resourceVersion}`)).toEqual(before.items.map((o) => `${o.metadata.name}@${o.metadata.resourceVersion}`));

    // The admin's real apply does what the preview said.
    const real = await kptTs(["live", "apply", dir]);
    expect(real.code, printed(real)).toBe(0);
    expect(applyOperations(real.stdout)).toEqual(previewed);
    expect((await kubectlJson(["get", "configmap", "cfg", "-n", ns])).data).toEqual({ color: "green" });
    const nothing = await kptTs(["live", "diff", "--kubeconfig", kubeconfig, dir]);
    expect(nothing.code, printed(nothing)).toBe(0);
  });

  it("prints the preview as Markdown, appends it to the step summary, and live apply --dry-run does too", async () => {
    const ns = await createNamespace("e2e-ci-markdown");
    const kubeconfig = await boundAccount(ns, "preview", (await documentedRole("kpt-ts-preview")).rules);
    const dir = await writePackage(packageFiles(ns, 1));
    expect((await kptTs(["live", "apply", dir])).code).toBe(0);
    await rewrite(dir, packageFiles(ns, 2));
    const summaryFile = join(await mkdtemp(join(tmpdir(), "kpt-ts-summary-")), "step-summary.md");
    await writeFile(summaryFile, "earlier step's summary\n");

    const md = await kptTs(["live", "diff", "--output", "markdown", "--kubeconfig", kubeconfig, dir], { env: { GITHUB_STEP_SUMMARY: summaryFile } });
    expect(md.code, printed(md)).toBe(1);
    const p = parseMarkdownPreview(md.stdout);
    expect(p.heading).toBe(`kpt-ts live diff: ResourceGroup ${ns}/inventory-ci`);
    expect(p.summary).toBe("**4 changes**: 1 create, 2 update, 1 delete, 2 noop, 2 skipped");
    expect(p.notes.join("\n")).toMatch(/^Preview computed locally/);
    // One row per change, one section per object apply changes.
    expect(p.header).toEqual(["Operation", "Kind", "Namespace", "Name", "Skipped because"]);
    expect(p.rows.map((r) => `${r.operation} ${r.kind} ${r.namespace}/${r.name}`)).toEqual([
      `delete (skipped) ConfigMap ${ns}/base`,
      `update ConfigMap ${ns}/cfg`,
      `update Secret ${ns}/db`,
      `create ConfigMap ${ns}/fresh`,
      `delete (skipped) ConfigMap ${ns}/keep`,
      `delete ConfigMap ${ns}/old`,
    ]);
    expect(p.rows.find((r) => r.name === "keep")!.reason).toMatch(/annotation prevents deletion/);
    expect(p.rows.find((r) => r.name === "base")!.reason).toMatch(/user/);
    expect(p.sections.map((s) => s.summary)).toEqual([`update ${ns}/configmap/cfg`, `update ${ns}/secret/db`, `create ${ns}/configmap/fresh`, `delete ${ns}/configmap/old`]);
    for (const s of p.sections) expect(s.lang).toBe("diff");
    expect(p.sections[0]!.lines).toEqual(expect.arrayContaining(["-  color: blue", "+  color: green"]));
    expect(p.sections[1]!.lines).toContain("+  password: <masked (changed)>");
    expect(p.mermaid[0]).toBe("flowchart TD");
    expect(p.mermaid.filter((l) => l.startsWith("  subgraph ")).length).toBeGreaterThanOrEqual(2);
    expect(p.mermaid.some((l) => l.includes("prune wave 1"))).toBe(true);
    expectNoSecrets(md.stdout);

    // The step summary: what was there, then the same preview.
    const summary = await readFile(summaryFile, "utf8");
    expect(summary.startsWith("earlier step's summary\n")).toBe(true);
    expect(parseMarkdownPreview(summary.slice("earlier step's summary\n".length))).toEqual(p);

    // Text output still goes to stdout; the summary gets the Markdown all the same.
    const text = await kptTs(["live", "diff", "--kubeconfig", kubeconfig, dir], { env: { GITHUB_STEP_SUMMARY: summaryFile } });
    expect(text.code).toBe(1);
    expect(text.stdout).not.toContain("<details>");
    const both = (await readFile(summaryFile, "utf8")).split(/^(?=### )/m);
    expect(both).toHaveLength(3);

    // live apply --dry-run --output markdown: the same rows and sections, nothing applied.
    const dry = await kptTs(["live", "apply", "--dry-run", "--output", "markdown", "--kubeconfig", kubeconfig, dir], { env: { GITHUB_STEP_SUMMARY: summaryFile } });
    expect(dry.code, printed(dry)).toBe(0);
    const d = parseMarkdownPreview(dry.stdout);
    expect(d.heading).toBe(`kpt-ts live apply --dry-run: ResourceGroup ${ns}/inventory-ci`);
    expect(d.rows).toEqual(p.rows);
    expect(d.sections.map((s) => s.summary)).toEqual(p.sections.map((s) => s.summary));
    expect((await readFile(summaryFile, "utf8")).split(/^(?=### )/m)).toHaveLength(4);
    expect((await kubectlJson(["get", "configmap", "cfg", "-n", ns])).data).toEqual({ color: "blue" });

    const noDryRun = await kptTs(["live", "apply", "--output", "markdown", dir]);
    expect(noDryRun.code).toBe(2);
    expect(noDryRun.stderr).toMatch(/--output markdown is for previews: add --dry-run, or use live diff/);
  });

  it("with one verb of the documented role missing, the preview fails and names that permission", async () => {
    const role = await documentedRole("kpt-ts-preview");
    const verbs = [...new Set(role.rules.flatMap((r) => r.verbs))];
    expect(verbs.length).toBeGreaterThan(0);
    const failures: string[] = [];
    for (const verb of verbs) {
      const ns = await createNamespace(`e2e-ci-no-${verb}`);
      const kubeconfig = await boundAccount(ns, "preview", role.rules.map((r) => ({ ...r, verbs: r.verbs.filter((v) => v !== verb) })));
      const dir = await writePackage({ "resourcegroup.yaml": rg(ns), "cfg.yaml": configMap("cfg", ns, { color: "blue" }) });
      expect((await kptTs(["live", "apply", dir])).code).toBe(0);
      await writeFile(join(dir, "cfg.yaml"), configMap("cfg", ns, { color: "green" }));
      const r = await kptTs(["live", "diff", "--kubeconfig", kubeconfig, dir]);
      if (r.code !== 2 || !new RegExp(`ask a cluster administrator to grant "${verb}" on \\S+`).test(r.stdout + r.stderr)) failures.push(`without "${verb}"\n${printed(r)}`);
    }
    expect(failures).toEqual([]);
  });
});

describe("--server-side previews by a read-only identity", () => {
  it("are computed from the fields the field manager owns and match the server's own dry run", async () => {
    const ns = await createNamespace("e2e-ci-ssa");
    const kubeconfig = await boundAccount(ns, "preview", (await documentedRole("kpt-ts-preview")).rules);
    const deploy = (image: string, env: string) =>
      `apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: ${ns}}\nspec:\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec: {containers: [{name: web, image: "${image}", env: [${env}]}]}\n`;
    const dir = await writePackage({
      "resourcegroup.yaml": rg(ns),
      "cfg.yaml": configMap("cfg", ns, { color: "blue", dropped: "x" }, { labels: { a: "1", b: "2" } }),
      "web.yaml": deploy("nginx:1.25", '{name: A, value: "1"}, {name: B, value: "2"}'),
    });
    const applied = await kptTs(["live", "apply", "--server-side", "--reconcile-timeout=1m", dir]);
    expect(applied.code, printed(applied)).toBe(0);
    // Someone else's field: server-side apply leaves it alone.
    expect((await kubectl(["label", "configmap", "cfg", "theirs=1", "-n", ns])).code).toBe(0);
    await writeFile(join(dir, "cfg.yaml"), configMap("cfg", ns, { color: "green" }, { labels: { a: "1" } }));
    await writeFile(join(dir, "web.yaml"), deploy("nginx:1.27", '{name: A, value: "1"}'));

    const server = await kptTs(["live", "diff", "--server-side", dir]);
    const local = await kptTs(["live", "diff", "--server-side", "--kubeconfig", kubeconfig, dir]);
    expect(local.code, printed(local)).toBe(1);
    expect(server.code, printed(server)).toBe(1);
    // The same output but for the one line saying it was computed locally, under the inventory line.
    const localLines = local.stdout.split("\n");
    expect(localLines[1]).toMatch(/^Preview computed locally \(the server refused dry-run writes: .*\): server-side apply approximated by a three-way merge of the package, the fields its field manager owns and the live object/);
    expect([localLines[0], ...localLines.slice(2)].join("\n")).toBe(server.stdout);
    expect(server.stdout).toContain("-  color: blue\n-  dropped: x\n+  color: green");
    expect(server.stdout).toContain('-    b: "2"\n     theirs: "1"');
    expect(server.stdout).toContain("-          image: nginx:1.25\n+          image: nginx:1.27");
  });
});

describe("under GITHUB_ACTIONS=true", () => {
  it.each([
    ["an object without a name", (ns: string) => docs(configMap("fine", ns), `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  namespace: ${ns}\ndata:\n  a: "1"\n`)],
    ["a depends-on reference to nothing", (ns: string) => docs(configMap("fine", ns), configMap("waits", ns, { a: "1" }, { annotations: { "config.kubernetes.io/depends-on": `/namespaces/${ns}/ConfigMap/nowhere` } }))],
  ])("a bad package (%s): its error is also an annotation naming the same file and line, relative to the working directory", async (_name, bad) => {
    const ns = await createNamespace("e2e-ci-annotate");
    const dir = await writePackage({ "resourcegroup.yaml": rg(ns), "good.yaml": configMap("good", ns), "bad.yaml": bad(ns) });
    const cwd = dirname(dir);
    for (const args of [["live", "diff", dir], ["live", "apply", dir]]) {
      const plain = await kptTs(args, { cwd });
      expect(plain.code, printed(plain)).toBe(2);
      const m = /^error: (\S+):(\d+): (.*)$/m.exec(plain.stderr);
      expect(m, printed(plain)).not.toBeNull();
      const [, file, line, message] = m!;
      expect(Number(line)).toBeGreaterThan(1); // the second document of bad.yaml
      expect(plain.stderr).not.toContain("::error");

      const ci = await kptTs(args, { cwd, env: { GITHUB_ACTIONS: "true" } });
      expect(ci.code).toBe(2);
      const annotations = ci.stderr.split("\n").filter((l) => l.startsWith("::error "));
      // The message's further lines (a hint) follow, escaped as %0A.
      expect(annotations, printed(ci)).toHaveLength(1);
      expect(annotations[0]!.startsWith(`::error file=${relative(cwd, file!)},line=${line}::${message}`), printed(ci)).toBe(true);
      expect(relative(cwd, file!)).toBe(`${dir.slice(cwd.length + 1)}/bad.yaml`);
      // The plain error is still there.
      expect(ci.stderr).toContain(`error: ${file}:${line}: ${message}`);
    }
  });

  it("an object the server refuses during apply is annotated at its file and line", async () => {
    const ns = await createNamespace("e2e-ci-annotate-apply");
    const dir = await writePackage({
      "resourcegroup.yaml": rg(ns),
      "objects.yaml": docs(configMap("good", ns), configMap("refused", ns, { "not a valid key!": "x" })),
    });
    const r = await kptTs(["live", "apply", dir], { cwd: dirname(dir), env: { GITHUB_ACTIONS: "true" } });
    expect(r.code, printed(r)).toBe(3);
    expect(lines(r).some((l) => l.startsWith("configmap/refused apply failed: "))).toBe(true);
    const annotations = r.stderr.split("\n").filter((l) => l.startsWith("::error "));
    // The second document of objects.yaml starts after the first one and its `---`.
    const line = configMap("good", ns).split("\n").length + 1;
    expect(annotations, printed(r)).toEqual([expect.stringMatching(new RegExp(`^::error file=${dir.slice(dirname(dir).length + 1)}/objects.yaml,line=${line}::configmap/refused apply failed: `))]);
  });
});
