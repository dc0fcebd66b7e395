// Issue 22: fields left to other controllers and create-only objects (docs/other-controllers.md).
// The HPA case: a Deployment whose replicas another manager changes (kubectl scale, as an HPA
// does through the scale subresource) keeps them across re-applies when the package says
// `kpt-ts.dev/ignore-fields: spec.replicas`, and is reset when it does not; client-side and
// server-side alike. A create-only Secret is created and never written again. live diff says
// what is left alone, and the real kpt accepts the same package (annotations are just annotations).
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { writePackage } from "../helpers/fixtures.js";
import { createNamespace, hasBinary, kpt, kptTs, kubectl, kubectlJson, type RunResult } from "../helpers/run.js";
import { deployment, docs, getObject, printed } from "../helpers/scenario.js";

const haveKpt = hasBinary("kpt");
if (!haveKpt) console.warn("skipping kpt's side of the other-controllers tests: the real `kpt` is not on PATH");

const IGNORE = { "kpt-ts.dev/ignore-fields": "spec.replicas" };
const ok = (r: RunResult) => expect(r.code, printed(r)).toBe(0);

/** Two Deployments: `kept` leaves its replicas to others, `reset` does not; both at `image`. */
const hpaPackage = (ns: string, image: string) => docs(deployment("kept", ns, image, { annotations: IGNORE }), deployment("reset", ns, image));

const replicasOf = async (name: string, ns: string) => ((await getObject("deployment", name, ns)) as any)?.spec?.replicas;

async function scale(ns: string, replicas: number) {
  for (const name of ["kept", "reset"]) ok(await kubectl(["scale", `deployment/${name}`, `--replicas=${replicas}`, "-n", ns]));
}

describe.each([
  { mode: "client-side", flags: [] as string[] },
  { mode: "server-side", flags: ["--server-side"] },
])("an HPA's replicas ($mode apply)", ({ mode, flags }) => {
  it("left alone when the package says so, reset when it does not; live diff says which", async () => {
    const ns = await createNamespace(`e2e-hpa-${mode === "server-side" ? "ss" : "cs"}`);
    const dir = await writePackage({ "deploy.yaml": hpaPackage(ns, "nginx:1.25") });
    ok(await kptTs(["live", "init", "--namespace", ns, dir]));
    const apply = (extra: string[] = []) => kptTs(["live", "apply", "--reconcile-timeout=2m", ...flags, ...extra, dir]);
    ok(await apply());
    expect(await replicasOf("kept", ns)).toBe(1);

    // Another manager scales both; an apply with nothing else changed: `kept` keeps 5 and is
    // unchanged; `reset` goes back to the package's 1 (server-side: the scale took the field
    // from our manager, so taking it back is a conflict unless forced).
    await scale(ns, 5);
    const force = mode === "server-side" ? ["--force-conflicts"] : [];
    const diff = await kptTs(["live", "diff", ...flags, ...force, dir]);
    expect(diff.code, printed(diff)).toBe(1); // kubectl diff's exit: differences found (reset's replicas)
    expect(diff.stdout).toMatch(/reset\s+Deployment\s+update/);
    expect(diff.stdout).toMatch(/kept\s+Deployment\s+noop\s+spec\.replicas left to other managers/);
    const again = await apply(force);
    ok(again);
    expect(again.stdout).toContain("deployment.apps/kept unchanged");
    expect(again.stdout).toContain("deployment.apps/reset configured");
    expect(await replicasOf("kept", ns)).toBe(5);
    expect(await replicasOf("reset", ns)).toBe(1);

    // Scaled again, then a change to the template: it is applied, and the replicas still stay.
    await scale(ns, 3);
    await writeFile(join(dir, "deploy.yaml"), hpaPackage(ns, "nginx:1.26"));
    ok(await apply(force));
    const kept = (await getObject("deployment", "kept", ns)) as any;
    expect(kept.spec.template.spec.containers[0].image).toBe("nginx:1.26");
    expect(kept.spec.replicas).toBe(3);
    expect(await replicasOf("reset", ns)).toBe(1);
  });
});

