// Issue 3: `kpt-ts live install-resource-group` installs the ResourceGroup CRD kpt installs, so
// the real `kpt live apply` uses it as it is (kpt prints `installing inventory ResourceGroup CRD.`
// on stderr whenever the CRD it finds differs from its own, and installs again).
//
// The CRD is cluster-wide and shared with the other test files, so on the shared cluster it is
// never deleted: only idempotence is checked there. The "fresh cluster" scenario runs on a
// private control plane started for this file.
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PRIVATE_CLUSTER_HOOK_TIMEOUT, startPrivateCluster, stopPrivateCluster } from "../helpers/private-cluster.js";
import { writePackage } from "../helpers/fixtures.js";
import { createNamespace, hasBinary, kpt, kptTs, kubectl, waitUntil } from "../helpers/run.js";
import { configMap, inventoryRefs, printed, ref, uniqueName, type KubeObj } from "../helpers/scenario.js";

const CRD = "resourcegroups.kpt.dev";
const INSTALLING = "installing inventory ResourceGroup CRD.";

const haveKpt = hasBinary("kpt");
if (!haveKpt) console.warn("skipping the ResourceGroup CRD tests that use the real kpt: `kpt` is not on PATH");

/** The CRD on the cluster a kubeconfig points at, or undefined. */
async function getCrd(env: Record<string, string>): Promise<KubeObj | undefined> {
  const r = await kubectl(["get", "crd", CRD, "--ignore-not-found", "-o", "json"], { env });
  if (r.code !== 0) throw new Error(r.stderr);
  return r.stdout.trim() ? (JSON.parse(r.stdout) as KubeObj) : undefined;
}

const established = (crd: KubeObj | undefined): boolean =>
  (crd?.status?.conditions ?? []).some((c: { type: string; status: string }) => c.type === "Established" && c.status === "True");

