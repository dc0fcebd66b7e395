// Pushes events to the stream, and folds them (model/run-tally.ts) into what the rest of the run
// reads: the counts for the summary and each object's actuation and reconcile outcome. Observers
// (the change history) see every event as it is pushed.

import type { EngineEvent } from "../model/events.js";
import { RunTally } from "../model/run-tally.js";
import type { EventChannel } from "../util/event-channel.js";

export class Recorder {
  readonly tally = new RunTally();
  private readonly observers: ((e: EngineEvent) => void)[] = [];

  constructor(private readonly channel: EventChannel<EngineEvent>) {}

  observe(fn: (e: EngineEvent) => void): void {
    this.observers.push(fn);
  }

  emit = (e: EngineEvent): void => {
    this.tally.add(e);
    this.channel.push(e);
    for (const fn of this.observers) fn(e);
  };
}
