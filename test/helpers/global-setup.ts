// One real control plane per test run (reused when `npm run cluster:up` already started one).
import type { TestProject } from "vitest/node";
import { down, up } from "../../tools/cluster/launcher.js";

let startedHere = false;

export async function setup(project: TestProject): Promise<void> {
  const t0 = Date.now();
  const { state, started } = await up({ log: (l) => process.stderr.write(`[cluster] ${l}\n`) });
  startedHere = started;
  process.stderr.write(`[cluster] ready in ${((Date.now() - t0) / 1000).toFixed(1)}s at ${state.server}\n`);
  project.provide("kubeconfig", state.kubeconfig);
}

export async function teardown(): Promise<void> {
  if (startedHere) await down();
}

declare module "vitest" {
  export interface ProvidedContext {
    kubeconfig: string;
  }
}
