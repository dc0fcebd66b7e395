// Legacy auth-provider users (oidc, azure, gcp): @kubernetes/client-node knows them, so it is
// given the one user our loader read (no second reading of the kubeconfig files, which merges
// differently) and imported only here, when such a user is used: importing it costs ~0.5 s.
// It is an optional peer dependency (54 MB that nobody else needs): not installed by default, so
// such a user is told what to install.

import { createRequire } from "node:module";
import { ClusterError } from "../model/errors.js";
import type { Credentials, CredentialSource } from "./credential-source.js";
import type { Entry } from "./kubeconfig-files.js";

/** The version range package.json's peerDependencies give (a unit test keeps the two equal). */
export const CLIENT_NODE = { name: "@kubernetes/client-node", range: "^1.4.0" } as const;

export function authProviderCredentials(user: Entry, server: string, base: Credentials, owner: string): CredentialSource {
  const name = String(user["auth-provider"]?.name ?? "");
  let generation = 0;
  let kc: Promise<any> | undefined;
  return {
    runsProgram: true,
    get: async () => {
      try {
        kc ??= Promise.resolve().then(() => {
          const k8s = loadClientNode();
          const c = new k8s.KubeConfig();
          c.loadFromOptions({
            clusters: [{ name: "c", server, skipTLSVerify: false }],
            users: [{ name: "u", authProvider: user["auth-provider"] }],
            contexts: [{ name: "x", cluster: "c", user: "u" }],
            currentContext: "x",
          });
          return c;
        });
        const o: { headers?: Record<string, string> } = { headers: {} };
        await (await kc).applyToHTTPSOptions(o);
        const headers: Record<string, string> = { ...base.headers };
        for (const [k, v] of Object.entries(o.headers ?? {})) headers[k.toLowerCase()] = String(v);
        return { ...base, headers, generation };
      } catch (err) {
        if (isMissing(err)) {
          throw new ClusterError(
            `cannot get credentials: the auth-provider "${name}" of ${owner} needs ${CLIENT_NODE.name}, which is not installed: install it where kpt-ts is installed (\`npm install --global ${CLIENT_NODE.name}@${CLIENT_NODE.range}\` for a global kpt-ts; without --global in a project that depends on kpt-ts)`,
            { detail: "auth-provider plugins are deprecated: an exec credential plugin (e.g. kubelogin, gke-gcloud-auth-plugin) needs no extra package." },
          );
        }
        throw new ClusterError(`cannot get credentials: the auth-provider "${name}" of ${owner}: ${(err as Error).message.split("\n")[0]}`, {
          detail: "auth-provider plugins are deprecated: use an exec credential plugin (e.g. kubelogin, gke-gcloud-auth-plugin).",
        });
      }
    },
    invalidate: () => {
      generation++;
      return true;
    },
  };
}

/**
 * require(), not import(): the launcher runs the bundled program through vm.Script with V8's code
 * cache, and code read back from that cache has lost its dynamic import callback ("A dynamic
 * import callback was not specified"); require() of this ES module works on every Node that
 * package.json's engines allow (>= 20.19), and needs no experimental loader.
 */
function loadClientNode(): typeof import("@kubernetes/client-node") {
  return createRequire(import.meta.url)(CLIENT_NODE.name) as typeof import("@kubernetes/client-node");
}

/** The import failed because the package itself is absent (not one of its own imports). */
function isMissing(err: unknown): boolean {
  const e = err as { code?: string; message?: string };
  return (e?.code === "ERR_MODULE_NOT_FOUND" || e?.code === "MODULE_NOT_FOUND") && new RegExp(`['"]${CLIENT_NODE.name}['"]`).test(e.message ?? "");
}
