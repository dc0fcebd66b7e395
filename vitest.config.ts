import { defineConfig } from "vitest/config";
import { BaseSequencer, type TestSpecification } from "vitest/node";

// The files that take longest (seconds of test time in a fresh clone's CI, slowest first). Without
// vitest's timing cache, which a fresh clone has not got, it starts the largest files first; a
// small, slow file started last ran alone for minutes while the other workers sat idle.
const SLOWEST = ["field-bundles", "install", "faults", "bad-input", "concurrency", "kpt-cases-fresh", "completion-help", "lifecycle", "status-remote", "install-resource-group", "hostile-input", "applyset", "fleet", "deletion-waits"];

/** The slowest end-to-end files first, then the other end-to-end files, then the quick unit files. */
class SlowestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (f: TestSpecification) => {
      const i = SLOWEST.findIndex((name) => f.moduleId.endsWith(`/test/e2e/${name}.test.ts`));
      return i >= 0 ? i : f.project.name === "e2e" ? SLOWEST.length : SLOWEST.length + 1;
    };
    const order = await super.sort(files);
    return order.map((f, i) => ({ f, i })).sort((a, b) => rank(a.f) - rank(b.f) || a.i - b.i).map(({ f }) => f);
  }
}

// Two projects: `unit` (pure logic, no cluster) and `e2e` (the built CLI against one real local
// control plane, started once per run by the global setup; tests isolate themselves by namespace).
export default defineConfig({
  test: {
    pool: "forks",
    sequence: { sequencer: SlowestFirst },
    // Two cores: a few test files at a time, so the cluster's own processes keep a share.
    poolOptions: { forks: { maxForks: 3, minForks: 1 } },
    projects: [
      {
        test: {
          name: "unit",
          include: ["test/unit/**/*.test.ts"],
          environment: "node",
        },
      },
      {
        test: {
          name: "e2e",
          include: ["test/e2e/**/*.test.ts"],
          environment: "node",
          globalSetup: ["test/helpers/global-setup.ts"],
          testTimeout: 300_000,
          hookTimeout: 300_000,
        },
      },
    ],
  },
});
