// Issue 23: hostile input and broken servers through the built CLI. The real control plane where a
// server is needed, a small fake server (test/helpers/fake-api-server.ts) for answers no real
// server gives, and planted caches chowned to another user (nobody) where the case is another
// user's cache: such tests are skipped, with a message, when not run as root. Memory figures
// (400 MB on stdin, a gzip bomb) are measured in bench/hostile.ts, not here.
import { spawn } from "node:child_process";
import { chownSync, readdirSync } from "node:fs";
import { mkdtemp, readdir, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startKptTs } from "../helpers/background.js";
import { writeKubeconfig } from "../helpers/credentials.js";
import { gzipBomb, sendJson, startFakeApiServer, startSilentListener } from "../helpers/fake-api-server.js";
import { writePackage } from "../helpers/fixtures.js";
import { deleteQuietly, getObject, randomSuffix, sleep } from "../helpers/objects.js";
import { CLI, createNamespace, kptTs, kubeconfig, kubectl, kubectlJson, REPO, waitUntil } from "../helpers/run.js";
import { widgetCrd } from "../helpers/scenario.js";

const isRoot = process.getuid?.() === 0;
const NOBODY = 65534;
if (!isRoot) console.warn("hostile-input (e2e): not root, so the test with a parse cache owned by another user (chown) is skipped");

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const rg = (ns: string, name = `inv-${ns}`) => `apiVersion: kpt.dev/v1alpha1\nkind: ResourceGroup\nmetadata:\n  name: ${name}\n  namespace: ${ns}\n  labels:\n    cli-utils.sigs.k8s.io/inventory-id: ${name}-id\n`;
const cm = (ns: string, name: string, data: Record<string, string>) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n  namespace: ${ns}\ndata:\n${Object.entries(data).map(([k, v]) => `  ${k}: ${v}\n`).join("")}`;

/** Ends a background run on the first signal: how long it took to exit after the signal, and how. */
async function timeToStop(run: ReturnType<typeof startKptTs>, sig: NodeJS.Signals): Promise<{ ms: number; code: number; stderr: string }> {
  const sent = Date.now();
  run.signal(sig);
  const guard = setTimeout(() => run.kill(), 30_000);
  const r = await run.done;
  clearTimeout(guard);
  return { ms: Date.now() - sent, code: r.code, stderr: r.stderr };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe("caches another user could have written", () => {
  it.skipIf(!isRoot)("a parse cache owned by another user is not used: what is applied is what the package says", async () => {
    const ns = await createNamespace("e2e-hostile-pc");
    cleanups.push(async () => void (await kubectl(["delete", "namespace", ns, "--wait=false"])));
    const dir = await writePackage({ "rg.yaml": rg(ns), "cm.yaml": cm(ns, "settings", { mode: "safe" }) });
    const home = await mkdtemp(join(tmpdir(), "kpt-ts-hostile-home-"));
    const env = { XDG_CACHE_HOME: home };
    expect((await kptTs(["live", "apply", dir], { env })).code).toBe(0);
    // The attacker's version of the entries: the ConfigMap becomes a Secret with their value.
    const parsed = join(home, "kpt-ts", "parsed");
    let poisoned = 0;
    for (const f of (await readdir(parsed)).filter((n) => n.endsWith(".json"))) {
      const stored = JSON.parse(await readFile(join(parsed, f), "utf8"));
      for (const snap of Object.values(stored.entries) as { documents: { value: any }[] }[]) {
        const doc = snap.documents[0]!;
        if (doc.value.kind !== "ConfigMap") continue;
        doc.value.kind = "Secret";
        doc.value.data.mode = "cG9pc29uZWQ=";
        poisoned++;
      }
      await writeFile(join(parsed, f), JSON.stringify(stored));
    }
    expect(poisoned).toBe(1);
    chownSync(parsed, NOBODY, NOBODY);
    for (const f of readdirSync(parsed)) chownSync(join(parsed, f), NOBODY, NOBODY);

    const again = await kptTs(["live", "apply", "-v", dir], { env });
    expect(again.code, again.stdout + again.stderr).toBe(0);
    expect(((await getObject("configmap", "settings", ns)) as { data?: unknown } | undefined)?.data).toEqual({ mode: "safe" });
    expect(await getObject("secret", "settings", ns)).toBeUndefined();
    expect(again.stderr).toContain(`kpt-ts: not using the parse cache in ${parsed}: it belongs to uid ${NOBODY}, not to you (uid 0)`);
  });

  it("a corrupt discovery cache is replaced, never kept alive by the server's 304", async () => {
    const ns = await createNamespace("e2e-hostile-disc");
    cleanups.push(async () => void (await kubectl(["delete", "namespace", ns, "--wait=false"])));
    const dir = await writePackage({ "rg.yaml": rg(ns), "cm.yaml": cm(ns, "c", { a: '"1"' }) });
    const cache = await mkdtemp(join(tmpdir(), "kpt-ts-hostile-http-"));
    expect((await kptTs(["live", "apply", "--cache-dir", cache, dir])).code).toBe(0);
    await sleep(500); // the copies are written in the background
    const [server] = await readdir(cache);
    const files = (await readdir(join(cache, server!))).filter((f) => f.endsWith(".json"));
    let cut = 0;
    for (const f of files) {
      const text = await readFile(join(cache, server!, f), "utf8");
      if (!text.includes("APIGroupDiscoveryList")) continue;
      await writeFile(join(cache, server!, f), text.slice(0, text.indexOf("\n") + 60)); // the ETag kept, the body cut
      cut++;
    }
    expect(cut).toBe(2);
    for (let i = 0; i < 2; i++) {
      const r = await kptTs(["live", "status", "--cache-dir", cache, dir]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain("configmap/c is Current");
      await sleep(500);
    }
  });

  it("live diff leaves no temporary files in the discovery cache", async () => {
    const ns = await createNamespace("e2e-hostile-tmp");
    cleanups.push(async () => void (await kubectl(["delete", "namespace", ns, "--wait=false"])));
    const dir = await writePackage({ "rg.yaml": rg(ns), "cm.yaml": cm(ns, "c", { a: '"1"' }) });
    const caches: string[] = [];
    for (let i = 0; i < 6; i++) {
      const cache = await mkdtemp(join(tmpdir(), "kpt-ts-hostile-diff-"));
      caches.push(cache);
      expect((await kptTs(["live", "diff", "--cache-dir", cache, dir])).code).toBe(1); // a change: the ConfigMap is new
    }
    const leftovers = caches.flatMap((c) => readdirSync(c, { recursive: true }).map(String)).filter((f) => f.endsWith(".tmp"));
    expect(leftovers).toEqual([]);
  });
});

describe("CEL health rules that cost too much", () => {
  it("a rule of 10^8 steps is bad input, before the cluster is touched", async () => {
    const ns = await createNamespace("e2e-hostile-cel");
    cleanups.push(async () => void (await kubectl(["delete", "namespace", ns, "--wait=false"])));
    const L = "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]";
    let e = "true";
    for (let i = 8; i > 0; i--) e = `${L}.all(x${i}, x${i} > 0 && ${e})`;
    const rules = `apiVersion: kpt-ts.dev/v1alpha1\nkind: HealthRules\nmetadata:\n  name: slow\n  annotations:\n    config.kubernetes.io/local-config: "true"\nspec:\n  rules:\n  - group: example.com\n    kind: Widget\n    current: ${JSON.stringify(e)}\n`;
    const dir = await writePackage({ "rg.yaml": rg(ns), "cm.yaml": cm(ns, "c", { a: '"1"' }), "health.yaml": rules });
    const r = await kptTs(["live", "apply", dir]);
    expect(r.code, r.stdout + r.stderr).toBe(2);
    expect(r.stderr).toMatch(new RegExp(`^error: ${join(dir, "health.yaml").replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}:11: HealthRules/slow: current: ".*" is too expensive: its estimated cost is 1,022,222,213, over the limit of 10,000,000`, "m"));
    expect(await getObject("configmap", "c", ns)).toBeUndefined();
  });

  it("an evaluation over its budget is a failed evaluation named in the wait line, and SIGTERM still ends the run within 2 s", async () => {
    const group = `h${randomSuffix()}.e2e.kpt-ts.dev`;
    const ns = await createNamespace("e2e-hostile-cel");
    const widget = `apiVersion: ${group}/v1\nkind: Widget\nmetadata:\n  name: w\n  namespace: ${ns}\nspec:\n  size: 1\n`;
    const dir = await writePackage({ "rg.yaml": rg(ns), "crd.yaml": widgetCrd(group), "widget.yaml": widget });
    cleanups.push(async () => {
      await kptTs(["live", "destroy", dir]);
      await deleteQuietly("crd", `widgets.${group}`);
      await deleteQuietly("namespace", ns);
    });
    expect((await kptTs(["live", "apply", dir])).code).toBe(0);
    // The controller's status: a list of 20,000 entries. Two nested loops over it: 4 x 10^8 steps.
    const items = Array.from({ length: 20_000 }, (_, i) => `i${i}`);
    const patchFile = join(dir, "..", `status-${randomSuffix()}.json`);
    await writeFile(patchFile, JSON.stringify({ status: { items } }));
    const patch = await kubectl(["patch", `widget.${group}`, "w", "-n", ns, "--subresource=status", "--type=merge", "--patch-file", patchFile]);
    expect(patch.code, patch.stderr).toBe(0);
    const rules = join(dir, "..", `rules-${randomSuffix()}.yaml`);
    await writeFile(rules, `apiVersion: kpt-ts.dev/v1alpha1\nkind: HealthRules\nmetadata:\n  name: r\nspec:\n  rules:\n  - group: ${group}\n    kind: Widget\n    current: "status.items.all(x, status.items.exists(y, y == x))"\n`);
    const run = startKptTs(["live", "apply", "--reconcile-timeout=5m", "--health-rules", rules, dir]);
    try {
      await run.waitForOutput(/waiting for 1 resource\(s\) to reconcile \(0:0\d elapsed, timeout 5m\): widget\.\S+\/w \(rule widget current: status\.items\.all\(x, status\.items\.exists\(y, y == x\)\): it was stopped after 1,000,000 steps, the most one evaluation may take/, { stream: "stderr", timeoutMs: 60_000 });
      const stop = await timeToStop(run, "SIGTERM");
      expect(stop.code, stop.stderr).toBe(143);
      expect(stop.ms).toBeLessThan(2_000);
    } finally {
      run.kill();
    }
  });
});

describe("standard input", () => {
  it("400 MB on standard input is refused as bad input once 256 MiB have come", async () => {
    const child = spawn(process.execPath, [CLI, "live", "apply", "-"], { cwd: REPO, env: { ...process.env, KUBECONFIG: kubeconfig(), NO_COLOR: "1" }, stdio: ["pipe", "pipe", "pipe"] });
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (c: string) => (stderr += c));
    child.stdout.resume();
    child.stdin.on("error", () => undefined); // it stops reading: EPIPE
    const chunk = Buffer.alloc(1024 * 1024, "# a comment line of a very long stream\n");
    let sent = 0;
    const code = await new Promise<number | null>((resolve) => {
      child.on("close", (c) => resolve(c));
      const pump = () => {
        while (sent < 400 * 1024 * 1024) {
          sent += chunk.length;
          if (!child.stdin.write(chunk)) return void child.stdin.once("drain", pump);
        }
        child.stdin.end();
      };
      pump();
    });
    expect(code, stderr).toBe(2);
    expect(stderr).toContain("error: stdin:1: standard input holds more than 256 MiB; kpt-ts reads a package of at most 256 MiB from it");
  });
});

describe("servers that are not what they seem", () => {
  const pkg = async () => writePackage({ "rg.yaml": rg("default", `inv-hostile-${randomSuffix()}`), "cm.yaml": cm("default", "c", { a: '"1"' }) });

  it("a gzip bomb for discovery ends in a clear error (exit 1), not a crash", async () => {
    const bomb = gzipBomb(1536 * 1024 * 1024);
    const s = await startFakeApiServer((_req, res) => {
      res.writeHead(200, { "content-type": "application/json", "content-encoding": "gzip" });
      res.end(bomb);
    });
    cleanups.push(() => s.close());
    const r = await kptTs(["live", "status", await pkg()], { env: { KUBECONFIG: s.kubeconfig } });
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toMatch(new RegExp(`^error: the answer of ${s.url}/apis? is larger than 256 MiB once decompressed, more than any Kubernetes API server sends: the request was stopped$`, "m"));
    expect(r.stderr).not.toMatch(/looks like a bug|    at /);
  });

  it("an HTML page where discovery should be names the URL (exit 1), never 'a bug in kpt-ts'", async () => {
    const s = await startFakeApiServer((_req, res) => {
      res.writeHead(200, { "content-type": "text/html" });
      res.end("<!DOCTYPE html><html><body>Please sign in</body></html>");
    });
    cleanups.push(() => s.close());
    const r = await kptTs(["live", "status", await pkg()], { env: { KUBECONFIG: s.kubeconfig } });
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toMatch(new RegExp(`^error: the answer of ${s.url}/apis? is not what a Kubernetes API server sends: an HTML page is not JSON`, "m"));
    expect(r.stderr).toContain("Check that the server in your kubeconfig is a Kubernetes API server, not a proxy, load balancer or login page in front of one.");
    expect(r.stderr).not.toMatch(/looks like a bug/);
  });

  it("discovery with null items is read as kubectl reads it (nothing there), and a document of another kind is refused with the URL", async () => {
    const core = { metadata: { name: "" }, versions: [null, { version: "v1", resources: [null, { resource: "configmaps", responseKind: { kind: "ConfigMap" }, scope: "Namespaced", verbs: ["get"] }] }] };
    let apis: unknown = { kind: "APIGroupDiscoveryList", items: null };
    const s = await startFakeApiServer((req, res) => {
      if (req.url?.startsWith("/apis")) return sendJson(res, apis);
      if (req.url?.startsWith("/api")) return sendJson(res, { kind: "APIGroupDiscoveryList", items: [null, core] });
      sendJson(res, { kind: "Status", apiVersion: "v1", status: "Failure", reason: "NotFound", code: 404, message: "not found" }, 404);
    });
    cleanups.push(() => s.close());
    const dir = await pkg();
    // Nothing there: no ResourceGroup kind either, which live status reports as kpt does (exit 1), not as a crash.
    const ok = await kptTs(["live", "status", dir], { env: { KUBECONFIG: s.kubeconfig } });
    expect(ok.code, ok.stderr).toBe(1);
    expect(ok.stderr).toContain(`no matches for kind "ResourceGroup" in version "kpt.dev/v1alpha1"`);
    expect(ok.stderr).not.toMatch(/looks like a bug/);
    apis = { kind: "Pod", apiVersion: "v1", metadata: { name: "imposter" } };
    const bad = await kptTs(["live", "diff", dir], { env: { KUBECONFIG: s.kubeconfig } });
    expect(bad.code, bad.stderr).toBe(2); // live diff: 2 for any trouble
    expect(bad.stderr).toContain(`error: the answer of ${s.url}/apis is not what a Kubernetes API server sends: expected APIGroupDiscoveryList or APIGroupList, got a "Pod"`);
    expect(bad.stderr).not.toMatch(/looks like a bug/);
  });

  it("a listener that never speaks TLS is given up after 10 s (kubectl's TLS handshake timeout)", async () => {
    const silent = await startSilentListener();
    cleanups.push(() => silent.close());
    const started = Date.now();
    const r = await kptTs(["live", "status", await pkg()], { env: { KUBECONFIG: silent.kubeconfig }, timeoutMs: 60_000 });
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toContain(`error: cannot reach the cluster at ${silent.url}: it accepted the connection but its TLS handshake did not finish within 10 s (kubectl's limit too)`);
    expect(Date.now() - started).toBeLessThan(45_000);
  });

  it("the first SIGTERM while discovery hangs ends the run (exit 143) within 2 s", async () => {
    const s = await startFakeApiServer(() => undefined); // accepts, never answers
    cleanups.push(() => s.close());
    const run = startKptTs(["live", "apply", await pkg()], { env: { KUBECONFIG: s.kubeconfig } });
    try {
      await waitUntil("the discovery request", async () => s.requests.length > 0, 20_000);
      await sleep(500);
      const stop = await timeToStop(run, "SIGTERM");
      expect(stop.code, stop.stderr).toBe(143);
      expect(stop.ms).toBeLessThan(2_000);
    } finally {
      run.kill();
    }
  });

  it("a hanging exec credential plugin: the first SIGTERM ends the run within 2 s and leaves no process behind", async () => {
    const dir = await mkdtemp(join(tmpdir(), "kpt-ts-hostile-plugin-"));
    const plugin = join(dir, "plugin.sh");
    // The plugin starts a child of its own and waits for ever (a login that never completes).
    await writeFile(plugin, `#!/bin/sh\necho $$ > ${dir}/pid\nsleep 1000 &\necho $! > ${dir}/child\nwait\n`, { mode: 0o755 });
    const kc = await writeKubeconfig({ exec: { apiVersion: "client.authentication.k8s.io/v1beta1", command: plugin } });
    const run = startKptTs(["live", "status", await pkg()], { env: { KUBECONFIG: kc } });
    try {
      await waitUntil("the plugin's child", async () => (await readFile(join(dir, "child"), "utf8").catch(() => "")).trim() !== "", 20_000);
      const pids = await Promise.all(["pid", "child"].map(async (f) => Number((await readFile(join(dir, f), "utf8")).trim())));
      const stop = await timeToStop(run, "SIGTERM");
      expect(stop.code, stop.stderr).toBe(143);
      expect(stop.ms).toBeLessThan(2_000);
      await waitUntil("the plugin and its child to end", async () => pids.every((p) => !alive(p)), 5_000);
    } finally {
      run.kill();
    }
  });
});

