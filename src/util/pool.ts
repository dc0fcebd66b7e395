// Bounded concurrency: runs `work` over items with at most `limit` in flight. Stops starting new
// items once the signal aborts; items already running finish.

export async function forEachLimited<T>(items: readonly T[], limit: number, work: (item: T, index: number) => Promise<void>, signal?: AbortSignal): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length && !signal?.aborted) {
      const i = next++;
      await work(items[i]!, i);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
}
