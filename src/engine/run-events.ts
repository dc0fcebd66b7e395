// What every run shares: its events go out through one stream, folded by the recorder as they
// go (model/run-tally.ts: the counts for the summary, each object's actuation and reconcile
// outcome for the steps after it); the change history observes them (CLI and library runs
// alike); the run ends with the summary, or with the error that stopped it.

import type { Cluster } from "../cluster/types.js";
import { ChangeRecorder } from "../history/record-changes.js";
import type { EngineEvent } from "../model/events.js";
import { RunTally } from "../model/run-tally.js";
import { EventChannel } from "../util/event-channel.js";
import type { ResolvedOptions } from "./options.js";

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

export function runEvents(cluster: Cluster, o: ResolvedOptions, body: (recorder: Recorder) => Promise<void>): AsyncIterable<EngineEvent> {
  const channel = new EventChannel<EngineEvent>();
  const recorder = new Recorder(channel);
  const history = o.history && o.historyLimit > 0 ? new ChangeRecorder({ cluster, keep: o.historyLimit, onWarning: (message) => recorder.emit({ type: "warning", message }) }) : undefined;
  if (history) recorder.observe(history.observe);
  (async () => {
    try {
      await body(recorder);
    } catch (err) {
      await history?.finish(recorder.tally, err);
      throw err;
    }
    await history?.finish(recorder.tally);
    recorder.emit({ type: "summary", stats: recorder.tally.stats });
  })().then(
    () => channel.close(),
    (err) => channel.fail(err),
  );
  return channel;
}
