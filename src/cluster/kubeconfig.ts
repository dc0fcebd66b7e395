// The connection a run uses: the kubeconfig as kubectl reads it (kubeconfig-files.ts), the
// connection flags on top with kubectl's meaning (client-go's ClientConfig overrides), or, with
// no kubeconfig at all, the in-cluster configuration of a Pod's ServiceAccount.

import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { ClusterError } from "../model/errors.js";
import { authProviderCredentials } from "./auth-provider.js";
import { staticCredentials, tokenFileCredentials, type Credentials, type CredentialSource } from "./credential-source.js";
import { execCredentials } from "./exec-credential.js";
import { readKubeconfigs, type Entry } from "./kubeconfig-files.js";

/** kubectl's connection flags (all optional) and what the process gives a connection. */
export interface KubeconfigOptions {
  kubeconfig?: string;
  context?: string;
  /** -n: overrides the context's namespace. */
  namespace?: string;
  cluster?: string;
  user?: string;
  server?: string;
  token?: string;
  username?: string;
  password?: string;
  certificateAuthority?: string;
  clientCertificate?: string;
  clientKey?: string;
  insecureSkipTlsVerify?: boolean;
  tlsServerName?: string;
  as?: string;
  asGroups?: string[];
  asUid?: string;
  /** --request-timeout in ms; undefined or 0: no limit. */
  requestTimeoutMs?: number;
  disableCompression?: boolean;
  /** Defaults to process.env. */
  env?: NodeJS.ProcessEnv;
  /** Where credential plugins' stderr goes (default: process.stderr). */
  pluginStderr?: NodeJS.WritableStream;
  /** Standard input, for interactive credential plugins (default: process.stdin). */
  stdin?: NodeJS.ReadStream;
  /** The run's cancellation: a credential plugin still running is stopped when it fires. */
  signal?: AbortSignal;
}

interface Impersonation {
  user?: string;
  uid?: string;
  groups: string[];
  extra: Record<string, string[]>;
}

export interface ClusterConnection {
  server: string;
  contextName: string;
  /** The name of the user entry (or the impersonated user): who runs the command, for messages and history. */
  userName: string;
  /** The context's namespace, or "default". */
  namespace: string;
  /** True when -n was given: objects in other namespaces are an error, as in kpt. */
  namespaceEnforced: boolean;
  ca?: Buffer;
  insecureSkipTlsVerify: boolean;
  tlsServerName?: string;
  /** The cluster's proxy-url; without it, HTTPS_PROXY / NO_PROXY decide. */
  proxyUrl?: string;
  disableCompression: boolean;
  impersonate?: Impersonation;
  requestTimeoutMs?: number;
  credentials: CredentialSource;
  /** Where it came from: the kubeconfig files read, or "in-cluster", for error messages. */
  files: string[];
  env: NodeJS.ProcessEnv;
}

const SERVICE_ACCOUNT_DIR = "/var/run/secrets/kubernetes.io/serviceaccount";

const b64 = (s: unknown) => (typeof s === "string" && s ? Buffer.from(s, "base64") : undefined);
const str = (v: unknown) => (typeof v === "string" && v ? v : undefined);

function readFileFor(path: string | undefined, what: string): Buffer | undefined {
  if (!path) return undefined;
  try {
    return readFileSync(path);
  } catch (err) {
    throw new ClusterError(`cannot read ${path} (${what}): ${(err as Error).message}`, { detail: "Fix the path in your kubeconfig or flags." });
  }
}

