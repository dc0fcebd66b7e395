// `npm run demo`: the main job end to end on a real local cluster: init, apply (waiting until
// everything reconciled), status and destroy of the WordPress package in fixtures/.
// `npm run demo -- --with-kpt` runs the same steps with the real kpt binary.

import { spawn } from "node:child_process";
import { cp, mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { down, up } from "./cluster/launcher.js";

const repo = resolve(import.meta.dirname, "..");
const withKpt = process.argv.includes("--with-kpt");
const keep = process.argv.includes("--keep-cluster");
const tool = withKpt ? ["kpt"] : [process.execPath, join(repo, "dist/cli.cjs")];

function step(title: string, args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  process.stdout.write(`\n$ ${withKpt ? "kpt" : "kpt-ts"} ${args.join(" ")}    # ${title}\n`);
  return new Promise((res, rej) => {
    const child = spawn(tool[0]!, [...tool.slice(1), ...args], { stdio: "inherit", env });
    child.on("error", rej);
    child.on("close", (code) => res(code ?? 1));
  });
}

const log = (l: string) => process.stderr.write(`[cluster] ${l}\n`);
const { state, started } = await up({ log });
let failed = 0;
try {
  const dir = join(await mkdtemp(join(tmpdir(), "kpt-ts-demo-")), "wordpress");
  await cp(join(repo, "fixtures/wordpress"), dir, { recursive: true });
  const env = { ...process.env, KUBECONFIG: state.kubeconfig };
  const steps: [string, string[]][] = [
    ["add inventory information to the package", ["live", "init", dir]],
    ["apply it and wait until every object reconciled", ["live", "apply", "--reconcile-timeout=2m", dir]],
    ["show the status of every object", ["live", "status", dir]],
    ["delete everything, dependents first", ["live", "destroy", dir]],
  ];
  for (const [title, args] of steps) {
    const code = await step(title, args, env);
    if (code !== 0) {
      process.stdout.write(`\n(step exited with ${code})\n`);
      failed = code;
      break;
    }
  }
} finally {
  if (started && !keep) {
    await down();
    log("stopped");
  }
}
process.exitCode = failed;
