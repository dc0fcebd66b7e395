// A table that redraws itself in place on a terminal (cursor up + erase line per line drawn
// before, as cli-utils does) and, when the output is not a terminal, is printed once at the end:
// kpt writes its escape codes into pipes and log files; kpt-ts does not.

const ERASE_PREVIOUS_LINE = "\x1b[1A\x1b[2K\r";

interface LiveTableOptions {
  out: NodeJS.WritableStream;
  tty: boolean;
  intervalMs: number;
  /** The current lines of the table; called on every redraw. */
  draw: () => string[];
  /** Print an empty line after the final table (the apply/destroy table does, the status table does not). */
  trailingNewline: boolean;
}

export interface LiveTable {
  /** Draws the table now and, on a terminal, every intervalMs from now on. */
  start(): void;
  /** Stops redrawing and prints the final state. */
  finish(): void;
}

export function createLiveTable(opts: LiveTableOptions): LiveTable {
  let linesDrawn = 0;
  let timer: ReturnType<typeof setInterval> | undefined;
  let started = false;

  const redraw = (): void => {
    const lines = opts.draw();
    opts.out.write(ERASE_PREVIOUS_LINE.repeat(linesDrawn) + lines.map((l) => l + "\n").join(""));
    linesDrawn = lines.length;
  };

  return {
    start() {
      started = true;
      if (!opts.tty) return;
      redraw();
      timer = setInterval(redraw, opts.intervalMs);
    },
    finish() {
      if (timer) clearInterval(timer);
      timer = undefined;
      if (!started) return;
      redraw();
      if (opts.trailingNewline) opts.out.write("\n");
    },
  };
}
