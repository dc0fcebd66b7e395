// Issue 2: the real kpt deploys the demo package on this cluster, so the cluster is realistic.
import { describe, expect, it } from "vitest";
import { copyWordpress } from "../helpers/fixtures.js";
import { hasBinary, kpt } from "../helpers/run.js";

const haveKpt = hasBinary("kpt");
if (!haveKpt) console.warn("skipping the real-kpt demo test: `kpt` is not on PATH");

describe.skipIf(!haveKpt)("the real kpt on the local cluster", () => {
  it("initialises and applies the WordPress demo until every resource reconciled, then destroys it", async () => {
    const dir = await copyWordpress(`kpt-demo-${Math.random().toString(36).slice(2, 7)}`);
    const init = await kpt(["live", "init", dir]);
    expect(init.code, init.stderr).toBe(0);
    const apply = await kpt(["live", "apply", "--reconcile-timeout=2m", dir]);
    expect(apply.code, apply.stdout + apply.stderr).toBe(0);
    expect(apply.stdout).toMatch(/apply result: 10 attempted, 10 successful, 0 skipped, 0 failed/);
    expect(apply.stdout).toMatch(/reconcile result: 10 attempted, 10 successful, 0 skipped, 0 failed, 0 timed out/);
    expect(apply.stdout).toContain("deployment.apps/wordpress reconcile successful");
    const destroy = await kpt(["live", "destroy", dir]);
    expect(destroy.code, destroy.stderr).toBe(0);
    expect(destroy.stdout).toMatch(/delete result: 10 attempted, 10 successful/);
  });
});
