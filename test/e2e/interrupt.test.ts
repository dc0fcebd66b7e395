// "Nothing lost": an apply interrupted half way (Ctrl-C) leaves no object that the inventory does
// not list, saves the final inventory, and exits with 130.
import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import { writePackage } from "../helpers/fixtures.js";
import { CLI, createNamespace, kptTs, kubeconfig, kubectlJson } from "../helpers/run.js";

const OWNER = "config.k8s.io/owning-inventory";

function stuckDeployment(ns: string): string {
  // Never schedulable and no progress deadline: it stays InProgress for as long as we wait.
  return `apiVersion: apps/v1
kind: Deployment
metadata: {name: stuck, namespace: ${ns}}
spec:
  replicas: 1
  selector: {matchLabels: {app: stuck}}
  template:
    metadata: {labels: {app: stuck}}
    spec:
      nodeSelector: {no-such-node: "true"}
      containers: [{name: c, image: nginx}]
`;
}

describe("interrupting an apply", () => {
  it("keeps every object it may have created in the inventory and exits 130", async () => {
    const ns = await createNamespace("e2e-int");
    const rg = `apiVersion: kpt.dev/v1alpha1
kind: ResourceGroup
metadata:
  name: inv-${ns}
  namespace: ${ns}
  labels: {cli-utils.sigs.k8s.io/inventory-id: id-${ns}}
`;
    // First run: an object that the second run will want to prune.
    const dir = await writePackage({ "rg.yaml": rg, "old.yaml": `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: old, namespace: ${ns}}\ndata: {a: "1"}\n` });
    expect((await kptTs(["live", "apply", dir])).code).toBe(0);

    // Second run: wave 1 has a ConfigMap and a Deployment that never becomes ready; wave 2 waits on it.
    const dir2 = await writePackage({
      "rg.yaml": rg,
      "a.yaml": `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: first, namespace: ${ns}}\ndata: {a: "1"}\n`,
      "stuck.yaml": stuckDeployment(ns),
      "b.yaml": `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: after\n  namespace: ${ns}\n  annotations: {config.kubernetes.io/depends-on: apps/namespaces/${ns}/Deployment/stuck}\ndata: {a: "1"}\n`,
    });
    const child = spawn(process.execPath, [CLI, "live", "apply", dir2], { env: { ...process.env, KUBECONFIG: kubeconfig(), NO_COLOR: "1" } });
    let stdout = "";
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (c: string) => (stderr += c));
    const code = await new Promise<number>((resolve) => {
      child.stdout.setEncoding("utf8").on("data", (c: string) => {
        stdout += c;
        if (stdout.includes("deployment.apps/stuck reconcile pending") && !child.killed) child.kill("SIGINT");
      });
      child.on("close", (c) => resolve(c ?? -1));
    });
    expect(code, stdout + stderr).toBe(130);
    expect(stderr).toMatch(/interrupted/);
    expect(stdout).not.toContain("configmap/after created");

    const inv = await kubectlJson(["get", "resourcegroups.kpt.dev", `inv-${ns}`, "-n", ns]);
    const listed = new Set((inv.spec?.resources ?? []).map((r: { kind: string; name: string }) => `${r.kind}/${r.name}`));
    // Everything this inventory owns in the cluster is listed...
    for (const kind of ["configmaps", "deployments"]) {
      const list = await kubectlJson(["get", kind, "-n", ns]);
      for (const o of list.items) {
        if (o.metadata.annotations?.[OWNER] === `id-${ns}`) expect(listed.has(`${o.kind ?? (kind === "configmaps" ? "ConfigMap" : "Deployment")}/${o.metadata.name}`), `${kind}/${o.metadata.name} exists but is not in the inventory`).toBe(true);
      }
    }
    // ...including what the interrupted run created and what it never got to prune.
    expect(listed.has("ConfigMap/first")).toBe(true);
    expect(listed.has("Deployment/stuck")).toBe(true);
    expect(listed.has("ConfigMap/old")).toBe(true);
    // The object never created is not listed.
    expect(listed.has("ConfigMap/after")).toBe(false);
  });
});
