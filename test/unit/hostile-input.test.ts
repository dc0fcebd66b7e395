// Issue 23, findings 2, 3, 7, 8 and 11, where no cluster is needed: CEL rules with a cost budget,
// standard input with a size limit, durations beyond setTimeout's 24.8 days, control characters
// and GitHub workflow commands escaped in every output, values as kubectl sends them (or refuses
// them), a Kptfile that is not a mapping, `live init` and symlinks out of the package.
import { existsSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough, Readable } from "node:stream";
import { beforeEach, describe, expect, it } from "vitest";
import { staticCredentials } from "../../src/cluster/credential-source.js";
import { Transport } from "../../src/cluster/transport.js";
import { readStdin, type CommandIO } from "../../src/commands/io.js";
import { runLiveInit } from "../../src/commands/live-init.js";
import { PackageError, formatIssue } from "../../src/model/errors.js";
import type { EngineEvent } from "../../src/model/events.js";
import { HealthRuleSet } from "../../src/health/health-rule-set.js";
import { parseHealthRules } from "../../src/health/parse-health-rules.js";
import { MAX_ANNOTATIONS_BYTES, storedAnnotationBytes } from "../../src/apply/stored-annotations.js";
import { readPackage } from "../../src/object/read-package.js";
import { prepareObjects } from "../../src/plan/prepare-objects.js";
import type { KubeObject, PackageDocument } from "../../src/model/kube-object.js";
import { parseYamlDocuments } from "../../src/object/yaml-documents.js";
import { formatError, githubAnnotations } from "../../src/print/error-report.js";
import { printRun } from "../../src/print/printer.js";
import { escapeTerminal, escapeTerminalLines } from "../../src/print/terminal-text.js";
import { computeStatus } from "../../src/status/compute-status.js";
import { waitFor } from "../../src/status/wait-for.js";
import { captureStream, streamOf } from "./print-scenarios.js";

const RULES_HEAD = `apiVersion: kpt-ts.dev/v1alpha1
kind: HealthRules
metadata:
  name: operators
  annotations:
    config.kubernetes.io/local-config: "true"
spec:
  rules:
  - apiVersion: acc.example.com/v1
    kind: Widget
`;

function rules(expression: string) {
  const text = `${RULES_HEAD}    current: ${JSON.stringify(expression)}\n`;
  const docs: PackageDocument[] = parseYamlDocuments(text).documents.map((d) => ({ value: d.value, source: { file: "rules.yaml", line: d.line }, lineOf: d.lineOf }));
  return parseHealthRules(docs, { requireLocalConfig: true });
}

const LIST = "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]";
/** `levels` nested all() over ten-element lists: 10^levels steps. */
function nested(levels: number): string {
  let e = "true";
  for (let i = levels; i > 0; i--) e = `${LIST}.all(x${i}, x${i} > 0 && ${e})`;
  return e;
}

const widget = (status: Record<string, unknown>): KubeObject => ({ apiVersion: "acc.example.com/v1", kind: "Widget", metadata: { name: "w", namespace: "app", generation: 1 }, status: { observedGeneration: 1, ...status } }) as KubeObject;

describe("CEL health rules have a cost budget", () => {
  // Each case starts on a fresh turn of the event loop: CEL time is shared per turn (cel-cost.ts).
  beforeEach(() => new Promise<void>((r) => setImmediate(r)));

  it("refuses a rule whose estimated cost is over the limit when it is loaded (bad input, file and line)", () => {
    const { issues } = rules(nested(8));
    expect(issues.map(formatIssue)).toEqual([
      expect.stringMatching(/^rules\.yaml:11: HealthRules\/operators: current: ".*" is too expensive: its estimated cost is 1,022,222,213, over the limit of 10,000,000 \(each list of the object counted as 1,000 elements\)/),
    ]);
    expect(rules(nested(3)).issues).toEqual([]); // a thousand steps: fine
    expect(rules("status.conditions.exists(c, c.type == 'Ready' && c.status == 'True')").issues).toEqual([]);
  });

  it("stops an evaluation over its runtime budget: the object stays InProgress and the status says why", () => {
    // Fine on paper (two nested loops over the object's lists), huge on this object: 20,000 x 20,000 steps.
    const { rules: compiled, issues } = rules("status.items.all(x, status.items.exists(y, y == x))");
    expect(issues).toEqual([]);
    const items = Array.from({ length: 20_000 }, (_, i) => `item-${i}`);
    const started = Date.now();
    const r = computeStatus(widget({ items }), { healthRules: new HealthRuleSet([compiled]) });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(r.status).toBe("InProgress");
    expect(r.message).toBe("rule widget current: status.items.all(x, status.items.exists(y, y == x)): it was stopped after 1,000,000 steps, the most one evaluation may take (as Kubernetes' per-call cost limit)");
  });

  it("matches a regular expression in linear time, whatever the pattern and the string", () => {
    const { rules: compiled } = rules("status.message.matches('^(a+)+$')");
    const started = Date.now();
    const r = computeStatus(widget({ message: `${"a".repeat(50_000)}!` }), { healthRules: new HealthRuleSet([compiled]) });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(r.message).toMatch(/is false/);
  });
});

