// Exec credential plugins: KUBERNETES_EXEC_INFO, caching until shortly before expiry, one
// refetch after a 401, stderr passed through, failures named with exit code and stderr only.
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { execCredentials } from "../../src/cluster/exec-credential.js";

/**
 * A node plugin: logs each call's KUBERNETES_EXEC_INFO, says something on stderr, prints a token
 * valid `ttl` ms. Its clock and the credential source's run TEST_CLOCK_MS ahead (see `clock`).
 */
function plugin(ttlMs: number, extra = ""): { path: string; calls: () => any[] } {
  const d = mkdtempSync(join(tmpdir(), "kpt-ts-exec-unit-"));
  const path = join(d, "plugin.mjs");
  writeFileSync(
    path,
    `#!/usr/bin/env node
import { appendFileSync } from "node:fs";
appendFileSync(${JSON.stringify(join(d, "calls"))}, process.env.KUBERNETES_EXEC_INFO + "\\n");
process.stderr.write("open https://login.example/device and enter CODE-1234\\n");
${extra}
const n = (await import("node:fs")).readFileSync(${JSON.stringify(join(d, "calls"))}, "utf8").trim().split("\\n").length;
console.log(JSON.stringify({ apiVersion: JSON.parse(process.env.KUBERNETES_EXEC_INFO).apiVersion, kind: "ExecCredential", status: { token: "tok-" + n, expirationTimestamp: new Date(Date.now() + Number(process.env.TEST_CLOCK_MS ?? 0) + ${ttlMs}).toISOString() } }));
`,
    { mode: 0o755 },
  );
  return { path, calls: () => readFileSync(join(d, "calls"), "utf8").trim().split("\n").map((l) => JSON.parse(l)) };
}

/** A clock the test moves forward instead of sleeping: the plugin (through its environment) and the credential source read it. */
function clock(): { env: NodeJS.ProcessEnv; now: () => number; advance: (ms: number) => void } {
  const env: NodeJS.ProcessEnv = { ...process.env, TEST_CLOCK_MS: "0" };
  return { env, now: () => Date.now() + Number(env.TEST_CLOCK_MS), advance: (ms) => (env.TEST_CLOCK_MS = String(Number(env.TEST_CLOCK_MS) + ms)) };
}

const ctx = (stderr = new PassThrough(), time = clock()) => ({
  owner: 'user "u" (kubeconfig k)',
  cluster: { server: "https://c:1", "certificate-authority-data": "Q0E=" },
  env: time.env,
  now: time.now,
  stderr,
});

describe("exec credentials", () => {
  it("cached until shortly before expiry, then fetched again; a 401 refetches once", async () => {
    const p = plugin(2000);
    const time = clock();
    const src = execCredentials({ apiVersion: "client.authentication.k8s.io/v1", command: p.path, interactiveMode: "Never", provideClusterInfo: true }, { headers: {} }, ctx(undefined, time));
    const a = await src.get();
    const b = await src.get();
    expect(a.headers.authorization).toBe("Bearer tok-1");
    expect(b.generation).toBe(a.generation);
    expect(p.calls()).toHaveLength(1);
    expect(p.calls()[0]).toEqual({ apiVersion: "client.authentication.k8s.io/v1", kind: "ExecCredential", spec: { interactive: false, cluster: { server: "https://c:1", "certificate-authority-data": "Q0E=" } } });
    time.advance(1700); // 2 s life, refreshed 0.5 s early
    expect((await src.get()).headers.authorization).toBe("Bearer tok-2");
    const c = await src.get();
    expect(src.invalidate(c.generation)).toBe(true);
    src.invalidate(c.generation); // a second 401 of the same generation: still one refetch
    expect((await src.get()).headers.authorization).toBe("Bearer tok-3");
    expect(p.calls()).toHaveLength(3);
  });

  it("concurrent requests share one plugin run; its stderr reaches the user", async () => {
    const p = plugin(60_000);
    const err = new PassThrough();
    let seen = "";
    err.on("data", (c) => (seen += c));
    const src = execCredentials({ apiVersion: "client.authentication.k8s.io/v1beta1", command: p.path }, { headers: {} }, ctx(err));
    await Promise.all([src.get(), src.get(), src.get()]);
    expect(p.calls()).toHaveLength(1);
    expect(p.calls()[0].spec).toEqual({ interactive: false });
    expect(seen).toContain("open https://login.example/device and enter CODE-1234");
  });

  it("a failing plugin: named with its exit code and stderr, never its stdout", async () => {
    const p = plugin(1000, 'console.log("SECRET-PARTIAL"); process.stderr.write("token expired, run login\\n"); process.exit(4);');
    const src = execCredentials({ apiVersion: "client.authentication.k8s.io/v1", command: p.path, interactiveMode: "Never" }, { headers: {} }, ctx());
    const e = await src.get().catch((x: Error) => x);
    expect((e as Error).message).toBe(`cannot get credentials: the exec credential plugin "${p.path}" of user "u" (kubeconfig k): it exited with code 4: open https://login.example/device and enter CODE-1234 / token expired, run login`);
    expect((e as Error).message).not.toContain("SECRET");
  });

  it("interactiveMode Always without a terminal, and v1 without interactiveMode, are refused before running", async () => {
    const p = plugin(1000);
    const always = execCredentials({ apiVersion: "client.authentication.k8s.io/v1", command: p.path, interactiveMode: "Always" }, { headers: {} }, ctx());
    await expect(always.get()).rejects.toThrow("interactiveMode: Always");
    const unset = execCredentials({ apiVersion: "client.authentication.k8s.io/v1", command: p.path }, { headers: {} }, ctx());
    await expect(unset.get()).rejects.toThrow("interactiveMode must be set");
  });
});
