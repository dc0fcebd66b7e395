// Exec credential plugins as managed clusters use them (EKS, GKE, AKS), through the built CLI
// against the real API server: short-lived tokens refreshed at expiry during a long apply (not
// per request), a revoked token (401) answered by exactly one new fetch, a device-code prompt
// shown on our stderr, client certificates from a plugin, a KUBECONFIG list with a missing file.
//
// Revocation is real: the plugin hands out ServiceAccount tokens bound to a Secret (TokenRequest
// with a bound object); deleting the Secret makes the API server refuse the token with 401. The
// 5-second expiry is the plugin's own claim (expirationTimestamp): TokenRequest's shortest
// lifetime is 10 minutes, so the server would still accept an "expired" token; the test checks
// that kpt-ts asks for a new one when the plugin says so.
import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { describe, expect, it } from "vitest";
import { clusterAccess, createServiceAccount, writeKubeconfig, type PolicyRule } from "../helpers/credentials.js";
import { writePackage } from "../helpers/fixtures.js";
import { CLI, createNamespace, hasBinary, kptTs, kubectl, run } from "../helpers/run.js";
import { configMap, docs, getObject, lines, printed } from "../helpers/scenario.js";

const rg = (ns: string, name: string) => `apiVersion: kpt.dev/v1alpha1\nkind: ResourceGroup\nmetadata:\n  name: inventory-${name}\n  namespace: ${ns}\n  labels:\n    cli-utils.sigs.k8s.io/inventory-id: exec-${name}-${ns}\n`;
const RULES: PolicyRule[] = [
  { apiGroups: [""], resources: ["configmaps"], verbs: ["*"] },
  { apiGroups: ["apps"], resources: ["deployments"], verbs: ["*"] },
  { apiGroups: ["kpt.dev"], resources: ["resourcegroups", "resourcegroups/status"], verbs: ["*"] },
];

interface Plugin {
  command: string;
  /** Each call's time (ms since epoch). */
  calls(): Promise<number[]>;
}

/**
 * A node plugin: call N prints the token on line N of `tokens` (the last line once past the end),
 * valid `ttlMs` from now as it claims, after printing `prompt` on stderr.
 */
async function plugin(tokens: string[], opts: { ttlMs?: number; prompt?: string; cert?: { cert: string; key: string } } = {}): Promise<Plugin> {
  const dir = await mkdtemp(join(tmpdir(), "kpt-ts-exec-e2e-"));
  await writeFile(join(dir, "tokens"), tokens.join("\n"));
  const command = join(dir, "plugin.mjs");
  await writeFile(
    command,
    `#!/usr/bin/env node
import { appendFileSync, readFileSync } from "node:fs";
const dir = ${JSON.stringify(dir)};
appendFileSync(dir + "/calls", Date.now() + "\\n");
const n = readFileSync(dir + "/calls", "utf8").trim().split("\\n").length;
${opts.prompt ? `process.stderr.write(${JSON.stringify(opts.prompt)} + "\\n");` : ""}
const tokens = readFileSync(dir + "/tokens", "utf8").split("\\n").filter(Boolean);
const info = JSON.parse(process.env.KUBERNETES_EXEC_INFO);
const status = ${opts.cert ? JSON.stringify({ clientCertificateData: opts.cert.cert, clientKeyData: opts.cert.key }) : "{ token: tokens[Math.min(n, tokens.length) - 1] }"};
${opts.ttlMs ? `status.expirationTimestamp = new Date(Date.now() + ${opts.ttlMs}).toISOString();` : ""}
console.log(JSON.stringify({ apiVersion: info.apiVersion, kind: "ExecCredential", status }));
`,
    { mode: 0o755 },
  );
  return {
    command,
    calls: async () =>
      (await readFile(join(dir, "calls"), "utf8").catch(() => ""))
        .split("\n")
        .filter(Boolean)
        .map(Number),
  };
}

const execUser = (command: string) => ({ exec: { apiVersion: "client.authentication.k8s.io/v1", command, interactiveMode: "IfAvailable" } });

/** A token of the ServiceAccount bound to a new Secret: deleting the Secret revokes it. */
async function boundToken(ns: string, sa: string, secret: string): Promise<string> {
  expect((await kubectl(["create", "secret", "generic", secret, "-n", ns])).code).toBe(0);
  const t = await kubectl(["create", "token", sa, "-n", ns, "--bound-object-kind", "Secret", "--bound-object-name", secret, "--duration", "1h"]);
  expect(t.code, t.stderr).toBe(0);
  return t.stdout.trim();
}

