// Issue 5: `live status` reads the inventory from the cluster and prints each object's
// reconcile status as kpt does; --poll-until and --timeout decide when it returns.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startKptTs } from "../helpers/background.js";
import { copyWordpress, writePackage } from "../helpers/fixtures.js";
import { deleteQuietly, getObject, jsonLines, linesOf, randomSuffix } from "../helpers/objects.js";
import { createNamespace, hasBinary, kpt, kptTs } from "../helpers/run.js";

const STATUS_JSON_KEYS = ["group", "inventory-name", "kind", "message", "name", "namespace", "status", "timestamp", "type"];

describe("live status on the applied WordPress package", () => {
  const ns = `e2e-st-wp-${randomSuffix()}`;
  let dir = "";
  let inventoryName = "";

  beforeAll(async () => {
    dir = await copyWordpress(ns);
    expect((await kptTs(["live", "init", dir])).code).toBe(0);
    inventoryName = /^\s*name:\s*(\S+)\s*$/m.exec(await readFile(join(dir, "resourcegroup.yaml"), "utf8"))![1]!;
    const apply = await kptTs(["live", "apply", "--reconcile-timeout=2m", dir]);
    expect(apply.code, apply.stdout + apply.stderr).toBe(0);
  });
  afterAll(async () => {
    await deleteQuietly("namespace", ns);
    await deleteQuietly("pv", `${ns}-mysql-pv`, `${ns}-wp-pv`);
  });

  const expectedLines = () => [
    `namespace/${ns} is Current: Resource is current`,
    `persistentvolume/${ns}-mysql-pv is Current: Resource is current`,
    `persistentvolume/${ns}-wp-pv is Current: Resource is current`,
    "configmap/mysql-config is Current: Resource is always ready",
    "service/wordpress-mysql is Current: Service is ready",
    "service/wordpress is Current: Service is ready",
    "persistentvolumeclaim/mysql-pv-claim is Current: PVC is Bound",
    "persistentvolumeclaim/wp-pv-claim is Current: PVC is Bound",
    // The API server defaults updateStrategy.rollingUpdate.partition to 0, so kstatus takes its partition branch.
    "statefulset.apps/wordpress-mysql is Current: Partition rollout complete. updated: 1",
    "deployment.apps/wordpress is Current: Deployment is available. Replicas: 2",
  ];

  it("prints one line per object in the book's format, and exits 0", async () => {
    const r = await kptTs(["live", "status", dir]);
    expect(r.code, r.stderr).toBe(0);
    expect(linesOf(r.stdout).sort()).toEqual(expectedLines().sort());
  });

  it("prints kpt's JSON lines with kpt's keys, one per object", async () => {
    const r = await kptTs(["live", "status", "--output", "json", dir]);
    expect(r.code, r.stderr).toBe(0);
    const lines = linesOf(r.stdout);
    expect(lines).toHaveLength(10);
    for (const line of lines) {
      const o = JSON.parse(line) as Record<string, string>;
      expect(Object.keys(o)).toEqual(STATUS_JSON_KEYS); // Go marshals maps with sorted keys
      expect(o.type).toBe("status");
      expect(o["inventory-name"]).toBe(inventoryName);
      expect(o.status).toBe("Current");
      expect(o.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    }
    const objects = jsonLines<Record<string, string>>(r.stdout);
    expect(objects).toContainEqual(
      expect.objectContaining({ group: "apps", kind: "Deployment", name: "wordpress", namespace: ns, message: "Deployment is available. Replicas: 2" }),
    );
    expect(objects).toContainEqual(expect.objectContaining({ group: "", kind: "Namespace", name: ns, namespace: "", message: "Resource is current" }));
    expect(objects).toContainEqual(expect.objectContaining({ group: "", kind: "PersistentVolumeClaim", name: "wp-pv-claim", namespace: ns, message: "PVC is Bound" }));
  });

  it.skipIf(!hasBinary("kpt"))("agrees with the real kpt on objects, statuses and messages", async () => {
    const ours = await kptTs(["live", "status", "--output", "json", dir]);
    const theirs = await kpt(["live", "status", "--output", "json", dir]);
    expect(theirs.code, theirs.stderr).toBe(0);
    expect(ours.code, ours.stderr).toBe(0);
    const comparable = (out: string) =>
      jsonLines<Record<string, string>>(out)
        .map(({ timestamp: _t, ...rest }) => JSON.stringify(rest))
        .sort();
    expect(comparable(ours.stdout)).toEqual(comparable(theirs.stdout));
  });

  // Last: it destroys the package.
  it("--poll-until deleted returns once a destroy run elsewhere has deleted everything", async () => {
    const status = startKptTs(["live", "status", "--poll-until", "deleted", dir]);
    try {
      await status.waitForOutput(/^deployment\.apps\/wordpress is Current: /m);
      expect(status.running).toBe(true); // everything exists: it must keep polling

      const destroy = await kptTs(["live", "destroy", dir]);
      expect(destroy.code, destroy.stdout + destroy.stderr).toBe(0);

      const r = await Promise.race([status.done, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`status still running:\n${status.stdout}`)), 60_000))]);
      expect(r.code, r.stderr).toBe(0);
      // It followed every object until it was gone: each one's last line says NotFound.
      const lastLineOf = new Map<string, string>();
      for (const line of linesOf(r.stdout)) lastLineOf.set(line.split(" is ")[0]!, line);
      expect([...lastLineOf.values()].sort()).toEqual(expectedLines().map((l) => `${l.split(" is ")[0]} is NotFound: Resource not found`).sort());
      expect(await getObject("namespace", ns)).toBeUndefined();
    } finally {
      status.kill();
    }
  });
});

