// Bounded concurrency: runs `work` over items with at most `limit` in flight (stops starting new
// items once the signal aborts; items already running finish), and a gate shared by many callers.

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

/**
 * A gate for calls made from anywhere (not one list): at most `limit` of the functions passed to
 * it run at once; the others wait their turn, first come first served.
 */
export function limiter(limit: number): <T>(fn: () => Promise<T>) => Promise<T> {
  let running = 0;
  const waiting: (() => void)[] = [];
  return async (fn) => {
    if (running < limit) running++;
    else await new Promise<void>((go) => waiting.push(go));
    try {
      return await fn();
    } finally {
      // The slot passes straight to the next caller, or is freed.
      const next = waiting.shift();
      if (next) next();
      else running--;
    }
  };
}
