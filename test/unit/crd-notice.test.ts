// kpt's stderr notice when apply is about to install the ResourceGroup CRD: in every output
// format, only when the plan installs it, never in a dry run, never on stdout.
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import type { EngineEvent } from "../../src/events.js";
import { emptyStats } from "../../src/events.js";
import { CRD_NOTICE, printRun } from "../../src/print/printer.js";
import type { RunPlan } from "../../src/plan/types.js";

function capture(): { stream: NodeJS.WritableStream; text: () => string } {
  const s = new PassThrough();
  let text = "";
  s.on("data", (c: Buffer) => (text += c.toString()));
  return { stream: s, text: () => text };
}

async function* run(installCrd: boolean, dryRun: "none" | "client"): AsyncIterable<EngineEvent> {
  const plan = { command: "apply", installCrd } as unknown as RunPlan;
  yield { type: "init", command: "apply", dryRun, inventory: { name: "inv", namespace: "ns", id: "id" }, objects: [], plan };
  yield { type: "summary", stats: emptyStats() };
}

describe("the CRD notice", () => {
  it.each([
    ["events", true, "none", true],
    ["json", true, "none", true],
    ["table", true, "none", true],
    ["events", false, "none", false],
    ["events", true, "client", false],
  ] as const)("--output %s, installs the CRD: %s, dry run: %s -> notice: %s", async (output, installCrd, dryRun, want) => {
    const stdout = capture();
    const stderr = capture();
    await printRun(run(installCrd, dryRun), { output, stdout: stdout.stream as NodeJS.WriteStream, stderr: stderr.stream, color: false, tty: false, showStatusEvents: false });
    expect(stderr.text().split("\n").includes(CRD_NOTICE)).toBe(want);
    expect(stdout.text()).not.toContain("ResourceGroup CRD");
  });
});
