// `kpt-ts live status [PKG_PATH | -]`

import { readPackage } from "../object/read-package.js";
import { printLiveStatus } from "../print/status-printer.js";
import { followStatus } from "../status/follow-status.js";
import { inventoryObjects } from "../inventory/cluster-inventory.js";
import { durationFlag, outputFlag, parseFlag, pollUntilFlag, type GlobalFlags } from "./flags.js";
import { colorFor, packageText, type CommandIO } from "./io.js";
import { openCluster } from "./open-cluster.js";

export interface StatusFlags extends GlobalFlags {
  pollPeriod: string;
  pollUntil: string;
  timeout?: string;
  output: string;
  statuses?: string;
  namespaces?: string;
}

export async function liveStatus(pkgPath: string, f: StatusFlags, io: CommandIO): Promise<void> {
  const output = parseFlag(outputFlag, f.output, "output");
  const pollUntil = parseFlag(pollUntilFlag, f.pollUntil, "poll-until");
  const timeoutMs = durationFlag(f.timeout, "timeout");
  const pollPeriodMs = durationFlag(f.pollPeriod, "poll-period");
  const pkg = await readPackage(pkgPath, { stdin: await packageText(pkgPath, io), onWarning: (w) => io.stderr.write(`[WARN] ${w}\n`) });
  const cluster = openCluster(f);
  try {
    let refs = await inventoryObjects(cluster, pkg.inventory, io.signal);
    const namespaces = f.namespaces ? new Set(f.namespaces.split(",").map((s) => s.trim())) : undefined;
    if (namespaces) refs = refs.filter((r) => namespaces.has(r.namespace));
    if (refs.length === 0) {
      io.stdout.write("no resources found in the inventory\n");
      return;
    }
    const statuses = f.statuses ? new Set(f.statuses.split(",").map((s) => s.trim().toLowerCase())) : undefined;
    const events = followStatus(cluster, refs, { pollUntil, timeoutMs, pollPeriodMs, signal: io.signal });
    await printLiveStatus(statuses ? filterStatuses(events, statuses) : events, {
      output,
      stdout: io.stdout,
      color: colorFor(io, f),
      tty: Boolean(io.stdout.isTTY),
      inventoryName: pkg.inventory.name,
      objects: refs,
    });
  } finally {
    cluster.close();
  }
}

async function* filterStatuses<T extends { status: string }>(events: AsyncIterable<T>, keep: Set<string>): AsyncIterable<T> {
  for await (const e of events) if (keep.has(e.status.toLowerCase())) yield e;
}
