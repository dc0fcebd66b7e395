// `npm run bench:fleet [-- --size 500 --reps 3 --clusters 3 --rtt 20ms]`: one package on several clusters
// (issue 34). Starts that many named local clusters (each its own control plane), then times
// kpt-ts applying, re-applying (no-op) and destroying a package of `--size` objects
//   - on one cluster alone,
//   - on each cluster one after another (three runs, as a shell loop over contexts would),
//   - on all of them at once (`live apply --contexts a,b,c`),
// and prints the medians and writes bench/results/fleet-<time>.json. Target: all at once about as
// long as one, not `clusters` times as long. `--rtt 20ms` puts each cluster 20 ms away (a TCP
// delay proxy per cluster, bench/delay-proxy.ts), as real clusters are: the control planes on
// this machine then no longer share its CPUs with what they would run on elsewhere.

import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { cpus, loadavg, release, tmpdir, totalmem } from "node:os";
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { stringify } from "yaml";
import { kubeconfigList } from "../tools/cluster/kubeconfig-merge.js";
import { down, up, type ClusterState } from "../tools/cluster/launcher.js";
import { VERSIONS } from "../tools/cluster/binaries.js";
import { createNamespace } from "./cluster.js";
import { parseRtt, proxiedKubeconfig, startDelayProxy, type DelayProxy } from "./delay-proxy.js";
import { kptTsBin, runSteps, runTimed, summarize, type Command } from "./measure.js";
import { generateConfigMaps, generatePackage, writePackage } from "./package.js";
import { cpuDuring } from "./process-cpu.js";

const REPO = resolve(import.meta.dirname, "..");
const CLI = kptTsBin(REPO);
const log = (line: string) => process.stderr.write(`[bench:fleet] ${line}\n`);

const { values } = parseArgs({
  options: {
    size: { type: "string", default: "500" },
    reps: { type: "string", default: "3" },
    clusters: { type: "string", default: "3" },
    keep: { type: "boolean", default: false },
    rtt: { type: "string", default: "0" },
    // "mixed" (the benchmark's usual package: Deployments, Services, ConfigMaps, ...) keeps each
    // cluster's controllers busy; "configmaps" leaves the clusters next to nothing to reconcile, so
    // the run's own part (requests, waits, output) is what the modes compare.
    package: { type: "string", default: "mixed" },
  },
});
const size = Number(values.size);
const reps = Number(values.reps);
const rttMs = parseRtt(values.rtt);
if (values.package !== "mixed" && values.package !== "configmaps") throw new Error(`--package must be mixed or configmaps, not ${values.package}`);
const names = Array.from({ length: Number(values.clusters) }, (_, i) => `bench-${String.fromCharCode(97 + i)}`);

type Mode = "one" | "one after another" | "at once";
type Phase = "apply" | "noop" | "destroy";
const samples = new Map<string, number[]>();
const cpuSamples = new Map<string, number[]>();
/** mode\nphase -> process name (etcd, kube-apiserver, ...; "machine" for the whole machine) -> CPU seconds per repetition. */
const clusterCpuSamples = new Map<string, Map<string, number[]>>();
const GNU_TIME = "/usr/bin/time";
const note = (mode: Mode, phase: Phase, seconds: number) => {
  const key = `${mode}\n${phase}`;
  samples.set(key, [...(samples.get(key) ?? []), seconds]);
};

