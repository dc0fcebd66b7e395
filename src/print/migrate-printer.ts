// `live migrate`'s progress, in kpt's words and on stdout as kpt prints it: one line per step,
// "...success" or "...failed" at its end, "inventory migration...success" last.

import { escapeTerminal } from "./terminal-text.js";

interface MigrateSteps {
  /** Starts a step's line ("  retrieve the current ConfigMap inventory..."); kpt does not indent the template file's. */
  step(label: string, indent?: boolean): void;
  /** Ends the current step's line with its outcome ("success", "success (3 inventory objects)"). */
  done(outcome?: string): void;
  /** Ends the run: kpt's last line; on failure, the open step ends with "failed" first. */
  finish(ok: boolean): void;
}

export function createMigrateSteps(out: NodeJS.WritableStream): MigrateSteps {
  let open = false;
  out.write("inventory migration...\n");
  return {
    step(label, indent = true) {
      out.write(`${indent ? "  " : ""}${escapeTerminal(label)}...`);
      open = true;
    },
    done(outcome = "success") {
      out.write(`${escapeTerminal(outcome)}\n`);
      open = false;
    },
    finish(ok) {
      if (!ok && open) out.write("failed\n");
      out.write(`inventory migration...${ok ? "success" : "failed"}\n`);
    },
  };
}
