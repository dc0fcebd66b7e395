// kpt prints `installing inventory ResourceGroup CRD.` on stderr, in every output format, when an
// apply installs the CRD (kpt's install-rg-on-apply case); stdout stays as it was. A dry run
// installs nothing and says nothing.
import { describe, expect, it } from "vitest";
import type { EngineEvent } from "../../src/model/events.js";
import type { RunPlan } from "../../src/model/plan.js";
import { printRun, type OutputFormat } from "../../src/print/printer.js";
import { applyFirst, captureStream, streamOf } from "./print-scenarios.js";

/** applyFirst() with a plan on its init event: only the fields this note reads matter. */
async function withPlan(installCrd: boolean, dryRun: "none" | "client"): Promise<EngineEvent[]> {
  const [init, ...rest] = await applyFirst();
  if (init?.type !== "init") throw new Error("applyFirst() starts with init");
  return [{ ...init, dryRun, plan: { command: "apply", installCrd, applies: [] } as unknown as RunPlan }, ...rest];
}

async function print(events: EngineEvent[], output: OutputFormat) {
  const out = captureStream();
  const err = captureStream();
  await printRun(streamOf(events), { output, stdout: out.stream, stderr: err.stream, color: false, tty: false, showStatusEvents: false, now: () => new Date(0) });
  return { stdout: out.text(), stderr: err.text() };
}

describe("the note that apply installs the ResourceGroup CRD", () => {
  it.each(["events", "json", "table"] as const)("%s: on stderr when the plan installs it, stdout unchanged", async (output) => {
    const installing = await print(await withPlan(true, "none"), output);
    const installed = await print(await withPlan(false, "none"), output);
    expect(installing.stderr.split("\n")[0]).toBe("installing inventory ResourceGroup CRD.");
    expect(installed.stderr).not.toContain("ResourceGroup CRD");
    expect(installing.stdout).toBe(installed.stdout);
  });

  it("not in a dry run, which installs nothing", async () => {
    expect((await print(await withPlan(true, "client"), "events")).stderr).not.toContain("ResourceGroup CRD");
  });
});
