// Kubeconfig files read and merged as kubectl (client-go's clientcmd loader) does: the
// KUBECONFIG list split on the platform's delimiter, missing files skipped, every named entry
// and current-context taken from the first file that has it, relative paths resolved against
// the file that names them. This is the only kubeconfig parser: every kind of user (tokens,
// certificates, exec and auth-provider plugins) is read from what it returns.

import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import { delimiter, dirname, isAbsolute, resolve, sep } from "node:path";
import jsyaml from "js-yaml";
import { ClusterError } from "../model/errors.js";

export type Entry = Record<string, any>;

interface MergedKubeconfig {
  clusters: Map<string, Entry>;
  users: Map<string, Entry>;
  contexts: Map<string, Entry>;
  currentContext?: string;
  /** Files that existed and were read, in order. */
  files: string[];
  /** Files looked for (read or not), for messages. */
  searched: string[];
}

/** Where kubectl looks: --kubeconfig, else each file of $KUBECONFIG, else ~/.kube/config. */
function kubeconfigPaths(explicit: string | undefined, env: NodeJS.ProcessEnv): { paths: string[]; explicit: boolean } {
  if (explicit) return { paths: [explicit], explicit: true };
  const list = env.KUBECONFIG;
  if (list) return { paths: [...new Set(list.split(delimiter).filter(Boolean))], explicit: false };
  return { paths: [resolve(env.HOME || homedir(), ".kube", "config")], explicit: false };
}

/** Reads the files; a missing file is skipped unless it was named with --kubeconfig. */
export function readKubeconfigs(explicit: string | undefined, env: NodeJS.ProcessEnv = process.env): MergedKubeconfig {
  const { paths, explicit: isExplicit } = kubeconfigPaths(explicit, env);
  const merged: MergedKubeconfig = { clusters: new Map(), users: new Map(), contexts: new Map(), files: [], searched: paths };
  for (const file of paths) {
    const text = readIfPresent(file, isExplicit);
    if (text === undefined) continue;
    merged.files.push(file);
    const doc = parseFile(file, text);
    for (const [key, map, field] of [
      ["clusters", merged.clusters, "cluster"],
      ["users", merged.users, "user"],
      ["contexts", merged.contexts, "context"],
    ] as const) {
      // A name twice in one file is an error (kubectl: "duplicate name in list"); across files
      // the first file's entry wins, whole.
      const own = new Map<string, Entry>();
      for (const e of Array.isArray(doc[key]) ? doc[key] : []) {
        if (!e || typeof e.name !== "string") continue;
        if (own.has(e.name)) {
          throw new ClusterError(`kubeconfig ${file} lists ${field} "${e.name}" twice`, { detail: `Remove or rename one of the two ${key} entries named "${e.name}" (kubectl refuses the file too).` });
        }
        own.set(e.name, resolvePaths(field, { ...(e[field] ?? {}) }, file));
      }
      for (const [name, value] of own) if (!map.has(name)) map.set(name, value);
    }
    const cc = doc["current-context"];
    if (!merged.currentContext && typeof cc === "string" && cc) merged.currentContext = cc;
  }
  return merged;
}

function readIfPresent(file: string, required: boolean): string | undefined {
  try {
    return readFileSync(file, "utf8");
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (!required && code === "ENOENT") return undefined;
    throw new ClusterError(`cannot read kubeconfig ${file}: ${code === "ENOENT" ? "no such file" : (err as Error).message}`, {
      detail: "Point --kubeconfig or KUBECONFIG at your cluster's kubeconfig.",
    });
  }
}

function parseFile(file: string, text: string): Record<string, any> {
  try {
    // Plain YAML (core schema: no timestamps); js-yaml is loaded anyway for packages.
    const doc = jsyaml.load(text, { schema: jsyaml.CORE_SCHEMA }) ?? {};
    if (typeof doc !== "object" || Array.isArray(doc)) throw new Error("not a mapping");
    return doc as Record<string, any>;
  } catch (err) {
    throw new ClusterError(`kubeconfig ${file} is not valid YAML: ${(err as Error).message}`, { detail: "Fix the file, or point --kubeconfig elsewhere." });
  }
}

const abs = (path: string, file: string) => (isAbsolute(path) ? path : resolve(dirname(file), path));

/** Relative file references, as client-go's ResolveLocalPaths: against the naming file's directory. */
function resolvePaths(kind: "cluster" | "user" | "context", e: Entry, file: string): Entry {
  const fields = kind === "cluster" ? ["certificate-authority"] : kind === "user" ? ["client-certificate", "client-key", "tokenFile"] : [];
  for (const f of fields) if (typeof e[f] === "string" && e[f]) e[f] = abs(e[f], file);
  // An exec command is a path only when it contains a separator; a bare name is looked up on PATH.
  if (kind === "user" && e.exec && typeof e.exec.command === "string" && e.exec.command.includes(sep)) {
    e.exec = { ...e.exec, command: abs(e.exec.command, file) };
  }
  if (kind !== "context") e.__file = file;
  return e;
}
