// `kpt-ts live status [PKG_PATH | -]`, and `live status --inv-type remote` (no package: every
// inventory in the cluster, as kpt).

import { unavailableApiWarnings } from "../cluster/unavailable-apis.js";
import { inventoryObjects } from "../inventory/cluster-inventory.js";
import { listInventories } from "../inventory/list-inventories.js";
import { selectForStatus, type InventoryMember } from "../inventory/status-selection.js";
import { UsageError } from "../model/errors.js";
import { refKey } from "../model/ref.js";
import { printLiveStatus } from "../print/status-printer.js";
import { warningLine } from "../print/terminal-text.js";
import { followStatus } from "../status/follow-status.js";
import type { FlagValues } from "./flag-spec.js";
import type { GlobalFlags, statusFlags } from "./command-specs.js";
import { colorFor, readCommandPackage, statusOptionsFor, type CommandIO } from "./io.js";
import { openClusterEarly } from "./open-cluster.js";

export async function liveStatus(pkgPath: string, f: FlagValues<typeof statusFlags>, g: GlobalFlags, io: CommandIO): Promise<void> {
  // Everything but followStatus' own options (keyed the same).
  const { rgFile, applySet, output, invType, invNames, statuses: shown, namespaces, healthRules, ...follow } = f;
  const remote = invType === "remote";
  // kpt's checks and messages.
  if (!remote && invNames?.length) throw new UsageError("inv-names flag should only be used when inv-type is set to remote");
  if (remote && (pkgPath !== "." || rgFile !== undefined)) {
    const unread = pkgPath !== "." ? `the package "${pkgPath}"` : `--rg-file "${rgFile}"`;
    io.stderr.write(warningLine(`--inv-type remote shows every inventory in the cluster; ${unread} is not read (choose inventories with --inv-names)`));
  }
  const early = openClusterEarly(g, { io });
  try {
    // Remote: the --health-rules files' rules only; there is no package to read.
    const pkg = remote ? undefined : await readCommandPackage(pkgPath, io, rgFile, { flag: applySet, namespace: g.namespace });
    const statusOptions = await statusOptionsFor(pkg ?? {}, healthRules);
    const cluster = early.use();
    const selection = { inventoryNames: invNames, namespaces };
    // As kpt: every namespace's ResourceGroups, whatever -n says (--namespaces selects objects);
    // without their CRD, kpt's error (exit 1), as for one package's inventory.
    const objects: InventoryMember[] = pkg
      ? selectForStatus([{ kind: pkg.inventory.applySet ? "ApplySet" : "ResourceGroup", ...pkg.inventory, refs: await inventoryObjects(cluster, pkg.inventory, io.signal) }], selection)
      : selectForStatus((await listInventories(cluster, { signal: io.signal, kindRequired: true, onWarning: (w) => io.stderr.write(warningLine(w)) })).inventories, selection);
    if (objects.length === 0) {
      io.stdout.write("no resources found in the inventory\n");
      return;
    }
    for (const w of await unavailableApiWarnings(cluster, io.signal)) io.stderr.write(warningLine(w));
    const refs = [...new Map(objects.map((o) => [refKey(o.ref), o.ref])).values()];
    const events = followStatus(cluster, refs, { ...follow, signal: io.signal, statusOptions });
    await printLiveStatus(events, {
      output,
      stdout: io.stdout,
      color: colorFor(io, g),
      tty: Boolean(io.stdout.isTTY),
      objects,
      ...(shown?.length ? { statuses: new Set(shown.map((s) => s.toLowerCase())) } : {}),
      inventoryInLines: remote,
    });
  } finally {
    early.close();
  }
}
