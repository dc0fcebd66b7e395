// The question apply and destroy ask before deleting: what will be deleted (and what will be
// kept, and why), then `Continue? [y/N]`. Written to the terminal, answered on it.

import { escapeDeep } from "./terminal-text.js";
import { createInterface } from "node:readline";
import type { ChalkInstance } from "chalk";
import type { Change, ChangeSet } from "../diff/change-set.js";
import { isYes } from "../diff/confirm-policy.js";
import { createPalette } from "./color.js";
import { formatChangeTable } from "./change-table.js";

/** Rows shown at most; the rest are counted. */
const MAX_ROWS = 40;

interface ConfirmQuestion {
  command: "apply" | "destroy";
  inventory: ChangeSet["inventory"];
  /** Every delete candidate, kept ones included (they show why they are kept). */
  deletes: readonly Change[];
  /** How many deletes will really happen. */
  effective: number;
  /** Package objects the apply will apply (apply only). */
  applies: number;
}

export function formatConfirmQuestion(raw: ConfirmQuestion, paint: ChalkInstance): string[] {
  const q = escapeDeep(raw);
  const inv = `${q.inventory.namespace}/${q.inventory.name}`;
  const n = (count: number, what: string) => `${count} ${what}${count === 1 ? "" : "s"}`;
  const head =
    q.command === "apply"
      ? `This apply applies ${n(q.applies, "object")} and ${paint.red(`prunes ${n(q.effective, "object")}`)} that left the package (inventory ${inv}):`
      : `This destroy ${paint.red(`deletes ${n(q.effective, "object")}`)} of inventory ${inv}:`;
  const shown = q.deletes.slice(0, MAX_ROWS);
  const lines = [head, "", ...formatChangeTable(shown, paint)];
  if (q.deletes.length > shown.length) lines.push(`... and ${q.deletes.length - shown.length} more`);
  const kept = q.deletes.length - q.effective;
  if (kept > 0) lines.push("", `${n(kept, "object")} will be kept (see Note).`);
  return [...lines, ""];
}

interface AskOptions {
  stdin: NodeJS.ReadStream;
  stdout: NodeJS.WritableStream;
  color: boolean;
  signal?: AbortSignal;
}

/** Shows the question and resolves true only for `y`/`yes`; end of input, Ctrl-C or an abort mean no. */
export async function askToProceed(q: ConfirmQuestion, opts: AskOptions): Promise<boolean> {
  const paint = createPalette(opts.color);
  opts.stdout.write(formatConfirmQuestion(q, paint).map((l) => `${l}\n`).join(""));
  const rl = createInterface({ input: opts.stdin, output: opts.stdout, terminal: Boolean(opts.stdin.isTTY) });
  try {
    return await new Promise<boolean>((resolve) => {
      const no = () => resolve(false);
      rl.once("close", no);
      rl.once("SIGINT", () => {
        opts.stdout.write("\n");
        no();
      });
      opts.signal?.addEventListener("abort", no, { once: true });
      rl.question(paint.bold(`Continue? [y/N]: `), (answer) => resolve(isYes(answer)));
    });
  } finally {
    rl.close();
  }
}
