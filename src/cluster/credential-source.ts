// Where a request's credentials come from. Every kind of user gives the transport the same
// small interface: the credentials to use now (fetched or refreshed as needed), and a way to
// say the server refused them (401), so the next request fetches new ones, once.

import { readFileSync, statSync } from "node:fs";
import { ClusterError } from "../model/errors.js";

export interface Credentials {
  /** Header values by lower-case name (authorization). */
  headers: Record<string, string>;
  /** A client certificate and key (PEM), when the user authenticates with one. */
  cert?: Buffer;
  key?: Buffer;
}

export interface CredentialSource {
  /**
   * The credentials to send now; `generation` changes whenever they do. `signal`: the caller
   * stops waiting when it fires (the request was cancelled).
   */
  get(signal?: AbortSignal): Promise<Credentials & { generation: number }>;
  /**
   * The server answered 401 to credentials of this generation: forget them. True when new ones
   * may differ (the request is worth one more try), false when the same would be sent again.
   */
  invalidate(generation: number): boolean;
  /**
   * Getting them runs a program (an exec plugin, an auth provider), which may prompt: not done
   * ahead of need (see KubeCluster.prepare), only once the command has checked its input.
   */
  readonly runsProgram?: boolean;
}

export function staticCredentials(c: Credentials): CredentialSource {
  const value = { ...c, generation: 0 };
  return { get: async () => value, invalidate: () => false };
}

/**
 * A bearer token read from a file and read again when the file changes (a rotated projected
 * ServiceAccount token, a tokenFile a login helper rewrites). The file is checked at most once
 * a second, and at once after a 401.
 */
export function tokenFileCredentials(path: string, base: Credentials, what: string): CredentialSource {
  let generation = 0;
  let current: (Credentials & { generation: number }) | undefined;
  let stamp = "";
  let checkedAt = 0;
  const read = () => {
    let text: string;
    let st;
    try {
      st = statSync(path);
      text = readFileSync(path, "utf8");
    } catch (err) {
      throw new ClusterError(`cannot read the token file ${path} (${what}): ${(err as Error).message}`, { detail: "Check that the file exists and is readable." });
    }
    const token = text.trim();
    stamp = `${st.mtimeMs}:${st.size}:${st.ino}`;
    current = { ...base, headers: { ...base.headers, authorization: `Bearer ${token}` }, generation: ++generation };
  };
  return {
    get: async () => {
      const now = Date.now();
      if (!current) read();
      else if (now - checkedAt >= 1000) {
        checkedAt = now;
        try {
          const st = statSync(path);
          if (`${st.mtimeMs}:${st.size}:${st.ino}` !== stamp) read();
        } catch {
          // Replaced in a non-atomic way, or briefly gone: keep the token we have.
        }
      }
      return current!;
    },
    invalidate: (g) => {
      if (g !== generation) return true;
      const before = stamp;
      try {
        read();
      } catch {
        return false;
      }
      return stamp !== before;
    },
  };
}
