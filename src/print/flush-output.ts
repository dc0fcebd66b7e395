// Waiting for buffered terminal output before the process exits. A pipe whose reader is slow
// holds queued bytes; exiting would cut them off, and waiting for 'drain' hangs when no write()
// returned false (Node then ends the run with exit code 13 instead of ours).

/** Resolves once everything written so far to each stream has been handed to the OS. */
export function flushOutput(streams: NodeJS.WritableStream[]): Promise<void> {
  return Promise.all(
    streams.map(
      (s) =>
        new Promise<void>((resolve) => {
          const w = s as NodeJS.WritableStream & { writableLength?: number; destroyed?: boolean };
          if (!w.writableLength || w.destroyed) return resolve();
          // An empty write's callback runs after every chunk queued before it.
          w.write("", () => resolve());
        }),
    ),
  ).then(() => undefined);
}
