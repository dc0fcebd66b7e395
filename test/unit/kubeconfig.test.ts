// The kubeconfig loader: kubectl's merge rules (first file wins per name and for
// current-context, missing files skipped, relative paths against the naming file), the
// connection flags on top, in-cluster configuration and impersonation.
import { mkdtempSync, mkdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadConnection } from "../../src/cluster/kubeconfig.js";
import { kubeconfigDoc } from "../helpers/kubeconfig-doc.js";

function dir(): string {
  return mkdtempSync(join(tmpdir(), "kpt-ts-kc-unit-"));
}
function file(d: string, name: string, doc: object): string {
  const p = join(d, name);
  mkdirSync(join(p, ".."), { recursive: true });
  writeFileSync(p, JSON.stringify(doc));
  return p;
}
const kc = kubeconfigDoc;

describe("KUBECONFIG lists", () => {
  it("first file wins per name and for current-context; missing files are skipped", async () => {
    const d = dir();
    const a = file(d, "a", kc({ clusters: [["c", { server: "https://a.example:1" }]], users: [["u", { token: "A" }]], contexts: [["x", { cluster: "c", user: "u" }]], current: "x" }));
    const b = file(d, "b", kc({ clusters: [["c", { server: "https://b.example:2" }], ["d", { server: "https://d.example:4" }]], users: [["u", { token: "B" }]], contexts: [["x", { cluster: "d", user: "u" }]], current: "y" }));
    const conn = loadConnection({ env: { KUBECONFIG: [join(d, "missing"), a, b].join(delimiter) } });
    expect(conn.server).toBe("https://a.example:1");
    expect(conn.contextName).toBe("x");
    expect((await conn.credentials.get()).headers.authorization).toBe("Bearer A");
    expect(conn.files).toEqual([a, b]);
    // An entry only the second file has is found there.
    expect(loadConnection({ env: { KUBECONFIG: [a, b].join(delimiter) }, cluster: "d" }).server).toBe("https://d.example:4");
  });

  it("a name twice in one file is refused, as kubectl refuses it", () => {
    const d = dir();
    const a = file(d, "a", kc({ clusters: [["c", { server: "https://first:1" }], ["c", { server: "https://second:2" }]], contexts: [["x", { cluster: "c" }]], current: "x" }));
    expect(() => loadConnection({ env: { KUBECONFIG: a } })).toThrow(`kubeconfig ${a} lists cluster "c" twice`);
  });

  it("proxy-url and disable-compression come from the cluster entry", () => {
    const d = dir();
    const a = file(d, "a", kc({ clusters: [["c", { server: "https://c:1", "proxy-url": "socks5://p:1080", "disable-compression": true }]], contexts: [["x", { cluster: "c" }]], current: "x" }));
    const conn = loadConnection({ env: { KUBECONFIG: a } });
    expect([conn.proxyUrl, conn.disableCompression]).toEqual(["socks5://p:1080", true]);
  });

  it("none of the files exists: an error naming them", () => {
    const d = dir();
    expect(() => loadConnection({ env: { KUBECONFIG: [join(d, "a"), join(d, "b")].join(delimiter) } })).toThrow(`no kubeconfig found: ${join(d, "a")}, ${join(d, "b")} do not exist`);
  });

  it("relative paths are resolved against the file that names them", () => {
    const d = dir();
    writeFileSync(join(d, "ca.crt"), "WRONG: next to nothing that names it");
    mkdirSync(join(d, "sub"));
    writeFileSync(join(d, "sub", "ca.crt"), "CA-PEM");
    const a = file(d, "sub/config", kc({ clusters: [["c", { server: "https://x:1", "certificate-authority": "ca.crt" }]], contexts: [["x", { cluster: "c" }]], current: "x" }));
    expect(loadConnection({ env: { KUBECONFIG: a } }).ca?.toString()).toBe("CA-PEM");
  });
});

