// The previews list what the run itself would do, step by step (issue 31): a dry run plans the
// real run's steps beside its own (`realSteps`), `live diff` and the Markdown preview print them
// after the counts, `live apply --dry-run` on stderr for events and table; `--output json` and
// kpt's event lines on stdout stay as kpt's.

import { describe, expect, it } from "vitest";
import { collectChangeSet } from "../../src/diff/change-set.js";
import { apply, destroy } from "../../src/index.js";
import type { RunStep } from "../../src/model/plan.js";
import { formatChangeSetText } from "../../src/print/diff-printer.js";
import { formatChangeSetMarkdown } from "../../src/print/markdown-printer.js";
import { printRun } from "../../src/print/printer.js";
import { createPalette } from "../../src/print/color.js";
import { formatStepLines } from "../../src/print/step-lines.js";
import { configMap, deployment, namespace, pkg, QUICK, rollOutDeployments } from "../helpers/engine-run.js";
import { MemoryCluster } from "../helpers/memory-cluster.js";
import { captureStream } from "./print-scenarios.js";

const ref = (kind: string, name: string, group = "") => ({ group, kind, namespace: kind === "Namespace" || kind === "CustomResourceDefinition" ? "" : "app", name });
const crd = ref("CustomResourceDefinition", "widgets.example.com", "apiextensions.k8s.io");
const cms = ["a", "b", "c", "d"].map((n) => ref("ConfigMap", n));

describe("formatStepLines: one line per step, in order", () => {
  it.each<[string, RunStep[], string[]]>([
    [
      "a first apply: the CRD installed first, the inventory stored after its Namespace, each wave applied and waited for, CRDs served before the next wave",
      [
        { type: "install-crd" },
        { type: "inventory-add", refs: [ref("Namespace", "app"), crd, ...cms], namespace: ref("Namespace", "app") },
        { type: "apply", wave: 0, refs: [ref("Namespace", "app"), crd] },
        { type: "wait", wave: 0, refs: [ref("Namespace", "app"), crd], until: "Current", timeoutMs: 120_000 },
        { type: "serve-kinds", wave: 0, crds: [crd] },
        { type: "apply", wave: 1, refs: cms },
        { type: "wait", wave: 1, refs: cms, until: "Current", timeoutMs: 120_000 },
        { type: "inventory-set" },
      ],
      [
        "1. install the ResourceGroup CRD",
        "2. apply namespace app, then store the inventory app/inv listing 6 objects, before any other write",
        "3. apply wave 1: 2 objects (namespace/app, customresourcedefinition.apiextensions.k8s.io/widgets.example.com)",
        "4. wait until apply wave 1 is reconciled, at most 2m",
        "5. wait until the API server serves the kinds of apply wave 1's CRD",
        "6. apply wave 2: 4 objects (configmap/a, configmap/b, configmap/c, 1 more)",
        "7. wait until apply wave 2 is reconciled, at most 2m",
        "8. store the inventory app/inv: what exists now, with its status",
      ],
    ],
    [
      "a re-apply that prunes, without waits: the inventory already lists everything",
      [{ type: "inventory-add" }, { type: "apply", wave: 0, refs: [cms[0]!] }, { type: "delete", wave: 1, refs: [cms[1]!], action: "prune" }, { type: "delete", wave: 2, refs: [cms[2]!], action: "prune" }, { type: "inventory-set" }],
      ["1. apply wave 1: 1 object (configmap/a)", "2. prune wave 1: 1 object (configmap/b)", "3. prune wave 2: 1 object (configmap/c)", "4. store the inventory app/inv: what exists now, with its status"],
    ],
    [
      "a destroy: each wave deleted and waited for until gone, then the inventory",
      [{ type: "delete", wave: 0, refs: cms.slice(0, 2), action: "delete" }, { type: "wait", wave: 0, refs: cms.slice(0, 2), until: "NotFound" }, { type: "inventory-delete" }],
      ["1. delete wave 1: 2 objects (configmap/a, configmap/b)", "2. wait until delete wave 1 is gone", "3. delete the inventory app/inv (kept, listing what is left, if anything stays)"],
    ],
    [
      "the lifecycle's steps: pre-apply hooks created then waited for, a replacement before its wave's apply, post-apply hooks last",
      [
        { type: "inventory-add" },
        { type: "hook-apply", phase: "pre-apply", wave: 0, refs: [ref("Job", "migrate", "batch")] },
        { type: "hook-wait", phase: "pre-apply", wave: 0, refs: [ref("Job", "migrate", "batch")], timeoutMs: 60_000 },
        { type: "replace", wave: 0, refs: [ref("Job", "report", "batch")], timeoutMs: 60_000 },
        { type: "apply", wave: 0, refs: [ref("Job", "report", "batch")] },
        { type: "hook-apply", phase: "post-apply", wave: 0, refs: [ref("Job", "notify", "batch")] },
        { type: "hook-wait", phase: "post-apply", wave: 0, refs: [ref("Job", "notify", "batch")] },
        { type: "inventory-set" },
      ],
      [
        "1. create the pre-apply hooks of wave 1: 1 object (job.batch/migrate)",
        "2. wait until the pre-apply hooks of wave 1 complete, at most 1m, then delete them as their policy says",
        "3. delete 1 object (job.batch/report) and wait until gone, at most 1m, to create it again in apply wave 1 (an immutable field changed)",
        "4. apply wave 1: 1 object (job.batch/report)",
        "5. create the post-apply hooks of wave 1: 1 object (job.batch/notify)",
        "6. wait until the post-apply hooks of wave 1 complete, then delete them as their policy says",
        "7. store the inventory app/inv: what exists now, with its status",
      ],
    ],
  ])("%s", (_name, steps, lines) => {
    expect(formatStepLines(steps, "app/inv")).toEqual(lines);
  });
});

