// Records a run in the change history while its events pass through untouched: a `running`
// record once the run has reached the cluster (apply: after the inventory is stored, so its
// namespace exists; destroy: at once), updated when it ends (succeeded, failed, or
// interrupted by Ctrl-C), then retention. A process killed outright leaves `running` behind,
// which `live history` shows as `unknown` once a newer change exists. An apply whose plan changes
// nothing records nothing (as kapp), unless a write happened after all (an object changed
// between the plan and its apply). History is informational:
// a record that cannot be written is a warning, never a failed run.

import { ApiError } from "../cluster/api-error.js";
import type { Cluster } from "../cluster/types.js";
import { CancelledError } from "../model/errors.js";
import { statsFailed, type EngineEvent } from "../model/events.js";
import { finishChange, foldChange, startChange, type ChangeRecord } from "./change-record.js";
import { createChange, pruneChanges, updateChange } from "./cluster-history.js";

export interface RecordChangesOptions {
  cluster: Cluster;
  /** Records kept per inventory (the newest); 0 records nothing. */
  keep: number;
  now?: () => Date;
  onWarning?: (message: string) => void;
}

export async function* recordChanges(events: AsyncIterable<EngineEvent>, o: RecordChangesOptions): AsyncIterable<EngineEvent> {
  if (o.keep <= 0) return yield* events;
  const now = o.now ?? (() => new Date());
  let record: ChangeRecord | undefined;
  let ended = false;
  let storeTried = false;
  // A no-op plan: stored only at the end, and only if the run wrote something after all.
  let quiet = false;

  const warn = (what: string, err: unknown) => {
    if (!record) return;
    // A destroy that deleted the inventory's namespace took its history with it: nothing to say.
    if (record.command === "destroy" && err instanceof ApiError && (err.notFound || /being terminated/.test(err.message))) return;
    o.onWarning?.(
      `could not ${what} the change record of inventory ${record.inventory.namespace}/${record.inventory.name} (a ConfigMap in namespace ${record.inventory.namespace}): ` +
        `${err instanceof Error ? err.message : String(err)}; the run itself is not affected. Allow your user to create, patch, list and delete configmaps there, or pass --history-limit=0.`,
    );
  };
  const store = async () => {
    if (!record || storeTried) return;
    storeTried = true; // once: a record that could not be written is reported once
    try {
      record = await createChange(o.cluster, record);
    } catch (err) {
      warn("write", err);
    }
  };

  try {
    for await (const e of events) {
      if (e.type === "init" && e.dryRun === "none" && !(e.command === "destroy" && e.objects.length === 0)) {
        record = startChange({ command: e.command, inventory: e.inventory, user: o.cluster.user ?? "", startedAt: now() });
        quiet = e.command === "apply" && e.changesNothing === true;
        if (e.command === "destroy") await store();
      } else if (record) {
        record = foldChange(record, e);
        if (e.type === "group" && e.action === "Inventory" && e.status === "Finished" && !quiet) await store();
        if (e.type === "summary") record = finishChange(record, { finishedAt: now(), result: statsFailed(e.stats) ? "failed" : "succeeded" });
      }
      yield e;
    }
    ended = true;
  } catch (err) {
    ended = true;
    if (record) {
      const interrupted = err instanceof CancelledError;
      record = finishChange(record, { finishedAt: now(), result: interrupted ? "interrupted" : "failed", error: err instanceof Error ? err.message : String(err) });
    }
    throw err;
  } finally {
    if (record && !ended) record = finishChange(record, { finishedAt: now(), result: "interrupted", error: "stopped before the run ended" });
    if (record) await save(record);
  }

  async function save(final: ChangeRecord): Promise<void> {
    if (quiet) {
      // Written once, finished, when the no-op plan turned out to change something.
      if (!changedSomething(final)) return;
      record = final;
      await store();
      if (record.name) await pruneChanges(o.cluster, final.inventory, o.keep).catch((err: unknown) => warn("prune old records next to", err));
      return;
    }
    // Never stored: the run stopped before its inventory was (nothing changed), or storing it
    // failed and was reported already.
    if (!final.name) return;
    // At the same time: retention never deletes the newest record, which is this one.
    await Promise.all([
      updateChange(o.cluster, final as ChangeRecord & { name: string }).catch((err: unknown) => warn("write", err)),
      pruneChanges(o.cluster, final.inventory, o.keep).catch((err: unknown) => warn("prune old records next to", err)),
    ]);
  }
}

/** The run wrote, or tried to write, an object: a create, update or delete, or a failed apply, prune or delete. */
function changedSomething(r: ChangeRecord): boolean {
  return r.counts.create + r.counts.update + r.counts.delete > 0 || r.failed.some((f) => f.action !== "reconcile") || (r.moreFailed ?? 0) > 0;
}
