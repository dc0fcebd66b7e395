// `kpt-ts live status [PKG_PATH | -]`, and `live status --inv-type remote` (no package: every
// inventory in the cluster, as kpt, ApplySets too). With --contexts, on each of several clusters: every line
// names its cluster, and a table sums each cluster's statuses up (the fleet view).

import type { Cluster } from "../cluster/types.js";
import { unavailableApiWarnings } from "../cluster/unavailable-apis.js";
import { worstExitCode } from "../fleet/exit-codes.js";
import type { PlannedFleet } from "../fleet/targets.js";
import { readInventoryForStatus } from "../inventory/cluster-inventory.js";
import { listInventories } from "../inventory/list-inventories.js";
import { selectForStatus, type InventoryMember } from "../inventory/status-selection.js";
import { FleetError, UsageError } from "../model/errors.js";
import type { KStatus } from "../model/events.js";
import type { Package } from "../model/kube-object.js";
import { refKey } from "../model/ref.js";
import { absentInventoryLine } from "../print/absent-inventory.js";
import { clusterStream } from "../print/cluster-lines.js";
import { printFleetStatus, type ClusterStatus } from "../print/fleet-status-printer.js";
import { printLiveStatus } from "../print/status-printer.js";
import { warningLine } from "../print/terminal-text.js";
import { followStatus } from "../status/follow-status.js";
import type { ComputeStatusOptions } from "../status/types.js";
import type { FlagValues } from "./flag-spec.js";
import type { GlobalFlags, statusFlags } from "./command-specs.js";
import { colorFor, readCommandPackage, statusOptionsFor, type CommandIO } from "./io.js";
import { onEveryCluster, planFleetRun } from "./live-fleet.js";
import { openClusterEarly } from "./open-cluster.js";

type StatusFlags = FlagValues<typeof statusFlags>;

export async function liveStatus(pkgPath: string, f: StatusFlags, g: GlobalFlags, io: CommandIO): Promise<void> {
  const { rgFile, invType, invNames, healthRules, contexts, maxClustersAtOnce } = f;
  const remote = invType === "remote";
  // kpt's checks and messages.
  if (!remote && invNames?.length) throw new UsageError("inv-names flag should only be used when inv-type is set to remote");
  if (remote && (pkgPath !== "." || rgFile !== undefined)) {
    const unread = pkgPath !== "." ? `the package "${pkgPath}"` : `--rg-file "${rgFile}"`;
    io.stderr.write(warningLine(`--inv-type remote shows every inventory in the cluster; ${unread} is not read (choose inventories with --inv-names)`));
  }
  const planned = planFleetRun({ contexts, maxClustersAtOnce }, g, io, undefined);
  const early = planned ? undefined : openClusterEarly(g, { io });
  try {
    // Remote: the --health-rules files' rules only; there is no package to read.
    const pkg = remote ? undefined : await readCommandPackage(pkgPath, io, rgFile, { flag: f.applySet, namespace: g.namespace });
    const statusOptions = await statusOptionsFor(pkg ?? {}, healthRules);
    if (planned) return await showFleetStatus(planned, pkg, f, statusOptions, g, io);
    await showStatus(early!.use(), pkg, f, statusOptions, { stdout: io.stdout, stderr: io.stderr, signal: io.signal, tty: Boolean(io.stdout.isTTY), color: colorFor(io, g) });
  } finally {
    early?.close();
  }
}

