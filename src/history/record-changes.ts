// The change history as an observer of the engine (the CLI's runs and the library's alike):
// a `running` record once the run has reached the cluster (apply: after the inventory is stored,
// so its namespace exists; destroy: at once), finished when the run ends (succeeded, failed, or
// interrupted by Ctrl-C), then retention. A process killed outright leaves `running` behind,
// which `live history` shows as `unknown` once a newer change exists. An apply whose plan changes
// nothing records nothing (as kapp), unless a write happened after all (an object changed
// between the plan and its apply). Dry runs record nothing. History is informational: a record
// that cannot be written is a warning, never a failed run.

import { ApiError } from "../cluster/api-error.js";
import type { Cluster } from "../cluster/types.js";
import { CancelledError } from "../model/errors.js";
import type { EngineEvent } from "../model/events.js";
import type { RunTally } from "../model/run-tally.js";
import { finishChange, startChange, withOutcome, type ChangeRecord } from "./change-record.js";
import { createChange, pruneChanges, updateChange } from "./cluster-history.js";

export interface ChangeRecorderOptions {
  cluster: Cluster;
  /** Records kept per inventory (the newest); 0 records nothing. */
  keep: number;
  now?: () => Date;
  /** Told when a record cannot be written (the engine makes it a warning event). */
  onWarning: (message: string) => void;
}

export class ChangeRecorder {
  private record: ChangeRecord | undefined;
  /** A no-op plan: stored only at the end, and only if the run wrote something after all. */
  private quiet = false;
  private storeTried = false;
  /** The record's first write, once started: the end waits for it. */
  private stored: Promise<void> = Promise.resolve();
  private readonly now: () => Date;

  constructor(private readonly o: ChangeRecorderOptions) {
    this.now = o.now ?? (() => new Date());
  }

  /** Every event of the run, as the engine pushes it. */
  observe = (e: EngineEvent): void => {
    if (this.o.keep <= 0) return;
    if (e.type === "init") {
      if (e.dryRun !== "none" || (e.command === "destroy" && e.objects.length === 0)) return;
      this.record = startChange({ command: e.command, inventory: e.inventory, user: this.o.cluster.user ?? "", startedAt: this.now() });
      this.quiet = e.command === "apply" && e.changesNothing === true;
      if (e.command === "destroy") this.store();
    } else if (e.type === "group" && e.action === "Inventory" && e.status === "Finished" && !this.quiet) this.store();
  };

  /** The run ended (`err`: how it stopped, when it did not finish): the record says how, and old ones go. */
  async finish(tally: RunTally, err?: unknown): Promise<void> {
    await this.stored;
    if (!this.record) return;
    const interrupted = err instanceof CancelledError;
    const end = err === undefined ? { result: tally.failed ? ("failed" as const) : ("succeeded" as const) } : { result: interrupted ? ("interrupted" as const) : ("failed" as const), error: err instanceof Error ? err.message : String(err) };
    const final = finishChange(withOutcome(this.record, tally), { finishedAt: this.now(), ...end });
    if (this.quiet) {
      // Written once, finished, when the no-op plan turned out to change something.
      if (!tally.wrote) return;
      this.record = final;
      this.store();
      await this.stored;
      if (this.record.name) await pruneChanges(this.o.cluster, final.inventory, this.o.keep).catch((e: unknown) => this.warn("prune old records next to", e));
      return;
    }
    // Never stored: the run stopped before its inventory was (nothing changed), or storing it
    // failed and was reported already.
    if (!this.record.name) return;
    const named = { ...final, name: this.record.name };
    // At the same time: retention never deletes the newest record, which is this one.
    await Promise.all([
      updateChange(this.o.cluster, named).catch((e: unknown) => this.warn("write", e)),
      pruneChanges(this.o.cluster, final.inventory, this.o.keep).catch((e: unknown) => this.warn("prune old records next to", e)),
    ]);
  }

  /** Writes the record, once: one that could not be written is reported once. */
  private store(): void {
    const record = this.record;
    if (!record || this.storeTried) return;
    this.storeTried = true;
    this.stored = createChange(this.o.cluster, record).then(
      (r) => {
        this.record = { ...this.record!, name: r.name };
      },
      (err: unknown) => this.warn("write", err),
    );
  }

  private warn(what: string, err: unknown): void {
    const r = this.record;
    if (!r) return;
    // A destroy that deleted the inventory's namespace took its history with it: nothing to say.
    if (r.command === "destroy" && err instanceof ApiError && (err.notFound || err.namespaceTerminating)) return;
    this.o.onWarning(
      `could not ${what} the change record of inventory ${r.inventory.namespace}/${r.inventory.name} (a ConfigMap in namespace ${r.inventory.namespace}): ` +
        `${err instanceof Error ? err.message : String(err)}; the run itself is not affected. Allow your user to create, patch, list and delete configmaps there, or pass --history-limit=0.`,
    );
  }
}