export function loadConnection(opts: KubeconfigOptions = {}): ClusterConnection {
  const env = opts.env ?? process.env;
  const kc = readKubeconfigs(opts.kubeconfig, env);
  if (kc.files.length === 0 && !opts.server) {
    if (env.KUBERNETES_SERVICE_HOST && env.KUBERNETES_SERVICE_PORT && !opts.kubeconfig) return inClusterConnection(opts, env);
    throw new ClusterError(`no kubeconfig found: ${kc.searched.join(", ")} ${kc.searched.length > 1 ? "do" : "does"} not exist`, {
      detail: "Point --kubeconfig or KUBECONFIG at your cluster's kubeconfig, or pass --server (with --token or --certificate-authority).",
    });
  }
  const where = kc.files.join(":") || "(no kubeconfig)";
  const contextName = opts.context ?? kc.currentContext ?? "";
  const ctx: Entry = contextName ? (kc.contexts.get(contextName) ?? missing("context", contextName, kc.contexts, where, Boolean(opts.server && !opts.context))) : {};
  const clusterName = opts.cluster ?? str(ctx.cluster) ?? "";
  const cluster: Entry = clusterName ? (kc.clusters.get(clusterName) ?? missing("cluster", clusterName, kc.clusters, where, Boolean(opts.server && !opts.cluster))) : {};
  const userName = opts.user ?? str(ctx.user) ?? "";
  const user: Entry = userName ? (kc.users.get(userName) ?? (opts.user ? missing("user", userName, kc.users, where, false) : {})) : {};

  let server = opts.server ?? str(cluster.server);
  if (!server) {
    throw new ClusterError(
      contextName ? `context "${contextName}" has no cluster with a server in kubeconfig ${where}` : `no current context in kubeconfig ${where}`,
      { detail: "Pass --context NAME (or set one with `kubectl config use-context NAME`), or --server ADDRESS." },
    );
  }
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(server)) server = `https://${server}`;

  // TLS, as client-go merges the overrides: --certificate-authority or --insecure-skip-tls-verify
  // replace the cluster's CA and skip setting; --server or --tls-server-name replace tls-server-name.
  let ca = b64(cluster["certificate-authority-data"]) ?? readFileFor(str(cluster["certificate-authority"]), `certificate-authority of cluster "${clusterName}"`);
  let insecure = cluster["insecure-skip-tls-verify"] === true;
  if (opts.certificateAuthority || opts.insecureSkipTlsVerify) {
    ca = readFileFor(opts.certificateAuthority, "--certificate-authority");
    insecure = Boolean(opts.insecureSkipTlsVerify);
  }
  const tlsServerName = opts.tlsServerName || opts.server ? opts.tlsServerName : str(cluster["tls-server-name"]);

  const owner = `user "${userName}" (kubeconfig ${str(user.__file) ?? where})`;
  const base: Credentials = {
    headers: {},
    cert: opts.clientCertificate ? readFileFor(opts.clientCertificate, "--client-certificate") : (b64(user["client-certificate-data"]) ?? readFileFor(str(user["client-certificate"]), `client-certificate of ${owner}`)),
    key: opts.clientKey ? readFileFor(opts.clientKey, "--client-key") : (b64(user["client-key-data"]) ?? readFileFor(str(user["client-key"]), `client-key of ${owner}`)),
  };
  const username = opts.username ?? str(user.username);
  const password = opts.password ?? str(user.password);
  if (username && password) base.headers.authorization = `Basic ${Buffer.from(`${username}:${password}`).toString("base64")}`;

  let credentials: CredentialSource;
  const token = opts.token ?? str(user.token);
  // kubectl reads the user's credentials only for a TLS server: over http:// nothing secret is
  // sent (impersonation still is).
  if (server.startsWith("http:")) credentials = staticCredentials({ headers: {} });
  else if (token) credentials = staticCredentials({ ...base, headers: { ...base.headers, authorization: `Bearer ${token}` } });
  else if (str(user.tokenFile)) credentials = tokenFileCredentials(user.tokenFile, base, `tokenFile of ${owner}`);
  else if (user.exec && typeof user.exec === "object") {
    const execConfig = (Array.isArray(cluster.extensions) ? cluster.extensions : []).find((e: any) => e?.name === "client.authentication.k8s.io/exec")?.extension;
    credentials = execCredentials(user.exec, base, {
      owner,
      cluster: {
        server,
        ...(tlsServerName ? { "tls-server-name": tlsServerName } : {}),
        ...(insecure ? { "insecure-skip-tls-verify": true } : {}),
        ...(ca ? { "certificate-authority-data": ca.toString("base64") } : {}),
        ...(str(cluster["proxy-url"]) ? { "proxy-url": cluster["proxy-url"] } : {}),
        ...(cluster["disable-compression"] === true ? { "disable-compression": true } : {}),
        ...(execConfig !== undefined ? { config: execConfig } : {}),
      },
      env,
      stderr: opts.pluginStderr ?? process.stderr,
      stdin: opts.stdin ?? process.stdin,
      ...(opts.signal ? { signal: opts.signal } : {}),
    });
  } else if (user["auth-provider"]) credentials = authProviderCredentials(user, server, base, owner);
  else credentials = staticCredentials(base);

  const impersonate = impersonation(opts, user);
  return {
    server: server.replace(/\/+$/, ""),
    contextName,
    userName: impersonate?.user ?? userName,
    namespace: opts.namespace || str(ctx.namespace) || "default",
    namespaceEnforced: Boolean(opts.namespace),
    ca,
    insecureSkipTlsVerify: insecure,
    tlsServerName,
    proxyUrl: str(cluster["proxy-url"]),
    disableCompression: Boolean(opts.disableCompression) || cluster["disable-compression"] === true,
    impersonate,
    requestTimeoutMs: opts.requestTimeoutMs || undefined,
    credentials,
    files: kc.files,
    env,
  };
}

