// Timers for any duration a flag takes. setTimeout holds at most 2^31-1 ms (about 24.8 days):
// longer delays fire after 1 ms instead (Node warns with TimeoutOverflowWarning), so
// `--reconcile-timeout=600h` would time out at once. These wait in chunks, so up to 10 years
// and beyond mean what they say.

/** The longest delay setTimeout takes as given. */
const MAX_TIMER_MS = 2 ** 31 - 1;

interface LongTimer {
  clear(): void;
}

/** Calls `fn` once `ms` have passed (chunked past MAX_TIMER_MS). */
export function setLongTimeout(fn: () => void, ms: number): LongTimer {
  const due = Date.now() + ms;
  let timer: NodeJS.Timeout;
  const arm = (left: number) => {
    timer = setTimeout(() => {
      const rest = due - Date.now();
      if (rest > 0) arm(rest);
      else fn();
    }, Math.min(Math.max(left, 0), MAX_TIMER_MS));
  };
  arm(ms);
  return { clear: () => clearTimeout(timer) };
}

/** Resolves after `ms` (chunked); rejects with the signal's reason when it fires first. */
export function sleepLong(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      timer.clear();
      reject(signal!.reason);
    };
    const timer = setLongTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
