// Pushes events to the stream and keeps what the rest of the run needs to know about them:
// counts for the summary and each object's actuation and reconcile outcome.

import { emptyStats, type EngineEvent, type RunStats } from "../model/events.js";
import { refKey, type ObjRef } from "../model/ref.js";
import type { Actuated, Reconciled, RunOutcomes } from "../prune/dependency-gate.js";
import type { EventChannel } from "../util/event-channel.js";

export class Recorder implements RunOutcomes {
  readonly stats: RunStats = emptyStats();
  readonly actuation = new Map<string, Actuated>();
  readonly reconcile = new Map<string, Reconciled>();

  constructor(private readonly channel: EventChannel<EngineEvent>) {}

  emit = (e: EngineEvent): void => {
    switch (e.type) {
      case "apply": {
        const s = this.stats.apply;
        if (e.status === "Successful") s.successful++;
        else if (e.status === "Skipped") s.skipped++;
        else s.failed++;
        if (e.status === "Successful" && e.operation === "created") s.created++;
        else if (e.status === "Successful" && e.operation === "unchanged") s.unchanged++;
        else if (e.status === "Successful") s.configured++;
        this.actuation.set(refKey(e.ref), e.status);
        break;
      }
      case "prune":
      case "delete": {
        const s = this.stats[e.type];
        if (e.status === "Successful") s.successful++;
        else if (e.status === "Skipped") s.skipped++;
        else s.failed++;
        this.actuation.set(refKey(e.ref), e.status);
        break;
      }
      case "wait": {
        if (e.status === "Pending") break;
        const s = this.stats.wait;
        if (e.status === "Successful") s.successful++;
        else if (e.status === "Skipped") s.skipped++;
        else if (e.status === "Failed") s.failed++;
        else s.timeout++;
        this.reconcile.set(refKey(e.ref), e.status);
        break;
      }
    }
    this.channel.push(e);
  };

  actuated(ref: ObjRef): Actuated | undefined {
    return this.actuation.get(refKey(ref));
  }

  reconciled(ref: ObjRef): Reconciled | undefined {
    return this.reconcile.get(refKey(ref));
  }
}
