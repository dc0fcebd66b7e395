// When apply/destroy ask before deleting, what the question shows, and which answers mean yes.
import { describe, expect, it } from "vitest";
import { planChanges } from "../../src/diff/change-set.js";
import { confirmMode, deletesToConfirm, isYes, type ConfirmContext } from "../../src/diff/confirm-policy.js";
import type { KubeObject } from "../../src/model/kube-object.js";
import { createPalette } from "../../src/print/color.js";
import { formatConfirmQuestion } from "../../src/print/confirm-prompt.js";
import type { RunPlan } from "../../src/model/plan.js";
import { dryRunEvents } from "../helpers/dry-run-events.js";

const base: ConfirmContext = { interactive: true, yes: false, dryRun: false, output: "events", packageFromStdin: false };

describe("confirmMode", () => {
  it.each<[string, Partial<ConfirmContext>, "ask" | "proceed"]>([
    ["a terminal, events output", {}, "ask"],
    ["a terminal, table output", { output: "table" }, "ask"],
    ["--yes", { yes: true }, "proceed"],
    ["--dry-run", { dryRun: true }, "proceed"],
    ["no terminal (scripts, CI: as kpt, proceed)", { interactive: false }, "proceed"],
    ["--output json", { output: "json" }, "proceed"],
    ["the package on standard input", { packageFromStdin: true }, "proceed"],
  ])("%s: %s", (_name, patch, mode) => {
    expect(confirmMode({ ...base, ...patch })).toBe(mode);
  });
});

describe("isYes", () => {
  it.each([
    ["y", true],
    ["Y", true],
    ["yes", true],
    [" YES ", true],
    ["", false],
    ["n", false],
    ["no", false],
    ["yep", false],
    ["y es", false],
  ])("%j -> %s", (answer, yes) => {
    expect(isYes(answer)).toBe(yes);
  });
});

const live = (name: string): KubeObject => ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace: "app" } });
const ref = (name: string) => ({ group: "", kind: "ConfigMap", namespace: "app", name });
const inventory = { name: "inv", namespace: "app", exists: true };

describe("the question, read from the plan", () => {
  const init = dryRunEvents({
    applies: [{ ref: ref("new") }],
    deletes: [
      { ref: ref("old"), live: live("old"), decision: { action: "delete" } },
      { ref: ref("kept"), live: live("kept"), decision: { action: "skip", reason: 'annotation prevents deletion ("cli-utils.sigs.k8s.io/on-remove": "keep")', abandon: true } },
    ],
  })[0]!;
  const plan = (init.type === "init" ? init.plan : undefined) as RunPlan;
  const changes = planChanges(plan).filter((c) => c.operation === "delete");

  it("asks only about deletes that will happen", () => {
    expect(deletesToConfirm(changes).map((c) => c.ref.name)).toEqual(["old"]);
    expect(deletesToConfirm(changes.filter((c) => c.ref.name === "kept"))).toEqual([]);
  });

  it("lists what apply prunes and what it keeps, and why", () => {
    expect(formatConfirmQuestion({ command: "apply", inventory, deletes: changes, effective: 1, applies: 3 }, createPalette(false))).toEqual([
      "This apply applies 3 objects and prunes 1 object that left the package (inventory app/inv):",
      "",
      "Namespace  Name  Kind       Op      Note",
      'app        kept  ConfigMap  delete  skip: annotation prevents deletion ("cli-utils.sigs.k8s.io/on-remove": "keep")',
      "app        old   ConfigMap  delete",
      "",
      "1 object will be kept (see Note).",
      "",
    ]);
  });

  it("words destroy's question as a delete", () => {
    const q = formatConfirmQuestion({ command: "destroy", inventory, deletes: changes.slice(1), effective: 2, applies: 0 }, createPalette(false));
    expect(q[0]).toBe("This destroy deletes 2 objects of inventory app/inv:");
  });
});
