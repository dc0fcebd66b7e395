// `kpt-ts live status [PKG_PATH | -]`

import { unavailableApiWarnings } from "../cluster/unavailable-apis.js";
import { inventoryObjects } from "../inventory/cluster-inventory.js";
import { printLiveStatus } from "../print/status-printer.js";
import { warningLine } from "../print/terminal-text.js";
import { followStatus } from "../status/follow-status.js";
import type { FlagValues } from "./flag-spec.js";
import type { GlobalFlags, statusFlags } from "./command-specs.js";
import { colorFor, readCommandPackage, statusOptionsFor, type CommandIO } from "./io.js";
import { openClusterEarly } from "./open-cluster.js";

export async function liveStatus(pkgPath: string, f: FlagValues<typeof statusFlags>, g: GlobalFlags, io: CommandIO): Promise<void> {
  // Everything but followStatus' own options (keyed the same).
  const { rgFile, output, statuses: shown, namespaces: only, healthRules, ...follow } = f;
  const early = openClusterEarly(g, { io });
  try {
    const pkg = await readCommandPackage(pkgPath, io, rgFile);
    const statusOptions = await statusOptionsFor(pkg, healthRules);
    const cluster = early.use();
    let refs = await inventoryObjects(cluster, pkg.inventory, io.signal);
    const namespaces = only ? new Set(only) : undefined;
    if (namespaces) refs = refs.filter((r) => namespaces.has(r.namespace));
    if (refs.length === 0) {
      io.stdout.write("no resources found in the inventory\n");
      return;
    }
    for (const w of await unavailableApiWarnings(cluster, io.signal)) io.stderr.write(warningLine(w));
    const statuses = shown ? new Set(shown.map((s) => s.toLowerCase())) : undefined;
    const events = followStatus(cluster, refs, { ...follow, signal: io.signal, statusOptions });
    await printLiveStatus(statuses ? filterStatuses(events, statuses) : events, {
      output,
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
