// One package on many clusters (docs/fleet.md), its pure parts: which contexts a run selects,
// the rollout's waves, the scheduler's gating and bound, exit codes folded, lines marked with
// their cluster, the guard's pins, and the final table.
import { describe, expect, it } from "vitest";
import { pinViolation, readClusterPins } from "../../src/fleet/cluster-guard.js";
import { clusterExitCode, DIFF_SEVERITY, worstExitCode } from "../../src/fleet/exit-codes.js";
import { parseRollout, planWaves } from "../../src/fleet/rollout.js";
import { runWaves } from "../../src/fleet/run-waves.js";
import { globMatcher, selectContexts } from "../../src/fleet/select-contexts.js";
import { CancelledError, ClusterError, EXIT, PackageError, UsageError, WrongClusterError, type ExitCode } from "../../src/model/errors.js";
import type { InventoryInfo } from "../../src/model/kube-object.js";
import type { ClusterResult, FleetEvent } from "../../src/model/fleet.js";
import { emptyStats } from "../../src/model/run-tally.js";
import { addClusterField, LineSplitter, prefixLine } from "../../src/print/cluster-lines.js";
import { createPalette } from "../../src/print/color.js";
import { formatFleetTable, formatRolloutStop } from "../../src/print/fleet-printer.js";
import { createFleetViewState, renderFleetView, updateFleetView } from "../../src/print/fleet-view.js";
import { formatFleetMarkdown } from "../../src/print/fleet-diff-printer.js";
import type { ChangeSet } from "../../src/diff/change-set.js";

const KNOWN = ["prod-eu", "prod-us", "staging", "canary-eu", "arn:aws:eks:eu-west-1:1:cluster/edge.1"];

describe("selectContexts: names and globs over the kubeconfig's contexts", () => {
  it.each<[string, string[], string[]]>([
    ["one name", ["staging"], ["staging"]],
    ["names in the order given", ["staging", "prod-eu"], ["staging", "prod-eu"]],
    ["a glob, its matches sorted by name", ["prod-*"], ["prod-eu", "prod-us"]],
    ["? matches one character", ["prod-?s"], ["prod-us"]],
    ["each context once, first mention wins", ["prod-us", "prod-*", "prod-us"], ["prod-us", "prod-eu"]],
    ["* takes every context", ["*"], [...KNOWN].sort()],
    ["dots, colons and slashes are literal (an EKS ARN)", ["arn:aws:eks:*:cluster/edge.1"], ["arn:aws:eks:eu-west-1:1:cluster/edge.1"]],
    ["blank entries are ignored", [" staging ", ""], ["staging"]],
  ])("%s", (_name, patterns, selected) => {
    expect(selectContexts(patterns, KNOWN)).toEqual(selected);
  });

  it("an unknown name is an error naming the contexts that exist", () => {
    expect(() => selectContexts(["prod-eu", "prod-ap"], KNOWN, "--contexts", "kubeconfig /k")).toThrow(
      new UsageError('--contexts names context "prod-ap", which kubeconfig /k does not hold; its contexts are prod-eu, prod-us, staging, canary-eu, arn:aws:eks:eu-west-1:1:cluster/edge.1'),
    );
  });

  it("a glob that matches nothing is an error too", () => {
    expect(() => selectContexts(["dev-*"], ["a"], "--contexts", "kubeconfig /k")).toThrow('--contexts pattern "dev-*" matches no context of kubeconfig /k; its contexts are a');
  });

  it("a glob is anchored at both ends", () => {
    expect(globMatcher("prod")("prod-eu")).toBe(false);
    expect(globMatcher("*eu")("prod-eu")).toBe(true);
    expect(globMatcher("p.od")("prod")).toBe(false);
  });
});

