// Issue 5: `live destroy` deletes in the reverse dependency order, waiting for each wave to be
// gone before the next; honours deletion protection; deletes the inventory only when it tracks
// nothing that still exists.
import { afterEach, describe, expect, it } from "vitest";
import { startKptTs } from "../helpers/background.js";
import { copyWordpress, writePackage } from "../helpers/fixtures.js";
import { deleteQuietly, dropFinalizers, getObject, jsonLines, lineIndex, linesOf, randomSuffix, sleep } from "../helpers/objects.js";
import { createNamespace, kptTs, kubectl, kubectlJson, waitUntil } from "../helpers/run.js";

const HOLD = "e2e.kpt-ts.dev/hold";
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function hold(kind: string, name: string, ns: string): Promise<void> {
  const r = await kubectl(["patch", kind, name, "-n", ns, "--type=merge", "-p", JSON.stringify({ metadata: { finalizers: [HOLD] } })]);
  expect(r.code, r.stderr).toBe(0);
  cleanups.push(() => dropFinalizers(kind, name, ns));
}

interface JsonEvent {
  type: string;
  action?: string;
  status?: string;
  kind?: string;
  name?: string;
  namespace?: string;
  count?: number;
  successful?: number;
  skipped?: number;
  failed?: number;
}

/** Each resource event with the index of the group (Delete wave, Wait phase...) it came in. */
function withGroups(events: JsonEvent[]): (JsonEvent & { group: number; groupAction: string; at: number })[] {
  let group = -1;
  let groupAction = "";
  return events.flatMap((e, at) => {
    if (e.type === "group" && e.status === "Started") {
      group++;
      groupAction = e.action!;
    }
    return e.type === "group" ? [] : [{ ...e, group, groupAction, at }];
  });
}

describe("live destroy of the WordPress package", () => {
  it("deletes WordPress and waits until it is gone before deleting MySQL, then the namespace", async () => {
    const ns = `e2e-ds-wp-${randomSuffix()}`;
    cleanups.push(async () => {
      await deleteQuietly("namespace", ns);
      await deleteQuietly("pv", `${ns}-mysql-pv`, `${ns}-wp-pv`);
    });
    const dir = await copyWordpress(ns);
    expect((await kptTs(["live", "init", dir])).code).toBe(0);
    const apply = await kptTs(["live", "apply", "--reconcile-timeout=2m", dir]);
    expect(apply.code, apply.stdout + apply.stderr).toBe(0);

    // A finalizer keeps the WordPress Deployment Terminating until the test lets it go.
    await hold("deployment", "wordpress", ns);
    const destroy = startKptTs(["live", "destroy", "--output", "json", dir]);
    try {
      await waitUntil("the Deployment to be deleting", async () => (await getObject("deployment", "wordpress", ns))?.metadata.deletionTimestamp);
      await destroy.waitForOutput(/"kind":"Deployment","name":"wordpress".*"status":"Pending".*"type":"wait"/);
      await sleep(2_000);
      // Still waiting for WordPress to be gone: MySQL is untouched.
      expect(destroy.running).toBe(true);
      const sts = await getObject("statefulset", "wordpress-mysql", ns);
      expect(sts).toBeDefined();
      expect(sts!.metadata.deletionTimestamp).toBeUndefined();
      expect(destroy.stdout).not.toContain('"kind":"StatefulSet"');

      await dropFinalizers("deployment", "wordpress", ns);
      const r = await destroy.done;
      expect(r.code, r.stdout + r.stderr).toBe(0);

      const events = withGroups(jsonLines<JsonEvent>(r.stdout));
      const find = (type: string, kind: string, name: string, status: string) => {
        const e = events.find((x) => x.type === type && x.kind === kind && x.name === name && x.status === status);
        expect(e, `${type} ${kind}/${name} ${status}\n${r.stdout}`).toBeDefined();
        return e!;
      };
      const wpDeleted = find("delete", "Deployment", "wordpress", "Successful");
      const wpGone = find("wait", "Deployment", "wordpress", "Successful");
      const mysqlDeleted = find("delete", "StatefulSet", "wordpress-mysql", "Successful");
      const nsDeleted = find("delete", "Namespace", ns, "Successful");
      expect(wpDeleted.groupAction).toBe("Delete");
      expect(wpGone.groupAction).toBe("Wait");
      expect(mysqlDeleted.groupAction).toBe("Delete");
      // WordPress' delete wave, then its wait, then MySQL's delete wave, then the namespace's.
      expect(wpGone.group).toBeGreaterThan(wpDeleted.group);
      expect(mysqlDeleted.group).toBeGreaterThan(wpGone.group);
      expect(nsDeleted.group).toBeGreaterThan(mysqlDeleted.group);
      expect(jsonLines<JsonEvent>(r.stdout)).toContainEqual(expect.objectContaining({ type: "summary", action: "Delete", count: 10, successful: 10, skipped: 0, failed: 0 }));

      expect(await getObject("namespace", ns)).toBeUndefined();
      expect(await getObject("pv", `${ns}-mysql-pv`)).toBeUndefined();
    } finally {
      destroy.kill();
    }
  });
});