describe("standard input", () => {
  it("is read up to the package file limit, then refused as bad input without reading on", async () => {
    let produced = 0;
    // A stream of YAML comments far longer than the limit (yes '#' | kpt-ts live apply -).
    const endless = new Readable({
      read() {
        produced += 65536;
        this.push(produced > 64 * 1024 * 1024 ? null : Buffer.alloc(65536, "#\n"));
      },
    });
    const io = { stdin: endless } as unknown as CommandIO;
    const err = await readStdin(io, 1024 * 1024).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PackageError);
    expect((err as PackageError).exitCode).toBe(2);
    expect((err as Error).message).toBe(
      "stdin:1: standard input holds more than 1 MiB; kpt-ts reads a package of at most 1 MiB from it, as from each package file (the API server takes objects of at most 3 MiB): give a smaller stream, or the package's directory",
    );
    expect(produced).toBeLessThan(4 * 1024 * 1024);
    expect(endless.destroyed).toBe(true);
  });
});

describe("durations beyond setTimeout's 2^31 ms (24.8 days)", () => {
  it("--request-timeout=600h lets a request take the time it needs", async () => {
    const server = createServer((_req, res) => setTimeout(() => res.end('{"kind":"Status"}'), 50));
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const t = new Transport({ server: url, contextName: "c", userName: "u", namespace: "default", namespaceEnforced: false, insecureSkipTlsVerify: false, disableCompression: false, credentials: staticCredentials({ headers: {} }), files: [], env: {}, requestTimeoutMs: 600 * 3600_000 });
    try {
      expect(await t.request("GET", "/api")).toEqual({ kind: "Status" });
    } finally {
      t.close();
      server.close();
    }
  });

  it("--reconcile-timeout=600h does not time out a wait at once", async () => {
    const pending = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "a", namespace: "app", deletionTimestamp: "2024-01-01T00:00:00Z", finalizers: ["x"] } } as unknown as KubeObject;
    const ref = { group: "", kind: "ConfigMap", namespace: "app", name: "a" };
    const cache = { get: () => pending, readError: () => undefined, subscribe: () => () => undefined, refreshQuiet: () => undefined } as never;
    const ctl = new AbortController();
    const events: EngineEvent[] = [];
    const done = waitFor(cache, [{ ref }], { desired: "NotFound", wave: 0, timeoutMs: 600 * 3600_000, signal: ctl.signal, emit: (e: EngineEvent) => void events.push(e), tickMs: 10 } as never);
    await new Promise((r) => setTimeout(r, 300));
    ctl.abort();
    await done;
    // Still waiting after 300 ms; stopped by the abort (Skipped), never timed out.
    expect(events.filter((e) => e.type === "wait").map((e) => (e as { status: string }).status)).toEqual(["Pending", "Skipped"]);
  });
});

