import { defineConfig } from "vitest/config";

// Two projects: `unit` (pure logic, no cluster) and `e2e` (the built CLI against one real local
// control plane, started once per run by the global setup; tests isolate themselves by namespace).
export default defineConfig({
  test: {
    pool: "forks",
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
