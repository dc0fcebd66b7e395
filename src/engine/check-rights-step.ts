// The `check-rights` step: before the first write, one SelfSubjectAccessReview per right the
// run's writes need (plan/plan-rights.ts), asked at once. A refused right stops the run with
// nothing changed, naming every right that is missing; a server that cannot answer (the review
// itself refused) leaves the run to find out object by object, as kpt does.

import { ClusterError } from "../model/errors.js";
import type { AccessRight, StepOf } from "../model/plan.js";
import type { StepHandler } from "./step-context.js";

export const checkRightsStep: StepHandler<StepOf<"check-rights">> = {
  async run(step, ctx) {
    const { cluster } = ctx;
    if (!cluster.accessReview || ctx.dry) return;
    const answers = await Promise.all(step.rights.map((r) => cluster.accessReview!(r, ctx.o.signal)));
    const missing = step.rights.flatMap((r, i) => (answers[i] && !answers[i].allowed ? [describeRight(r, answers[i].resource)] : []));
    if (!missing.length) return;
    const name = await cluster.whoAmI?.(ctx.o.signal);
    const who = name ? `user "${name}"` : "your user";
    throw new ClusterError(`${who} lacks ${missing.length === 1 ? "a right" : `${missing.length} rights`} this run needs, so nothing was changed: ${missing.join("; ")}`, {
      detail: `ask a cluster administrator to grant ${missing.length === 1 ? "it" : "them"}, or use a context that has ${missing.length === 1 ? "it" : "them"} (--context)`,
    });
  },
};

/** `"create" on secrets in namespace app` */
function describeRight(r: AccessRight, resource: string): string {
  return `"${r.verb}" on ${resource} ${r.namespace ? `in namespace ${r.namespace}` : "(cluster-wide)"}`;
}
