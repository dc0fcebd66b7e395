// The one runner: performs a plan's steps in order, each by the handler of its type, as cli-utils'
// task runner performs its solver's queue. It knows no step by name: a new kind of step is a type
// in model/plan.ts's RunStep, a place in a planner's list, and a handler here. Around a step it
// emits kpt's group events; once the run is interrupted, or a step ended it (a failed pre-apply
// hook), it performs only the steps that keep the inventory true, then stops the run.

import { CancelledError } from "../model/errors.js";
import type { RunStep } from "../model/plan.js";
import { applyStep } from "./apply-step.js";
import { applySetAddStep, applySetDeleteStep, applySetSetStep } from "./applyset-steps.js";
import { checkRightsStep } from "./check-rights-step.js";
import { serveKindsStep } from "./crd-discovery.js";
import { deleteStep } from "./delete-step.js";
import { installCrdStep, inventoryAddStep, inventoryDeleteStep, inventorySetStep } from "./inventory-steps.js";
import type { RunContext, StepHandler, StepHandlers } from "./step-context.js";
import { waitStep } from "./wait-step.js";
import { hookApplyStep, hookWaitStep } from "./hook-steps.js";
import { replaceStep } from "./replace-step.js";

const HANDLERS: StepHandlers = {
  "install-crd": installCrdStep,
  "inventory-add": inventoryAddStep,
  apply: applyStep,
  wait: waitStep,
  "serve-kinds": serveKindsStep,
  delete: deleteStep,
  "inventory-set": inventorySetStep,
  "inventory-delete": inventoryDeleteStep,
  "check-rights": checkRightsStep,
  "applyset-add": applySetAddStep,
  "applyset-set": applySetSetStep,
  "applyset-delete": applySetDeleteStep,
  "hook-apply": hookApplyStep,
  "hook-wait": hookWaitStep,
  replace: replaceStep,
};

const INTERRUPTED = {
  apply: "interrupted: the inventory lists every object that may exist; run apply again to finish",
  destroy: "interrupted: the inventory still lists every object that was not deleted; run destroy again to finish",
} as const;

export async function runSteps(ctx: RunContext): Promise<void> {
  const { emit } = ctx.recorder;
  const signal = ctx.o.signal;
  let previousRan = true;
  for (const step of ctx.plan.steps) {
    const handler = HANDLERS[step.type] as StepHandler<RunStep>;
    if ((signal?.aborted || ctx.state.stopped) && !handler.afterInterrupt?.(step, previousRan)) {
      previousRan = false;
      continue;
    }
    const group = handler.group?.(step);
    const wave = group?.wave !== undefined ? { wave: group.wave } : {};
    if (group) emit({ type: "group", action: group.action, status: "Started", ...wave });
    await handler.run(step, ctx);
    if (group) emit({ type: "group", action: group.action, status: "Finished", ...wave });
    previousRan = true;
  }
  if (signal?.aborted) throw new CancelledError(INTERRUPTED[ctx.plan.command]);
}