describe("live destroy of a small package", () => {
  async function applied(files: (ns: string) => Record<string, string>): Promise<{ ns: string; dir: string }> {
    const ns = await createNamespace("e2e-ds");
    cleanups.push(() => deleteQuietly("namespace", ns));
    const dir = await writePackage(files(ns));
    expect((await kptTs(["live", "init", dir])).code).toBe(0);
    const apply = await kptTs(["live", "apply", "--reconcile-timeout=1m", dir]);
    expect(apply.code, apply.stdout + apply.stderr).toBe(0);
    return { ns, dir };
  }
  const configMap = (ns: string, name: string, annotations: Record<string, string> = {}) =>
    `apiVersion: v1
kind: ConfigMap
metadata:
  name: ${name}
  namespace: ${ns}
  annotations: ${JSON.stringify(annotations)}
data:
  a: b
`;
  const inventoryOf = async (ns: string) => {
    const list = await kubectlJson<{ items: { spec?: { resources?: { kind: string; name: string }[] } }[] }>(["get", "resourcegroups.kpt.dev", "-n", ns]);
    return list.items.map((rg) => (rg.spec?.resources ?? []).map((r) => `${r.kind}/${r.name}`).sort());
  };

  it("--dry-run lists what it would delete, dependents first, and deletes nothing", async () => {
    const { ns, dir } = await applied((ns) => ({
      "base.yaml": configMap(ns, "base"),
      "top.yaml": configMap(ns, "top", { "config.kubernetes.io/depends-on": `/namespaces/${ns}/ConfigMap/base` }),
    }));
    const r = await kptTs(["live", "destroy", "--dry-run", dir]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(lineIndex(r.stdout, "configmap/top deleted")).toBeGreaterThanOrEqual(0);
    expect(lineIndex(r.stdout, "configmap/base deleted")).toBeGreaterThan(lineIndex(r.stdout, "configmap/top deleted"));
    expect(await getObject("configmap", "top", ns)).toBeDefined();
    expect(await getObject("configmap", "base", ns)).toBeDefined();
    expect(await inventoryOf(ns)).toEqual([["ConfigMap/base", "ConfigMap/top"]]);
  });

  it("keeps a protected object, and keeps the inventory while an object it tracks is still there", async () => {
    const { ns, dir } = await applied((ns) => ({
      "kept.yaml": configMap(ns, "kept", { "cli-utils.sigs.k8s.io/on-remove": "keep" }),
      "held.yaml": configMap(ns, "held"),
      "plain.yaml": configMap(ns, "plain"),
    }));
    await hold("configmap", "held", ns);

    const first = await kptTs(["live", "destroy", "--delete-timeout=3s", dir]);
    expect(first.code, first.stdout + first.stderr).toBe(3);
    expect(first.stdout).toContain('configmap/kept delete skipped: annotation prevents deletion ("cli-utils.sigs.k8s.io/on-remove": "keep")\n');
    expect(first.stdout).toMatch(/^configmap\/held reconcile timeout\b/m);
    expect(first.stdout).toContain("configmap/plain deleted\n");
    expect(linesOf(first.stdout).at(-1)).toMatch(/, 1 timed out$/);

    // The protected object stays, let go by the inventory; the held one is still tracked.
    const kept = await getObject("configmap", "kept", ns);
    expect(kept?.metadata.deletionTimestamp).toBeUndefined();
    expect(kept?.metadata.annotations?.["config.k8s.io/owning-inventory"]).toBeUndefined();
    expect(await getObject("configmap", "plain", ns)).toBeUndefined();
    expect((await getObject("configmap", "held", ns))?.metadata.deletionTimestamp).toBeDefined();
    expect(await inventoryOf(ns)).toEqual([["ConfigMap/held"]]);

    await dropFinalizers("configmap", "held", ns);
    const second = await kptTs(["live", "destroy", dir]);
    expect(second.code, second.stdout + second.stderr).toBe(0);
    expect(await getObject("configmap", "held", ns)).toBeUndefined();
    expect(await inventoryOf(ns)).toEqual([]);
    expect(await getObject("configmap", "kept", ns)).toBeDefined();
  });
});
