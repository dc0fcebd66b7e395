// `npm run cluster:up` / `npm run cluster:down`.
import { down, isRunning, up } from "./launcher.js";

const cmd = process.argv[2];
const log = (line: string) => process.stderr.write(`[cluster] ${line}\n`);
try {
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