describe("durations beyond 24.8 days", () => {
  it("--reconcile-timeout=600h waits (it does not time out at once), and --request-timeout=600h lets requests finish", async () => {
    const ns = await createNamespace("e2e-hostile-dur");
    cleanups.push(async () => void (await kubectl(["delete", "namespace", ns, "--wait=false"])));
    const stuck = `apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: stuck, namespace: ${ns}}\nspec:\n  replicas: 1\n  selector: {matchLabels: {app: stuck}}\n  template:\n    metadata: {labels: {app: stuck}}\n    spec:\n      nodeSelector: {no-such-node: "true"}\n      containers: [{name: c, image: nginx}]\n`;
    const dir = await writePackage({ "rg.yaml": rg(ns), "stuck.yaml": stuck });
    const run = startKptTs(["live", "apply", "--reconcile-timeout=600h", "--request-timeout=600h", dir]);
    try {
      await run.waitForOutput(/waiting for 1 resource\(s\) to reconcile \(0:0\d elapsed, timeout 600h\)/, { stream: "stderr", timeoutMs: 30_000 });
      expect(run.running).toBe(true);
      expect(run.stdout).not.toMatch(/timed out|reconcile timeout/);
      const stop = await timeToStop(run, "SIGINT");
      expect(stop.code, stop.stderr).toBe(130);
    } finally {
      run.kill();
    }
    const status = await kptTs(["live", "status", "--request-timeout=600h", "--timeout=600h", "--poll-until=known", dir]);
    expect(status.code, status.stderr).toBe(0);
  });
});

