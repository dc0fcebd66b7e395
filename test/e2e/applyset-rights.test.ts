// Issue 33: a team with rights in its own namespace only (a ServiceAccount bound to a namespaced
// Role: no CRD, no cluster-scoped read) applies, prunes, reports and destroys an ApplySet package
// there. Every request kpt-ts makes goes through a recording proxy: apart from discovery, the
// OpenAPI documents and its own access reviews, each names the namespace. A package that needs
// more says which right is missing before anything is written.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { writePackage } from "../helpers/fixtures.js";
import { createServiceAccount, serviceAccountKubeconfig, type PolicyRule } from "../helpers/credentials.js";
import { startRecordingProxy, type RecordingProxy } from "../helpers/recording-proxy.js";
import { createNamespace, kptTs, kubectlJson } from "../helpers/run.js";
import { configMap, docs, getObject, lines, printed, service } from "../helpers/scenario.js";

const ALL = ["get", "list", "watch", "create", "update", "patch", "delete"];
/** What the team's Role allows, in its namespace: its objects, the ApplySet's Secret, the lock's Lease. */
const TEAM: PolicyRule[] = [
  { apiGroups: [""], resources: ["configmaps", "services", "secrets"], verbs: ALL },
  { apiGroups: ["coordination.k8s.io"], resources: ["leases"], verbs: ALL },
];

/** Requests that are not about one namespace's objects: discovery, OpenAPI, SelfSubjectAccessReviews (every user may make them). Not even a GET of the namespace itself: a Role cannot grant it. */
function outsideTheNamespace(requests: readonly string[], ns: string): string[] {
  const allowed = [
    /^GET \/(api|apis)(\/[^/]+(\/[^/]+)?)?$/, // discovery: /api, /api/v1, /apis, /apis/apps/v1
    /^GET \/openapi\/v3(\/.*)?$/,
    /^GET \/version$/,
    /^POST \/apis\/authorization\.k8s\.io\/v1\/selfsubjectaccessreviews$/,
    /^POST \/apis\/authentication\.k8s\.io\/v1\/selfsubjectreviews$/,
    new RegExp(`^[A-Z]+ /(api/v1|apis/[^/]+/[^/]+)/namespaces/${ns}/`),
  ];
  return [...new Set(requests)].filter((r) => !allowed.some((a) => a.test(r)));
}