describe("kpt-ts live install-resource-group on the shared cluster", () => {
  it("is idempotent: twice in a row it succeeds and leaves the CRD as it was", async () => {
    const first = await kptTs(["live", "install-resource-group"]);
    expect(first.code, printed(first)).toBe(0);
    expect(first.stdout).toContain("installing inventory ResourceGroup CRD...success");
    const before = await getCrd({});
    expect(established(before)).toBe(true);
    const second = await kptTs(["live", "install-resource-group"]);
    expect(second.code, printed(second)).toBe(0);
    expect(second.stdout).toContain("success");
    const after = await getCrd({});
    expect(after?.metadata.uid).toBe(before?.metadata.uid);
    expect(after?.metadata.resourceVersion).toBe(before?.metadata.resourceVersion);
  });

  it("refuses arguments, as kpt", async () => {
    const r = await kptTs(["live", "install-resource-group", "extra"]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain("too many arguments");
  });

  it.skipIf(!haveKpt)("leaves the CRD to the real kpt live apply, which does not install it again", async () => {
    expect((await kptTs(["live", "install-resource-group"])).code).toBe(0);
    const before = await getCrd({});
    const ns = await createNamespace("e2e-irg");
    const dir = await writePackage({ "cm.yaml": configMap("c", ns) });
    expect((await kptTs(["live", "init", dir])).code).toBe(0);
    const apply = await kpt(["live", "apply", dir]);
    expect(apply.code, printed(apply)).toBe(0);
    expect(apply.stderr).not.toContain(INSTALLING);
    const after = await getCrd({});
    expect(after?.metadata.uid).toBe(before?.metadata.uid);
    expect(after?.metadata.resourceVersion).toBe(before?.metadata.resourceVersion);
  });
});

describe.skipIf(!haveKpt)("kpt-ts and the real kpt on a fresh cluster (a private control plane)", () => {
  let env: Record<string, string>;
  let dir: string;

  beforeAll(async () => {
    dir = join(await mkdtemp(join(tmpdir(), "kpt-ts-irg-")), "state");
    const state = await startPrivateCluster(dir);
    env = { KUBECONFIG: state.kubeconfig };
  }, PRIVATE_CLUSTER_HOOK_TIMEOUT);
  afterAll(async () => {
    await stopPrivateCluster(dir);
  });

  const onPrivate = {
    kptTs: (args: string[]) => kptTs(args, { env }),
    kpt: (args: string[]) => kpt(args, { env }),
    kubectl: (args: string[]) => kubectl(args, { env }),
  };

  async function deleteCrd(): Promise<void> {
    expect((await onPrivate.kubectl(["delete", "crd", CRD, "--wait=true"])).code).toBe(0);
    await waitUntil("the CRD to be gone", async () => (await getCrd(env)) === undefined);
  }

  async function packageIn(ns: string, name: string): Promise<string> {
    expect((await onPrivate.kubectl(["create", "namespace", ns])).code).toBe(0);
    const pkg = await writePackage({ "cm.yaml": configMap(name, ns) });
    const init = await kptTs(["live", "init", pkg], { env });
    expect(init.code, printed(init)).toBe(0);
    return pkg;
  }

  it("without the CRD, live status (of a package, and --inv-type remote) and live destroy fail as kpt's do: exit 1, kpt's message, what to check", async () => {
    if (await getCrd(env)) await deleteCrd();
    const pkg = await packageIn(uniqueName("irg-none"), "none");
    const runs: [string, string[]][] = [
      ["live status", ["live", "status", pkg]],
      ["live destroy", ["live", "destroy", pkg]],
      ["live status --inv-type remote", ["live", "status", "--inv-type", "remote"]],
      ["live status --inv-type remote --output json", ["live", "status", "--inv-type", "remote", "--output", "json"]],
    ];
    for (const [what, args] of runs) {
      const ours = await onPrivate.kptTs(args);
      expect(ours.code, `${what}\n${printed(ours)}`).toBe(1);
      expect(ours.stdout, what).toBe("");
      expect(ours.stderr, what).toContain(`no matches for kind "ResourceGroup" in version "kpt.dev/v1alpha1"`);
      expect(ours.stderr, what).toContain("The ResourceGroup CRD is not installed in this cluster");
      if (!hasBinary("kpt")) continue;
      const theirs = await onPrivate.kpt(args);
      expect(theirs.code, `kpt ${what}\n${printed(theirs)}`).toBe(1);
      expect(ours.stderr.split("\n")[0], what).toBe(theirs.stderr.split("\n")[0]);
    }
    expect(await getCrd(env)).toBeUndefined();
  });

  it("installs the CRD kpt installs, which the real kpt live apply then uses without reinstalling", async () => {
    expect(await getCrd(env)).toBeUndefined();
    const pkg = await packageIn(uniqueName("irg"), "first");

    // Without the CRD and told not to install it, apply stops before touching anything.
    const refused = await onPrivate.kptTs(["live", "apply", "--install-resource-group=false", pkg]);
    expect(refused.code, printed(refused)).not.toBe(0);
    expect(refused.code).not.toBe(3);
    expect(refused.stderr).toContain("ResourceGroup CRD");
    expect(await getCrd(env)).toBeUndefined();

    const install = await onPrivate.kptTs(["live", "install-resource-group"]);
    expect(install.code, printed(install)).toBe(0);
    expect(install.stdout).toContain("installing inventory ResourceGroup CRD...success");
    const ours = await getCrd(env);
    expect(established(ours)).toBe(true);

    const again = await onPrivate.kptTs(["live", "install-resource-group"]);
    expect(again.code, printed(again)).toBe(0);
    expect((await getCrd(env))?.metadata.resourceVersion).toBe(ours?.metadata.resourceVersion);

    const apply = await onPrivate.kpt(["live", "apply", pkg]);
    expect(apply.code, printed(apply)).toBe(0);
    expect(apply.stderr).not.toContain(INSTALLING);
    expect(apply.stdout).toContain("apply result: 1 attempted, 1 successful, 0 skipped, 0 failed");
    const afterKpt = await getCrd(env);
    expect(afterKpt?.metadata.uid).toBe(ours?.metadata.uid);
    expect(afterKpt?.metadata.resourceVersion).toBe(ours?.metadata.resourceVersion);

    // The same spec as the one the real kpt installs.
    await deleteCrd();
    const real = await onPrivate.kpt(["live", "install-resource-group"]);
    expect(real.code, printed(real)).toBe(0);
    const theirs = await getCrd(env);
    expect(ours?.spec).toEqual(theirs?.spec);
  });

  it("kpt-ts live apply installs the CRD when missing, with kpt's notice on stderr, and the real kpt then uses it as it is", async () => {
    if (await getCrd(env)) await deleteCrd();
    const ns = uniqueName("irg-apply");
    const pkg = await packageIn(ns, "second");
    // A dry run installs nothing, and says nothing about it.
    const dry = await onPrivate.kptTs(["live", "apply", "--dry-run", "--install-resource-group", pkg]);
    expect(dry.stderr).not.toContain(INSTALLING);
    const apply = await onPrivate.kptTs(["live", "apply", pkg]);
    expect(apply.code, printed(apply)).toBe(0);
    expect(apply.stderr.split("\n")).toContain(INSTALLING);
    expect(apply.stdout).not.toContain(INSTALLING);
    const ours = await getCrd(env);
    expect(established(ours)).toBe(true);
    const rg = await onPrivate.kubectl(["get", "resourcegroups.kpt.dev", "-n", ns, "-o", "json"]);
    expect(inventoryRefs(JSON.parse(rg.stdout).items[0])).toEqual([ref("", "ConfigMap", ns, "second")]);

    const real = await onPrivate.kpt(["live", "apply", pkg]);
    expect(real.code, printed(real)).toBe(0);
    expect(real.stderr).not.toContain(INSTALLING);
    expect((await getCrd(env))?.metadata.resourceVersion).toBe(ours?.metadata.resourceVersion);
    // The CRD already there: no notice.
    const quiet = await onPrivate.kptTs(["live", "apply", pkg]);
    expect(quiet.stderr).not.toContain(INSTALLING);

    // The real kpt's own line on a fresh cluster is the one kpt-ts prints, in every output format.
    for (const output of ["events", "json"]) {
      await deleteCrd();
      const theirs = await onPrivate.kpt(["live", "apply", "--output", output, pkg]);
      expect(theirs.code, printed(theirs)).toBe(0);
      await deleteCrd();
      const mine = await onPrivate.kptTs(["live", "apply", "--output", output, pkg]);
      expect(mine.code, printed(mine)).toBe(0);
      const notice = (r: { stdout: string; stderr: string }) => ({
        stderr: r.stderr.split("\n").filter((l) => l.includes("ResourceGroup CRD")),
        stdout: r.stdout.split("\n").filter((l) => l.includes("ResourceGroup CRD")),
      });
      expect(notice(mine), output).toEqual(notice(theirs));
      expect(notice(mine).stderr, output).toEqual([INSTALLING]);
    }
  });
});