describe("control characters and workflow commands in the package", () => {
  it("are shown escaped, and nothing a file or object name holds becomes a GitHub workflow command", async () => {
    const dir = await writePackage({
      "rg.yaml": rg("default", `inv-esc-${randomSuffix()}`),
      // A file named with line breaks and a workflow command; an object named with terminal escapes.
      "a\n::add-mask::hunter2\n##[stop-commands]x.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: [not, a, name], namespace: default}\n",
      "b.yaml": 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: "\\e]0;pwned\\a\\e[2Jx"\n  namespace: default\n',
    });
    const r = await kptTs(["live", "apply", dir], { env: { GITHUB_ACTIONS: "true" } });
    expect(r.code, r.stderr).toBe(2);
    const lines = `${r.stdout}${r.stderr}`.split("\n");
    expect(lines.filter((l) => /^\s*::/.test(l) && !l.startsWith("::error file="))).toEqual([]);
    expect(lines.filter((l) => l.includes("##["))).toEqual([]);
    expect(r.stderr).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f]/);
    expect(r.stderr).toContain("a\\n::add-mask::hunter2\\n##\\[stop-commands]x.yaml:3");
    expect(r.stderr).toContain('metadata.name "^[]0;pwned^G^[[2Jx" is not valid');
  });
});

