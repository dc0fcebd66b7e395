// Users other than the test cluster's admin: ServiceAccounts with narrow RBAC and their tokens,
// and kubeconfigs that reach the test cluster with any kind of credentials (client certificate,
// token, token file, exec plugin) or TLS setting.
import { chmod, mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stringify } from "yaml";
import { clusterAccess, kubectl } from "./run.js";

export { clusterAccess, type ClusterAccess } from "./run.js";

/** A kubeconfig file with one context: the test cluster (TLS as given, CA by default) and this user. */
export async function writeKubeconfig(user: Record<string, unknown>, opts: { namespace?: string; cluster?: Record<string, unknown> } = {}): Promise<string> {
  const access = await clusterAccess();
  const dir = await mkdtemp(join(tmpdir(), "kpt-ts-kubeconfig-"));
  const path = join(dir, "config");
  const doc = {
    apiVersion: "v1",
    kind: "Config",
    clusters: [{ name: "test", cluster: opts.cluster ?? { server: access.server, "certificate-authority-data": access.caData } }],
    users: [{ name: "user", user }],
    contexts: [{ name: "test", context: { cluster: "test", user: "user", ...(opts.namespace ? { namespace: opts.namespace } : {}) } }],
    "current-context": "test",
  };
  await writeFile(path, stringify(doc), { mode: 0o600 });
  return path;
}

export interface PolicyRule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
}

/** A ServiceAccount in `namespace` allowed exactly `rules` there (a Role and its RoleBinding). */
export async function createServiceAccount(namespace: string, name: string, rules: PolicyRule[]): Promise<void> {
  const docs = [
    { apiVersion: "v1", kind: "ServiceAccount", metadata: { name, namespace } },
    { apiVersion: "rbac.authorization.k8s.io/v1", kind: "Role", metadata: { name, namespace }, rules },
    {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "RoleBinding",
      metadata: { name, namespace },
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name },
      subjects: [{ kind: "ServiceAccount", name, namespace }],
    },
  ];
  const r = await kubectl(["apply", "-f", "-"], { input: docs.map((d) => stringify(d)).join("---\n") });
  if (r.code !== 0) throw new Error(`creating ServiceAccount ${namespace}/${name}: ${r.stderr}`);
}

/** A bearer token for the ServiceAccount (the TokenRequest API, through kubectl). */
export async function serviceAccountToken(namespace: string, name: string): Promise<string> {
  const r = await kubectl(["create", "token", name, "-n", namespace, "--duration=1h"]);
  if (r.code !== 0) throw new Error(`creating a token for ${namespace}/${name}: ${r.stderr}`);
  return r.stdout.trim();
}

/** A kubeconfig that authenticates as the ServiceAccount with a token, context namespace set to its namespace. */
export async function serviceAccountKubeconfig(namespace: string, name: string): Promise<string> {
  return writeKubeconfig({ token: await serviceAccountToken(namespace, name) }, { namespace });
}

/** An exec credential plugin (a shell script) that prints an ExecCredential with this token. */
export async function execPlugin(token: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "kpt-ts-exec-"));
  const path = join(dir, "credential-plugin.sh");
  const credential = JSON.stringify({ apiVersion: "client.authentication.k8s.io/v1", kind: "ExecCredential", status: { token } });
  await writeFile(path, `#!/bin/sh\n# Counts its calls, for the test to see it was used.\necho x >> "${dir}/calls"\ncat <<'EOF'\n${credential}\nEOF\n`);
  await chmod(path, 0o755);
  return path;
}