describe("control characters and GitHub workflow commands are escaped", () => {
  it.each([
    ["ESC, as kubectl shows it", "a\u001b[2Jb", "a^[[2Jb", "a^[[2Jb"],
    ["CR, as kubectl shows it", "a\rb", "a\\rb", "a\\rb"],
    ["BEL and the other C0 controls", "\u0007\u0000", "^G^@", "^G^@"],
    ["DEL and C1 controls", "\u007f\u009b", "^?\\u009b", "^?\\u009b"],
    ["a line break: one line, or a new line that cannot be a command", "a\n::add-mask::x", "a\\n::add-mask::x", "a\n\\::add-mask::x"],
    ["a command after blanks", "  ::stop-commands::t", "  \\::stop-commands::t", "  \\::stop-commands::t"],
    ["the legacy ##[ form anywhere", "x ##[set-output name=a]b", "x ##\\[set-output name=a]b", "x ##\\[set-output name=a]b"],
    ["plain text, tabs and colons", "a\tb::c", "a\tb::c", "a\tb::c"],
  ])("%s", (_name, raw, oneLine, lines) => {
    expect(escapeTerminal(raw)).toBe(oneLine);
    expect(escapeTerminalLines(raw)).toBe(lines);
  });

  const bad = new PackageError([
    { source: { file: "pkg/a\n::add-mask::hunter2\n.yaml", line: 3 }, object: "ConfigMap/x", message: "invalid YAML: bad" },
    { source: { file: "pkg/\u001b[31mred.yaml", line: 1 }, object: "ConfigMap/\u001b]0;title\u0007", message: "metadata.name \"\u001b[2J\" is not valid" },
  ]);

  it("in the error lines", () => {
    const lines = formatError(bad, false);
    expect(lines).toEqual([
      "error: 2 problems in the package:",
      "- pkg/a\\n::add-mask::hunter2\\n.yaml:3: ConfigMap/x: invalid YAML: bad",
      '- pkg/^[[31mred.yaml:1: ConfigMap/^[]0;title^G: metadata.name "^[[2J" is not valid',
    ]);
    for (const l of lines) expect(l).not.toMatch(/^\s*::|[\u0000-\u0008\u000b-\u001f\u007f]/);
  });

  it("in GitHub Actions annotations", () => {
    const lines = githubAnnotations(bad, "/");
    expect(lines).toHaveLength(2);
    for (const l of lines) {
      expect(l).toMatch(/^::error file=/);
      expect(l).not.toMatch(/[\n\r\u001b]/);
    }
  });

  it("in a run's events (names and messages from the cluster), in every output format", async () => {
    const ref = { group: "", kind: "ConfigMap", namespace: "app", name: "x\u001b[2Jy" };
    const events: EngineEvent[] = [
      { type: "init", command: "apply", dryRun: "none", inventory: { name: "inv", namespace: "app", id: "id" }, objects: [{ ref, action: "Apply" }] },
      { type: "apply", ref, status: "Failed", error: "admission webhook said:\n::add-mask::x\n##[set-output name=a]b \u001b]52;c;ZXZpbA==\u0007" },
      { type: "wait", ref, status: "Pending", message: "\r\u001b[1Adeployment.apps/web reconciled" },
    ];
    for (const output of ["events", "json", "table"] as const) {
      const out = captureStream();
      const err = captureStream();
      await printRun(streamOf(events), { output, stdout: out.stream, stderr: err.stream, color: false, tty: false, showStatusEvents: true });
      const text = out.text() + err.text();
      expect(text, output).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f]/);
      expect(text, output).not.toMatch(/(^|\n)\s*::|##\[/);
      if (output !== "json") expect(text, output).toContain("x^[[2Jy");
    }
  });
});

describe("values as kubectl sends them", () => {
  async function read(files: Record<string, string>) {
    const dir = mkdtempSync(join(tmpdir(), "kpt-ts-hostile-values-"));
    writeFileSync(join(dir, "rg.yaml"), "apiVersion: kpt.dev/v1alpha1\nkind: ResourceGroup\nmetadata:\n  name: inv\n  namespace: app\n  labels:\n    cli-utils.sigs.k8s.io/inventory-id: id\n");
    for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
    return readPackage(dir).then(
      (p) => ({ objects: p.objects.map((o) => o.object), issues: [] as string[] }),
      (e: unknown) => ({ objects: [], issues: e instanceof PackageError ? e.issues.map((i) => formatIssue({ ...i, source: i.source ? { ...i.source, file: i.source.file.split("/").pop()! } : undefined })) : [String(e)] }),
    );
  }

  it("!!binary is base64 in a Secret's data and a ConfigMap's binaryData, and text elsewhere", async () => {
    const { objects, issues } = await read({
      "s.yaml": "apiVersion: v1\nkind: Secret\nmetadata: {name: s, namespace: app}\ndata:\n  a: !!binary aGVsbG8=\n",
      "c.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: app}\nbinaryData:\n  b: !!binary /w==\ndata:\n  t: !!binary aGVsbG8=\n",
    });
    expect(issues).toEqual([]);
    expect(objects.find((o) => o.kind === "Secret")!.data).toEqual({ a: "aGVsbG8=" });
    const cm = objects.find((o) => o.kind === "ConfigMap")!;
    expect([cm.binaryData, cm.data]).toEqual([{ b: "/w==" }, { t: "hello" }]);
  });

  it.each([
    ["!!set", "data:\n  x: !!set {a, b}\n", "c.yaml:5: ConfigMap/c: !!set has no JSON form, and the API server takes JSON: write a list, or a map"],
    [".inf", "spec:\n  y: .inf\n", "c.yaml:5: ConfigMap/c: .inf has no JSON form, and the API server takes JSON (kubectl refuses it too): quote it to send the text"],
    ["-.inf", "spec:\n  y: [1, -.Inf]\n", "c.yaml:5: ConfigMap/c: -.inf has no JSON form, and the API server takes JSON (kubectl refuses it too): quote it to send the text"],
    [".nan", "spec:\n  z: .nan\n", "c.yaml:5: ConfigMap/c: .nan has no JSON form, and the API server takes JSON (kubectl refuses it too): quote it to send the text"],
    ["!!binary that is not text, outside bytes", "data:\n  u: !!binary /w==\n", "c.yaml:5: ConfigMap/c: !!binary data that is not UTF-8 text can only go where Kubernetes takes bytes (a Secret's data, a ConfigMap's binaryData); here it would be sent as text"],
  ])("refuses %s with file and line", async (_name, body, issue) => {
    expect((await read({ "c.yaml": `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: app}\n${body}` })).issues).toEqual([issue]);
  });

  it("refuses Secret data that is not base64, without showing it", async () => {
    const { issues } = await read({ "s.yaml": "apiVersion: v1\nkind: Secret\nmetadata: {name: s, namespace: app}\ndata:\n  password: hunter2!\n  ok: aGVsbG8=\n" });
    expect(issues).toEqual([`s.yaml:5: Secret/s: data "password" is not base64: a Secret's data values are base64-encoded bytes (put plain text under stringData instead, or encode it with base64)`]);
    expect(issues.join("")).not.toContain("hunter2");
  });

  it("refuses a Kptfile that is only a string", async () => {
    const { issues } = await read({ Kptfile: "just a string\n", "c.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: app}\n" });
    expect(issues).toEqual(["Kptfile:1: Kptfile: a Kptfile must be a mapping (apiVersion: kpt.dev/v1, kind: Kptfile, metadata, ...), found string"]);
  });
});

