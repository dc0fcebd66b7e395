// Issue 24: `live status --inv-type remote` shows every package's objects on the cluster, grouped
// by inventory, without a package directory; --inv-names, --namespaces and --statuses narrow it as
// the real kpt's do. Each case runs kpt-ts and the kpt binary side by side on the same cluster.
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writePackage } from "../helpers/fixtures.js";
import { deleteQuietly, jsonLines, linesOf, randomSuffix } from "../helpers/objects.js";
import { hasBinary, kpt, kptTs, kubectl, type RunResult } from "../helpers/run.js";
import { configMap, docs, namespaceObject, printed } from "../helpers/scenario.js";

const HAS_KPT = hasBinary("kpt");
if (!HAS_KPT) console.warn("status-remote: kpt is not on PATH; the comparisons with the real kpt are skipped");

const sfx = randomSuffix();
const invA = `st-remote-a-${sfx}`;
const invB = `st-remote-b-${sfx}`;
const nsA = `e2e-st-remote-a-${sfx}`;
const nsB = `e2e-st-remote-b-${sfx}`;
/** An empty directory: remote status needs no package. */
let empty = "";
let dirA = "";

const stuck = (ns: string) => `apiVersion: apps/v1
kind: Deployment
metadata: {name: stuck, namespace: ${ns}}
spec:
  replicas: 1
  selector: {matchLabels: {app: stuck}}
  template:
    metadata: {labels: {app: stuck}}
    spec:
      nodeSelector: {e2e.kpt-ts.dev/no-such-node: "true"}
      containers: [{name: app, image: nginx:1.25}]
`;

beforeAll(async () => {
  const ns = await kubectl(["create", "namespace", nsB]);
  expect(ns.code, printed(ns)).toBe(0);
  empty = await mkdtemp(join(tmpdir(), "kpt-ts-no-package-"));
  // Package A: a Namespace (cluster-scoped), an object in it, and one in B's namespace.
  dirA = await writePackage({ "objects.yaml": docs(namespaceObject(nsA), configMap("a1", nsA), configMap("a2", nsB)) });
  // Package B: a ConfigMap and a Deployment that never becomes ready (InProgress).
  const dirB = await writePackage({ "objects.yaml": docs(configMap("b1", nsB), stuck(nsB)) });
  for (const [dir, name] of [[dirA, invA], [dirB, invB]] as const) {
    const init = await kptTs(["live", "init", dir, "--name", name, "--namespace", nsB, "--quiet"]);
    expect(init.code, printed(init)).toBe(0);
  }
  const applyA = await kptTs(["live", "apply", "--reconcile-timeout=1m", dirA]);
  expect(applyA.code, printed(applyA)).toBe(0);
  const applyB = await kptTs(["live", "apply", "--reconcile-timeout=2s", dirB]);
  expect(applyB.code, printed(applyB)).toBe(3); // the Deployment timed out
});
afterAll(async () => {
  await deleteQuietly("namespace", nsA, nsB);
});

const OURS = [invA, invB].join(",");
const status = (tool: typeof kptTs, args: string[]) => tool(["live", "status", "--inv-type", "remote", ...args], { cwd: empty });
/**
 * Event lines of our two inventories (others' tests may have theirs in the cluster), sorted, each
 * once: kpt's poller repeats an unchanged line when a run lasts (seen on a busy cluster).
 */
const eventLines = (r: RunResult) => [...new Set(linesOf(r.stdout).filter((l) => l.startsWith(`${invA}/`) || l.startsWith(`${invB}/`)))].sort();
/** JSON lines without the timestamp, sorted. */
const jsonObjects = (r: RunResult) =>
  jsonLines<Record<string, string>>(r.stdout)
    .map(({ timestamp: _t, ...rest }) => JSON.stringify(rest))
    .sort();