describe("the rollout's waves", () => {
  const selected = ["canary-eu", "prod-eu", "prod-us", "staging"];
  it.each<[string, string | undefined, string[][]]>([
    ["no rollout: one wave of all", undefined, [selected]],
    ["a canary, then the rest", "canary-*;*", [["canary-eu"], ["prod-eu", "prod-us", "staging"]]],
    ["three waves, names and globs", "staging;prod-eu,canary-*;*", [["staging"], ["prod-eu", "canary-eu"], ["prod-us"]]],
    ["a cluster goes to the first wave that matches it", "prod-*;prod-us,canary-eu,staging", [["prod-eu", "prod-us"], ["canary-eu", "staging"]]],
    ["blanks around names are dropped", " canary-eu ; * ", [["canary-eu"], ["prod-eu", "prod-us", "staging"]]],
  ])("%s", (_name, rollout, waves) => {
    expect(planWaves(selected, rollout === undefined ? undefined : parseRollout(rollout))).toEqual(waves);
  });

  it.each<[string, string, string]>([
    ["an empty wave", "canary-*;;*", "--rollout \"canary-*;;*\": wave 2 is empty"],
    ["a wave that takes no cluster (a mistyped canary)", "canery-*;*", "--rollout wave 1 (canery-*) takes no cluster"],
    ["a wave left with nothing by the waves before", "*;prod-*", "--rollout wave 2 (prod-*) takes no cluster"],
    ["a name the run does not select", "dev;*", '--rollout wave 1 names "dev", which is not among the clusters of the run'],
    ["a cluster in no wave", "canary-*;prod-*", "--rollout puts staging in no wave: name it in a wave, or end the rollout with '*'"],
  ])("%s is refused", (_name, rollout, message) => {
    expect(() => planWaves(selected, parseRollout(rollout))).toThrow(message);
  });
});

describe("exit codes", () => {
  it.each<[string, ExitCode[], ExitCode]>([
    ["all succeeded", [0, 0], 0],
    ["none at all", [], 0],
    ["an object failed on one", [0, 3], 3],
    ["a cluster unreachable beats an object failed", [3, 1, 0], 1],
    ["refused before writing (bad input, the wrong cluster) beats an object failed", [3, 2], 2],
    ["stopped (1) beats refused (2)", [2, 1], 1],
    ["an interruption beats everything", [1, 130, 3], 130],
  ])("apply, destroy, status: %s", (_name, codes, worst) => {
    expect(worstExitCode(codes)).toBe(worst);
  });

  it.each<[ExitCode[], ExitCode]>([
    [[0, 1], 1],
    [[1, 2, 0], 2],
    [[2, 130], 130],
  ])("live diff %j -> %s", (codes, worst) => {
    expect(worstExitCode(codes, DIFF_SEVERITY)).toBe(worst);
  });

  const failedStats = () => {
    const s = emptyStats();
    s.wait.timeout = 1;
    return s;
  };
  const abort = Object.assign(new Error("This operation was aborted"), { name: "AbortError" });
  it.each<[string, Parameters<typeof clusterExitCode>[0], ExitCode]>([
    ["a clean run", { stats: emptyStats() }, 0],
    ["a timed-out wait: kpt's 3", { stats: failedStats() }, 3],
    ["unreachable", { error: new ClusterError("cannot connect") }, 1],
    ["the guard", { error: new WrongClusterError("no") }, 2],
    ["a bad package", { error: new PackageError([{ message: "bad" }]) }, 2],
    ["cancelled", { error: new CancelledError() }, 130],
    ["a request cut by the interruption", { error: abort, interrupted: true }, 130],
    ["an AbortError with no interruption is an error", { error: abort }, 1],
  ])("one cluster: %s", (_name, r, code) => {
    expect(clusterExitCode(r)).toBe(code);
  });
});