const root = await mkdtemp(join(tmpdir(), "kpt-ts-bench-fleet-"));
const states: ClusterState[] = [];
const proxies: DelayProxy[] = [];
const startedAt = new Date();
const loadAtStart = loadavg();
try {
  for (const name of names) {
    const t0 = Date.now();
    states.push((await up({ dir: join(root, name), name, log: (l) => log(`${name}: ${l}`) })).state);
    log(`${name} up in ${((Date.now() - t0) / 1000).toFixed(1)}s`);
  }
  // What kpt-ts is given: each cluster's kubeconfig, or one pointing at its delay proxy.
  const kubeconfigs: string[] = [];
  for (const st of states) {
    if (rttMs === 0) {
      kubeconfigs.push(st.kubeconfig);
      continue;
    }
    const proxy = await startDelayProxy({ host: "127.0.0.1", port: Number(new URL(st.server).port) }, rttMs);
    proxies.push(proxy);
    const file = `${st.kubeconfig}.rtt`;
    await writeFile(file, proxiedKubeconfig(await readFile(st.kubeconfig, "utf8"), proxy.port), { mode: 0o600 });
    kubeconfigs.push(file);
  }
  const env = { ...process.env, KUBECONFIG: kubeconfigList(kubeconfigs), NO_COLOR: "1" };
  const ns = "bench-fleet";
  for (const s of states) await createNamespace({ ...process.env, KUBECONFIG: s.kubeconfig }, ns);
  const pkg = join(root, "pkg");
  await writePackage(pkg, values.package === "configmaps" ? generateConfigMaps(size, ns) : generatePackage(size, ns).base, { kptfile: false });
  await writeFile(
    join(pkg, "resourcegroup.yaml"),
    stringify({ apiVersion: "kpt.dev/v1alpha1", kind: "ResourceGroup", metadata: { name: "bench-fleet", namespace: ns, labels: { "cli-utils.sigs.k8s.io/inventory-id": "bench-fleet" } } }),
  );
  // Every command's output, kept after the run (the clusters' directories are removed).
  const logs = await mkdtemp(join(tmpdir(), "kpt-ts-bench-fleet-logs-"));
  log(`each command's output: ${logs}`);
  // kpt-ts' own CPU time (user + system) of each command, from GNU time where installed: what
  // the run costs this machine, apart from the control planes' work.
  let commands = 0;
  const kptTs = (args: string[]): Command & { cpuFile?: string } => {
    const cpuFile = existsSync(GNU_TIME) ? join(logs, `cpu-${++commands}.txt`) : undefined;
    const argv = [process.execPath, CLI, ...args, ...(args[1] === "apply" ? ["--reconcile-timeout=10m"] : []), pkg];
    return { argv: cpuFile ? [GNU_TIME, "-f", "%U %S", "-o", cpuFile, ...argv] : argv, ...(cpuFile ? { cpuFile } : {}) };
  };
  // The control planes' processes (all clusters'), whose CPU each timed command is charged with too.
  const procs = states.flatMap((st) => st.procs);
  const timed = async (what: string, steps: (Command & { cpuFile?: string })[]) => {
    const { result: r, byName, machine } = await cpuDuring(procs, () => runSteps(steps, { env, logPrefix: join(logs, what.replace(/\W+/g, "-")), timeoutMs: 30 * 60_000 }));
    if (!r.ok) throw new Error(`${what} failed:\n${r.tail}`);
    let cpu = 0;
    for (const st of steps) {
      const [user, system] = st.cpuFile ? (await readFile(st.cpuFile, "utf8")).trim().split("\n").at(-1)!.split(" ").map(Number) : [NaN, NaN];
      cpu += user! + system!;
    }
    return { seconds: r.seconds, cpu, clusterCpu: { ...byName, machine: machine ?? NaN } };
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
        const { seconds, cpu, clusterCpu } = await timed(`${rep}-${mode}-${phase}`, steps);
        note(mode, phase, seconds);
        cpuSamples.set(`${mode}\n${phase}`, [...(cpuSamples.get(`${mode}\n${phase}`) ?? []), cpu]);
        const byProcess = clusterCpuSamples.get(`${mode}\n${phase}`) ?? new Map<string, number[]>();
        for (const [name, seconds] of Object.entries(clusterCpu)) byProcess.set(name, [...(byProcess.get(name) ?? []), seconds]);
        clusterCpuSamples.set(`${mode}\n${phase}`, byProcess);
        log(`rep ${rep}: ${mode}, ${phase}: ${seconds.toFixed(2)}s (CPU: kpt-ts ${cpu.toFixed(2)}s, ${Object.entries(clusterCpu).map(([n, c]) => `${n} ${c.toFixed(2)}s`).join(", ")})`);
      }
      await destroyAll(); // nothing left whatever the mode touched
    }
  }
  const rows = [...samples].map(([key, s]) => {
    const [mode, phase] = key.split("\n") as [Mode, Phase];
    const cpu = cpuSamples.get(key) ?? [];
    const clusterCpu = Object.fromEntries([...(clusterCpuSamples.get(key) ?? [])].map(([name, xs]) => [name, { samples: xs, stats: summarize(xs) }]));
    return { mode, phase, samples: s, stats: summarize(s), kptTsCpuSeconds: cpu, kptTsCpu: summarize(cpu), clusterCpu };
  });
  const row = (mode: Mode, phase: Phase) => rows.find((r) => r.mode === mode && r.phase === phase);
  const median = (mode: Mode, phase: Phase) => row(mode, phase)?.stats?.median ?? NaN;
  const cpuMedian = (mode: Mode, phase: Phase) => row(mode, phase)?.kptTsCpu?.median ?? NaN;
  const n = names.length;
  const lines = [
    `| phase | one cluster | ${n} one after another | ${n} at once | at once / one | at once / one after another | kpt-ts CPU: one, ${n} one after another, ${n} at once |`,
    "|---|--:|--:|--:|--:|--:|--:|",
  ];
  for (const phase of ["apply", "noop", "destroy"] as Phase[]) {
    const [one, seq, once] = [median("one", phase), median("one after another", phase), median("at once", phase)];
    const cpu = (["one", "one after another", "at once"] as Mode[]).map((m) => cpuMedian(m, phase).toFixed(2)).join(" / ");
    lines.push(`| ${phase} | ${one.toFixed(2)} | ${seq.toFixed(2)} | ${once.toFixed(2)} | ${(once / one).toFixed(2)}x | ${(once / seq).toFixed(2)}x | ${cpu} |`);
  }
  // Where the CPU went: each process class's CPU seconds (medians, all clusters together) against
  // what the machine's cores could give in the wall time. Where the sum comes near wall × cores,
  // the run waits for CPU, not for kpt-ts.
  const cores = cpus().length;
  const cpuOf = (mode: Mode, phase: Phase, name: string) => row(mode, phase)?.clusterCpu[name]?.stats?.median ?? NaN;
  const cpuLines = [
    `| phase, mode | wall | kpt-ts | API servers | etcds | controller managers | schedulers + KWOK | sum | sum / (wall × ${cores} cores) | whole machine busy / (wall × ${cores}) |`,
    "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|",
  ];
  for (const phase of ["apply", "noop", "destroy"] as Phase[]) {
    for (const mode of ["one", "one after another", "at once"] as Mode[]) {
      const wall = median(mode, phase);
      const parts = [cpuMedian(mode, phase), cpuOf(mode, phase, "kube-apiserver"), cpuOf(mode, phase, "etcd"), cpuOf(mode, phase, "kube-controller-manager"), cpuOf(mode, phase, "kube-scheduler") + cpuOf(mode, phase, "kwok")];
      const sum = parts.reduce((a, b) => a + b, 0);
      const pct = (x: number) => `${((100 * x) / (wall * cores)).toFixed(0)}%`;
      cpuLines.push(`| ${phase}, ${mode} | ${wall.toFixed(2)} | ${parts.map((x) => x.toFixed(2)).join(" | ")} | ${sum.toFixed(2)} | ${pct(sum)} | ${pct(cpuOf(mode, phase, "machine"))} |`);
    }
  }
  const conditions = `${size} objects (${values.package === "configmaps" ? "ConfigMaps only" : "the mixed package: Deployments, Services, ConfigMaps, ..."}), ${names.length} local clusters${rttMs ? ` each ${rttMs} ms away (a TCP delay proxy each)` : " on loopback"} (Kubernetes ${VERSIONS.kubernetes}, each etcd + API server + controller manager + scheduler + KWOK, 3 nodes), ${reps} repetitions (medians, seconds), ${cpus().length} CPUs (${cpus()[0]?.model ?? "?"}), ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Linux ${release()}, Node ${process.version}; load average at the start ${loadAtStart.map((l) => l.toFixed(1)).join(", ")}, at the end ${loadavg().map((l) => l.toFixed(1)).join(", ")}`;
  process.stdout.write(`${conditions}\n\n${lines.join("\n")}\n\nCPU seconds (medians) while each ran:\n\n${cpuLines.join("\n")}\n`);
  await mkdir(join(REPO, "bench/results"), { recursive: true });
  const file = join(REPO, "bench/results", `fleet-${startedAt.toISOString().replace(/[:.]/g, "-")}.json`);
  await writeFile(file, JSON.stringify({ startedAt, conditions, size, package: values.package, clusters: names, reps, rttMs, rows }, null, 2));
  log(`written ${file}`);
} finally {
  await Promise.all(proxies.map((p) => p.close()));
  if (!values.keep) {
    await Promise.all(states.map((s) => down({ dir: s.dir })));
    await rm(root, { recursive: true, force: true });
  } else log(`clusters kept in ${root}`);
}