/** Each cluster's status, its lines marked with the cluster, then a row per cluster counting its statuses. */
async function showFleetStatus(planned: PlannedFleet, pkg: Package | undefined, f: StatusFlags, statusOptions: Omit<ComputeStatusOptions, "now">, g: GlobalFlags, io: CommandIO): Promise<void> {
  const outcomes = await onEveryCluster(planned, f.maxClustersAtOnce, io, async (cluster, name) => {
    const out = { stdout: clusterStream(name, f.output === "json" ? "json" : "prefix", (t) => io.stdout.write(t)), stderr: clusterStream(name, "prefix", (t) => io.stderr.write(t)) };
    const statuses = new Map<string, KStatus>();
    try {
      await showStatus(cluster, pkg, f, statusOptions, { ...out, signal: io.signal, tty: false, color: colorFor(io, g), onStatus: (key, s) => statuses.set(key, s) });
      return statuses;
    } finally {
      await Promise.all([out.stdout, out.stderr].map((s) => new Promise((resolve) => s.end(resolve))));
    }
  });
  const results: ClusterStatus[] = outcomes.map((o) => ("value" in o ? { cluster: o.cluster, statuses: [...o.value.values()], exitCode: 0 } : { cluster: o.cluster, exitCode: o.exitCode, message: o.error }));
  printFleetStatus(results, { output: f.output, stdout: io.stdout, color: colorFor(io, g) });
  const code = worstExitCode(results.map((r) => r.exitCode));
  if (code !== 0) throw new FleetError(`live status did not succeed on ${results.filter((r) => r.exitCode !== 0).map((r) => r.cluster).join(", ")}`, code);
}

interface StatusOut {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  signal: AbortSignal;
  tty: boolean;
  color: boolean;
  /** Told each object's status as it changes (the fleet's summary counts the last). */
  onStatus?: (key: string, status: KStatus) => void;
}

/** One cluster's status: the inventory's objects (or every inventory's, remote), followed and printed. */
async function showStatus(cluster: Cluster, pkg: Package | undefined, f: StatusFlags, statusOptions: Omit<ComputeStatusOptions, "now">, io: StatusOut): Promise<void> {
  const { output, invType, invNames, statuses: shown, namespaces, rgFile: _rgFile, applySet: _as, healthRules: _hr, contexts: _c, maxClustersAtOnce: _m, ...follow } = f;
  const remote = invType === "remote";
  const selection = { inventoryNames: invNames, namespaces };
  // As kpt: every namespace's ResourceGroups, whatever -n says (--namespaces selects objects),
  // and every ApplySet beside them; without the CRD and without any ApplySet, kpt's error (exit 1),
  // as for one package's inventory.
  const stored = pkg ? await readInventoryForStatus(cluster, pkg.inventory, io.signal) : undefined;
  const objects: InventoryMember[] = pkg
    ? selectForStatus([{ kind: pkg.inventory.applySet ? "ApplySet" : "ResourceGroup", ...pkg.inventory, refs: stored!.refs }], selection)
    : selectForStatus((await listInventories(cluster, { signal: io.signal, kindRequired: true, onWarning: (w) => io.stderr.write(warningLine(w)) })).inventories, selection);
  if (objects.length === 0) {
    io.stdout.write("no resources found in the inventory\n");
    // kpt's line alone reads the same for an empty package and a wrong context: say which.
    if (pkg && !stored?.object) io.stderr.write(absentInventoryLine("status", pkg.inventory, { ...(cluster.context ? { context: cluster.context } : {}), server: cluster.server }));
    return;
  }
  for (const w of await unavailableApiWarnings(cluster, io.signal)) io.stderr.write(warningLine(w));
  const refs = [...new Map(objects.map((o) => [refKey(o.ref), o.ref])).values()];
  const events = followStatus(cluster, refs, { ...follow, signal: io.signal, statusOptions });
  await printLiveStatus(io.onStatus ? tapStatuses(events, io.onStatus) : events, {
    output,
    stdout: io.stdout,
    color: io.color,
    tty: io.tty,
    objects,
    ...(shown?.length ? { statuses: new Set(shown.map((s) => s.toLowerCase())) } : {}),
    inventoryInLines: remote,
  });
}

async function* tapStatuses<E extends { ref: Parameters<typeof refKey>[0]; status: KStatus }>(events: AsyncIterable<E>, on: (key: string, s: KStatus) => void): AsyncIterable<E> {
  for await (const e of events) {
    on(refKey(e.ref), e.status);
    yield e;
  }
}
