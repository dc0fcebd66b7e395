// `kpt-ts live status [PKG_PATH | -]`

import { inventoryObjects } from "../inventory/cluster-inventory.js";
import { printLiveStatus } from "../print/status-printer.js";
import { followStatus } from "../status/follow-status.js";
import type { FlagValues } from "./flag-spec.js";
import type { GlobalFlags, statusFlags } from "./command-specs.js";
import { colorFor, readCommandPackage, statusOptionsFor, type CommandIO } from "./io.js";
import { openClusterEarly } from "./open-cluster.js";

export async function liveStatus(pkgPath: string, f: FlagValues<typeof statusFlags>, g: GlobalFlags, io: CommandIO): Promise<void> {
  const early = openClusterEarly(g, { io });
  try {
    const pkg = await readCommandPackage(pkgPath, io, f.rgFile);
    const statusOptions = await statusOptionsFor(pkg, f.healthRules);
    const cluster = early.use();
    let refs = await inventoryObjects(cluster, pkg.inventory, io.signal);
    const namespaces = f.namespaces ? new Set(f.namespaces) : undefined;
    if (namespaces) refs = refs.filter((r) => namespaces.has(r.namespace));
    if (refs.length === 0) {
      io.stdout.write("no resources found in the inventory\n");
      return;
    }
    const statuses = f.statuses ? new Set(f.statuses.map((s) => s.toLowerCase())) : undefined;
    const events = followStatus(cluster, refs, { pollUntil: f.pollUntil, timeoutMs: f.timeout, pollPeriodMs: f.pollPeriod, signal: io.signal, statusOptions });
    await printLiveStatus(statuses ? filterStatuses(events, statuses) : events, {
      output: f.output,
      stdout: io.stdout,
      color: colorFor(io, g),
      tty: Boolean(io.stdout.isTTY),
      inventoryName: pkg.inventory.name,
      objects: refs,
    });
  } finally {
    early.close();
  }
}

async function* filterStatuses<T extends { status: string }>(events: AsyncIterable<T>, keep: Set<string>): AsyncIterable<T> {
  for await (const e of events) if (keep.has(e.status.toLowerCase())) yield e;
}