describe("lines marked with their cluster", () => {
  it.each([
    ["deployment.apps/web created", "[prod-eu] deployment.apps/web created"],
    ["", ""],
    ["1 resource(s) applied. 1 created, 0 unchanged, 0 configured, 0 failed", "[prod-eu] 1 resource(s) applied. 1 created, 0 unchanged, 0 configured, 0 failed"],
  ])("%j", (line, marked) => {
    expect(prefixLine(line, "prod-eu")).toBe(marked);
  });

  it("a GitHub annotation keeps its command first and names the cluster in its message", () => {
    expect(prefixLine("::error file=app.yaml,line=3::configmap/a apply failed: refused", "prod-eu")).toBe("::error file=app.yaml,line=3::[prod-eu] configmap/a apply failed: refused");
    expect(prefixLine("\\::error::not a command", "x")).toBe("[x] \\::error::not a command");
  });

  it("a name from the kubeconfig is escaped", () => {
    expect(prefixLine("x", "evil\x1b[2J")).toBe("[evil^[[2J] x");
  });

  it("JSON lines get a cluster field among their sorted keys, kpt's keys and values unchanged", () => {
    const line = '{"group":"apps","kind":"Deployment","name":"web","namespace":"app","status":"Successful","timestamp":"2026-11-27T10:00:00Z","type":"apply"}';
    expect(addClusterField(line, "prod-eu")).toBe('{"cluster":"prod-eu","group":"apps","kind":"Deployment","name":"web","namespace":"app","status":"Successful","timestamp":"2026-11-27T10:00:00Z","type":"apply"}');
    expect(addClusterField('{"error":"a <b> & c","type":"error"}', "x")).toBe('{"cluster":"x","error":"a \\u003cb\\u003e \\u0026 c","type":"error"}');
    expect(addClusterField("not json", "x")).toBe("not json");
  });

  it("written text is passed on in whole lines", () => {
    const s = new LineSplitter();
    expect(s.push("a\nb")).toEqual(["a"]);
    expect(s.push("c\n\nd\n")).toEqual(["bc", "", "d"]);
    expect(s.push("e")).toEqual([]);
    expect(s.end()).toBe("e");
    expect(s.end()).toBeUndefined();
  });
});

describe("the guard's pins (kpt-ts.dev/clusters)", () => {
  const UID_A = "6f0d8f6e-0b0e-4b6a-9d7a-1c2b3d4e5f60";
  const UID_B = "0a1b2c3d-4e5f-6071-8293-a4b5c6d7e8f9";
  const inv = (value?: string): InventoryInfo => ({
    name: "inv",
    namespace: "app",
    id: "id",
    labels: {},
    annotations: value === undefined ? {} : { "kpt-ts.dev/clusters": value },
    origin: "resourcegroup",
    source: { file: "pkg/resourcegroup.yaml", line: 1 },
  });

  it("no annotation: no pins", () => {
    expect(readClusterPins(inv())).toBeUndefined();
  });

  it("names and identities, separated by commas or blanks", () => {
    expect(readClusterPins(inv(`prod-*, staging\n uid:${UID_A.toUpperCase()}`))).toMatchObject({ names: ["prod-*", "staging"], uids: [UID_A], text: `prod-*, staging, uid:${UID_A.toUpperCase()}` });
  });

  it.each([
    ["", "names no cluster"],
    ["uid:nope", '"uid:nope" is not a cluster identity'],
  ])("%j is the package's error, with file and line", (value, message) => {
    expect(() => readClusterPins(inv(value))).toThrow(PackageError);
    expect(() => readClusterPins(inv(value))).toThrow(`pkg/resourcegroup.yaml:1: ResourceGroup/inv: annotation kpt-ts.dev/clusters: ${message}`);
  });

  it.each<[string, string, { context: string; uid?: string }, string | undefined]>([
    ["a name that matches", "prod-*", { context: "prod-eu" }, undefined],
    ["a name that does not", "prod-*", { context: "staging" }, 'context "staging" matches none of prod-*'],
    ["no context at all (--server)", "prod-*", { context: "" }, "the connection has no kubeconfig context to match prod-*"],
    ["the pinned identity", `uid:${UID_A}`, { context: "anything", uid: UID_A }, undefined],
    ["another identity", `uid:${UID_A}`, { context: "prod-eu", uid: UID_B }, `its identity uid:${UID_B} is none of uid:${UID_A}`],
    ["an identity that could not be read", `uid:${UID_A}`, { context: "prod-eu" }, "its identity could not be read"],
    ["names and identities: both must hold", `prod-*, uid:${UID_A}`, { context: "staging", uid: UID_A }, 'context "staging" matches none of prod-*'],
    ["names and identities, both hold", `prod-*, uid:${UID_A}, uid:${UID_B}`, { context: "prod-us", uid: UID_B }, undefined],
  ])("%s", (_name, value, target, why) => {
    expect(pinViolation(readClusterPins(inv(value))!, { server: "https://x", ...target })).toBe(why);
  });
});

