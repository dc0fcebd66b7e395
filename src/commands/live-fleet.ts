// `live apply`, `live destroy` and `live diff` with --contexts (or --rollout): one package on many
// clusters (docs/fleet.md). The clusters and waves come from the kubeconfig (fleet/targets.ts);
// each cluster runs the engine on its own connection with its own inventory (fleet/run-fleet.ts);
// a printer shows them all. The exit code is the worst cluster's.

import { collectChangeSet, diffExitCode } from "../diff/change-set.js";
import type { EngineOptions } from "../engine/options.js";
import { runApply } from "../engine/run.js";
import { guardCluster } from "../fleet/cluster-guard.js";
import { clusterExitCode, DIFF_SEVERITY, RUN_SEVERITY, worstExitCode } from "../fleet/exit-codes.js";
import { DEFAULT_MAX_CLUSTERS_AT_ONCE } from "../fleet/options.js";
import { parseRollout } from "../fleet/rollout.js";
import { runFleet } from "../fleet/run-fleet.js";
import { runWaves } from "../fleet/run-waves.js";
import { formatNames } from "../fleet/select-contexts.js";
import { planFleet, type PlannedFleet } from "../fleet/targets.js";
import type { Cluster } from "../cluster/types.js";
import { EXIT, FleetError, UsageError, type ExitCode } from "../model/errors.js";
import type { ClusterResult } from "../model/fleet.js";
import type { Package } from "../model/kube-object.js";
import { escapeTerminal } from "../print/terminal-text.js";
import { printDiffAnnotations, type DiffOutput } from "../print/diff-printer.js";
import { formatFleetMarkdown, printFleetPreview, type ClusterPreview } from "../print/fleet-diff-printer.js";
import { printFleetRun, wantsFleetView } from "../print/fleet-printer.js";
import type { FleetView } from "../print/fleet-view.js";
import { appendStepSummary } from "../print/markdown-printer.js";
import type { GlobalFlags } from "./command-specs.js";
import { confirmHook } from "./confirm-deletes.js";
import { colorFor, type CommandIO } from "./io.js";
import { clusterOptions, runSockets } from "./open-cluster.js";

interface FleetFlags {
  contexts?: string[];
  rollout?: string;
  maxClustersAtOnce?: number;
}

/**
 * The clusters and waves of a run on many clusters, from --contexts and --rollout over the
 * kubeconfig; undefined for a run on one, where --max-clusters-at-once is refused. Flags that
 * pick one cluster are refused in a run on many.
 */
export function planFleetRun(f: FleetFlags, g: GlobalFlags, io: CommandIO, concurrency: number | undefined): PlannedFleet | undefined {
  if (!f.contexts?.length && f.rollout === undefined) {
    if (f.maxClustersAtOnce !== undefined) throw new UsageError("--max-clusters-at-once only applies to a run on several clusters: add --contexts (or --rollout)");
    return undefined;
  }
  const picked = f.contexts?.length ? "--contexts" : "--rollout";
  for (const [flag, value] of [
    ["--context", g.context],
    ["--server", g.server],
    ["--cluster", g.cluster],
  ] as const) {
    if (value) throw new UsageError(`${flag} picks one cluster and ${picked} several: drop ${flag} (each context's own ${flag.slice(2)} is used)`);
  }
  const rollout = f.rollout !== undefined ? parseRollout(f.rollout) : undefined;
  return planFleet({ ...(f.contexts?.length ? { clusters: f.contexts } : {}), ...(rollout ? { rollout } : {}) }, clusterOptions(g, { maxSockets: runSockets(concurrency), io }));
}

interface FleetRunFlags extends FleetFlags {
  output: "events" | "table" | "json";
  showStatusEvents: boolean;
  yes: boolean;
  dryRun: boolean;
  allowAnyCluster: boolean;
}

/** Applies or destroys the package on every cluster of the plan and prints it all; throws when a cluster did not succeed. */
export async function runFleetCommand(command: "apply" | "destroy", pkg: Package, planned: PlannedFleet, engine: EngineOptions, f: FleetRunFlags, g: GlobalFlags, io: CommandIO): Promise<void> {
  const color = colorFor(io, g);
  let view: FleetView | undefined;
  const ask = confirmHook(pkg, { yes: f.yes, dryRun: f.dryRun, output: f.output, color }, io);
  // One question at a time, the live view out of the way, each naming its cluster.
  let asking: Promise<unknown> = Promise.resolve();
  const confirm = ask
    ? (cluster: string, plan: Parameters<typeof ask>[0]) => {
        const turn = asking.then(async () => {
          view?.pause();
          io.stdout.write(`\nOn cluster ${escapeTerminal(cluster)}:\n`);
          try {
            await ask(plan);
          } finally {
            view?.resume();
          }
        });
        asking = turn.catch(() => undefined);
        return turn;
      }
    : undefined;
  const events = runFleet(pkg, planned.targets, { command, waves: planned.waves, maxClustersAtOnce: f.maxClustersAtOnce, allowAnyCluster: f.allowAnyCluster, engine: { ...engine, signal: io.signal }, ...(confirm ? { confirm } : {}) });
  const showView = wantsFleetView({ output: f.output, stderrIsTTY: Boolean(io.stderr.isTTY), env: io.env, colorFlag: g.color === false ? false : undefined });
  const summary = await printFleetRun(events, {
    output: f.output,
    stdout: io.stdout,
    stderr: io.stderr,
    color,
    showStatusEvents: f.showStatusEvents,
    ...(io.env.GITHUB_ACTIONS === "true" ? { githubActions: { cwd: process.cwd() } } : {}),
    ...(showView ? { view: { columns: io.stderr.columns || 80, rows: io.stderr.rows || 24, signal: io.signal }, onView: (v: FleetView) => (view = v) } : {}),
  });
  if (summary.exitCode !== EXIT.ok) throw new FleetError(fleetFailure(summary.results, command), summary.exitCode);
}