describe("connection flags", () => {
  it("--server, --token and --certificate-authority need no kubeconfig", async () => {
    const d = dir();
    writeFileSync(join(d, "ca.crt"), "CA");
    const conn = loadConnection({ env: { KUBECONFIG: join(d, "none") }, server: "https://s.example:6443", token: "T", certificateAuthority: join(d, "ca.crt") });
    expect(conn.server).toBe("https://s.example:6443");
    expect(conn.ca?.toString()).toBe("CA");
    expect((await conn.credentials.get()).headers.authorization).toBe("Bearer T");
  });

  it("--user and --cluster choose entries; --insecure-skip-tls-verify drops the CA; --server drops tls-server-name", async () => {
    const d = dir();
    const a = file(d, "a", kc({
      clusters: [["one", { server: "https://one:1", "certificate-authority-data": Buffer.from("CA1").toString("base64"), "tls-server-name": "one.internal" }], ["two", { server: "https://two:2" }]],
      users: [["alice", { token: "AL" }], ["bob", { token: "BO" }]],
      contexts: [["x", { cluster: "one", user: "alice", namespace: "ns1" }]],
      current: "x",
    }));
    const conn = loadConnection({ env: { KUBECONFIG: a }, user: "bob", cluster: "two" });
    expect([conn.server, (await conn.credentials.get()).headers.authorization, conn.namespace]).toEqual(["https://two:2", "Bearer BO", "ns1"]);
    const plain = loadConnection({ env: { KUBECONFIG: a } });
    expect([plain.tlsServerName, plain.ca?.toString()]).toEqual(["one.internal", "CA1"]);
    const insecure = loadConnection({ env: { KUBECONFIG: a }, insecureSkipTlsVerify: true, server: "https://other:3" });
    expect([insecure.ca, insecure.insecureSkipTlsVerify, insecure.tlsServerName, insecure.server]).toEqual([undefined, true, undefined, "https://other:3"]);
    expect(() => loadConnection({ env: { KUBECONFIG: a }, user: "carol" })).toThrow(`user "carol" not found in kubeconfig ${a}`);
  });

  it("an http:// server gets no credentials (as kubectl: only over TLS), but impersonation", async () => {
    const d = dir();
    const a = file(d, "a", kc({ clusters: [["c", { server: "http://c:8080" }]], users: [["u", { token: "SECRET", as: "alice" }]], contexts: [["x", { cluster: "c", user: "u" }]], current: "x" }));
    const conn = loadConnection({ env: { KUBECONFIG: a } });
    expect((await conn.credentials.get()).headers).toEqual({});
    expect(conn.impersonate?.user).toBe("alice");
  });

  it("impersonation: flags over the kubeconfig's as, as-groups, as-uid, as-user-extra", () => {
    const d = dir();
    const a = file(d, "a", kc({ clusters: [["c", { server: "https://c:1" }]], users: [["u", { as: "kc-user", "as-groups": ["g1"], "as-user-extra": { scopes: ["a", "b"] } }]], contexts: [["x", { cluster: "c", user: "u" }]], current: "x" }));
    expect(loadConnection({ env: { KUBECONFIG: a } }).impersonate).toEqual({ user: "kc-user", uid: undefined, groups: ["g1"], extra: { scopes: ["a", "b"] } });
    const flagged = loadConnection({ env: { KUBECONFIG: a }, as: "alice", asGroups: ["x", "y"], asUid: "42" });
    expect(flagged.impersonate).toEqual({ user: "alice", uid: "42", groups: ["x", "y"], extra: { scopes: ["a", "b"] } });
    expect(flagged.userName).toBe("alice");
  });
});

describe("in-cluster", () => {
  it("without a kubeconfig, from KUBERNETES_SERVICE_HOST/PORT and the ServiceAccount directory; the token is read again when the file changes", async () => {
    const d = dir();
    writeFileSync(join(d, "token"), "T1\n");
    writeFileSync(join(d, "ca.crt"), "CA");
    writeFileSync(join(d, "namespace"), "team");
    const conn = loadConnection({ env: { KUBECONFIG: join(d, "none"), KUBERNETES_SERVICE_HOST: "10.0.0.1", KUBERNETES_SERVICE_PORT: "443", KPT_TS_SERVICEACCOUNT_DIR: d } });
    expect([conn.server, conn.namespace, conn.ca?.toString()]).toEqual(["https://10.0.0.1:443", "team", "CA"]);
    const first = await conn.credentials.get();
    expect(first.headers.authorization).toBe("Bearer T1");
    writeFileSync(join(d, "token"), "T2-longer\n");
    // After a 401 it is read at once.
    expect(conn.credentials.invalidate(first.generation)).toBe(true);
    expect((await conn.credentials.get()).headers.authorization).toBe("Bearer T2-longer");
  });
});
