// Proxies as kubectl uses them, through the built CLI against the real API server and a
// forward proxy in the test helpers that counts its tunnels: the cluster's proxy-url (HTTP
// CONNECT and SOCKS5) carries every connection; without it HTTPS_PROXY does, except for hosts
// NO_PROXY names and for loopback addresses (Go's rule, which kubectl follows: checked here by
// running kubectl against the same proxy).
import { readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { clusterAccess, writeKubeconfig } from "../helpers/credentials.js";
import { startConnectProxy } from "../helpers/connect-proxy.js";
import { writePackage } from "../helpers/fixtures.js";
import { createNamespace, hasBinary, kptTs, kubeconfig, kubectl } from "../helpers/run.js";
import { configMap, lines, printed } from "../helpers/scenario.js";

const rg = (ns: string, name: string) => `apiVersion: kpt.dev/v1alpha1\nkind: ResourceGroup\nmetadata:\n  name: inventory-${name}\n  namespace: ${ns}\n  labels:\n    cli-utils.sigs.k8s.io/inventory-id: proxy-${name}-${ns}\n`;

async function adminKubeconfig(ns: string, cluster: Record<string, unknown>): Promise<string> {
  const { certData, keyData, caData } = await clusterAccess();
  return writeKubeconfig({ "client-certificate-data": certData, "client-key-data": keyData }, { namespace: ns, cluster: { "certificate-authority-data": caData, ...cluster } });
}

const withKubectl = hasBinary("kubectl");

describe("proxy-url", () => {
  it.each(["http", "https", "socks5"] as const)("%s: every connection goes through the proxy", async (scheme) => {
    const ns = await createNamespace(`e2e-proxy-${scheme}`);
    const { server } = await clusterAccess();
    const target = new URL(server).host;
    // An https:// proxy shows a certificate the cluster's CA signed (Go verifies it with the client's TLS settings).
    const pki = join(dirname(kubeconfig()), "pki");
    const tls = scheme === "https" ? { cert: await readFile(join(pki, "apiserver.crt")), key: await readFile(join(pki, "apiserver.key")) } : undefined;
    const proxy = await startConnectProxy({ tls });
    try {
      const kc = await adminKubeconfig(ns, { server, "proxy-url": `${scheme}://127.0.0.1:${proxy.port}` });
      const dir = await writePackage({ "resourcegroup.yaml": rg(ns, scheme), "cm.yaml": configMap(scheme, ns) });
      // A broken HTTPS_PROXY is ignored when the kubeconfig names a proxy-url.
      const env = { HTTPS_PROXY: "http://127.0.0.1:1" };
      const apply = await kptTs(["live", "apply", "--kubeconfig", kc, dir], { env });
      expect(apply.code, printed(apply)).toBe(0);
      expect(lines(apply)).toContain(`configmap/${scheme} created`);
      const status = await kptTs(["live", "status", "--kubeconfig", kc, dir], { env });
      expect(status.code, printed(status)).toBe(0);
      expect(proxy.tunnels.length).toBeGreaterThan(0);
      expect(new Set(proxy.tunnels.map((t) => `${t.via} ${t.target}`))).toEqual(new Set([`${scheme === "socks5" ? "socks5" : "connect"} ${target}`]));

      if (withKubectl) {
        const before = proxy.tunnels.length;
        const k = await kubectl(["--kubeconfig", kc, "get", "configmap", scheme, "-n", ns], { env });
        expect(k.code, k.stderr).toBe(0);
        expect(proxy.tunnels.length).toBeGreaterThan(before);
      }
    } finally {
      await proxy.close();
    }
  });
});

describe("HTTPS_PROXY and NO_PROXY", () => {
  it("a server by name goes through HTTPS_PROXY unless NO_PROXY names it; loopback addresses never do (as with kubectl)", async () => {
    const ns = await createNamespace("e2e-https-proxy");
    const { server } = await clusterAccess();
    const port = new URL(server).port;
    // `kubernetes` resolves only at the proxy (as a cluster's name does inside its network); the
    // server's certificate carries that name.
    const proxy = await startConnectProxy({ hosts: { kubernetes: "127.0.0.1" } });
    try {
      const byName = await adminKubeconfig(ns, { server: `https://kubernetes:${port}` });
      const byLoopback = await adminKubeconfig(ns, { server });
      const dir = await writePackage({ "resourcegroup.yaml": rg(ns, "env"), "cm.yaml": configMap("env", ns) });
      const viaProxy = { HTTPS_PROXY: proxy.url, NO_PROXY: "example.com,10.0.0.0/8" };

      const apply = await kptTs(["live", "apply", "--kubeconfig", byName, dir], { env: viaProxy });
      expect(apply.code, printed(apply)).toBe(0);
      expect(proxy.tunnels.length).toBeGreaterThan(0);
      expect(new Set(proxy.tunnels.map((t) => t.target))).toEqual(new Set([`kubernetes:${port}`]));
      if (withKubectl) {
        const before = proxy.tunnels.length;
        expect((await kubectl(["--kubeconfig", byName, "get", "ns", ns], { env: viaProxy })).code).toBe(0);
        expect(proxy.tunnels.length).toBeGreaterThan(before);
      }

      // NO_PROXY names the host: a direct connection, which cannot resolve `kubernetes` here.
      const count = proxy.tunnels.length;
      const bypass = { HTTPS_PROXY: proxy.url, NO_PROXY: "example.com, kubernetes" };
      const direct = await kptTs(["live", "status", "--kubeconfig", byName, dir], { env: bypass });
      expect(direct.code, printed(direct)).toBe(1);
      expect(direct.stderr).toContain(`cannot reach the cluster at https://kubernetes:${port}`);
      if (withKubectl) expect((await kubectl(["--kubeconfig", byName, "get", "ns", ns, "--request-timeout=10s"], { env: bypass })).code).not.toBe(0);
      expect(proxy.tunnels.length).toBe(count);

      // 127.0.0.1: never through HTTPS_PROXY (Go's httpproxy exempts loopback; kubectl agrees).
      const loop = await kptTs(["live", "status", "--kubeconfig", byLoopback, dir], { env: { HTTPS_PROXY: proxy.url } });
      expect(loop.code, printed(loop)).toBe(0);
      if (withKubectl) expect((await kubectl(["--kubeconfig", byLoopback, "get", "ns", ns], { env: { HTTPS_PROXY: proxy.url } })).code).toBe(0);
      expect(proxy.tunnels.length).toBe(count);
    } finally {
      await proxy.close();
    }
  });
});