/** A job that resolves after `ms` with its verdict, recording how many ran at once. */
function scripted(plan: Record<string, { ms: number; ok?: boolean; throws?: boolean }>) {
  let running = 0;
  const log = { maxRunning: 0, started: [] as string[] };
  const job = async (cluster: string) => {
    log.started.push(cluster);
    log.maxRunning = Math.max(log.maxRunning, ++running);
    await new Promise((r) => setTimeout(r, plan[cluster]!.ms));
    running--;
    if (plan[cluster]!.throws) throw new Error(`${cluster} is unreachable`);
    return plan[cluster]!.ok !== false;
  };
  return { job, log };
}

describe("runWaves: the scheduler", () => {
  it("runs a wave's clusters at once up to the bound, and the next wave after", async () => {
    const { job, log } = scripted({ a: { ms: 20 }, b: { ms: 5 }, c: { ms: 5 }, d: { ms: 1 } });
    const out = await runWaves([["a", "b", "c"], ["d"]], job, { maxAtOnce: 2, succeeded: (ok) => ok });
    expect(log.maxRunning).toBe(2);
    expect(log.started).toEqual(["a", "b", "c", "d"]);
    expect(out.map((o) => [o.cluster, o.wave, o.status])).toEqual([
      ["a", 1, "done"],
      ["b", 1, "done"],
      ["c", 1, "done"],
      ["d", 2, "done"],
    ]);
  });

  it("a cluster that fails or throws does not stop its wave; the next wave is not run, and says why", async () => {
    const { job, log } = scripted({ a: { ms: 1, throws: true }, b: { ms: 10 }, c: { ms: 1, ok: false }, d: { ms: 1 }, e: { ms: 1 } });
    const out = await runWaves([["a", "b", "c"], ["d"], ["e"]], job, { maxAtOnce: 1, succeeded: (ok) => ok });
    expect(log.started).toEqual(["a", "b", "c"]);
    expect(out.map((o) => o.status)).toEqual(["error", "done", "done", "not-run", "not-run"]);
    expect(out[3]).toMatchObject({ cluster: "d", wave: 2, because: "wave 1 did not succeed (a, c)" });
    expect(out[4]).toMatchObject({ cluster: "e", wave: 3, because: "wave 1 did not succeed (a, c)" });
  });

  it("a failure in the last wave leaves nothing unrun", async () => {
    const { job } = scripted({ a: { ms: 1 }, b: { ms: 1, ok: false } });
    const out = await runWaves([["a"], ["b"]], job, { maxAtOnce: 4, succeeded: (ok) => ok });
    expect(out.map((o) => o.status)).toEqual(["done", "done"]);
  });

  it("once interrupted, nothing starts: the rest of the wave and the later waves are not run", async () => {
    const abort = new AbortController();
    const { job } = scripted({ a: { ms: 15 }, b: { ms: 1 }, c: { ms: 1 } });
    setTimeout(() => abort.abort(), 5);
    const out = await runWaves([["a", "b"], ["c"]], job, { maxAtOnce: 1, signal: abort.signal, succeeded: (ok) => ok });
    expect(out.map((o) => [o.cluster, o.status])).toEqual([
      ["a", "done"],
      ["b", "not-run"],
      ["c", "not-run"],
    ]);
    expect(out[1]).toMatchObject({ because: "interrupted before it started" });
  });

  it("reports each outcome as it is known", async () => {
    const { job } = scripted({ a: { ms: 10 }, b: { ms: 1 } });
    const seen: string[] = [];
    await runWaves([["a", "b"]], job, { maxAtOnce: 2, succeeded: () => true, onStart: (c) => seen.push(`start ${c}`), onOutcome: (o) => seen.push(`end ${o.cluster}`) });
    expect(seen).toEqual(["start a", "start b", "end b", "end a"]);
  });
});

