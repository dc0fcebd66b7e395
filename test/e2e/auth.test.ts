// Transport and credentials against the real API server: TLS is verified by default (no CA in
// the kubeconfig: a clear refusal naming the server; insecure-skip-tls-verify: true connects),
// and every kind of kubeconfig credential works: client certificates (inline and as files),
// bearer tokens (`token:` and `tokenFile:`) and exec credential plugins. Wrong credentials say so.
import { readFile, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { writePackage } from "../helpers/fixtures.js";
import { clusterAccess, createServiceAccount, execPlugin, serviceAccountToken, writeKubeconfig } from "../helpers/credentials.js";
import { createNamespace, kptTs } from "../helpers/run.js";
import { configMap, getObject, lines, printed } from "../helpers/scenario.js";

const rg = (ns: string, name: string) => `apiVersion: kpt.dev/v1alpha1\nkind: ResourceGroup\nmetadata:\n  name: inventory-${name}\n  namespace: ${ns}\n  labels:\n    cli-utils.sigs.k8s.io/inventory-id: auth-${name}-${ns}\n`;

/** Applies a one-ConfigMap package with this kubeconfig, checks it exists, and that status reads it back. */
async function applyAndStatus(kubeconfig: string, ns: string, name: string): Promise<void> {
  const dir = await writePackage({ "resourcegroup.yaml": rg(ns, name), "cm.yaml": configMap(name, ns) });
  const applied = await kptTs(["live", "apply", "--kubeconfig", kubeconfig, dir]);
  expect(applied.code, printed(applied)).toBe(0);
  expect(lines(applied)).toContain(`configmap/${name} created`);
  expect(await getObject("configmaps", name, ns)).toBeDefined();
  const status = await kptTs(["live", "status", "--kubeconfig", kubeconfig, dir]);
  expect(status.code, printed(status)).toBe(0);
  expect(lines(status)).toEqual([`configmap/${name} is Current: Resource is always ready`]);
}

describe("TLS", () => {
  it("is verified by default: without the cluster's CA the run stops, naming the server; insecure-skip-tls-verify: true connects", async () => {
    const ns = await createNamespace("e2e-tls");
    const { server, certData, keyData } = await clusterAccess();
    const user = { "client-certificate-data": certData, "client-key-data": keyData };
    const dir = await writePackage({ "resourcegroup.yaml": rg(ns, "tls"), "cm.yaml": configMap("tls", ns) });

    const noCa = await writeKubeconfig(user, { namespace: ns, cluster: { server } });
    for (const command of ["apply", "status", "destroy"]) {
      const r = await kptTs(["live", command, "--kubeconfig", noCa, dir]);
      expect(r.code, printed(r)).toBe(1);
      expect(r.stderr.trimEnd().split("\n")).toEqual([`error: cannot reach the cluster at ${server}: the server's certificate is not trusted: check certificate-authority in your kubeconfig`]);
    }
    const verbose = await kptTs(["live", "apply", "-v", "--kubeconfig", noCa, dir]);
    expect(verbose.stderr).toMatch(/UNABLE_TO_VERIFY_LEAF_SIGNATURE|SELF_SIGNED_CERT_IN_CHAIN|DEPTH_ZERO_SELF_SIGNED_CERT/);
    expect(await getObject("configmaps", "tls", ns)).toBeUndefined();

    // A CA that did not sign the server's certificate (the client certificate is no CA at all) is refused the same way.
    const wrongCa = await writeKubeconfig(user, { namespace: ns, cluster: { server, "certificate-authority-data": certData } });
    const wrong = await kptTs(["live", "status", "--kubeconfig", wrongCa, dir]);
    expect(wrong.code, printed(wrong)).toBe(1);
    expect(wrong.stderr).toContain(`cannot reach the cluster at ${server}`);

    const insecure = await writeKubeconfig(user, { namespace: ns, cluster: { server, "insecure-skip-tls-verify": true } });
    await applyAndStatus(insecure, ns, "insecure");
  });
});

describe("kubeconfig credentials", () => {
  it("client certificates, inline and as files relative to the kubeconfig", async () => {
    const ns = await createNamespace("e2e-auth-cert");
    const { certData, keyData } = await clusterAccess();
    await applyAndStatus(await writeKubeconfig({ "client-certificate-data": certData, "client-key-data": keyData }, { namespace: ns }), ns, "inline-cert");

    const withFiles = await writeKubeconfig({ "client-certificate": "client.crt", "client-key": "client.key" }, { namespace: ns });
    await writeFile(join(dirname(withFiles), "client.crt"), Buffer.from(certData, "base64"));
    await writeFile(join(dirname(withFiles), "client.key"), Buffer.from(keyData, "base64"), { mode: 0o600 });
    await applyAndStatus(withFiles, ns, "file-cert");
  });

  it("bearer tokens: token and tokenFile; a wrong token is refused as such", async () => {
    const ns = await createNamespace("e2e-auth-token");
    await createServiceAccount(ns, "deployer", [
      { apiGroups: [""], resources: ["configmaps"], verbs: ["*"] },
      { apiGroups: ["kpt.dev"], resources: ["resourcegroups", "resourcegroups/status"], verbs: ["*"] },
    ]);
    const token = await serviceAccountToken(ns, "deployer");
    await applyAndStatus(await writeKubeconfig({ token }, { namespace: ns }), ns, "token");

    const withFile = await writeKubeconfig({ tokenFile: "token" }, { namespace: ns });
    await writeFile(join(dirname(withFile), "token"), `${token}\n`, { mode: 0o600 });
    await applyAndStatus(withFile, ns, "token-file");

    const wrong = await writeKubeconfig({ token: "not-a-valid-token" }, { namespace: ns });
    const dir = await writePackage({ "resourcegroup.yaml": rg(ns, "wrong"), "cm.yaml": configMap("wrong", ns) });
    const r = await kptTs(["live", "apply", "--kubeconfig", wrong, dir]);
    expect(r.code, printed(r)).toBe(1);
    const { server } = await clusterAccess();
    expect(r.stderr.trimEnd().split("\n")).toEqual([
      `error: cannot discover the API of ${server}: Unauthorized`,
      "the cluster did not accept your credentials: log in again, or check the user of your kubeconfig context",
    ]);
    expect(await getObject("configmaps", "wrong", ns)).toBeUndefined();
  });

  it("an exec credential plugin: its token is used", async () => {
    const ns = await createNamespace("e2e-auth-exec");
    await createServiceAccount(ns, "deployer", [
      { apiGroups: [""], resources: ["configmaps"], verbs: ["*"] },
      { apiGroups: ["kpt.dev"], resources: ["resourcegroups", "resourcegroups/status"], verbs: ["*"] },
    ]);
    const plugin = await execPlugin(await serviceAccountToken(ns, "deployer"));
    const kubeconfig = await writeKubeconfig({ exec: { apiVersion: "client.authentication.k8s.io/v1", command: plugin, interactiveMode: "Never" } }, { namespace: ns });
    await applyAndStatus(kubeconfig, ns, "exec");
    // The plugin is the kubeconfig's only credential, and it ran (once per run at least).
    expect((await readFile(join(dirname(plugin), "calls"), "utf8")).split("\n").filter(Boolean).length).toBeGreaterThanOrEqual(2);

    // A plugin that fails says which plugin and why (its stderr, never its stdout, which may hold a credential).
    const dir = await writePackage({ "resourcegroup.yaml": rg(ns, "broken"), "cm.yaml": configMap("broken", ns) });
    const failing = join(dirname(plugin), "failing.sh");
    await writeFile(failing, "#!/bin/sh\necho 'session expired: run the login command' >&2\nexit 3\n", { mode: 0o755 });
    const garbled = join(dirname(plugin), "garbled.sh");
    await writeFile(garbled, "#!/bin/sh\necho '{\"status\": {\"token\": \"PARTIAL-SECRET'\n", { mode: 0o755 });
    for (const [command, why] of [
      [failing, "it exited with code 3: session expired: run the login command"],
      [garbled, "it did not print an ExecCredential (JSON)"],
      ["/nonexistent/credential-plugin", "the command was not found"],
    ]) {
      const kc = await writeKubeconfig({ exec: { apiVersion: "client.authentication.k8s.io/v1", command, interactiveMode: "Never" } }, { namespace: ns });
      const r = await kptTs(["live", "apply", "-v", "--kubeconfig", kc, dir]);
      expect(r.code, printed(r)).toBe(1);
      // The plugin's own stderr is shown as it comes (a login prompt may be there), then the error.
      expect(r.stderr.split("\n").find((l) => l.startsWith("error:"))).toBe(`error: cannot get credentials: the exec credential plugin "${command}" of user "user" (kubeconfig ${kc}): ${why}`);
      expect(r.stderr).not.toContain("PARTIAL-SECRET");
    }
    expect(await getObject("configmaps", "broken", ns)).toBeUndefined();
  });
});
