// Issue 30: a re-apply of Argo Rollouts asked the server, on every run, to dry-run the same
// client-side patch of each of its five CRDs (200 KB each; plan/check-patches.ts), against the same
// version of each: the answer cannot have changed. KubeCluster keeps such an answer in its disk
// cache under the object's uid and resourceVersion and the patch itself, and asks again when any
// of them changed; never a Secret's answer (it holds the Secret's values).
import { mkdtemp, readdir, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { KubeCluster } from "../../src/cluster/kube-cluster.js";
import type { ObjRef } from "../../src/model/ref.js";
import { sendJson, startFakeApiServer, type FakeServer } from "../helpers/fake-api-server.js";

const servers: FakeServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});

const resource = (resource: string, kind: string) => ({ resource, responseKind: { group: "", version: "v1", kind }, scope: "Namespaced", verbs: ["get", "list", "patch"] });

/** Core v1 ConfigMaps and Secrets; a PATCH answers the object with the patch's data (and counts). */
async function server(): Promise<FakeServer> {
  const s = await startFakeApiServer((req, res) => {
    const path = (req.url ?? "").split("?")[0]!;
    if (path === "/api") return sendJson(res, { apiVersion: "apidiscovery.k8s.io/v2", kind: "APIGroupDiscoveryList", items: [{ metadata: { name: "" }, versions: [{ version: "v1", resources: [resource("configmaps", "ConfigMap"), resource("secrets", "Secret")] }] }] });
    if (path === "/apis") return sendJson(res, { apiVersion: "apidiscovery.k8s.io/v2", kind: "APIGroupDiscoveryList", items: [] });
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString()));
    req.on("end", () => {
      const [, , , , , kind, name] = path.split("/");
      sendJson(res, { apiVersion: "v1", kind: kind === "secrets" ? "Secret" : "ConfigMap", metadata: { name, namespace: "ns", uid: "u1", resourceVersion: "7" }, data: JSON.parse(body).data });
    });
  });
  servers.push(s);
  return s;
}

const cm: ObjRef = { group: "", kind: "ConfigMap", namespace: "ns", name: "c" };
const secret: ObjRef = { group: "", kind: "Secret", namespace: "ns", name: "s" };
const patches = (s: FakeServer) => s.requests.filter((r) => r.method === "PATCH").length;

describe("a dry run's answer, kept per object version", () => {
  it("is the server's answer again for the same patch of the same version, in a later run; asked again when the version or the patch changed", async () => {
    const s = await server();
    const cacheDir = await mkdtemp(join(tmpdir(), "kpt-ts-dry-run-"));
    const run = () => new KubeCluster({ kubeconfig: s.kubeconfig, httpCache: cacheDir });
    const dryRun = (c: KubeCluster, data: Record<string, string>, resourceVersion = "7") => c.patch(cm, { data }, "merge", { dryRun: true, fieldManager: "kubectl-client-side-apply", basedOn: { uid: "u1", resourceVersion } });

    const first = await dryRun(run(), { a: "1" });
    expect(patches(s)).toBe(1);
    expect(await dryRun(run(), { a: "1" })).toEqual(first);
    expect(patches(s)).toBe(1);
    await dryRun(run(), { a: "1" }, "8");
    await dryRun(run(), { a: "2" });
    expect(patches(s)).toBe(3);
    // Not a dry run, or not said what it was computed against: always sent.
    await run().patch(cm, { data: { a: "1" } }, "merge", { fieldManager: "kubectl-client-side-apply", basedOn: { uid: "u1", resourceVersion: "7" } });
    await run().patch(cm, { data: { a: "1" } }, "merge", { dryRun: true });
    expect(patches(s)).toBe(5);
  });

  it("is never kept for a Secret: its answer holds the Secret's values", async () => {
    const s = await server();
    const cacheDir = await mkdtemp(join(tmpdir(), "kpt-ts-dry-run-"));
    for (let i = 0; i < 2; i++) {
      await new KubeCluster({ kubeconfig: s.kubeconfig, httpCache: cacheDir }).patch(secret, { data: { password: "aHVudGVyMg==" } }, "merge", { dryRun: true, basedOn: { uid: "u1", resourceVersion: "7" } });
    }
    expect(patches(s)).toBe(2);
    const files = (await readdir(cacheDir, { recursive: true, withFileTypes: true })).filter((f) => f.isFile());
    const texts = await Promise.all(files.map((f) => readFile(join(f.parentPath, f.name), "utf8")));
    expect(texts.join("")).not.toContain("aHVudGVyMg==");
  });
});