describe("annotations count what the server will store", () => {
  const sized = (bytes: number): KubeObject => ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "big", namespace: "app", annotations: { "example.com/blob": "x".repeat(bytes) } } }) as KubeObject;

  it("client-side apply stores the object a second time (last-applied): a 250 KiB annotation fits server-side only", () => {
    const obj = sized(250 * 1024);
    expect(storedAnnotationBytes(obj, "server-side")).toBe(250 * 1024 + "example.com/blob".length);
    expect(storedAnnotationBytes(obj, "server-side")).toBeLessThanOrEqual(MAX_ANNOTATIONS_BYTES);
    expect(storedAnnotationBytes(obj, "client-side")).toBeGreaterThan(2 * 250 * 1024);
  });

  it("an object whose annotations fit only without the owning-inventory annotation kpt-ts adds is bad input, with file and line", async () => {
    // 262,144 bytes is the server's limit: these fit alone, and not with config.k8s.io/owning-inventory: inv-id.
    const obj = sized(MAX_ANNOTATIONS_BYTES - "example.com/blob".length - 10);
    const pkg = { path: "p", objects: [{ object: obj, source: { file: "p/big.yaml", line: 1 }, lineOf: (path: readonly (string | number)[]) => (path.join(".") === "metadata.annotations" ? 6 : undefined) }], inventory: { name: "inv", namespace: "app", id: "inv-id" } };
    const cluster = { defaultNamespace: "app", namespaceEnforced: false, scopeOf: async () => "Namespaced" } as never;
    const err = await prepareObjects(pkg as never, cluster, { id: "inv-id" }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PackageError);
    expect((err as Error).message).toBe(`p/big.yaml:6: ConfigMap/big: metadata.annotations would be 262170 bytes with the config.k8s.io/owning-inventory annotation kpt-ts adds; the API server stores at most 262144 bytes of annotations: make them smaller`);
    await expect(prepareObjects({ ...pkg, objects: [{ ...pkg.objects[0]!, object: sized(1000) }] } as never, cluster, { id: "inv-id" })).resolves.toHaveLength(1);
  });
});

describe("live init and symbolic links", () => {
  it("never writes through a resourcegroup.yaml that links out of the package", async () => {
    const other = mkdtempSync(join(tmpdir(), "kpt-ts-hostile-other-"));
    const theirs = "apiVersion: kpt.dev/v1alpha1\nkind: ResourceGroup\nmetadata:\n  name: other\n  namespace: other\n  labels:\n    cli-utils.sigs.k8s.io/inventory-id: other-id\n";
    writeFileSync(join(other, "resourcegroup.yaml"), theirs);
    const pkg = mkdtempSync(join(tmpdir(), "kpt-ts-hostile-pkg-"));
    writeFileSync(join(pkg, "cm.yaml"), "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: mine}\n");
    symlinkSync(join(other, "resourcegroup.yaml"), join(pkg, "resourcegroup.yaml"));
    const stderr = new PassThrough();
    const err = await runLiveInit({ dir: pkg, force: true, quiet: true, rgFile: "resourcegroup.yaml", contextNamespace: "default", stderr, name: "mine" }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PackageError);
    expect((err as Error).message).toBe(`${join(pkg, "resourcegroup.yaml")}:1: resourcegroup.yaml is a symbolic link to ${join(other, "resourcegroup.yaml")}, outside the package: kpt-ts does not write through it; remove the link (or point it into the package) and run live init again`);
    expect(readFileSync(join(other, "resourcegroup.yaml"), "utf8")).toBe(theirs);
    expect(existsSync(join(pkg, "resourcegroup.yaml"))).toBe(true);
  });
});