describe("the final table", () => {
  const stats = (applied: number, reconciled: number, failed = 0) => {
    const s = emptyStats();
    s.apply.successful = applied;
    s.apply.failed = failed;
    s.wait.successful = reconciled;
    return s;
  };
  const results: ClusterResult[] = [
    { cluster: "canary-eu", wave: 1, outcome: "failed", exitCode: EXIT.result, stats: stats(2, 1, 1), tookMs: 4_200 },
    { cluster: "prod-eu", wave: 2, outcome: "not-run", message: "wave 1 did not succeed (canary-eu)" },
    { cluster: "prod-us", wave: 2, outcome: "not-run", message: "wave 1 did not succeed (canary-eu)" },
  ];

  it("a row per cluster, then why each that did not succeed", () => {
    expect(formatFleetTable(results, "apply", true, createPalette(false))).toEqual([
      "CLUSTER    WAVE  RESULT   APPLIED  PRUNED  FAILED  RECONCILED  TOOK  EXIT",
      "canary-eu  1     failed   2        0       1       1           4.2s  3",
      "prod-eu    2     not run  -        -       -       -           -     -",
      "prod-us    2     not run  -        -       -       -           -     -",
      "",
      "prod-eu: not run: wave 1 did not succeed (canary-eu)",
      "prod-us: not run: wave 1 did not succeed (canary-eu)",
    ]);
    expect(formatRolloutStop(results)).toBe("rollout stopped: wave 1 did not succeed (canary-eu); not touched: prod-eu, prod-us");
  });

  it("destroy counts deletes; one wave shows no wave column; an unreachable cluster says why", () => {
    const s = emptyStats();
    s.delete.successful = 5;
    expect(
      formatFleetTable(
        [
          { cluster: "a", wave: 1, outcome: "succeeded", exitCode: 0, stats: s, tookMs: 900 },
          { cluster: "b", wave: 1, outcome: "failed", exitCode: 1, message: "cannot connect to https://127.0.0.1:1: ECONNREFUSED", tookMs: 12 },
        ],
        "destroy",
        false,
        createPalette(false),
      ),
    ).toEqual(["CLUSTER  RESULT     DELETED  FAILED  RECONCILED  TOOK  EXIT", "a        succeeded  5        0       0           0.9s  0", "b        failed     -        -       -           0.0s  1", "", "b: cannot connect to https://127.0.0.1:1: ECONNREFUSED"]);
    expect(formatRolloutStop([])).toBeUndefined();
  });

  it("a cluster stopped by Ctrl-C (or a question answered no) is cancelled, not failed", () => {
    const [, row] = formatFleetTable([{ cluster: "a", wave: 1, outcome: "failed", exitCode: 130, stats: emptyStats(), tookMs: 1_000 }], "apply", false, createPalette(false));
    expect(row).toBe("a        cancelled  0        0       0       0           1.0s  130");
  });
});

