// `npm run bench:fleet [-- --size 500 --reps 3 --clusters 3]`: one package on several clusters
// (issue 34). Starts that many named local clusters (each its own control plane), then times
// kpt-ts applying, re-applying (no-op) and destroying a package of `--size` objects
//   - on one cluster alone,
//   - on each cluster one after another (three runs, as a shell loop over contexts would),
//   - on all of them at once (`live apply --contexts a,b,c`),
// and prints the medians and writes bench/results/fleet-<time>.json. Target: all at once about as
// long as one, not `clusters` times as long.

import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { cpus, loadavg, release, tmpdir, totalmem } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { stringify } from "yaml";
import { kubeconfigList } from "../tools/cluster/kubeconfig-merge.js";
import { down, up, type ClusterState } from "../tools/cluster/launcher.js";
import { VERSIONS } from "../tools/cluster/binaries.js";
import { createNamespace } from "./cluster.js";
import { runSteps, runTimed, summarize, type Command } from "./measure.js";
import { generatePackage, writePackage } from "./package.js";

const REPO = resolve(import.meta.dirname, "..");
const CLI = join(REPO, "dist/cli.js");
const log = (line: string) => process.stderr.write(`[bench:fleet] ${line}\n`);

const { values } = parseArgs({
  options: {
    size: { type: "string", default: "500" },
    reps: { type: "string", default: "3" },
    clusters: { type: "string", default: "3" },
    keep: { type: "boolean", default: false },
  },
});
const size = Number(values.size);
const reps = Number(values.reps);
const names = Array.from({ length: Number(values.clusters) }, (_, i) => `bench-${String.fromCharCode(97 + i)}`);

type Mode = "one" | "one after another" | "at once";
type Phase = "apply" | "noop" | "destroy";
const samples = new Map<string, number[]>();
const note = (mode: Mode, phase: Phase, seconds: number) => {
  const key = `${mode}\n${phase}`;
  samples.set(key, [...(samples.get(key) ?? []), seconds]);
};

const root = await mkdtemp(join(tmpdir(), "kpt-ts-bench-fleet-"));
const states: ClusterState[] = [];
const startedAt = new Date();
const loadAtStart = loadavg();
try {
  for (const name of names) {
    const t0 = Date.now();
    states.push((await up({ dir: join(root, name), name, log: (l) => log(`${name}: ${l}`) })).state);
    log(`${name} up in ${((Date.now() - t0) / 1000).toFixed(1)}s`);
  }
  const env = { ...process.env, KUBECONFIG: kubeconfigList(states.map((s) => s.kubeconfig)), NO_COLOR: "1" };
  const ns = "bench-fleet";
  for (const s of states) await createNamespace({ ...process.env, KUBECONFIG: s.kubeconfig }, ns);
  const pkg = join(root, "pkg");
  await writePackage(pkg, generatePackage(size, ns).base, { kptfile: false });
  await writeFile(
    join(pkg, "resourcegroup.yaml"),
    stringify({ apiVersion: "kpt.dev/v1alpha1", kind: "ResourceGroup", metadata: { name: "bench-fleet", namespace: ns, labels: { "cli-utils.sigs.k8s.io/inventory-id": "bench-fleet" } } }),
  );
  await mkdir(join(root, "logs"), { recursive: true });
  const kptTs = (args: string[]): Command => ({ argv: [process.execPath, CLI, ...args, ...(args[1] === "apply" ? ["--reconcile-timeout=10m"] : []), pkg] });
  const timed = async (what: string, steps: Command[]) => {
    const r = await runSteps(steps, { env, logPrefix: join(root, "logs", what.replace(/\W+/g, "-")), timeoutMs: 30 * 60_000 });
    if (!r.ok) throw new Error(`${what} failed:\n${r.tail}`);
    return r.seconds;
  };
  const destroyAll = async () => {
    const r = await runTimed({ argv: [process.execPath, CLI, "live", "destroy", "--contexts", names.join(","), pkg] }, { env });
    if (!r.ok) throw new Error(`destroy failed:\n${r.tail}`);
  };
  // One warm-up cycle (the API servers' first writes of each kind, discovery caches).
  await timed("warm-up", [kptTs(["live", "apply", "--contexts", names.join(",")])]);
  await destroyAll();

  for (let rep = 1; rep <= reps; rep++) {
    // The order of the modes turns each repetition, so none always runs on the freshest machine.
    const modes: Mode[] = (["one", "one after another", "at once"] as Mode[]).map((_, i, all) => all[(i + rep - 1) % all.length]!);
    for (const mode of modes) {
      for (const phase of ["apply", "noop", "destroy"] as Phase[]) {
        const verb = phase === "destroy" ? "destroy" : "apply";
        const steps =
          mode === "one"
            ? [kptTs(["live", verb, "--context", names[0]!])]
            : mode === "one after another"
              ? names.map((n) => kptTs(["live", verb, "--context", n]))
              : [kptTs(["live", verb, "--contexts", names.join(",")])];
        const seconds = await timed(`${rep}-${mode}-${phase}`, steps);
        note(mode, phase, seconds);
        log(`rep ${rep}: ${mode}, ${phase}: ${seconds.toFixed(2)}s`);
      }
      await destroyAll(); // nothing left whatever the mode touched
    }
  }
  const rows = [...samples].map(([key, s]) => {
    const [mode, phase] = key.split("\n") as [Mode, Phase];
    return { mode, phase, samples: s, stats: summarize(s) };
  });
  const median = (mode: Mode, phase: Phase) => rows.find((r) => r.mode === mode && r.phase === phase)?.stats?.median ?? NaN;
  const lines = [`| phase | one cluster | ${names.length} one after another | ${names.length} at once | at once / one |`, "|---|--:|--:|--:|--:|"];
  for (const phase of ["apply", "noop", "destroy"] as Phase[]) {
    const [one, seq, once] = [median("one", phase), median("one after another", phase), median("at once", phase)];
    lines.push(`| ${phase} | ${one.toFixed(2)} | ${seq.toFixed(2)} | ${once.toFixed(2)} | ${(once / one).toFixed(2)}x |`);
  }
  const conditions = `${size} objects, ${names.length} local clusters (Kubernetes ${VERSIONS.kubernetes}, each etcd + API server + controller manager + scheduler + KWOK, 3 nodes), ${reps} repetitions (medians, seconds), ${cpus().length} CPUs (${cpus()[0]?.model ?? "?"}), ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Linux ${release()}, Node ${process.version}; load average at the start ${loadAtStart.map((l) => l.toFixed(1)).join(", ")}, at the end ${loadavg().map((l) => l.toFixed(1)).join(", ")}`;
  process.stdout.write(`${conditions}\n\n${lines.join("\n")}\n`);
  await mkdir(join(REPO, "bench/results"), { recursive: true });
  const file = join(REPO, "bench/results", `fleet-${startedAt.toISOString().replace(/[:.]/g, "-")}.json`);
  await writeFile(file, JSON.stringify({ startedAt, conditions, size, clusters: names, reps, rows }, null, 2));
  log(`written ${file}`);
} finally {
  if (!values.keep) {
    await Promise.all(states.map((s) => down({ dir: s.dir })));
    await rm(root, { recursive: true, force: true });
  } else log(`clusters kept in ${root}`);
}
