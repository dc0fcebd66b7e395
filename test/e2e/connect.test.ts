// Connecting as kubectl does, through the built CLI against the real API server: kubectl's
// connection flags (no kubeconfig at all; --user/--cluster picking entries; --as with read-only
// RBAC; --request-timeout cutting a held request), KUBECONFIG lists read as kubectl reads them
// (kubectl runs on the same files), and the in-cluster configuration of a Pod's ServiceAccount.
import { mkdtemp, rename, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { clusterAccess, createServiceAccount, serviceAccountToken, type PolicyRule } from "../helpers/credentials.js";
import { startBackground } from "../helpers/background.js";
import { startFaultProxy } from "../helpers/fault-proxy.js";
import { writePackage } from "../helpers/fixtures.js";
import { kubeconfigDoc, type KubeconfigEntries } from "../helpers/kubeconfig-doc.js";
import { CLI, createNamespace, hasBinary, kubeconfig, kptTs, kubectl, run } from "../helpers/run.js";
import { configMap, docs, getObject, lines, printed, service } from "../helpers/scenario.js";

const rg = (ns: string, name: string) => `apiVersion: kpt.dev/v1alpha1\nkind: ResourceGroup\nmetadata:\n  name: inventory-${name}\n  namespace: ${ns}\n  labels:\n    cli-utils.sigs.k8s.io/inventory-id: connect-${name}-${ns}\n`;
const DEPLOYER: PolicyRule[] = [
  { apiGroups: [""], resources: ["configmaps"], verbs: ["*"] },
  { apiGroups: ["kpt.dev"], resources: ["resourcegroups", "resourcegroups/status"], verbs: ["*"] },
];
const NOWHERE = "/nonexistent/kubeconfig";

async function tmp(prefix: string): Promise<string> {
  return mkdtemp(join(tmpdir(), prefix));
}

/** A kubeconfig with these clusters, users and contexts (entries as [name, value]). */
async function kubeconfigFile(path: string, o: KubeconfigEntries): Promise<string> {
  await writeFile(path, stringify(kubeconfigDoc(o)), { mode: 0o600 });
  return path;
}

/** The long flags a help text lists under a heading, up to the next heading. */
function flagsUnder(help: string, heading: string): string[] {
  const section = help.split(heading)[1]?.split(/\n[A-Z][A-Za-z ]+:\n/)[0] ?? "";
  return [...section.matchAll(/^\s+(?:-\w, )?(--[a-z][a-z-]*)/gm)].map((m) => m[1]!);
}

const CONNECTION_FLAGS = ["--kubeconfig", "--context", "--cluster", "--user", "--server", "--token", "--username", "--password", "--certificate-authority", "--client-certificate", "--client-key", "--insecure-skip-tls-verify", "--tls-server-name", "--as", "--as-group", "--as-uid", "--request-timeout", "--disable-compression", "--cache-dir", "--namespace"];

describe("connection flags", () => {
  it("every command that talks to a cluster lists them under Global Flags in its --help, a superset of what kpt's help lists", async () => {
    for (const command of ["apply", "destroy", "status", "diff", "history", "list", "install-resource-group"]) {
      const r = await kptTs(["live", command, "--help"]);
      expect(r.code, printed(r)).toBe(0);
      const listed = flagsUnder(r.stdout, "Global Flags:");
      for (const f of CONNECTION_FLAGS) expect(listed, `live ${command} --help`).toContain(f);
    }
    if (hasBinary("kpt")) {
      const k = await run("kpt", ["live", "apply", "--help"]);
      const kptFlags = [...flagsUnder(k.stdout, "Global Flags:"), ...flagsUnder(k.stdout, "Flags:")].filter((f) => !["--log-flush-frequency", "--truncate-output", "--help"].includes(f));
      expect(kptFlags).toContain("--as-uid");
      const ours = flagsUnder((await kptTs(["live", "apply", "--help"])).stdout, "Global Flags:");
      for (const f of kptFlags.filter((f) => CONNECTION_FLAGS.includes(f) || f.startsWith("--as") || f === "--v")) expect(ours).toContain(f);
    }
  });

  it("no kubeconfig at all: --server, --token and --certificate-authority (and -s) are enough", async () => {
    const ns = await createNamespace("e2e-flags");
    await createServiceAccount(ns, "deployer", DEPLOYER);
    const token = await serviceAccountToken(ns, "deployer");
    const { server, caData } = await clusterAccess();
    const caFile = join(await tmp("kpt-ts-ca-"), "ca.crt");
    await writeFile(caFile, Buffer.from(caData, "base64"));
    const dir = await writePackage({ "resourcegroup.yaml": rg(ns, "flags"), "cm.yaml": configMap("flags", ns) });

    const env = { KUBECONFIG: NOWHERE };
    const apply = await kptTs(["live", "apply", "--server", server, "--token", token, "--certificate-authority", caFile, dir], { env });
    expect(apply.code, printed(apply)).toBe(0);
    expect(lines(apply)).toContain("configmap/flags created");
    expect(await getObject("configmaps", "flags", ns)).toBeDefined();
    const status = await kptTs(["live", "status", "-s", server, `--token=${token}`, `--certificate-authority=${caFile}`, dir], { env });
    expect(status.code, printed(status)).toBe(0);
    expect(lines(status)).toEqual(["configmap/flags is Current: Resource is always ready"]);

    // Without a CA the server's certificate is refused; --insecure-skip-tls-verify connects anyway.
    const noCa = await kptTs(["live", "status", "--server", server, "--token", token, dir], { env });
    expect(noCa.code, printed(noCa)).toBe(1);
    expect(noCa.stderr).toContain(`cannot reach the cluster at ${server}: the server's certificate is not trusted`);
    const insecure = await kptTs(["live", "status", "--server", server, "--token", token, "--insecure-skip-tls-verify", dir], { env });
    expect(insecure.code, printed(insecure)).toBe(0);

    // And nothing at all: the error names the files looked for.
    const none = await kptTs(["live", "status", dir], { env });
    expect(none.code, printed(none)).toBe(1);
    expect(none.stderr.split("\n")[0]).toBe(`error: no kubeconfig found: ${NOWHERE} does not exist`);
  });

  it("--user and --cluster choose entries of a kubeconfig with several; --client-certificate/--client-key/--tls-server-name override it", async () => {
    const ns = await createNamespace("e2e-user-cluster");
    await createServiceAccount(ns, "deployer", DEPLOYER);
    const token = await serviceAccountToken(ns, "deployer");
    const { server, caData, certData, keyData } = await clusterAccess();
    const d = await tmp("kpt-ts-several-");
    const kc = await kubeconfigFile(join(d, "config"), {
      clusters: [
        ["dead", { server: "https://127.0.0.1:1", "certificate-authority-data": caData }],
        ["real", { server, "certificate-authority-data": caData }],
      ],
      users: [
        ["nobody", { token: "not-a-valid-token" }],
        ["deployer", { token }],
      ],
      contexts: [["default", { cluster: "dead", user: "nobody", namespace: ns }]],
      current: "default",
    });
    const dir = await writePackage({ "resourcegroup.yaml": rg(ns, "pick"), "cm.yaml": configMap("pick", ns) });

    const asIs = await kptTs(["live", "status", "--kubeconfig", kc, dir]);
    expect(asIs.code, printed(asIs)).toBe(1);
    expect(asIs.stderr).toContain("cannot reach the cluster at https://127.0.0.1:1");
    const wrongUser = await kptTs(["live", "status", "--kubeconfig", kc, "--cluster", "real", dir]);
    expect(wrongUser.code, printed(wrongUser)).toBe(1);
    expect(wrongUser.stderr).toContain("Unauthorized");
    const both = await kptTs(["live", "apply", "--kubeconfig", kc, "--cluster", "real", "--user", "deployer", dir]);
    expect(both.code, printed(both)).toBe(0);
    expect(lines(both)).toContain("configmap/pick created");

    const missing = await kptTs(["live", "status", "--kubeconfig", kc, "--user", "carol", dir]);
    expect(missing.code, printed(missing)).toBe(1);
    expect(missing.stderr.split("\n")[0]).toBe(`error: user "carol" not found in kubeconfig ${kc}`);

    // Client certificate files from flags replace the user's token; the certificate is checked
    // against a name it carries (kubernetes) when the server is reached by IP.
    await writeFile(join(d, "admin.crt"), Buffer.from(certData, "base64"));
    await writeFile(join(d, "admin.key"), Buffer.from(keyData, "base64"), { mode: 0o600 });
    const cert = await kptTs(["live", "status", "--kubeconfig", kc, "--cluster", "real", "--user", "nobody", "--client-certificate", join(d, "admin.crt"), "--client-key", join(d, "admin.key"), "--tls-server-name", "kubernetes", dir]);
    expect(cert.code, printed(cert)).toBe(0);
    const wrongName = await kptTs(["live", "status", "--kubeconfig", kc, "--cluster", "real", "--user", "deployer", "--tls-server-name", "not-in-the-certificate", dir]);
    expect(wrongName.code, printed(wrongName)).toBe(1);
    expect(wrongName.stderr).toContain("cannot reach the cluster");
  });

  it("--as a user whose RBAC allows only reads: status works, apply is refused naming that user; --as-group and --as-uid are sent", async () => {
    const ns = await createNamespace("e2e-as");
    const dir = await writePackage({ "resourcegroup.yaml": rg(ns, "as"), "cm.yaml": configMap("as", ns) });
    const first = await kptTs(["live", "apply", dir]);
    expect(first.code, printed(first)).toBe(0);
    const rbac = [
      { apiVersion: "rbac.authorization.k8s.io/v1", kind: "Role", metadata: { name: "reader", namespace: ns }, rules: [{ apiGroups: ["", "kpt.dev"], resources: ["configmaps", "resourcegroups"], verbs: ["get", "list", "watch"] }] },
      { apiVersion: "rbac.authorization.k8s.io/v1", kind: "RoleBinding", metadata: { name: "alice-reads", namespace: ns }, roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: "reader" }, subjects: [{ kind: "User", name: "alice" }] },
      { apiVersion: "rbac.authorization.k8s.io/v1", kind: "RoleBinding", metadata: { name: "readers-read", namespace: ns }, roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: "reader" }, subjects: [{ kind: "Group", name: "readers" }] },
    ];
    const made = await kubectl(["apply", "-f", "-"], { input: rbac.map((d) => stringify(d)).join("---\n") });
    expect(made.code, made.stderr).toBe(0);

    const status = await kptTs(["live", "status", "--as", "alice", dir]);
    expect(status.code, printed(status)).toBe(0);
    expect(lines(status)).toEqual(["configmap/as is Current: Resource is always ready"]);

    const changed = await writePackage({ "resourcegroup.yaml": rg(ns, "as"), "cm.yaml": docs(configMap("as", ns, { key: "changed" }), configMap("as-2", ns)) });
    const apply = await kptTs(["live", "apply", "--as", "alice", changed]);
    expect(apply.code, printed(apply)).not.toBe(0);
    expect(apply.stdout + apply.stderr).toContain('user "alice"');
    expect(await getObject("configmaps", "as-2", ns)).toBeUndefined();

    // A user with no binding of its own reads through its group; without the group it may not.
    const viaGroup = await kptTs(["live", "status", "--as", "bob", "--as-group", "readers", "--as-group", "system:authenticated", "--as-uid", "1234", dir]);
    expect(viaGroup.code, printed(viaGroup)).toBe(0);
    const noGroup = await kptTs(["live", "status", "--as", "bob", dir]);
    expect(noGroup.code, printed(noGroup)).not.toBe(0);
    expect(noGroup.stdout + noGroup.stderr).toContain('"bob"');
  });

  it("--request-timeout cuts a request a proxy holds; 0 (the default) waits", async () => {
    const ns = await createNamespace("e2e-timeout");
    const dir = await writePackage({ "resourcegroup.yaml": rg(ns, "timeout"), "cm.yaml": configMap("timeout", ns) });
    const proxy = await startFaultProxy(kubeconfig());
    try {
      proxy.setFaults({ rate: 1, kinds: ["delay"], delayMs: [6000, 6000] });
      const started = Date.now();
      const cut = await kptTs(["live", "status", "--kubeconfig", proxy.kubeconfig, "--request-timeout", "1s", dir]);
      const took = Date.now() - started;
      expect(cut.code, printed(cut)).toBe(1);
      expect(cut.stderr).toContain(`did not finish within --request-timeout=1s`);
      expect(took).toBeLessThan(5500);
      const waits = await kptTs(["live", "status", "--kubeconfig", proxy.kubeconfig, "--request-timeout", "0", dir]);
      expect(waits.code, printed(waits)).toBe(0);
    } finally {
      await proxy.close();
    }
  });
  it("--kubeconfig and -v before the command, as kpt's root takes them (`kpt-ts --kubeconfig K live apply`)", async () => {
    const ns = await createNamespace("e2e-root-kc");
    const dir = await writePackage({ "resourcegroup.yaml": rg(ns, "root-kc"), "cm.yaml": configMap("root-kc", ns) });
    const env = { KUBECONFIG: NOWHERE };
    const apply = await kptTs(["--kubeconfig", kubeconfig(), "-v", "2", "live", "apply", dir], { env });
    expect(apply.code, printed(apply)).toBe(0);
    expect(apply.stdout).toContain("configmap/root-kc created");
    if (hasBinary("kpt")) {
      const theirs = await run("kpt", ["--kubeconfig", kubeconfig(), "-v", "2", "live", "status", dir], { env });
      expect(theirs.code, printed(theirs)).toBe(0);
      expect(theirs.stdout).toContain("root-kc is Current");
    }
    // The command's own flag wins over the root's, as the nearer one does in kpt.
    const destroy = await kptTs(["--kubeconfig", NOWHERE, "live", "destroy", "--kubeconfig", kubeconfig(), dir], { env });
    expect(destroy.code, printed(destroy)).toBe(0);
    expect(destroy.stdout).toContain("configmap/root-kc deleted");
  });

  it("live status --timeout also bounds a list the server never answers: what it could not read is Unknown, and says why", async () => {
    const ns = await createNamespace("e2e-status-held");
    const dir = await writePackage({ "resourcegroup.yaml": rg(ns, "held"), "objs.yaml": docs(configMap("held", ns), service("open", ns)) });
    expect((await kptTs(["live", "apply", dir])).code).toBe(0);
    const proxy = await startFaultProxy(kubeconfig());
    try {
      // Every list of the namespace's ConfigMaps is held for a minute; the Service answers at once.
      const configMapList = (r: { method: string; path: string }) => r.method === "GET" && r.path.split("?")[0] === `/api/v1/namespaces/${ns}/configmaps`;
      proxy.setFaults({ rate: 1, kinds: ["delay"], delayMs: [60_000, 60_000], match: configMapList });
      const started = Date.now();
      const r = await kptTs(["live", "status", "--kubeconfig", proxy.kubeconfig, "--timeout", "3s", dir]);
      expect(Date.now() - started, printed(r)).toBeLessThan(30_000);
      expect(r.stdout).toContain(`service/open is Current: Service is ready`);
      expect(r.stdout).toContain(`configmap/held is Unknown: not read within the timeout: the API server has not answered the list of its kind`);
    } finally {
      await proxy.close();
    }
  });
});

