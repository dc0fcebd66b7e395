// The benchmark's dealings with the cluster outside the timed commands: start (or reuse) it, make
// and remove the per-tool namespaces, and clear what an interrupted run left behind.

import { spawn } from "node:child_process";
import { up } from "../tools/cluster/launcher.js";

/** Marks every namespace the benchmark creates, so leftovers can be found. */
const LABEL = "bench.kpt-ts.dev/namespace";

export async function startCluster(log: (line: string) => void): Promise<{ kubeconfig: string; server: string; reused: boolean }> {
  const { state, started } = await up({ log: (line) => log(`cluster: ${line}`) });
  return { kubeconfig: state.kubeconfig, server: state.server, reused: !started };
}

export function kubectl(env: NodeJS.ProcessEnv, args: string[], input?: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn("kubectl", args, { env, stdio: ["pipe", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.on("data", (c: Buffer) => (out += c.toString()));
    child.stderr.on("data", (c: Buffer) => (err += c.toString()));
    child.on("error", reject);
    child.on("close", (code) => (code === 0 ? resolve(out) : reject(new Error(`kubectl ${args.join(" ")}: ${err.trim() || `exit ${code}`}`))));
    child.stdin.end(input ?? "");
  });
}

export async function createNamespace(env: NodeJS.ProcessEnv, name: string): Promise<void> {
  const manifest = JSON.stringify({ apiVersion: "v1", kind: "Namespace", metadata: { name, labels: { [LABEL]: "true" } } });
  await kubectl(env, ["create", "-f", "-"], manifest);
  // Pods are refused until the namespace's default ServiceAccount exists.
  for (let i = 0; i < 100; i++) {
    if (await kubectl(env, ["get", "serviceaccount", "default", "-n", name]).then(() => true, () => false)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Deletes the namespace and waits until it is gone, with everything in it. */
export async function deleteNamespace(env: NodeJS.ProcessEnv, name: string): Promise<void> {
  await kubectl(env, ["delete", "namespace", name, "--ignore-not-found", "--wait=true", "--timeout=30m"]);
  while ((await kubectl(env, ["get", "namespace", name, "--ignore-not-found", "-o", "name"])).trim()) {
    await new Promise((r) => setTimeout(r, 500));
  }
}

export async function deleteLeftoverNamespaces(env: NodeJS.ProcessEnv): Promise<string[]> {
  const names = (await kubectl(env, ["get", "namespaces", "-l", LABEL, "-o", "name"])).split("\n").filter(Boolean).map((n) => n.replace("namespace/", ""));
  await Promise.all(names.map((n) => deleteNamespace(env, n)));
  return names;
}
