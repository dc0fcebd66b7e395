// Reads kubeconfig files the way kubectl does (KUBECONFIG list merged, first value wins; else
// ~/.kube/config) for the common auth kinds: client certificates, bearer tokens, basic auth.
// Exec and auth-provider plugins are delegated to @kubernetes/client-node, loaded only then,
// because importing it costs ~300 ms of start-up that most users never need.

import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, isAbsolute, join, resolve } from "node:path";
import jsyaml from "js-yaml";
import { ClusterError } from "../errors.js";

export interface KubeconfigOptions {
  kubeconfig?: string;
  context?: string;
  /** -n: overrides the context's namespace. */
  namespace?: string;
}

export interface ClusterConnection {
  server: string;
  contextName: string;
  /** The name of the context's user entry (who runs the command, as kubeconfig names them). */
  userName: string;
  /** The context's namespace, or "default". */
  namespace: string;
  /** True when -n was given: objects in other namespaces are an error, as in kpt. */
  namespaceEnforced: boolean;
  ca?: Buffer;
  cert?: Buffer;
  key?: Buffer;
  insecureSkipTlsVerify: boolean;
  tlsServerName?: string;
  /** Static headers (Authorization) for every request. */
  headers: Record<string, string>;
  /** Set when the user authenticates through a plugin: returns fresh headers/certs per call. */
  refreshAuth?: () => Promise<{ headers: Record<string, string>; cert?: Buffer; key?: Buffer }>;
  /** The files that were read, for error messages. */
  files: string[];
}

interface Named<T> {
  name: string;
  value: T;
}
interface RawConfig {
  file: string;
  clusters: Named<any>[];
  contexts: Named<any>[];
  users: Named<any>[];
  currentContext?: string;
}

function kubeconfigPaths(explicit?: string): string[] {
  if (explicit) return [explicit];
  const env = process.env.KUBECONFIG;
  if (env) return env.split(":").filter(Boolean);
  return [join(homedir(), ".kube", "config")];
}