describe("KUBECONFIG lists, as kubectl reads them", () => {
  it.skipIf(!hasBinary("kubectl"))("a missing file, duplicate names and relative paths: kpt-ts picks the cluster and user kubectl picks", async () => {
    const ns = await createNamespace("e2e-kc-list");
    await createServiceAccount(ns, "deployer", DEPLOYER);
    const token = await serviceAccountToken(ns, "deployer");
    const { server, caData } = await clusterAccess();
    const first = await tmp("kpt-ts-kc-first-");
    const second = await tmp("kpt-ts-kc-second-");
    // The first file's CA and token files are relative to it; the second file uses the same
    // names for a dead server and a wrong token, and another current-context.
    await writeFile(join(first, "ca.crt"), Buffer.from(caData, "base64"));
    await writeFile(join(first, "token"), token);
    await writeFile(join(second, "token"), "not-a-valid-token");
    await writeFile(join(second, "ca.crt"), Buffer.from(caData, "base64"));
    const a = await kubeconfigFile(join(first, "config"), {
      clusters: [["shared", { server, "certificate-authority": "ca.crt" }]],
      users: [["me", { tokenFile: "token" }]],
      contexts: [["work", { cluster: "shared", user: "me", namespace: ns }]],
      current: "work",
    });
    const b = await kubeconfigFile(join(second, "config"), {
      clusters: [["shared", { server: "https://127.0.0.1:1", "certificate-authority": "ca.crt" }]],
      users: [["me", { tokenFile: "token" }]],
      contexts: [["work", { cluster: "shared", user: "me", namespace: "elsewhere" }], ["other", { cluster: "shared", user: "me" }]],
      current: "other",
    });
    const dir = await writePackage({ "resourcegroup.yaml": rg(ns, "list"), "cm.yaml": configMap("list", ns) });

    for (const list of [[join(first, "missing"), a, b], [b, a]]) {
      const env = { KUBECONFIG: list.join(delimiter) };
      const view = await kubectl(["config", "view", "--minify", "-o", "json"], { env });
      expect(view.code, view.stderr).toBe(0);
      const picked = JSON.parse(view.stdout);
      const kubectlServer = picked.clusters[0].cluster.server as string;
      expect(picked.contexts[0].context.user).toBe("me");
      const kubectlOk = (await kubectl(["get", "configmaps", "-n", ns], { env })).code === 0;
      const r = await kptTs(["live", "apply", dir], { env });
      if (kubectlServer === server) {
        // kubectl found ca.crt and token next to the first file (not in its working directory).
        expect(kubectlOk).toBe(true);
        expect(r.code, printed(r)).toBe(0);
      } else {
        expect(kubectlOk).toBe(false);
        expect(r.code, printed(r)).toBe(1);
        expect(r.stderr).toContain(`cannot reach the cluster at ${kubectlServer}`);
      }
    }
    // The list above, in order, has the real server first: kubectl took it, and so did kpt-ts.
    expect(await getObject("configmaps", "list", ns)).toBeDefined();
  });
});