describe("a dry run shows the steps of the run it previews", () => {
  const cluster = () => rollOutDeployments(new MemoryCluster()).seed(namespace());
  const objects = [configMap("config"), deployment("web", { dependsOn: [configMap("config")] })];

  it("live diff and the Markdown preview list them after the counts: the waits and the inventory's writes a dry run skips", async () => {
    const cs = await collectChangeSet(apply({ package: pkg(...objects), cluster: cluster(), ...QUICK, dryRun: "server", reconcileTimeoutMs: 60_000 }));
    const steps = [
      "1. install the ResourceGroup CRD",
      "2. store the inventory app/inv listing 2 objects, before any other write",
      "3. apply wave 1: 1 object (configmap/config)",
      "4. wait until apply wave 1 is reconciled, at most 1m",
      "5. apply wave 2: 1 object (deployment.apps/web)",
      "6. wait until apply wave 2 is reconciled, at most 1m",
      "7. store the inventory app/inv: what exists now, with its status",
    ];
    const text = formatChangeSetText(cs, createPalette(false));
    const counts = text.findIndex((l) => l.startsWith("Op: "));
    expect(text.slice(counts + 1, counts + 3 + steps.length)).toEqual(["", "Steps, in order:", ...steps]);
    const md = formatChangeSetMarkdown(cs).split("\n");
    const at = md.indexOf("Steps, in order:");
    expect(md.slice(at + 2, at + 2 + steps.length)).toEqual(steps);
  });

  it.each(["events", "table", "json"] as const)("live apply --dry-run --output %s: on stderr, never on stdout (json: nowhere)", async (output) => {
    const stdout = captureStream();
    const stderr = captureStream();
    await printRun(apply({ package: pkg(...objects), cluster: cluster(), ...QUICK, dryRun: "client" }), { output, stdout: stdout.stream, stderr: stderr.stream, color: false, tty: false, showStatusEvents: false });
    expect(stdout.text()).not.toMatch(/^\d+\. /m);
    if (output === "json") expect(stderr.text()).toBe("");
    else expect(stderr.text().split("\n")).toEqual(["The run would take these steps, in order:", "1. install the ResourceGroup CRD", expect.stringMatching(/^2\. store the inventory/), "3. apply wave 1: 1 object (configmap/config)", "4. wait until apply wave 1 is reconciled", "5. apply wave 2: 1 object (deployment.apps/web)", "6. wait until apply wave 2 is reconciled", expect.stringMatching(/^7\. store the inventory/), ""]);
  });

  it("live destroy --dry-run: the deletes, their waits and the inventory's removal", async () => {
    const c = cluster();
    for await (const _ of apply({ package: pkg(...objects), cluster: c, ...QUICK })) void _;
    const stderr = captureStream();
    await printRun(destroy({ package: pkg(...objects), cluster: c, ...QUICK, dryRun: "client" }), { output: "events", stdout: captureStream().stream, stderr: stderr.stream, color: false, tty: false, showStatusEvents: false });
    expect(stderr.text()).toBe(
      [
        "The run would take these steps, in order:",
        "1. delete wave 1: 1 object (deployment.apps/web)",
        "2. wait until delete wave 1 is gone",
        "3. delete wave 2: 1 object (configmap/config)",
        "4. wait until delete wave 2 is gone",
        "5. delete the inventory app/inv (kept, listing what is left, if anything stays)",
        "",
      ].join("\n"),
    );
  });
});