describe("a ServiceAccount with one namespace's Role and an ApplySet package", () => {
  let proxy: RecordingProxy;
  beforeAll(async () => void (proxy = await startRecordingProxy()));
  afterAll(async () => proxy?.close());

  it("applies, prunes, reports and destroys it, with no CRD and no request outside its namespace", async () => {
    const ns = await createNamespace("e2e-as-team");
    await createServiceAccount(ns, "team", TEAM);
    const kubeconfig = await proxy.kubeconfigFor(await serviceAccountKubeconfig(ns, "team"));
    const dir = await writePackage({ "objects.yaml": docs(configMap("one", ns), configMap("two", ns), service("web", ns)) });
    const init = await kptTs(["live", "init", "--inventory-kind", "applyset", "--name", "team-app", "-n", ns, dir]);
    expect(init.code, printed(init)).toBe(0);
    const run = (...args: string[]) => kptTs(["live", ...args, "--kubeconfig", kubeconfig, dir]);
    proxy.requests.length = 0;

    const apply = await run("apply");
    expect(apply.code, printed(apply)).toBe(0);
    expect(lines(apply)).toEqual(expect.arrayContaining(["configmap/one created", "configmap/two created", "service/web created"]));
    expect(apply.stderr).toBe("");
    const parent = await getObject("secrets", "team-app", ns);
    expect(parent?.metadata.annotations?.["applyset.kubernetes.io/contains-group-kinds"]).toBe("ConfigMap,Service");

    await writeFile(join(dir, "objects.yaml"), docs(configMap("one", ns), service("web", ns)));
    const prune = await run("apply");
    expect(prune.code, printed(prune)).toBe(0);
    expect(lines(prune)).toContain("configmap/two pruned");
    expect(await getObject("configmaps", "two", ns)).toBeUndefined();

    const status = await run("status");
    expect(status.code, printed(status)).toBe(0);
    expect(lines(status).sort()).toEqual(["configmap/one is Current: Resource is always ready", "service/web is Current: Service is ready"]);
    const history = await run("history");
    expect(history.code, printed(history)).toBe(0);
    expect(history.stdout).toMatch(/apply +\S+ +succeeded +Op: 0 create, 1 delete/);

    const destroy = await run("destroy");
    expect(destroy.code, printed(destroy)).toBe(0);
    expect(lines(destroy)).toEqual(expect.arrayContaining(["configmap/one deleted", "service/web deleted"]));
    expect(await getObject("secrets", "team-app", ns)).toBeUndefined();
    expect((await kubectlJson<{ items: unknown[] }>(["get", "leases", "-n", ns])).items).toEqual([]);

    // The proxy saw the run (its parent, its lock), and nothing outside the namespace.
    expect(proxy.requests).toEqual(expect.arrayContaining([`POST /api/v1/namespaces/${ns}/secrets`, `POST /apis/coordination.k8s.io/v1/namespaces/${ns}/leases`]));
    expect(outsideTheNamespace(proxy.requests, ns)).toEqual([]);
    // The ResourceGroup kind was never asked for.
    expect(proxy.requests.filter((r) => r.includes("resourcegroups") || r.includes("customresourcedefinitions"))).toEqual([]);
  });

  it("a package that needs more (a ClusterRole, a delete it may not make) is refused before the first write, naming each missing right", async () => {
    const ns = await createNamespace("e2e-as-more");
    await createServiceAccount(ns, "narrow", [
      { apiGroups: [""], resources: ["configmaps"], verbs: ["get", "list", "watch", "create", "update", "patch"] },
      { apiGroups: [""], resources: ["secrets"], verbs: ALL },
      { apiGroups: ["coordination.k8s.io"], resources: ["leases"], verbs: ALL },
      { apiGroups: ["rbac.authorization.k8s.io"], resources: ["clusterroles"], verbs: ["get", "list", "watch"] },
    ]);
    const kubeconfig = await serviceAccountKubeconfig(ns, "narrow");
    const clusterRole = `apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {name: ${ns}-reader}\nrules: [{apiGroups: [""], resources: [pods], verbs: [get]}]\n`;
    const dir = await writePackage({ "objects.yaml": docs(configMap("one", ns), clusterRole) });
    expect((await kptTs(["live", "init", "--inventory-kind", "applyset", "--name", "narrow-app", "-n", ns, dir])).code).toBe(0);

    const r = await kptTs(["live", "apply", "--kubeconfig", kubeconfig, dir]);
    expect(r.code, printed(r)).toBe(1);
    expect(r.stderr.trimEnd().split("\n")).toEqual([
      `error: user "system:serviceaccount:${ns}:narrow" lacks a right this run needs, so nothing was changed: "create" on clusterroles.rbac.authorization.k8s.io (cluster-wide)`,
      "ask a cluster administrator to grant it, or use a context that has it (--context)",
    ]);
    expect(await getObject("configmaps", "one", ns)).toBeUndefined();
    expect(await getObject("secrets", "narrow-app", ns)).toBeUndefined();

    // Without the ClusterRole it applies; dropping the ConfigMap then needs "delete", which it lacks.
    await writeFile(join(dir, "objects.yaml"), configMap("one", ns));
    const ok = await kptTs(["live", "apply", "--kubeconfig", kubeconfig, dir]);
    expect(ok.code, printed(ok)).toBe(0);
    await writeFile(join(dir, "objects.yaml"), configMap("other", ns));
    const prune = await kptTs(["live", "apply", "--kubeconfig", kubeconfig, dir]);
    expect(prune.code, printed(prune)).toBe(1);
    expect(prune.stderr).toContain(`lacks a right this run needs, so nothing was changed: "delete" on configmaps in namespace ${ns}`);
    expect(await getObject("configmaps", "other", ns)).toBeUndefined();
    expect(await getObject("configmaps", "one", ns)).toBeDefined();
  });
});
