// Issue 7: `live diff` on the real cluster reports what the next apply would do (create, update,
// delete, noop, skipped deletes), masks Secret values in text and JSON, changes nothing, and
// exits 0 (no changes), 1 (changes) or 2 (trouble).
import { writeFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { writePackage } from "../helpers/fixtures.js";
import { createNamespace, kptTs, kubectlJson, kubeconfig } from "../helpers/run.js";

const b64 = (s: string) => Buffer.from(s).toString("base64");

const configMap = (ns: string, name: string, data: Record<string, string>, annotations: Record<string, string> = {}) => `apiVersion: v1
kind: ConfigMap
metadata:
  name: ${name}
  namespace: ${ns}
  annotations: ${JSON.stringify(annotations)}
data: ${JSON.stringify(data)}
`;

const secret = (ns: string, password: string) => `apiVersion: v1
kind: Secret
metadata:
  name: db
  namespace: ${ns}
stringData:
  user: admin-user
  password: ${password}
`;

interface JsonChange {
  kind: string;
  name: string;
  operation: string;
  skip?: string;
  error?: string;
  diff?: string;
}

describe("kpt-ts live diff", () => {
  it("reports create, update, delete (and skipped delete) and noop, masks Secrets, and changes nothing", async () => {
    const ns = await createNamespace("e2e-diff");
    const dir = await writePackage({
      "cfg.yaml": configMap(ns, "cfg", { color: "blue" }),
      "old.yaml": configMap(ns, "old", { x: "1" }),
      "keep.yaml": configMap(ns, "keep", { x: "1" }, { "cli-utils.sigs.k8s.io/on-remove": "keep" }),
      "same.yaml": configMap(ns, "same", { x: "1" }),
      "secret.yaml": secret(ns, "first-password"),
    });
    expect((await kptTs(["live", "init", dir])).code).toBe(0);

    // Before the first apply everything is a create.
    const first = await kptTs(["live", "diff", dir]);
    expect(first.code, first.stderr).toBe(1);
    expect(first.stdout).toMatch(/not in the cluster yet/);
    expect(first.stdout).toMatch(/Op: 5 create, 0 update, 0 delete, 0 noop/);
    expect(first.stdout).not.toContain("first-password");

    const apply = await kptTs(["live", "apply", dir]);
    expect(apply.code, apply.stdout + apply.stderr).toBe(0);

    // Right after apply: nothing to do.
    const same = await kptTs(["live", "diff", dir]);
    expect(same.code, same.stdout + same.stderr).toBe(0);
    expect(same.stdout).toMatch(/Op: 0 create, 0 update, 0 delete, 5 noop/);
    expect(same.stdout).not.toMatch(/^(---|\+\+\+) /m);

    // Change the package: update cfg and the Secret, add fresh, drop old and keep.
    await writeFile(join(dir, "cfg.yaml"), configMap(ns, "cfg", { color: "green" }));
    await writeFile(join(dir, "secret.yaml"), secret(ns, "second-password"));
    await writeFile(join(dir, "fresh.yaml"), configMap(ns, "fresh", { y: "2" }));
    await rm(join(dir, "old.yaml"));
    await rm(join(dir, "keep.yaml"));

    const text = await kptTs(["live", "diff", dir]);
    expect(text.code, text.stdout + text.stderr).toBe(1);
    const rows = text.stdout.split("\n").filter((l) => l.startsWith(ns)).map((l) => l.split(/\s{2,}/).slice(1, 4).join(" "));
    expect(rows).toEqual(["cfg ConfigMap update", "db Secret update", "fresh ConfigMap create", "keep ConfigMap delete", "old ConfigMap delete", "same ConfigMap noop"]);
    expect(text.stdout).toMatch(/keep +ConfigMap +delete +skip: annotation prevents deletion \("cli-utils.sigs.k8s.io\/on-remove": "keep"\)/);
    expect(text.stdout).toMatch(/Op: 1 create, 2 update, 1 delete, 1 noop, 1 skipped/);
    // Beyond the rows, the order the apply takes (issue 31): the inventory extended first, the
    // wave and its wait, the prune and its wait, the inventory's final write.
    expect(text.stdout.split("\n").filter((l) => /^\d+\. /.test(l))).toEqual([
      expect.stringMatching(new RegExp(`^1\\. store the inventory ${ns}/inventory-\\d+ listing 6 objects, before any other write$`)),
      "2. apply wave 1: 4 objects (configmap/cfg, configmap/fresh, configmap/same, 1 more)",
      "3. wait until apply wave 1 is reconciled",
      "4. prune wave 1: 2 objects (configmap/old, configmap/keep)",
      "5. wait until prune wave 1 is gone",
      expect.stringMatching(new RegExp(`^6\\. store the inventory ${ns}/inventory-\\d+: what exists now, with its status$`)),
    ]);
    expect(text.stdout).toContain('-  color: blue\n+  color: green');
    expect(text.stdout).toContain("-  password: <masked>\n+  password: <masked (changed)>");
    expect(text.stdout).toContain("   user: <masked>");
    expect(text.stdout).toContain(`--- ${ns}/configmap/old (live)\n+++ /dev/null`);
    expect(text.stdout).toContain(`--- /dev/null\n+++ ${ns}/configmap/fresh (after apply)`);
    expect(text.stdout).not.toContain("managedFields");
    expect(text.stdout).not.toContain("last-applied-configuration");
    expect(text.stdout).not.toMatch(/resourceVersion|creationTimestamp|uid:/);

    const json = await kptTs(["live", "diff", dir, "--output", "json"]);
    expect(json.code, json.stderr).toBe(1);
    const doc = JSON.parse(json.stdout) as { summary: Record<string, number>; changes: JsonChange[] };
    expect(doc.summary).toEqual({ create: 1, update: 2, delete: 1, noop: 1, skipped: 1, errors: 0 });
    const byName = Object.fromEntries(doc.changes.map((c) => [c.name, c]));
    expect(byName.db!.diff).toContain("+  password: <masked (changed)>");
    expect(byName.keep!.skip).toMatch(/annotation prevents deletion/);
    expect(byName.same!.operation).toBe("noop");

    for (const out of [text.stdout, json.stdout]) {
      for (const value of ["first-password", "second-password", "admin-user"]) {
        expect(out).not.toContain(value);
        expect(out).not.toContain(b64(value));
      }
    }

    // The preview changed nothing.
    const cfg = await kubectlJson(["get", "configmap", "cfg", "-n", ns]);
    expect(cfg.data).toEqual({ color: "blue" });
    const old = await kubectlJson(["get", "configmap", "old", "-n", ns]);
    expect(old.metadata.name).toBe("old");
    const fresh = await kptTs(["live", "diff", dir]);
    expect(fresh.code).toBe(1);

    // Applying the change set makes the next diff empty again.
    const apply2 = await kptTs(["live", "apply", dir]);
    expect(apply2.code, apply2.stdout + apply2.stderr).toBe(0);
    const after = await kptTs(["live", "diff", dir]);
    expect(after.code, after.stdout).toBe(0);
  });

  it("previews server-side apply with --server-side", async () => {
    const ns = await createNamespace("e2e-diff-ssa");
    const dir = await writePackage({ "cfg.yaml": configMap(ns, "cfg", { a: "1" }) });
    expect((await kptTs(["live", "init", dir])).code).toBe(0);
    expect((await kptTs(["live", "apply", "--server-side", dir])).code).toBe(0);
    expect((await kptTs(["live", "diff", "--server-side", dir])).code).toBe(0);
    await writeFile(join(dir, "cfg.yaml"), configMap(ns, "cfg", { a: "2" }));
    const changed = await kptTs(["live", "diff", "--server-side", dir]);
    expect(changed.code).toBe(1);
    expect(changed.stdout).toContain('-  a: "1"\n+  a: "2"');
  });

  it("exits 2 when the server refuses a dry run, when the cluster is unreachable, and on bad flags", async () => {
    const ns = await createNamespace("e2e-diff-err");
    const dir = await writePackage({
      "svc.yaml": `apiVersion: v1
kind: Service
metadata:
  name: bad
  namespace: ${ns}
spec:
  ports:
  - port: 70000
`,
    });
    expect((await kptTs(["live", "init", dir])).code).toBe(0);
    const refused = await kptTs(["live", "diff", dir]);
    expect(refused.code, refused.stdout + refused.stderr).toBe(2);
    expect(refused.stdout).toMatch(/bad +Service +create +error: .*Invalid value: 70000/);
    expect(refused.stdout).toMatch(/1 error/);

    const closed = join(dir, "closed.kubeconfig");
    const { readFile } = await import("node:fs/promises");
    await writeFile(closed, (await readFile(kubeconfig(), "utf8")).replace(/server: https:\/\/127\.0\.0\.1:\d+/, "server: https://127.0.0.1:1"));
    const unreachable = await kptTs(["live", "diff", dir, "--kubeconfig", closed]);
    expect(unreachable.code).toBe(2);
    expect(unreachable.stderr).toMatch(/cannot reach the cluster/);

    const badFlag = await kptTs(["live", "diff", dir, "--output", "yaml"]);
    expect(badFlag.code).toBe(2);
    expect(badFlag.stderr).toMatch(/use text, json or markdown/);
  });
});