/** `2 of 3 clusters did not succeed: b (exit 1), c (not run)`. */
function fleetFailure(results: readonly ClusterResult[], what: string): string {
  const bad = results.filter((r) => r.outcome !== "succeeded");
  const named = bad.map((r) => `${r.cluster} (${r.outcome === "not-run" ? "not run" : `exit ${r.exitCode}`})`);
  return `${what} did not succeed on ${bad.length} of ${results.length} clusters: ${formatNames(named)}`;
}

interface FleetPreviewOptions {
  output: DiffOutput;
  /** The heading: the command. */
  title: string;
  /** The line saying the preview was computed locally, when it was. */
  local?: string;
  /** live diff's codes (0, 1, 2), or apply's (0, 3...). */
  codes: "diff" | "run";
  /** apply --dry-run: the guard is checked as the real run would. */
  guard?: { allowAnyCluster: boolean };
  maxClustersAtOnce?: number;
}

/** Previews the apply on every cluster at once (a dry run each) and prints one summary, then a section per cluster; resolves to the worst exit code. */
export async function previewFleet(pkg: Package, planned: PlannedFleet, engine: EngineOptions, o: FleetPreviewOptions, g: GlobalFlags, io: CommandIO): Promise<ExitCode> {
  const outcomes = await onEveryCluster(planned, o.maxClustersAtOnce, io, async (cluster, name) => {
    if (o.guard) await guardCluster(pkg.inventory, cluster, name, { allowAnyCluster: o.guard.allowAnyCluster, signal: io.signal });
    return collectChangeSet(runApply(pkg, cluster, { ...engine, signal: io.signal }), o.local ? { local: o.local } : {});
  });
  const previews: ClusterPreview[] = outcomes.map((out) => {
    if ("value" in out) {
      const code = diffExitCode(out.value);
      return { cluster: out.cluster, changes: out.value, exitCode: o.codes === "diff" ? code : code === 2 ? EXIT.result : EXIT.ok };
    }
    const exitCode = o.codes === "diff" && out.exitCode !== EXIT.cancelled && out.exitCode !== EXIT.terminated ? 2 : out.exitCode;
    return { cluster: out.cluster, error: out.error, exitCode };
  });
  printFleetPreview(previews, { output: o.output, stdout: io.stdout, color: colorFor(io, g), title: o.title });
  if (io.env.GITHUB_ACTIONS === "true") for (const p of previews) if (p.changes) printDiffAnnotations(p.changes, io.stderr, process.cwd());
  const summary = io.env.GITHUB_STEP_SUMMARY;
  if (summary) await appendStepSummary(summary, formatFleetMarkdown(previews, o.title));
  return worstExitCode(
    previews.map((p) => p.exitCode),
    o.codes === "diff" ? DIFF_SEVERITY : RUN_SEVERITY,
  );
}

/**
 * Runs `job` on every cluster of the plan at once (at most maxAtOnce), each on its own connection;
 * resolves to each cluster's value, or to its exit code and error (not run: interrupted, exit 130).
 */
export async function onEveryCluster<R>(planned: PlannedFleet, maxAtOnce: number | undefined, io: CommandIO, job: (cluster: Cluster, name: string) => Promise<R>): Promise<({ cluster: string; value: R } | { cluster: string; exitCode: ExitCode; error: string })[]> {
  const outcomes = await runWaves(
    [planned.waves.flat()],
    async (name) => {
      const target = planned.targets.get(name)!;
      const cluster = target.connect();
      try {
        return await job(cluster, name);
      } finally {
        if (target.owned) cluster.close();
      }
    },
    { maxAtOnce: maxAtOnce ?? DEFAULT_MAX_CLUSTERS_AT_ONCE, signal: io.signal, succeeded: () => true },
  );
  return outcomes.map((o) => {
    if (o.status === "done") return { cluster: o.cluster, value: o.value };
    if (o.status === "not-run") return { cluster: o.cluster, exitCode: EXIT.cancelled, error: o.because };
    return { cluster: o.cluster, exitCode: clusterExitCode({ error: o.error, interrupted: io.signal.aborted }), error: o.error instanceof Error ? o.error.message : String(o.error) };
  });
}