describe("exec credential plugins", () => {
  it("tokens that expire every 5 s serve a ~30 s apply with waits to the end: fetched again at expiry, not on every request", async () => {
    const ns = await createNamespace("e2e-exec-expiry");
    await createServiceAccount(ns, "deployer", RULES);
    const p = await plugin([await boundToken(ns, "deployer", "t1")], { ttlMs: 5000 });
    const kc = await writeKubeconfig(execUser(p.command), { namespace: ns });
    const slow = (name: string, dependsOn?: string) =>
      `apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: ${name}\n  namespace: ${ns}\n${dependsOn ? `  annotations:\n    config.kubernetes.io/depends-on: ${dependsOn}\n` : ""}spec:\n  minReadySeconds: 13\n  replicas: 1\n  selector:\n    matchLabels: {app: ${name}}\n  template:\n    metadata:\n      labels: {app: ${name}}\n    spec:\n      containers: [{name: main, image: nginx}]\n`;
    // Three waves that each wait ~13 s: a Deployment, a ConfigMap and a Deployment after it, a last ConfigMap.
    const pkg = docs(
      slow("first"),
      configMap("middle", ns, { k: "v" }, { annotations: { "config.kubernetes.io/depends-on": `apps/namespaces/${ns}/Deployment/first` } }),
      slow("second", `/namespaces/${ns}/ConfigMap/middle`),
      configMap("last", ns, { k: "v" }, { annotations: { "config.kubernetes.io/depends-on": `apps/namespaces/${ns}/Deployment/second` } }),
    );
    const dir = await writePackage({ "resourcegroup.yaml": rg(ns, "expiry"), "pkg.yaml": pkg });
    const started = Date.now();
    const r = await kptTs(["live", "apply", "--kubeconfig", kc, "--reconcile-timeout=2m", dir]);
    const elapsed = Date.now() - started;
    expect(r.code, printed(r)).toBe(0);
    expect(lines(r)).toContain("configmap/last created");
    expect(elapsed).toBeGreaterThan(25_000);

    const calls = await p.calls();
    // Called again as tokens expired through the run ...
    expect(calls.length).toBeGreaterThanOrEqual(3);
    // ... but never while the last token was still good for more than its last half second,
    const gaps = calls.slice(1).map((t, i) => t - calls[i]!);
    console.log(`exec plugin: ${calls.length} calls in a ${elapsed} ms apply, ${gaps.join(", ")} ms apart`);
    for (const g of gaps) expect(g, `plugin calls ${gaps.join(", ")} ms apart`).toBeGreaterThanOrEqual(4400);
    // ... so at most once per token lifetime, not once per request (the run made dozens).
    expect(calls.length).toBeLessThanOrEqual(Math.ceil(elapsed / 4500) + 1);
  });

  it("a revoked token (401) triggers exactly one new fetch; a second 401 is reported, not retried forever", async () => {
    const ns = await createNamespace("e2e-exec-401");
    await createServiceAccount(ns, "deployer", RULES);
    const revoked = await boundToken(ns, "deployer", "revoked");
    const good = await boundToken(ns, "deployer", "good");
    expect((await kubectl(["delete", "secret", "revoked", "-n", ns])).code).toBe(0);
    const dir = await writePackage({ "resourcegroup.yaml": rg(ns, "revoked"), "cm.yaml": configMap("after-401", ns) });

    // The plugin's first answer is a token the server no longer accepts (a plugin's own cache
    // can hold one); the second is good. The KUBECONFIG list names a missing file first.
    const p = await plugin([revoked, good], { ttlMs: 3_600_000 });
    const kc = await writeKubeconfig(execUser(p.command), { namespace: ns });
    const r = await kptTs(["live", "apply", dir], { env: { KUBECONFIG: [join(tmpdir(), "no-such-kubeconfig"), kc].join(delimiter) } });
    expect(r.code, printed(r)).toBe(0);
    expect(lines(r)).toContain("configmap/after-401 created");
    expect(await p.calls()).toHaveLength(2);

    const bad = await plugin([revoked], { ttlMs: 3_600_000 });
    const kcBad = await writeKubeconfig(execUser(bad.command), { namespace: ns });
    const refused = await kptTs(["live", "status", "--kubeconfig", kcBad, dir]);
    expect(refused.code, printed(refused)).toBe(1);
    expect(refused.stderr).toContain("Unauthorized");
    expect(await bad.calls()).toHaveLength(2);
  });

  it("a device-code prompt the plugin prints on stderr appears on kpt-ts's stderr", async () => {
    const ns = await createNamespace("e2e-exec-device");
    await createServiceAccount(ns, "deployer", RULES);
    const prompt = "To sign in, use a web browser to open https://login.example/device and enter the code KPTS-1234 to authenticate.";
    const p = await plugin([await boundToken(ns, "deployer", "t")], { prompt });
    const kc = await writeKubeconfig(execUser(p.command), { namespace: ns });
    const dir = await writePackage({ "resourcegroup.yaml": rg(ns, "device"), "cm.yaml": configMap("device", ns) });
    const r = await kptTs(["live", "apply", "--kubeconfig", kc, dir]);
    expect(r.code, printed(r)).toBe(0);
    expect(r.stderr).toContain(prompt);
    expect(r.stdout).not.toContain("KPTS-1234");
  });

  it("client certificates from a plugin; a failing plugin is named with its exit code and stderr, never stdout", async () => {
    const ns = await createNamespace("e2e-exec-cert");
    const { certData, keyData } = await clusterAccess();
    const p = await plugin([], { cert: { cert: Buffer.from(certData, "base64").toString(), key: Buffer.from(keyData, "base64").toString() } });
    const kc = await writeKubeconfig(execUser(p.command), { namespace: ns });
    const dir = await writePackage({ "resourcegroup.yaml": rg(ns, "cert"), "cm.yaml": configMap("from-cert", ns) });
    const r = await kptTs(["live", "apply", "--kubeconfig", kc, dir]);
    expect(r.code, printed(r)).toBe(0);
    expect(await getObject("configmaps", "from-cert", ns)).toBeDefined();
    expect(await p.calls()).toHaveLength(1);

    const failing = join(tmpdir(), `kpt-ts-failing-${ns}.sh`);
    await writeFile(failing, "#!/bin/sh\necho '{\"status\":{\"token\":\"PARTIAL-SECRET'\necho 'session expired: run the login command' >&2\nexit 3\n", { mode: 0o755 });
    const kcFail = await writeKubeconfig(execUser(failing), { namespace: ns });
    const f = await kptTs(["live", "status", "--kubeconfig", kcFail, dir]);
    expect(f.code, printed(f)).toBe(1);
    expect(f.stderr).toContain(`error: cannot get credentials: the exec credential plugin "${failing}" of user "user" (kubeconfig ${kcFail}): it exited with code 3: session expired: run the login command`);
    expect(f.stderr + f.stdout).not.toContain("PARTIAL-SECRET");
  });

  it.skipIf(!hasBinary("script"))("interactiveMode IfAvailable: in a terminal the plugin gets standard input and interactive: true; in a pipe, neither", async () => {
    const ns = await createNamespace("e2e-exec-tty");
    await createServiceAccount(ns, "deployer", RULES);
    const token = await boundToken(ns, "deployer", "t");
    const dir = await mkdtemp(join(tmpdir(), "kpt-ts-exec-tty-"));
    const command = join(dir, "plugin.mjs");
    await writeFile(
      command,
      `#!/usr/bin/env node
import { appendFileSync } from "node:fs";
const info = JSON.parse(process.env.KUBERNETES_EXEC_INFO);
appendFileSync(${JSON.stringify(join(dir, "seen"))}, JSON.stringify({ stdinIsTTY: Boolean(process.stdin.isTTY), interactive: info.spec.interactive }) + "\\n");
console.log(JSON.stringify({ apiVersion: info.apiVersion, kind: "ExecCredential", status: { token: ${JSON.stringify(token)} } }));
`,
      { mode: 0o755 },
    );
    const kc = await writeKubeconfig(execUser(command), { namespace: ns });
    const pkg = await writePackage({ "resourcegroup.yaml": rg(ns, "tty"), "cm.yaml": configMap("tty", ns) });
    // script(1) gives the run a pseudo-terminal, as a user's shell would.
    const inTerminal = await run("script", ["-qec", `${process.execPath} ${CLI} live apply --kubeconfig ${kc} ${pkg}`, "/dev/null"]);
    expect(inTerminal.code, printed(inTerminal)).toBe(0);
    const piped = await kptTs(["live", "status", "--kubeconfig", kc, pkg]);
    expect(piped.code, printed(piped)).toBe(0);
    const seen = (await readFile(join(dir, "seen"), "utf8")).trim().split("\n").map((l) => JSON.parse(l));
    expect(seen).toEqual([
      { stdinIsTTY: true, interactive: true },
      { stdinIsTTY: false, interactive: false },
    ]);
  });
});