function missing(kind: string, name: string, known: Map<string, Entry>, where: string, tolerated: boolean): Entry {
  // kubectl: with --server, a current-context (or its cluster) that does not exist is no error.
  if (tolerated) return {};
  throw new ClusterError(`${kind} "${name}" not found in kubeconfig ${where}`, {
    detail: `Known ${kind}s: ${[...known.keys()].join(", ") || "(none)"}. Pass one with --${kind}.`,
  });
}

/** --as, --as-group, --as-uid over the user's as, as-groups, as-uid, as-user-extra. */
function impersonation(opts: KubeconfigOptions, user: Entry): Impersonation | undefined {
  const extra: Record<string, string[]> = {};
  if (user["as-user-extra"] && typeof user["as-user-extra"] === "object") {
    for (const [k, v] of Object.entries(user["as-user-extra"])) extra[k] = Array.isArray(v) ? v.map(String) : [String(v)];
  }
  const groups = opts.asGroups?.length ? opts.asGroups : Array.isArray(user["as-groups"]) ? user["as-groups"].map(String) : [];
  const imp: Impersonation = { user: opts.as || str(user.as), uid: opts.asUid || str(user["as-uid"]), groups, extra };
  if (!imp.user && !imp.uid && groups.length === 0 && Object.keys(extra).length === 0) return undefined;
  if (!imp.user) {
    throw new ClusterError("impersonating a group, uid or extra needs a user to impersonate too", { detail: "Add --as USER (or `as:` in the kubeconfig user)." });
  }
  return imp;
}

/**
 * A Pod's ServiceAccount, as client-go's InClusterConfig: the server from
 * KUBERNETES_SERVICE_HOST/PORT, the token and CA from the standard directory
 * (KPT_TS_SERVICEACCOUNT_DIR moves it), the token read again whenever the file changes.
 */
function inClusterConnection(opts: KubeconfigOptions, env: NodeJS.ProcessEnv): ClusterConnection {
  const dir = env.KPT_TS_SERVICEACCOUNT_DIR || SERVICE_ACCOUNT_DIR;
  const host = env.KUBERNETES_SERVICE_HOST!;
  const server = `https://${host.includes(":") ? `[${host}]` : host}:${env.KUBERNETES_SERVICE_PORT}`;
  const tokenPath = join(dir, "token");
  if (!opts.token && !existsSync(tokenPath)) {
    throw new ClusterError(`no kubeconfig found, and no in-cluster ServiceAccount token at ${tokenPath}`, {
      detail: "Point --kubeconfig or KUBECONFIG at your cluster's kubeconfig, or mount the Pod's ServiceAccount token.",
    });
  }
  const caPath = join(dir, "ca.crt");
  const ca = opts.certificateAuthority ? readFileFor(opts.certificateAuthority, "--certificate-authority") : existsSync(caPath) ? readFileFor(caPath, "the in-cluster CA") : undefined;
  let namespace = opts.namespace || env.POD_NAMESPACE;
  if (!namespace) {
    try {
      namespace = readFileSync(join(dir, "namespace"), "utf8").trim();
    } catch {
      namespace = undefined;
    }
  }
  const base: Credentials = { headers: {} };
  const credentials = opts.token ? staticCredentials({ headers: { authorization: `Bearer ${opts.token}` } }) : tokenFileCredentials(tokenPath, base, "the in-cluster ServiceAccount token");
  const impersonate = impersonation(opts, {});
  return {
    server,
    contextName: "in-cluster",
    userName: impersonate?.user ?? "in-cluster ServiceAccount",
    namespace: namespace || "default",
    namespaceEnforced: Boolean(opts.namespace),
    ca,
    insecureSkipTlsVerify: Boolean(opts.insecureSkipTlsVerify),
    tlsServerName: opts.tlsServerName,
    disableCompression: Boolean(opts.disableCompression),
    impersonate,
    requestTimeoutMs: opts.requestTimeoutMs || undefined,
    credentials,
    files: ["in-cluster"],
    env,
  };
}
