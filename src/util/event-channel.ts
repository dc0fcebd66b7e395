// A push/pull queue: concurrent workers push events, the engine's async iterator pulls them in
// arrival order. Unbounded by design: events are small and printers keep up.

export class EventChannel<T> implements AsyncIterable<T> {
  private readonly buffer: T[] = [];
  private waiting?: (r: IteratorResult<T>) => void;
  private failure?: { error: unknown };
  private closed = false;

  push(item: T): void {
    if (this.closed) return;
    if (this.waiting) {
      const w = this.waiting;
      this.waiting = undefined;
      w({ value: item, done: false });
    } else this.buffer.push(item);
  }

  close(): void {
    this.closed = true;
    this.flushWaiter();
  }

  fail(error: unknown): void {
    this.failure = { error };
    this.closed = true;
    this.flushWaiter();
  }

  private flushWaiter(): void {
    if (this.waiting && this.buffer.length === 0) {
      const w = this.waiting;
      this.waiting = undefined;
      w({ value: undefined as never, done: true }); // the iterator then rethrows any failure
    }
  }

  async *[Symbol.asyncIterator](): AsyncIterator<T> {
    for (;;) {
      if (this.buffer.length) {
        yield this.buffer.shift()!;
        continue;
      }
      if (this.closed) {
        if (this.failure) throw this.failure.error;
        return;
      }
      const r = await new Promise<IteratorResult<T>>((resolve) => (this.waiting = resolve));
      if (r.done) {
        if (this.failure) throw this.failure.error;
        return;
      }
      yield r.value;
    }
  }
}