describe("live status on something stuck", () => {
  let ns = "";
  let dir = "";
  beforeAll(async () => {
    ns = await createNamespace("e2e-st-stuck");
    dir = await writePackage({
      "deployment.yaml": `apiVersion: apps/v1
kind: Deployment
metadata:
  name: stuck
  namespace: ${ns}
spec:
  replicas: 1
  selector:
    matchLabels: {app: stuck}
  template:
    metadata:
      labels: {app: stuck}
    spec:
      nodeSelector:
        e2e.kpt-ts.dev/no-such-node: "true"
      containers:
      - name: app
        image: nginx:1.25
`,
      "configmap.yaml": `apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
  namespace: ${ns}
data:
  a: b
`,
    });
    expect((await kptTs(["live", "init", dir])).code).toBe(0);
    const apply = await kptTs(["live", "apply", "--reconcile-timeout=2s", dir]);
    expect(apply.code, apply.stdout + apply.stderr).toBe(3);
  });
  afterAll(() => deleteQuietly("namespace", ns));

  it("by default (--poll-until known) prints each status once and returns", async () => {
    const r = await kptTs(["live", "status", dir]);
    expect(r.code, r.stderr).toBe(0);
    expect(linesOf(r.stdout).sort()).toEqual([
      "configmap/settings is Current: Resource is always ready",
      expect.stringMatching(/^deployment\.apps\/stuck is InProgress: (Available|Ready): 0\/1$/),
    ]);
  });

  it("--poll-until current --timeout 2s exits 0 once the timeout has passed", async () => {
    const started = Date.now();
    const r = await kptTs(["live", "status", "--poll-until", "current", "--timeout", "2s", dir]);
    const elapsed = Date.now() - started;
    expect(r.code, r.stderr).toBe(0);
    expect(elapsed).toBeGreaterThanOrEqual(2_000);
    expect(elapsed).toBeLessThan(60_000);
    expect(r.stdout).toMatch(/^deployment\.apps\/stuck is InProgress: /m);
    expect(r.stderr).toBe("");
  });

  it("--statuses filters the lines printed", async () => {
    const r = await kptTs(["live", "status", "--statuses", "inprogress", dir]);
    expect(r.code, r.stderr).toBe(0);
    expect(linesOf(r.stdout)).toEqual([expect.stringMatching(/^deployment\.apps\/stuck is InProgress: /)]);
  });
});
