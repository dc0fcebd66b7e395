// Issue 4: `kpt-ts live apply` against the real cluster: what it prints (the book's lines), what
// it leaves in the cluster, re-applies that write nothing, dry-runs that change nothing, server-side
// apply, client-side apply's three-way merge, namespace defaulting and exit codes.
import { rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { writePackage } from "../helpers/fixtures.js";
import { createNamespace, kptTs, kubectl } from "../helpers/run.js";
import {
  clusterInventory,
  configMap,
  deployment,
  docs,
  getObject,
  inventoryRefs,
  kubeconfigWithNamespace,
  lines,
  listObjects,
  printed,
  readInventoryFile,
  ref,
  resourceVersions,
  service,
  type KubeObj,
} from "../helpers/scenario.js";

type Files = Record<string, string>;

/** A package in a fresh namespace, initialised by kpt-ts. */
async function initPackage(prefix: string, files: (ns: string) => Files): Promise<{ ns: string; dir: string }> {
  const ns = await createNamespace(prefix);
  const dir = await writePackage(files(ns));
  const init = await kptTs(["live", "init", dir]);
  if (init.code !== 0) throw new Error(`init: ${printed(init)}`);
  return { ns, dir };
}

async function apply(dir: string, ...args: string[]) {
  return kptTs(["live", "apply", "--reconcile-timeout=2m", ...args, dir]);
}

/** Everything the tests' kinds hold in a namespace, and the package's inventory: for before/after comparisons. */
async function clusterState(ns: string, dir: string): Promise<{ objects: KubeObj[]; inventory: KubeObj | undefined }> {
  const objects = (await listObjects(ns)).sort((a, b) => `${a.kind}/${a.metadata.name}`.localeCompare(`${b.kind}/${b.metadata.name}`));
  return { objects, inventory: await clusterInventory(dir) };
}

const three = (ns: string): Files => ({
  "service.yaml": service("web", ns),
  "deployment.yaml": deployment("web", ns),
  "configmap.yaml": configMap("settings", ns, { mode: "fast", size: "3" }),
});

describe("kpt-ts live apply", () => {
  it("creates every object, reports each `created`, and records them in the inventory", async () => {
    const { ns, dir } = await initPackage("e2e-apply-first", three);
    const r = await apply(dir);
    expect(r.code, printed(r)).toBe(0);
    const out = lines(r);
    for (const l of ["service/web created", "deployment.apps/web created", "configmap/settings created", "deployment.apps/web reconciled"]) {
      expect(out, printed(r)).toContain(l);
    }
    expect(out).toContain("3 resource(s) applied. 3 created, 0 unchanged, 0 configured, 0 failed");
    expect(out).toContain("0 resource(s) pruned, 0 skipped, 0 failed");
    expect(out).toContain("3 resource(s) reconciled, 0 skipped, 0 failed to reconcile, 0 timed out");
    const inv = await readInventoryFile(dir);
    expect(inventoryRefs(await clusterInventory(dir))).toEqual([ref("", "ConfigMap", ns, "settings"), ref("", "Service", ns, "web"), ref("apps", "Deployment", ns, "web")].sort());
    for (const o of await listObjects(ns, "configmaps,services,deployments.apps")) {
      expect(o.metadata.annotations?.["config.k8s.io/owning-inventory"], `${o.kind}/${o.metadata.name}`).toBe(inv.id);
    }
    expect((await getObject("deployment", "web", ns))?.status?.availableReplicas).toBe(1);
  });

  it("applied twice, reports everything `unchanged` the second time and writes nothing (no resourceVersion changes)", async () => {
    const { ns, dir } = await initPackage("e2e-apply-twice", three);
    expect((await apply(dir)).code).toBe(0);
    const before = await resourceVersions(ns);
    expect(Object.keys(before)).toHaveLength(4); // three objects and the inventory
    const again = await apply(dir);
    expect(again.code, printed(again)).toBe(0);
    const out = lines(again);
    for (const l of ["service/web unchanged", "deployment.apps/web unchanged", "configmap/settings unchanged"]) expect(out, printed(again)).toContain(l);
    expect(out).toContain("3 resource(s) applied. 0 created, 3 unchanged, 0 configured, 0 failed");
    expect(out.filter((l) => / (created|configured|pruned)$/.test(l))).toEqual([]);
    // The inventory's too: kpt-ts does not rewrite an inventory that did not change (the real kpt does).
    expect(await resourceVersions(ns)).toEqual(before);
  });

  it("--dry-run prints the plan (created, configured, unchanged, pruned) and changes nothing; the apply then does just that", async () => {
    const files = (ns: string): Files => ({
      "service.yaml": service("web", ns),
      "deployment.yaml": deployment("web", ns),
      "a.yaml": configMap("cm-a", ns, { mode: "fast" }),
      "b.yaml": configMap("cm-b", ns),
    });
    const { ns, dir } = await initPackage("e2e-apply-dry", files);
    expect((await apply(dir)).code).toBe(0);
    // Change cm-a, remove cm-b, add cm-c; the Service and the Deployment stay as they are.
    await writeFile(join(dir, "a.yaml"), configMap("cm-a", ns, { mode: "slow" }));
    await rm(join(dir, "b.yaml"));
    await writeFile(join(dir, "c.yaml"), configMap("cm-c", ns));
    const before = await clusterState(ns, dir);

    const dry = await kptTs(["live", "apply", "--dry-run", dir]);
    expect(dry.code, printed(dry)).toBe(0);
    const plan = lines(dry);
    expect(plan[0]).toBe("Dry-run strategy: client");
    const planned = ["configmap/cm-c created", "configmap/cm-a configured", "service/web unchanged", "deployment.apps/web unchanged", "configmap/cm-b pruned"];
    expect(plan.filter((l) => / (created|configured|unchanged|pruned)$/.test(l)).sort(), printed(dry)).toEqual([...planned].sort());
    expect(plan).toContain("4 resource(s) applied. 1 created, 2 unchanged, 1 configured, 0 failed");
    expect(plan).toContain("1 resource(s) pruned, 0 skipped, 0 failed");
    expect(plan.filter((l) => l.includes("reconcile")), "a dry-run waits for nothing").toEqual([]);
    // What the apply itself would do, in order, on stderr (stdout stays kpt's lines; issue 31).
    expect(dry.stderr.split("\n").filter((l) => /^\d+\. /.test(l)).map((l) => l.replace(/ \S+\/inventory-\d+/, "").replace(/ \(.*| listing .*|: .*/, ""))).toEqual([
      "1. store the inventory",
      "2. apply wave 1",
      "3. wait until apply wave 1 is reconciled",
      "4. prune wave 1",
      "5. wait until prune wave 1 is gone",
      "6. store the inventory",
    ]);
    expect(dry.stderr).toMatch(/^4\. prune wave 1: 1 object \(configmap\/cm-b\)$/m);
    expect(await clusterState(ns, dir)).toEqual(before);

    const real = await apply(dir);
    expect(real.code, printed(real)).toBe(0);
    expect(lines(real).filter((l) => / (created|configured|unchanged|pruned)$/.test(l)).sort()).toEqual([...planned].sort());
    expect((await getObject("configmap", "cm-a", ns))?.data).toEqual({ mode: "slow" });
    expect(await getObject("configmap", "cm-b", ns)).toBeUndefined();
    expect(await getObject("configmap", "cm-c", ns)).toBeDefined();
  });

  it("--dry-run of a package never applied creates nothing, not even the inventory", async () => {
    const ns = await createNamespace("e2e-apply-dry-new");
    const dir = await writePackage(three(ns));
    expect((await kptTs(["live", "init", dir])).code).toBe(0);
    const dry = await kptTs(["live", "apply", "--dry-run", dir]);
    expect(dry.code, printed(dry)).toBe(0);
    expect(lines(dry)).toContain("3 resource(s) applied. 3 created, 0 unchanged, 0 configured, 0 failed");
    expect(await listObjects(ns)).toEqual([]);
  });

  it("--server-side applies with the field manager, then reports `unchanged` and writes nothing", async () => {
    const { ns, dir } = await initPackage("e2e-apply-ssa", three);
    const first = await apply(dir, "--server-side");
    expect(first.code, printed(first)).toBe(0);
    expect(lines(first)).toContain("3 resource(s) applied. 3 created, 0 unchanged, 0 configured, 0 failed");
    const cm = await getObject("configmap", "settings", ns, { managedFields: true });
    const managers = (cm?.metadata.managedFields as { manager: string; operation: string }[]).map((m) => `${m.manager}/${m.operation}`);
    expect(managers).toContain("kubectl/Apply");
    expect(cm?.metadata.annotations?.["kubectl.kubernetes.io/last-applied-configuration"]).toBeUndefined();

    const before = await resourceVersions(ns);
    const again = await apply(dir, "--server-side");
    expect(again.code, printed(again)).toBe(0);
    expect(lines(again)).toContain("3 resource(s) applied. 0 created, 3 unchanged, 0 configured, 0 failed");
    expect(await resourceVersions(ns)).toEqual(before);

    // A field dropped from the package is dropped from the object (our manager owned it).
    await writeFile(join(dir, "configmap.yaml"), configMap("settings", ns, { mode: "slow" }));
    const changed = await apply(dir, "--server-side");
    expect(changed.code, printed(changed)).toBe(0);
    expect(lines(changed)).toContain("3 resource(s) applied. 0 created, 2 unchanged, 1 configured, 0 failed");
    expect((await getObject("configmap", "settings", ns))?.data).toEqual({ mode: "slow" });
  });

  it("--server-side --field-manager names the manager; a conflict with another manager fails the object (exit 3) until --force-conflicts", async () => {
    const { ns, dir } = await initPackage("e2e-apply-fm", (ns) => ({ "configmap.yaml": configMap("shared", ns, { mode: "fast" }) }));
    const first = await apply(dir, "--server-side", "--field-manager", "team-a");
    expect(first.code, printed(first)).toBe(0);
    const managers = ((await getObject("configmap", "shared", ns, { managedFields: true }))?.metadata.managedFields as { manager: string }[]).map((m) => m.manager);
    expect(managers).toContain("team-a");
    // Another manager takes the field over.
    const other = await kubectl(["apply", "--server-side", "--force-conflicts", "--field-manager", "team-b", "-f", "-"], {
      input: configMap("shared", ns, { mode: "theirs" }),
    });
    expect(other.code, other.stderr).toBe(0);
    await writeFile(join(dir, "configmap.yaml"), configMap("shared", ns, { mode: "ours" }));
    const conflict = await apply(dir, "--server-side", "--field-manager", "team-a");
    expect(conflict.code, printed(conflict)).toBe(3);
    const failed = lines(conflict).find((l) => l.startsWith("configmap/shared apply failed"));
    expect(failed, printed(conflict)).toBeDefined();
    expect(failed).toContain("team-b");
    expect(failed).toContain(".data.mode");
    expect((await getObject("configmap", "shared", ns))?.data).toEqual({ mode: "theirs" });
    const forced = await apply(dir, "--server-side", "--field-manager", "team-a", "--force-conflicts");
    expect(forced.code, printed(forced)).toBe(0);
    expect((await getObject("configmap", "shared", ns))?.data).toEqual({ mode: "ours" });
  });

  it("--server-side --dry-run prints the plan (created, configured, unchanged, pruned) and changes nothing", async () => {
    const { ns, dir } = await initPackage("e2e-apply-ssa-dry", (ns) => ({ ...three(ns), "old.yaml": configMap("old", ns) }));
    expect((await apply(dir, "--server-side")).code).toBe(0);
    await writeFile(join(dir, "configmap.yaml"), configMap("settings", ns, { mode: "slow" }));
    await writeFile(join(dir, "extra.yaml"), configMap("extra", ns));
    await rm(join(dir, "old.yaml"));
    const before = await clusterState(ns, dir);
    const dry = await kptTs(["live", "apply", "--server-side", "--dry-run", dir]);
    expect(dry.code, printed(dry)).toBe(0);
    const plan = lines(dry);
    expect(plan[0]).toBe("Dry-run strategy: server");
    expect(await clusterState(ns, dir)).toEqual(before);
    expect(plan.filter((l) => / (created|configured|unchanged|pruned)$/.test(l)).sort(), printed(dry)).toEqual(
      ["configmap/extra created", "configmap/settings configured", "service/web unchanged", "deployment.apps/web unchanged", "configmap/old pruned"].sort(),
    );
    expect(plan).toContain("4 resource(s) applied. 1 created, 2 unchanged, 1 configured, 0 failed");
  });

  it("--server-side --dry-run lets the server validate every object (exit 3 on a refusal) and changes nothing", async () => {
    const { ns, dir } = await initPackage("e2e-apply-ssa-val", three);
    expect((await apply(dir, "--server-side")).code).toBe(0);
    const before = await clusterState(ns, dir);
    // The server's validation catches what no client-side check does.
    await writeFile(join(dir, "bad.yaml"), service("bad", ns, {}, { type: "Bogus" }));
    const invalid = await kptTs(["live", "apply", "--server-side", "--dry-run", dir]);
    expect(invalid.code, printed(invalid)).toBe(3);
    expect(lines(invalid).find((l) => l.startsWith("service/bad apply failed:"))).toMatch(/Unsupported value: "Bogus"/);
    expect(await clusterState(ns, dir)).toEqual(before);
    expect(await getObject("service", "bad", ns)).toBeUndefined();
  });

  it("client-side: fields removed from the package are removed from the object, fields set by others are kept", async () => {
    const files = (ns: string, v: 1 | 2): Files => ({
      "configmap.yaml": configMap("settings", ns, v === 1 ? { mode: "fast", size: "3" } : { mode: "fast" }, { labels: v === 1 ? { app: "x", tier: "web" } : { app: "x" } }),
      "deployment.yaml": [
        "apiVersion: apps/v1",
        "kind: Deployment",
        "metadata:",
        "  name: web",
        `  namespace: ${ns}`,
        "spec:",
        "  replicas: 1",
        "  selector: {matchLabels: {app: web}}",
        "  template:",
        "    metadata: {labels: {app: web}}",
        "    spec:",
        "      containers:",
        "      - name: main",
        "        image: nginx:1.25",
        "        env:",
        "        - {name: A, value: a}",
        ...(v === 1 ? ["        - {name: B, value: b}"] : []),
        "",
      ].join("\n"),
    });
    const { ns, dir } = await initPackage("e2e-apply-csa", (ns) => files(ns, 1));
    expect((await apply(dir)).code).toBe(0);
    // Someone else adds a label and an annotation.
    expect((await kubectl(["label", "configmap", "settings", "-n", ns, "owner=ops"])).code).toBe(0);
    expect((await kubectl(["annotate", "deployment", "web", "-n", ns, "example.com/note=kept"])).code).toBe(0);

    for (const [name, text] of Object.entries(files(ns, 2))) await writeFile(join(dir, name), text);
    const r = await apply(dir);
    expect(r.code, printed(r)).toBe(0);
    expect(lines(r)).toContain("configmap/settings configured");
    expect(lines(r)).toContain("deployment.apps/web configured");
    const cm = await getObject("configmap", "settings", ns);
    expect(cm?.data).toEqual({ mode: "fast" });
    expect(cm?.metadata.labels).toEqual({ app: "x", owner: "ops" });
    const d = await getObject("deployment", "web", ns);
    expect(d?.spec.template.spec.containers[0].env).toEqual([{ name: "A", value: "a" }]);
    expect(d?.metadata.annotations?.["example.com/note"]).toBe("kept");

    const again = await apply(dir);
    expect(lines(again)).toContain("2 resource(s) applied. 0 created, 2 unchanged, 0 configured, 0 failed");
  });

  it("puts namespaced objects without a namespace in the -n namespace, and refuses objects in another one (exit 2, nothing applied)", async () => {
    const ns = await createNamespace("e2e-apply-n");
    const dir = await writePackage({ "cm.yaml": configMap("plain", undefined) });
    expect((await kptTs(["live", "init", "-n", ns, dir])).code).toBe(0);
    const r = await kptTs(["live", "apply", "-n", ns, dir]);
    expect(r.code, printed(r)).toBe(0);
    expect(await getObject("configmap", "plain", ns)).toBeDefined();

    await writeFile(join(dir, "other.yaml"), configMap("elsewhere", "some-other-namespace"));
    const refused = await kptTs(["live", "apply", "-n", ns, dir]);
    expect(refused.code, printed(refused)).toBe(2);
    expect(refused.stderr).toContain(`found namespace "some-other-namespace", but all resources must be in namespace "${ns}"`);
    expect(refused.stderr).toMatch(/other\.yaml:\d+/);
  });

  it("puts namespaced objects without a namespace in the kubeconfig context's namespace", async () => {
    const ns = await createNamespace("e2e-apply-ctx");
    const env = { KUBECONFIG: await kubeconfigWithNamespace(ns) };
    const dir = await writePackage({ "cm.yaml": configMap("plain", undefined) });
    expect((await kptTs(["live", "init", dir], { env })).code).toBe(0);
    expect((await readInventoryFile(dir)).namespace).toBe(ns);
    const r = await kptTs(["live", "apply", dir], { env });
    expect(r.code, printed(r)).toBe(0);
    expect(await getObject("configmap", "plain", ns)).toBeDefined();
  });

  it("exits 3 when an object fails; its dependent is skipped, the rest applied, and only applied objects enter the inventory", async () => {
    const { ns, dir } = await initPackage("e2e-apply-fail", (ns) => ({
      "p.yaml": docs(
        service("bad-svc", ns, {}, { type: "Bogus" }),
        configMap("dependent", ns, { k: "v" }, { annotations: { "config.kubernetes.io/depends-on": `/namespaces/${ns}/Service/bad-svc` } }),
        configMap("independent", ns),
      ),
    }));
    const r = await apply(dir);
    expect(r.code, printed(r)).toBe(3);
    const out = lines(r);
    expect(out.find((l) => l.startsWith("service/bad-svc apply failed:"))).toMatch(/Unsupported value: "Bogus"/);
    expect(out.find((l) => l.startsWith("configmap/dependent apply skipped:"))).toContain("dependency apply actuation failed");
    expect(out).toContain("configmap/independent created");
    expect(out).toContain("3 resource(s) applied. 1 created, 0 unchanged, 0 configured, 1 failed, 1 skipped");
    expect(await getObject("configmap", "dependent", ns)).toBeUndefined();
    expect(inventoryRefs(await clusterInventory(dir))).toEqual([ref("", "ConfigMap", ns, "independent")]);
  });

  it("applies a CRD and its custom resources in one run, the CRD's wave first", async () => {
    // Several rounds: a kind defined moments ago must be usable as soon as its CRD is established.
    for (let round = 0; round < 4; round++) {
      const ns = await createNamespace("e2e-apply-crd");
      const group = `${ns}.example.com`;
      const dir = await writePackage({
        "crd.yaml": [
          "apiVersion: apiextensions.k8s.io/v1",
          "kind: CustomResourceDefinition",
          "metadata:",
          `  name: gadgets.${group}`,
          "spec:",
          `  group: ${group}`,
          "  names: {kind: Gadget, listKind: GadgetList, plural: gadgets, singular: gadget}",
          "  scope: Namespaced",
          "  versions:",
          "  - name: v1",
          "    served: true",
          "    storage: true",
          "    schema:",
          "      openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}",
          "",
        ].join("\n"),
        "gadget.yaml": `apiVersion: ${group}/v1\nkind: Gadget\nmetadata:\n  name: g\n  namespace: ${ns}\nspec:\n  size: 1\n`,
      });
      expect((await kptTs(["live", "init", "-n", ns, dir])).code).toBe(0);
      const r = await apply(dir);
      expect(r.code, `round ${round}\n${printed(r)}`).toBe(0);
      const out = lines(r);
      expect(out.indexOf(`customresourcedefinition.apiextensions.k8s.io/gadgets.${group} reconciled`)).toBeLessThan(out.indexOf(`gadget.${group}/g created`));
      expect(await getObject(`gadgets.${group}`, "g", ns)).toBeDefined();
      const destroy = await kptTs(["live", "destroy", dir]);
      expect(destroy.code, printed(destroy)).toBe(0);
    }
  });

  it("keeps an object that fails on a later apply in the inventory", async () => {
    const { ns, dir } = await initPackage("e2e-apply-keep-failed", (ns) => ({ "svc.yaml": service("web", ns) }));
    expect((await apply(dir)).code).toBe(0);
    // An immutable field changed: the server refuses the update.
    await writeFile(join(dir, "svc.yaml"), service("web", ns, {}, { clusterIP: "10.0.0.99", type: "ClusterIP" }));
    const r = await apply(dir);
    expect(r.code, printed(r)).toBe(3);
    expect(lines(r).find((l) => l.startsWith("service/web apply failed:"))).toBeDefined();
    expect(inventoryRefs(await clusterInventory(dir))).toEqual([ref("", "Service", ns, "web")]);
  });
});