describe("the live view: a row per cluster", () => {
  const ref = (name: string) => ({ group: "", kind: "ConfigMap", namespace: "app", name });
  const render = (s: ReturnType<typeof createFleetViewState>, maxRows = 10) => renderFleetView(s, { nowMs: 5_000, columns: 100, maxRows, frame: 0, paint: createPalette(false) });

  it("shows each cluster queued, at work, or how it ended; nothing once none runs or waits", () => {
    const s = createFleetViewState();
    const feed = (e: FleetEvent, at = 1_000) => updateFleetView(s, e, at);
    feed({ type: "fleet", command: "apply", dryRun: false, waves: [["a", "b"], ["c"]] });
    feed({ type: "cluster-started", cluster: "a", wave: 1 });
    feed({ type: "cluster-started", cluster: "b", wave: 1 });
    feed({ type: "init", cluster: "a", command: "apply", dryRun: "none", inventory: { name: "inv", namespace: "app", id: "x" }, objects: [{ ref: ref("x"), action: "Apply" }, { ref: ref("y"), action: "Apply" }] });
    feed({ type: "group", cluster: "a", action: "Apply", status: "Started", wave: 0 });
    feed({ type: "apply", cluster: "a", ref: ref("x"), status: "Successful", operation: "created" });
    feed({ type: "cluster-finished", cluster: "b", result: { cluster: "b", wave: 1, outcome: "failed", exitCode: 1, message: "cannot reach the cluster\nmore", tookMs: 300 } }, 1_300);
    expect(render(s)).toEqual([
      "apply on 3 cluster(s): 0 succeeded, 1 failed, 1 running, 1 queued",
      "⠋ a  wave 1  applying 1/2 0:04",
      "✗ b  wave 1  failed (exit 1): cannot reach the cluster (0.3s)",
      "· c  wave 2  queued",
    ]);
    feed({ type: "group", cluster: "a", action: "Wait", status: "Started", wave: 0 });
    feed({ type: "waiting", cluster: "a", wave: 0, pending: [{ ref: ref("x"), status: "InProgress", message: "" }], total: 2, elapsedMs: 100 });
    expect(render(s)[1]).toBe("⠋ a  wave 1  waiting for 1 of 2 to reconcile 0:04");
    // Too many rows for the terminal: the running clusters first, then a count of the rest.
    expect(render(s, 2)).toEqual(["apply on 3 cluster(s): 0 succeeded, 1 failed, 1 running, 1 queued", "⠋ a  wave 1  waiting for 1 of 2 to reconcile 0:04", "  ... and 2 more"]);
    feed({ type: "cluster-finished", cluster: "a", result: { cluster: "a", wave: 1, outcome: "succeeded", exitCode: 0, tookMs: 4_000 } });
    feed({ type: "cluster-finished", cluster: "c", result: { cluster: "c", wave: 2, outcome: "not-run", message: "wave 1 did not succeed (b)" } });
    expect(render(s)).toEqual([]);
  });
});

describe("the preview of many clusters (Markdown)", () => {
  const ref = (name: string) => ({ group: "", kind: "ConfigMap", namespace: "app", name });
  const inventory = { name: "inv", namespace: "app", exists: true };
  const same: ChangeSet = { inventory, changes: [{ ref: ref("a"), operation: "noop" }] };
  const changed: ChangeSet = { inventory, changes: [{ ref: ref("a"), operation: "update", before: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "a" }, data: { k: "1" } }, after: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "a" }, data: { k: "2" } } }] };

  it("one summary on top, then a section per cluster: open where it changes or fails, collapsed where nothing changes", () => {
    const md = formatFleetMarkdown(
      [
        { cluster: "east", changes: same, exitCode: 0 },
        { cluster: "west", changes: changed, exitCode: 1 },
        { cluster: "gone", error: "cannot reach the cluster at https://127.0.0.1:9", exitCode: 2 },
      ],
      "kpt-ts live diff",
    );
    const lines = md.split("\n");
    expect(lines.slice(0, 8)).toEqual([
      "### kpt-ts live diff: 3 clusters: 1 with changes, 1 with errors",
      "",
      "| Cluster | Result | Create | Update | Delete | Noop |",
      "|---|---|--:|--:|--:|--:|",
      "| east | no changes | 0 | 0 | 0 | 1 |",
      "| west | 1 change | 0 | 1 | 0 | 0 |",
      "| gone | error: cannot reach the cluster at https://127.0.0.1:9 |  |  |  |  |",
      "",
    ]);
    expect(lines.filter((l) => l.startsWith("<details")).slice(0, 3)).toEqual(["<details>", "<details open>", "<details>"]);
    expect(md).toContain("<details>\n<summary><b>east</b>: no changes</summary>");
    expect(md).toContain("<details open>\n<summary><b>west</b>: 1 change</summary>");
    expect(md).toContain("<details open>\n<summary><b>gone</b>: error: cannot reach the cluster at https://127.0.0.1:9</summary>");
    expect(md).toContain("-  k: \"1\"\n+  k: \"2\"");
    expect(md).toContain("### kpt-ts live diff on west: ResourceGroup app/inv");
  });
});