function readRaw(file: string, required: boolean): RawConfig | undefined {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (err) {
    if (!required && (err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new ClusterError(`cannot read kubeconfig ${file}: ${(err as Error).message}`, {
      detail: "Point --kubeconfig or KUBECONFIG at your cluster's kubeconfig.",
    });
  }
  let doc: any;
  try {
    // js-yaml is loaded anyway for the package; kubeconfigs are plain YAML (core schema: no timestamps).
    doc = jsyaml.load(text, { schema: jsyaml.CORE_SCHEMA }) ?? {};
  } catch (err) {
    throw new ClusterError(`kubeconfig ${file} is not valid YAML: ${(err as Error).message}`);
  }
  const named = (list: unknown, key: string): Named<any>[] =>
    Array.isArray(list) ? list.filter((e) => e && typeof e.name === "string").map((e) => ({ name: e.name, value: e[key] ?? {} })) : [];
  return {
    file,
    clusters: named(doc.clusters, "cluster"),
    contexts: named(doc.contexts, "context"),
    users: named(doc.users, "user"),
    currentContext: typeof doc["current-context"] === "string" && doc["current-context"] ? doc["current-context"] : undefined,
  };
}

function firstByName(configs: RawConfig[], pick: (c: RawConfig) => Named<any>[], name: string): { value: any; file: string } | undefined {
  for (const c of configs) {
    const hit = pick(c).find((e) => e.name === name);
    if (hit) return { value: hit.value, file: c.file };
  }
  return undefined;
}

function fileBytes(path: string | undefined, base: string): Buffer | undefined {
  if (!path) return undefined;
  const p = isAbsolute(path) ? path : resolve(dirname(base), path);
  try {
    return readFileSync(p);
  } catch (err) {
    throw new ClusterError(`cannot read ${p} named in kubeconfig ${base}: ${(err as Error).message}`);
  }
}

const b64 = (s: unknown) => (typeof s === "string" && s ? Buffer.from(s, "base64") : undefined);

export function loadConnection(opts: KubeconfigOptions = {}): ClusterConnection {
  const paths = kubeconfigPaths(opts.kubeconfig);
  const configs = paths.map((p) => readRaw(p, Boolean(opts.kubeconfig) || paths.length === 1)).filter((c): c is RawConfig => Boolean(c));
  const files = configs.map((c) => c.file);
  const contextName = opts.context ?? configs.find((c) => c.currentContext)?.currentContext;
  if (!contextName) {
    throw new ClusterError(`no current context in kubeconfig ${paths.join(":")}`, {
      detail: "Pass --context NAME, or set one with `kubectl config use-context NAME`.",
    });
  }
  const ctx = firstByName(configs, (c) => c.contexts, contextName);
  if (!ctx) {
    const known = configs.flatMap((c) => c.contexts.map((x) => x.name));
    throw new ClusterError(`context "${contextName}" not found in kubeconfig ${paths.join(":")}`, {
      detail: `Known contexts: ${known.join(", ") || "(none)"}. Pass one with --context.`,
    });
  }
  const cluster = firstByName(configs, (c) => c.clusters, ctx.value.cluster);
  if (!cluster || typeof cluster.value.server !== "string") {
    throw new ClusterError(`context "${contextName}" names cluster "${ctx.value.cluster}", which kubeconfig ${paths.join(":")} does not define (or has no server)`);
  }
  const user = firstByName(configs, (c) => c.users, ctx.value.user) ?? { value: {}, file: cluster.file };
  const u = user.value;
  const headers: Record<string, string> = {};
  let token: string | undefined = typeof u.token === "string" ? u.token : undefined;
  if (!token && typeof u.tokenFile === "string") token = fileBytes(u.tokenFile, user.file)?.toString("utf8").trim();
  if (token) headers.authorization = `Bearer ${token}`;
  else if (typeof u.username === "string" && typeof u.password === "string") {
    headers.authorization = `Basic ${Buffer.from(`${u.username}:${u.password}`).toString("base64")}`;
  }
  const conn: ClusterConnection = {
    server: cluster.value.server.replace(/\/+$/, ""),
    contextName,
    userName: typeof ctx.value.user === "string" ? ctx.value.user : "",
    namespace: opts.namespace || ctx.value.namespace || "default",
    namespaceEnforced: Boolean(opts.namespace),
    ca: b64(cluster.value["certificate-authority-data"]) ?? fileBytes(cluster.value["certificate-authority"], cluster.file),
    cert: b64(u["client-certificate-data"]) ?? fileBytes(u["client-certificate"], user.file),
    key: b64(u["client-key-data"]) ?? fileBytes(u["client-key"], user.file),
    insecureSkipTlsVerify: cluster.value["insecure-skip-tls-verify"] === true,
    tlsServerName: typeof cluster.value["tls-server-name"] === "string" ? cluster.value["tls-server-name"] : undefined,
    headers,
    files,
  };
  if (u.exec || u["auth-provider"]) {
    const plugin = u.exec ? `exec credential plugin "${String(u.exec.command ?? "")}"` : `auth-provider "${String(u["auth-provider"]?.name ?? "")}"`;
    conn.refreshAuth = failingClearly(pluginAuth(opts, contextName), `the ${plugin} of user "${String(ctx.value.user)}" (kubeconfig ${user.file})`);
  }
  return conn;
}

/**
 * A credential plugin's failure as a ClusterError that says which plugin failed and why: its
 * exit and its stderr, never its stdout (which holds the credential, or part of one).
 */
function failingClearly<T>(refresh: () => Promise<T>, what: string): () => Promise<T> {
  return async () => {
    try {
      return await refresh();
    } catch (err) {
      const e = err as NodeJS.ErrnoException;
      const why =
        e.code === "ENOENT"
          ? "the command was not found"
          : e.code === "EACCES"
            ? "the command is not executable"
            : e instanceof SyntaxError
              ? "it did not print an ExecCredential (JSON)"
              : e.message?.trim()
                ? `it failed: ${e.message.trim().split("\n")[0]}`
                : "it exited with an error and printed nothing on stderr";
      throw new ClusterError(`cannot get credentials: ${what}: ${why}`, { detail: "Run the plugin yourself to see what it says, or fix users[].user.exec in your kubeconfig." });
    }
  };
}

/** Exec / auth-provider credentials through client-node, imported lazily and cached per run. */
function pluginAuth(opts: KubeconfigOptions, contextName: string): NonNullable<ClusterConnection["refreshAuth"]> {
  let kcPromise: Promise<any> | undefined;
  return async () => {
    kcPromise ??= import("@kubernetes/client-node").then((k8s) => {
      const kc = new k8s.KubeConfig();
      if (opts.kubeconfig) kc.loadFromFile(opts.kubeconfig);
      else kc.loadFromDefault();
      kc.setCurrentContext(contextName);
      return kc;
    });
    const kc = await kcPromise;
    const o: { headers?: Record<string, string>; cert?: Buffer; key?: Buffer } = { headers: {} };
    await kc.applyToHTTPSOptions(o);
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(o.headers ?? {})) headers[k.toLowerCase()] = String(v);
    return { headers, cert: o.cert, key: o.key };
  };
}
