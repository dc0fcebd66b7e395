// Lines drawn on stderr under the event lines and redrawn in place (the wait's view, the fleet's):
// a line written above them erases them, is written, and draws them again; on abort (Ctrl-C) they
// erase themselves for good, before anything else is written.

import type { ChalkInstance } from "chalk";

export const SPINNER = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];
/** A view younger than this is never drawn (no flash for a wait that ends at once). */
export const PROGRESS_DELAY_MS = 400;
const PROGRESS_REDRAW_MS = 100;
const ERASE_PREVIOUS_LINE = "\x1b[1A\x1b[2K";

interface RedrawnLinesOptions {
  out: NodeJS.WritableStream;
  /** Redraw period; tests pass 0 to redraw only on events. */
  intervalMs?: number;
  signal?: AbortSignal;
}

/** A view's (the wait's, the fleet's): where it draws, the terminal's size, its colours and clock. */
export interface ViewOptions extends RedrawnLinesOptions {
  columns: number;
  rows: number;
  paint: ChalkInstance;
  now?: () => number;
}

export type RedrawnLines = ReturnType<typeof createRedrawnLines>;

/** `render` gets the spinner's frame and returns the lines, or undefined while they must not be drawn. */
export function createRedrawnLines(opts: RedrawnLinesOptions, render: (frame: number) => string[] | undefined) {
  let drawn = 0;
  let frame = 0;
  let closed = false;
  let timer: ReturnType<typeof setInterval> | undefined;

  const erase = () => {
    if (drawn) opts.out.write(ERASE_PREVIOUS_LINE.repeat(drawn) + "\r");
    drawn = 0;
  };
  const draw = () => {
    if (closed) return;
    const lines = render(frame);
    if (!lines) return;
    frame++;
    if (lines.length) opts.out.write(lines.map((l) => `${l}\n`).join(""));
    drawn = lines.length;
  };
  const redraw = () => {
    erase();
    draw();
  };
  const stopTimer = () => {
    if (timer) clearInterval(timer);
    timer = undefined;
  };
  const close = () => {
    closed = true;
    stopTimer();
    erase();
  };
  opts.signal?.addEventListener("abort", close, { once: true });
  return {
    /** Writes a line-producing action above the lines (erase, act, draw). */
    above(write: () => void) {
      erase();
      write();
      draw();
    },
    erase,
    draw,
    /** After an event: redraws at once when there is no timer to do it. */
    updated() {
      if (opts.intervalMs === 0) redraw();
    },
    startTimer() {
      if (opts.intervalMs === 0) return;
      timer = setInterval(redraw, opts.intervalMs ?? PROGRESS_REDRAW_MS);
      timer.unref?.();
    },
    stopTimer,
    get closed() {
      return closed;
    },
    /** Erases the lines for good and stops redrawing. */
    close() {
      opts.signal?.removeEventListener("abort", close);
      close();
    },
  };
}