describe("in-cluster", () => {
  it("no kubeconfig, KUBERNETES_SERVICE_HOST/PORT and a ServiceAccount directory: commands work, and a replaced token file is picked up mid-run", async () => {
    const ns = await createNamespace("e2e-in-cluster");
    await createServiceAccount(ns, "deployer", [...DEPLOYER, { apiGroups: ["apps"], resources: ["deployments"], verbs: ["*"] }]);
    const { server, caData } = await clusterAccess();
    const url = new URL(server);
    const sa = await tmp("kpt-ts-sa-");
    // A token bound to a Secret: deleting the Secret revokes it (the API server answers 401).
    const bound = async (secret: string) => {
      expect((await kubectl(["create", "secret", "generic", secret, "-n", ns])).code).toBe(0);
      const t = await kubectl(["create", "token", "deployer", "-n", ns, "--bound-object-kind", "Secret", "--bound-object-name", secret, "--duration", "1h"]);
      expect(t.code, t.stderr).toBe(0);
      return t.stdout.trim();
    };
    await writeFile(join(sa, "token"), await bound("token-1"));
    await writeFile(join(sa, "ca.crt"), Buffer.from(caData, "base64"));
    await writeFile(join(sa, "namespace"), ns);
    const env = { KUBECONFIG: NOWHERE, KUBERNETES_SERVICE_HOST: url.hostname, KUBERNETES_SERVICE_PORT: url.port, KPT_TS_SERVICEACCOUNT_DIR: sa };

    // The context namespace is the ServiceAccount's: the package's objects have none.
    const dir = await writePackage({ "resourcegroup.yaml": rg(ns, "pod"), "cm.yaml": configMap("in-pod", undefined) });
    const apply = await kptTs(["live", "apply", dir], { env });
    expect(apply.code, printed(apply)).toBe(0);
    expect(await getObject("configmaps", "in-pod", ns)).toBeDefined();

    // A run that waits ~12 s on a Deployment, then applies a ConfigMap that depends on it. The
    // token is rotated (and the old one revoked) while it waits.
    const slow = `apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: slow\n  namespace: ${ns}\nspec:\n  minReadySeconds: 12\n  replicas: 1\n  selector:\n    matchLabels: {app: slow}\n  template:\n    metadata:\n      labels: {app: slow}\n    spec:\n      containers: [{name: main, image: nginx}]\n`;
    const after = configMap("after-rotation", ns, { k: "v" }, { annotations: { "config.kubernetes.io/depends-on": `apps/namespaces/${ns}/Deployment/slow` } });
    const long = await writePackage({ "resourcegroup.yaml": rg(ns, "pod"), "cm.yaml": docs(configMap("in-pod", undefined), slow, after) });
    const run = startBackground(process.execPath, [CLI, "live", "apply", "--reconcile-timeout=2m", long], { env });
    await run.waitForOutput(/deployment.apps\/slow (created|configured)/, { timeoutMs: 60_000 });
    const next = await bound("token-2");
    await writeFile(join(sa, "token.new"), next);
    await rename(join(sa, "token.new"), join(sa, "token"));
    expect((await kubectl(["delete", "secret", "token-1", "-n", ns])).code).toBe(0);
    const done = await run.done;
    expect(done.code, printed(done)).toBe(0);
    expect(done.stdout).toContain("configmap/after-rotation created");
    expect(await getObject("configmaps", "after-rotation", ns)).toBeDefined();
  });
});