describe("values as kubectl sends them", () => {
  it("!!binary in a Secret's data is stored as the bytes it encodes", async () => {
    const ns = await createNamespace("e2e-hostile-bin");
    cleanups.push(async () => void (await kubectl(["delete", "namespace", ns, "--wait=false"])));
    const dir = await writePackage({ "rg.yaml": rg(ns), "s.yaml": `apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\n  namespace: ${ns}\ndata:\n  greeting: !!binary aGVsbG8=\n` });
    const r = await kptTs(["live", "apply", dir]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const secret = (await getObject("secret", "s", ns)) as { data?: Record<string, string> } | undefined;
    expect(Buffer.from(String(secret?.data?.greeting), "base64").toString()).toBe("hello");
  });
});


describe("kpt-ts.dev/ignore-fields paths that name no field of the object (issue 35)", () => {
  // Each is bad input, refused with the file and line of the annotation before the cluster is
  // touched: client-side and server-side apply, and live diff of both. Before, `data["__proto__"].x`
  // made the apply send `"__proto__": {}`, a selector on `constructor` matched every list item, and
  // the last-applied annotation was "left to other managers" while client-side apply rewrote it.
  const BAD = [
    { path: 'data["__proto__"].x', says: 'names "__proto__", which is not a field of the object' },
    { path: "data.constructor", says: 'names "constructor", which is not a field of the object' },
    { path: 'spec.template.spec.containers[constructor="function Object() { [native code] }"].image', says: 'names "constructor"' },
    { path: 'metadata.annotations["kubectl.kubernetes.io/last-applied-configuration"]', says: "client-side apply's own record of what it applied" },
  ];
  const configMap = (ns: string, ignore?: string) =>
    `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: paths\n  namespace: ${ns}\n${ignore ? `  annotations:\n    kpt-ts.dev/ignore-fields: ${JSON.stringify(ignore)}\n` : ""}data:\n  x: "1"\n`;

  it.each([
    { mode: "client-side", flags: [] as string[] },
    { mode: "server-side", flags: ["--server-side"] },
  ])("are refused (exit 2, file:line) by $mode apply and live diff, and the live object is left as it was", async ({ flags }) => {
    const ns = await createNamespace("e2e-hostile-paths");
    cleanups.push(async () => void (await kubectl(["delete", "namespace", ns, "--wait=false"])));
    const dir = await writePackage({ "rg.yaml": rg(ns), "cm.yaml": configMap(ns) });
    const first = await kptTs(["live", "apply", ...flags, dir]);
    expect(first.code, first.stdout + first.stderr).toBe(0);
    const before = await kubectlJson(["get", "configmap", "paths", "-n", ns]);
    for (const { path, says } of BAD) {
      await writeFile(join(dir, "cm.yaml"), configMap(ns, path));
      const line = configMap(ns, path).split("\n").findIndex((l) => l.includes("kpt-ts.dev/ignore-fields")) + 1;
      for (const command of ["apply", "diff"]) {
        const r = await kptTs(["live", command, ...flags, dir]);
        expect(r.code, `${command} ${path}: ${r.stdout}${r.stderr}`).toBe(2);
        expect(r.stderr, path).toContain(`cm.yaml:${line}`);
        expect(r.stderr, path).toContain(says);
      }
    }
    const after = await kubectlJson(["get", "configmap", "paths", "-n", ns]);
    expect(after.metadata.resourceVersion).toBe(before.metadata.resourceVersion);
    expect(after.data).toEqual({ x: "1" });
  });
});

describe("a live last-applied annotation that is not valid JSON (issue 35)", () => {
  // kubectl apply (and kpt) refuse such an object ("invalid JSON document", exit 1 / 3). kpt-ts
  // reads it as missing, as kubectl reads a missing one: nothing the package dropped is removed,
  // the apply writes a valid copy, and the run says so once, naming the object.
  it("is said once, naming the object (apply and live diff); the apply goes on and writes a valid one", async () => {
    const ns = await createNamespace("e2e-hostile-lastapplied");
    cleanups.push(async () => void (await kubectl(["delete", "namespace", ns, "--wait=false"])));
    const dir = await writePackage({ "rg.yaml": rg(ns), "cm.yaml": cm(ns, "hand-edited", { x: '"1"', dropped: '"1"' }) });
    const first = await kptTs(["live", "apply", dir]);
    expect(first.code, first.stdout + first.stderr).toBe(0);
    const annotate = await kubectl(["annotate", "--overwrite", "configmap", "hand-edited", "-n", ns, "kubectl.kubernetes.io/last-applied-configuration={not json"]);
    expect(annotate.code, annotate.stderr).toBe(0);
    await writeFile(join(dir, "cm.yaml"), cm(ns, "hand-edited", { x: '"3"' }));
    const warning = `[WARN] configmap/hand-edited (namespace ${ns}): its kubectl.kubernetes.io/last-applied-configuration annotation is not valid JSON, so it is read as missing`;

    const diff = await kptTs(["live", "diff", dir]);
    expect(diff.code, diff.stdout + diff.stderr).toBe(1);
    expect(diff.stdout).toContain("its last-applied-configuration annotation is not valid JSON: read as missing");

    const apply = await kptTs(["live", "apply", dir]);
    expect(apply.code, apply.stdout + apply.stderr).toBe(0);
    expect(apply.stderr.split(warning).length - 1).toBe(1);
    expect(apply.stdout).toContain("configmap/hand-edited configured");
    const live = await kubectlJson(["get", "configmap", "hand-edited", "-n", ns]);
    expect(live.data).toEqual({ x: "3", dropped: "1" }); // not known to be the package's: kept
    expect(JSON.parse(live.metadata.annotations["kubectl.kubernetes.io/last-applied-configuration"]).data).toEqual({ x: "3" });

    const again = await kptTs(["live", "apply", dir]);
    expect(again.code).toBe(0);
    expect(again.stderr).not.toContain("last-applied-configuration");
  });
});