const A_LINES = [
  `${invA}/configmap/${nsA}/a1 is Current: Resource is always ready`,
  `${invA}/configmap/${nsB}/a2 is Current: Resource is always ready`,
  `${invA}/namespace//${nsA} is Current: Resource is current`,
];
const B_CURRENT = `${invB}/configmap/${nsB}/b1 is Current: Resource is always ready`;
const B_STUCK = new RegExp(`^${invB}/deployment\\.apps/${nsB}/stuck is InProgress: `);

describe("live status --inv-type remote", () => {
  it("shows a package's objects from its inventory name alone, without a package directory", async () => {
    const r = await status(kptTs, ["--inv-names", invA]);
    expect(r.code, printed(r)).toBe(0);
    expect(linesOf(r.stdout).sort()).toEqual(A_LINES);
    expect(r.stderr).toBe("");
  });

  it("without --inv-names: every inventory in the cluster, each line naming its inventory", async () => {
    const r = await status(kptTs, []);
    expect(r.code, printed(r)).toBe(0);
    expect(eventLines(r)).toEqual([...A_LINES, B_CURRENT, expect.stringMatching(B_STUCK)]);
  });

  it.each<[string, string[], (string | RegExp)[]]>([
    ["--namespaces: the objects' namespaces (not the inventories'); cluster-scoped objects left out", ["--inv-names", OURS, "--namespaces", nsB], [A_LINES[1]!, B_CURRENT, B_STUCK]],
    ["--namespaces with two namespaces", ["--inv-names", OURS, "--namespaces", `${nsA},${nsB}`], [A_LINES[0]!, A_LINES[1]!, B_CURRENT, B_STUCK]],
    ["--statuses, any case", ["--inv-names", OURS, "--statuses", "inprogress"], [B_STUCK]],
    ["--statuses with two statuses", ["--inv-names", OURS, "--statuses", "Current,Failed"], [...A_LINES, B_CURRENT]],
    ["--namespaces with an empty name: cluster-scoped objects, as kpt splits the list", ["--inv-names", OURS, "--namespaces", `,${nsA}`], [A_LINES[0]!, A_LINES[2]!]],
    ["all three filters", ["--inv-names", invB, "--namespaces", nsB, "--statuses", "Current"], [B_CURRENT]],
  ])("%s", async (_name, args, expected) => {
    const r = await status(kptTs, args);
    expect(r.code, printed(r)).toBe(0);
    expect(eventLines(r)).toEqual(expected.map((e) => (typeof e === "string" ? e : expect.stringMatching(e))));
  });

  it("an inventory name nobody has: kpt's message, exit 0", async () => {
    const r = await status(kptTs, ["--inv-names", `nope-${sfx}`]);
    expect(r.code, printed(r)).toBe(0);
    expect(r.stdout).toBe("no resources found in the inventory\n");
  });

  it("--output table: one row per object, each with its inventory", async () => {
    const r = await status(kptTs, ["--inv-names", OURS, "--output", "table"]);
    expect(r.code, printed(r)).toBe(0);
    // The RESOURCE column and the last one, INVENTORY_NAME (the NAMESPACE column is cut to its width).
    const rows = linesOf(r.stdout)
      .slice(1)
      .map((l) => /\s([A-Z]\w+\/\S+)\s.*\s(\S+)\s*$/.exec(l)?.slice(1).join(" ") ?? l);
    expect(rows.sort()).toEqual([`ConfigMap/a1 ${invA}`, `ConfigMap/a2 ${invA}`, `ConfigMap/b1 ${invB}`, `Deployment/stuck ${invB}`, `Namespace/${nsA} ${invA}`].sort());
    expect(linesOf(r.stdout)[0]).toMatch(/^NAMESPACE\s+RESOURCE\s+STATUS\s+CONDITIONS\s+AGE\s+MESSAGE\s+INVENTORY_NAME\s*$/);
  });

  it("--inv-names without --inv-type remote is refused with kpt's message (exit 2, bad input)", async () => {
    const r = await kptTs(["live", "status", dirA, "--inv-names", invA]);
    expect(r.code, printed(r)).toBe(2);
    expect(r.stderr).toContain("error: inv-names flag should only be used when inv-type is set to remote");
  });

  it("--inv-type with another value is refused with kpt's message", async () => {
    const r = await kptTs(["live", "status", "--inv-type", "cluster"], { cwd: empty });
    expect(r.code, printed(r)).toBe(2);
    expect(r.stderr).toContain("error: inv-type flag should be either local or remote");
  });

  it("a package path given with --inv-type remote is not read, and the run says so", async () => {
    const r = await kptTs(["live", "status", "--inv-type", "remote", "--inv-names", invA, join(empty, "absent")]);
    expect(r.code, printed(r)).toBe(0);
    expect(linesOf(r.stdout).sort()).toEqual(A_LINES);
    expect(r.stderr).toMatch(/^\[WARN\] --inv-type remote .*is not read/);
  });
});

