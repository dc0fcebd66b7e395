// A push/pull queue: concurrent workers push events, the engine's async iterator pulls them in
// arrival order. Unbounded by design: events are small and printers keep up. Taken from the
// front by an index, not Array.shift(): a 10,000-object run queues tens of thousands of events
// at once, and shifting each out of so long an array copies the rest every time.

export class EventChannel<T> implements AsyncIterable<T> {
  private buffer: T[] = [];
  /** Index of the next item to hand out. */
  private head = 0;
  /** Wakes the iterator waiting for an item or the end. */
  private wake?: () => void;
  private failure?: { error: unknown };
  private closed = false;

  push(item: T): void {
    if (this.closed) return;
    this.buffer.push(item);
    this.notify();
  }

  close(): void {
    this.closed = true;
    this.notify();
  }

  fail(error: unknown): void {
    this.failure = { error };
    this.closed = true;
    this.notify();
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<T> {
    for (;;) {
      if (this.head < this.buffer.length) {
        const item = this.buffer[this.head]!;
        this.buffer[this.head++] = undefined as T; // let it be collected
        if (this.head === this.buffer.length) {
          this.buffer = [];
          this.head = 0;
        } else if (this.head >= 4096 && this.head * 2 >= this.buffer.length) {
          this.buffer = this.buffer.slice(this.head);
          this.head = 0;
        }
        yield item;
        continue;
      }
      if (this.closed) {
        if (this.failure) throw this.failure.error;
        return;
      }
      await new Promise<void>((resolve) => (this.wake = resolve));
    }
  }
}
