// `npm run cluster:up` / `npm run cluster:down` (KPT_TS_CLUSTER_NAME=NAME: another cluster beside
// the default one, in .cluster-NAME/, its kubeconfig's one context named NAME).
import { clusterNameFromEnv, down, isRunning, up } from "./launcher.js";

const cmd = process.argv[2];
let log = (line: string) => void process.stderr.write(`[cluster] ${line}\n`);
try {
  const name = clusterNameFromEnv();
  if (name) log = (line: string) => void process.stderr.write(`[cluster ${name}] ${line}\n`);
  if (cmd === "up") {
    const started = Date.now();
    const { state, started: fresh } = await up({ log });
    log(`${fresh ? "started" : "already running"} in ${((Date.now() - started) / 1000).toFixed(1)}s`);
    process.stdout.write(`export KUBECONFIG=${state.kubeconfig}\n`);
  } else if (cmd === "down") {
    await down();
    log("stopped; state removed");
  } else if (cmd === "status") {
    const s = await isRunning();
    process.stdout.write(s ? `running at ${s.server}; KUBECONFIG=${s.kubeconfig}\n` : "not running\n");
    process.exitCode = s ? 0 : 1;
  } else {
    process.stderr.write("usage: tsx tools/cluster/main.ts up|down|status\n");
    process.exitCode = 2;
  }
} catch (err) {
  log(`error: ${(err as Error).message}`);
  process.exitCode = 1;
}