it("server-side without the annotation: the scaled replicas are a conflict whose message names the annotation", async () => {
  const ns = await createNamespace("e2e-hpa-conflict");
  const dir = await writePackage({ "deploy.yaml": deployment("reset", ns) });
  ok(await kptTs(["live", "init", "--namespace", ns, dir]));
  ok(await kptTs(["live", "apply", "--server-side", "--reconcile-timeout=2m", dir]));
  ok(await kubectl(["scale", "deployment/reset", "--replicas=4", "-n", ns]));
  const r = await kptTs(["live", "apply", "--server-side", "--reconcile-timeout=2m", dir]);
  expect(r.code, printed(r)).toBe(3);
  expect(r.stdout + r.stderr).toContain("kpt-ts.dev/ignore-fields");
  expect(await replicasOf("reset", ns)).toBe(4);
});

describe.each([
  { mode: "client-side", flags: [] as string[] },
  { mode: "server-side", flags: ["--server-side"] },
])("a create-only Secret ($mode apply)", ({ mode, flags }) => {
  it("is created, then never written: a controller's value stays, the package's change is not applied", async () => {
    const ns = await createNamespace(`e2e-create-only-${mode === "server-side" ? "ss" : "cs"}`);
    const secret = (token: string) => `apiVersion: v1
kind: Secret
metadata:
  name: filled-later
  namespace: ${ns}
  annotations:
    kpt-ts.dev/create-only: "true"
stringData:
  token: ${token}
`;
    const dir = await writePackage({ "secret.yaml": secret("placeholder") });
    ok(await kptTs(["live", "init", "--namespace", ns, dir]));
    const first = await kptTs(["live", "apply", ...flags, dir]);
    ok(first);
    expect(first.stdout).toContain("secret/filled-later created");

    ok(await kubectl(["patch", "secret", "filled-later", "-n", ns, "--type=merge", "-p", JSON.stringify({ data: { token: Buffer.from("from-controller").toString("base64") } })]));
    const rv = (await kubectlJson(["get", "secret", "filled-later", "-n", ns, "-o", "json"])).metadata.resourceVersion;
    await writeFile(join(dir, "secret.yaml"), secret("changed-in-package"));

    const diff = await kptTs(["live", "diff", ...flags, dir]);
    expect(diff.code, printed(diff)).toBe(0);
    expect(diff.stdout).toMatch(/filled-later\s+Secret\s+noop\s+create-only: it exists, so it is left as it is/);
    expect(diff.stdout + diff.stderr).not.toContain("from-controller");

    const again = await kptTs(["live", "apply", ...flags, dir]);
    ok(again);
    expect(again.stdout).toContain("secret/filled-later unchanged");
    const live = await kubectlJson(["get", "secret", "filled-later", "-n", ns, "-o", "json"]);
    expect(live.metadata.resourceVersion).toBe(rv);
    expect(Buffer.from(live.data.token, "base64").toString()).toBe("from-controller");

    // Destroy still deletes it: create-only is about writes, not about ownership.
    ok(await kptTs(["live", "destroy", dir]));
    expect(await getObject("secret", "filled-later", ns)).toBeUndefined();
  });
});

it.skipIf(!haveKpt)("the real kpt accepts a package with these annotations (they are just annotations to it)", async () => {
  const ns = await createNamespace("e2e-kpt-annotations");
  const dir = await writePackage({ "deploy.yaml": hpaPackage(ns, "nginx:1.25") });
  ok(await kpt(["live", "init", "--namespace", ns, dir]));
  ok(await kpt(["live", "apply", "--reconcile-timeout=2m", dir]));
  expect(((await getObject("deployment", "kept", ns)) as any).metadata.annotations["kpt-ts.dev/ignore-fields"]).toBe("spec.replicas");
  ok(await kpt(["live", "destroy", dir]));
});
