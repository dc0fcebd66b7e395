// Issue 9: why a wait is slow. While `live apply` waits for a Deployment whose Pods cannot be
// scheduled, kpt-ts says what it waits on (its ReplicaSet, its Pods: `Pending: Unschedulable`),
// once per change, on stderr (and in the live view on a terminal); when --reconcile-timeout
// expires, the summary repeats it. kpt's own lines (stdout, --output json) are unchanged.
import { spawnSync } from "node:child_process";
import { afterAll, describe, expect, it } from "vitest";
import { writePackage } from "../helpers/fixtures.js";
import { jsonLines } from "../helpers/objects.js";
import { printed } from "../helpers/scenario.js";
import { CLI, createNamespace, hasBinary, kptTs, kubeconfig, REPO, waitUntil } from "../helpers/run.js";

const unschedulable = (ns: string, name: string) => `apiVersion: apps/v1
kind: Deployment
metadata: {name: ${name}, namespace: ${ns}}
spec:
  replicas: 1
  selector: {matchLabels: {app: ${name}}}
  template:
    metadata: {labels: {app: ${name}}}
    spec:
      nodeSelector: {no-such-node: "true"}
      containers: [{name: c, image: nginx}]
`;

async function unschedulablePackage(prefix: string): Promise<{ ns: string; dir: string }> {
  const ns = await createNamespace(prefix);
  const dir = await writePackage({ "web.yaml": unschedulable(ns, "web") });
  expect((await kptTs(["live", "init", dir])).code).toBe(0);
  return { ns, dir };
}

describe("what a slow wait waits on", () => {
  it("names the Deployment's ReplicaSet and its Unschedulable Pod while waiting and in the timeout summary; kpt's lines are untouched", async () => {
    const { dir } = await unschedulablePackage("e2e-why");
    const r = await kptTs(["live", "apply", "--reconcile-timeout=12s", dir]);
    expect(r.code, printed(r)).toBe(3);

    // stdout: kpt's lines only.
    expect(r.stdout.split("\n").filter(Boolean)).toEqual([
      "deployment.apps/web created",
      "1 resource(s) applied. 1 created, 0 unchanged, 0 configured, 0 failed",
      "deployment.apps/web reconcile pending",
      expect.stringMatching(/^deployment\.apps\/web reconcile timeout: /),
      "0 resource(s) pruned, 0 skipped, 0 failed",
      "0 resource(s) reconciled, 0 skipped, 0 failed to reconcile, 1 timed out",
    ]);

    // stderr: each reason once (the wait lasted several reads), then the summary.
    const err = r.stderr.split("\n");
    const podLines = err.filter((l) => /^deployment\.apps\/web waiting on pod\/web-[a-z0-9]+-[a-z0-9]+: Pending: Unschedulable \(0\/3 nodes are available/.test(l));
    expect(podLines, r.stderr).toHaveLength(1);
    expect(err.filter((l) => /^deployment\.apps\/web waiting on replicaset\.apps\/web-[a-z0-9]+: /.test(l)), r.stderr).toHaveLength(1);
    const summary = err.indexOf("timed out waiting for 1 resource(s) to reconcile; last known state:");
    expect(summary, r.stderr).toBeGreaterThan(err.indexOf(podLines[0]!));
    expect(err[summary + 1]).toMatch(/^ {2}deployment\.apps\/web: /);
    expect(err.slice(summary + 2).join("\n")).toMatch(/^ {4}waiting on pod\/web-\S+: Pending: Unschedulable \(0\/3 nodes are available/m);
  });

  it("adds nothing to --output json", async () => {
    const { dir } = await unschedulablePackage("e2e-why-json");
    const r = await kptTs(["live", "apply", "--reconcile-timeout=6s", "--output", "json", dir]);
    expect(r.code, printed(r)).toBe(3);
    const types = new Set(jsonLines<{ type: string }>(r.stdout).map((e) => e.type));
    expect([...types].sort()).toEqual(["apply", "group", "summary", "wait"]);
    expect(r.stdout).not.toMatch(/Unschedulable|waiting on|reasons/);
  });
});

const haveTmux = hasBinary("tmux");
if (!haveTmux) console.warn("skipping the live-view test of wait-reasons.test.ts: `tmux` is not installed");
const SOCKET = `kpt-ts-why-${process.pid}`;
const tmux = (...args: string[]) => spawnSync("tmux", ["-L", SOCKET, ...args], { encoding: "utf8" });
afterAll(() => {
  if (haveTmux) tmux("kill-server");
});

describe.skipIf(!haveTmux)("the live view in a terminal", () => {
  it("shows the Unschedulable Pod under its Deployment while waiting, and the timeout summary after", async () => {
    const { dir } = await unschedulablePackage("e2e-why-tty");
    const sh = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
    const command = `cd ${sh(REPO)} && KUBECONFIG=${sh(kubeconfig())} ${sh(process.execPath)} ${sh(CLI)} live apply --reconcile-timeout=15s ${sh(dir)}; echo "EXIT=$?"; sleep 600`;
    expect(tmux("new-session", "-d", "-s", "why", "-x", "200", "-y", "50", command).status).toBe(0);
    const screen = () => tmux("capture-pane", "-p", "-J", "-S", "-200", "-t", "why").stdout;
    const during = await waitUntil("the reason in the live view", async () => (/└ pod\/web-\S+: Pending: Unschedulable/.test(screen()) ? screen() : undefined), 60_000);
    expect(during).toMatch(/deployment\.apps\/web +InProgress +\S/);
    const after = await waitUntil("the end of the run", async () => (/EXIT=\d+/.test(screen()) ? screen() : undefined), 60_000);
    expect(after).toMatch(/EXIT=3/);
    expect(after).not.toContain("└"); // the view erased itself
    expect(after).toMatch(/timed out waiting for 1 resource\(s\) to reconcile; last known state:\n {2}deployment\.apps\/web: .*\n( {4}waiting on .*\n)* {4}waiting on pod\/web-\S+: Pending: Unschedulable/);
  });
});