describe.skipIf(!HAS_KPT)("live status --inv-type remote, the same as the kpt binary", () => {
  it.each<[string, string[]]>([
    ["both inventories", ["--inv-names", OURS]],
    ["one inventory", ["--inv-names", invB]],
    ["--namespaces", ["--inv-names", OURS, "--namespaces", nsB]],
    ["--namespaces, two of them", ["--inv-names", OURS, "--namespaces", `${nsB},${nsA}`]],
    ["--statuses", ["--inv-names", OURS, "--statuses", "InProgress"]],
    ["--statuses, lower case, two of them", ["--inv-names", OURS, "--statuses", "current,failed"]],
    ["--namespaces with an empty name", ["--inv-names", OURS, "--namespaces", `,${nsA}`]],
    ["--namespaces with a space after the comma (kpt keeps it: no such namespace)", ["--inv-names", OURS, "--namespaces", `${nsA}, ${nsB}`]],
    ["every filter", ["--inv-names", invA, "--namespaces", nsA, "--statuses", "Current"]],
    // Every inventory in the shared cluster, while other tests add and delete theirs (and their
    // CRDs): bounded, so that an object of another test caught mid-deletion cannot hold the run.
    ["no --inv-names (our inventories' lines)", ["--timeout=60s"]],
  ])("event lines: %s", async (_name, args) => {
    const [ours, theirs] = await Promise.all([status(kptTs, args), status(kpt, args)]);
    expect(theirs.code, printed(theirs)).toBe(0);
    expect(ours.code, printed(ours)).toBe(0);
    expect(eventLines(ours)).toEqual(eventLines(theirs));
    expect(eventLines(ours).length).toBeGreaterThan(0);
  });

  it.each<[string, string[]]>([
    ["both inventories", ["--inv-names", OURS]],
    ["--namespaces and --statuses", ["--inv-names", OURS, "--namespaces", nsB, "--statuses", "current"]],
  ])("JSON lines: %s", async (_name, args) => {
    const [ours, theirs] = await Promise.all([status(kptTs, [...args, "--output", "json"]), status(kpt, [...args, "--output", "json"])]);
    expect(theirs.code, printed(theirs)).toBe(0);
    expect(ours.code, printed(ours)).toBe(0);
    expect(jsonObjects(ours)).toEqual(jsonObjects(theirs));
    expect(jsonObjects(ours).length).toBeGreaterThan(0);
  });

  it("an inventory name nobody has: the same message", async () => {
    const args = ["--inv-names", `nope-${sfx}`];
    const [ours, theirs] = await Promise.all([status(kptTs, args), status(kpt, args)]);
    expect(ours.stdout).toBe(theirs.stdout);
    expect([ours.code, theirs.code]).toEqual([0, 0]);
  });

  it("--inv-names without remote: the same message (kpt exits 1 on every error; kpt-ts 2 for bad input)", async () => {
    const args = ["live", "status", dirA, "--inv-names", invA];
    const [ours, theirs] = await Promise.all([kptTs(args), kpt(args)]);
    expect(theirs.code).toBe(1);
    expect(ours.code).toBe(2);
    const message = (r: RunResult) => linesOf(r.stderr).find((l) => l.startsWith("error: "));
    expect(message(ours)).toBe(message(theirs));
  });
});
