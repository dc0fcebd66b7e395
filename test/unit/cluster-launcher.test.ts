// The local cluster launcher's named clusters (KPT_TS_CLUSTER_NAME): where each lives, that their
// kubeconfigs merge into one holding every cluster (as KUBECONFIG=a:b does), and that clusters
// starting at the same moment never reserve the same port.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { loadConnection } from "../../src/cluster/kubeconfig.js";
import { readKubeconfigs } from "../../src/cluster/kubeconfig-files.js";
import { checkClusterName, clusterNameFromEnv, kubeconfigYaml, stateDirFor } from "../../tools/cluster/launcher.js";
import { releasePorts, reservePorts } from "../../tools/cluster/ports.js";

const REPO = resolve(import.meta.dirname, "../..");
const PKI = { ca: "ca", cert: "cert", key: "key" };

describe("named clusters", () => {
  it.each<[string, string | undefined, string, string]>([
    ["the default", undefined, "v1.35.4", ".cluster"],
    ["another version", undefined, "v1.34.4", ".cluster-v1.34.4"],
    ["a name", "prod-eu", "v1.35.4", ".cluster-prod-eu"],
    ["a name wins over the version", "edge", "v1.34.4", ".cluster-edge"],
  ])("%s lives in its own directory", (_what, name, version, dir) => {
    expect(stateDirFor(name, version)).toBe(join(REPO, dir));
  });

  it.each(["Prod", "prod_eu", "-a", "a-", "v1.34.4", "a".repeat(41), "a/b"])("%j is not a cluster name", (name) => {
    expect(() => checkClusterName(name)).toThrow(`KPT_TS_CLUSTER_NAME=${JSON.stringify(name)} is not a valid cluster name`);
  });

  it("KPT_TS_CLUSTER_NAME names it; unset or empty, the default", () => {
    expect(clusterNameFromEnv({ KPT_TS_CLUSTER_NAME: "west" })).toBe("west");
    expect(clusterNameFromEnv({ KPT_TS_CLUSTER_NAME: "" })).toBeUndefined();
    expect(clusterNameFromEnv({})).toBeUndefined();
  });

  it("each kubeconfig's one context is named after its cluster, and two merge into one holding both", () => {
    const dir = mkdtempSync(join(tmpdir(), "kpt-ts-launcher-unit-"));
    const a = join(dir, "a");
    const b = join(dir, "b");
    writeFileSync(a, kubeconfigYaml("https://127.0.0.1:21001", PKI, "east"));
    writeFileSync(b, kubeconfigYaml("https://127.0.0.1:21002", PKI, "west"));
    const env = { KUBECONFIG: [a, b].join(delimiter) };
    expect([...readKubeconfigs(undefined, env).contexts.keys()]).toEqual(["east", "west"]);
    expect(loadConnection({ env, context: "east" })).toMatchObject({ server: "https://127.0.0.1:21001", userName: "east-admin" });
    expect(loadConnection({ env, context: "west" })).toMatchObject({ server: "https://127.0.0.1:21002", userName: "west-admin" });
    // The default cluster keeps its names.
    writeFileSync(a, kubeconfigYaml("https://127.0.0.1:21003", PKI));
    expect(loadConnection({ env: { KUBECONFIG: a } })).toMatchObject({ contextName: "kpt-ts-local", userName: "kpt-ts-admin" });
  });
});

describe("port reservations", () => {
  it("clusters reserving at the same moment get distinct ports; down frees them", async () => {
    const dirs = Array.from({ length: 4 }, (_, i) => join(tmpdir(), `kpt-ts-unit-ports-${process.pid}-${i}`));
    try {
      const sets = await Promise.all(dirs.map((d) => reservePorts(6, d)));
      const all = sets.flat();
      expect(new Set(all).size).toBe(24);
      await releasePorts(dirs[0]!);
      // Freed ports may be reserved again; the others stay taken.
      const again = await reservePorts(6, dirs[0]!);
      expect(again.filter((p) => sets.slice(1).flat().includes(p))).toEqual([]);
    } finally {
      await Promise.all(dirs.map((d) => releasePorts(d)));
    }
  });
});
