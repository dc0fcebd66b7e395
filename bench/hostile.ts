// `npx tsx bench/hostile.ts [--dist DIR] [--files 10000] [--skip stdin,bomb,parse]`
// What hostile input costs a run (issue 23), measured once per case on the built CLI (or another
// build's dist/, e.g. main's, with --dist):
//   stdin  400 MB on standard input (`live apply -`): exit code, the error, peak RSS
//   bomb   a 1.5 MB gzip answer that expands to 1.5 GiB, from a fake API server (`live status`):
//          exit code, the error, peak RSS
//   parse  a package of N one-object files read with the parse cache (cold: every entry written;
//          warm: every entry read) and without it: seconds and CPU seconds for each
// Peak RSS is /usr/bin/time's %M (the process's max resident set). Memory and time targets live
// here, not in tests: the tests check what a user sees (the errors, the exit codes).

import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { gzipBomb, startFakeApiServer } from "../test/helpers/fake-api-server.js";

const { values } = parseArgs({ options: { dist: { type: "string" }, files: { type: "string", default: "10000" }, skip: { type: "string", default: "" } } });
const dist = resolve(values.dist ?? join(import.meta.dirname, "..", "dist"));
const cli = existsSync(join(dist, "cli.cjs")) ? join(dist, "cli.cjs") : join(dist, "cli.js");
const skip = new Set(values.skip.split(",").filter(Boolean));
const log = (s: string) => process.stderr.write(`[bench] ${s}\n`);
if (!existsSync("/usr/bin/time")) throw new Error("bench/hostile.ts needs /usr/bin/time for peak RSS");

interface Outcome {
  code: number | null;
  seconds: number;
  rssMb: number;
  firstError: string;
}

/** Runs node `args` under /usr/bin/time, feeding stdin from `feed` (if any). */
async function measure(args: string[], env: NodeJS.ProcessEnv, feed?: (stdin: NodeJS.WritableStream, stop: () => boolean) => void): Promise<Outcome> {
  const out = join(tmpdir(), `kpt-ts-bench-hostile-${process.pid}.txt`);
  const started = process.hrtime.bigint();
  const child = spawn("/usr/bin/time", ["-f", "%M", "-o", out, process.execPath, ...args], { env, stdio: ["pipe", "ignore", "pipe"] });
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (c: string) => (stderr += c));
  child.stdin.on("error", () => undefined);
  let closed = false;
  const code = await new Promise<number | null>((done) => {
    child.on("close", (c) => {
      closed = true;
      done(c);
    });
    if (feed) feed(child.stdin, () => closed);
    else child.stdin.end();
  });
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const kb = Number((await readFile(out, "utf8").catch(() => "")).trim().split("\n").pop());
  await rm(out, { force: true });
  return { code, seconds, rssMb: kb / 1024, firstError: stderr.split("\n").find((l) => l.startsWith("error:")) ?? stderr.slice(0, 200) };
}

const pkgWithInventory = async (files: Record<string, string> = {}) => {
  const dir = await mkdtemp(join(tmpdir(), "kpt-ts-bench-hostile-"));
  await writeFile(join(dir, "rg.yaml"), "apiVersion: kpt.dev/v1alpha1\nkind: ResourceGroup\nmetadata:\n  name: inv\n  namespace: default\n  labels:\n    cli-utils.sigs.k8s.io/inventory-id: bench-hostile\n");
  for (const [name, text] of Object.entries(files)) await writeFile(join(dir, name), text);
  return dir;
};

const results: Record<string, unknown> = { dist, node: process.version };

if (!skip.has("stdin")) {
  log("400 MB on standard input");
  const chunk = Buffer.alloc(1024 * 1024, "# a comment line of a very long stream\n");
  const total = 400 * 1024 * 1024;
  results.stdin = await measure([cli, "live", "apply", "-"], { ...process.env, KUBECONFIG: "/nonexistent", KPT_TS_PARSE_CACHE: "off" }, (stdin, stopped) => {
    let sent = 0;
    const pump = () => {
      while (sent < total && !stopped()) {
        sent += chunk.length;
        if (!stdin.write(chunk)) return void stdin.once("drain", pump);
      }
      stdin.end();
    };
    pump();
  });
  log(JSON.stringify(results.stdin));
}

if (!skip.has("bomb")) {
  log("a gzip answer of 1.5 MB that expands to 1.5 GiB");
  const bomb = gzipBomb(1536 * 1024 * 1024);
  const server = await startFakeApiServer((_req, res) => {
    res.writeHead(200, { "content-type": "application/json", "content-encoding": "gzip" });
    res.end(bomb);
  });
  try {
    const dir = await pkgWithInventory();
    results.bomb = { wireMb: bomb.length / 1024 / 1024, ...(await measure([cli, "live", "status", dir], { ...process.env, KUBECONFIG: server.kubeconfig, KPT_TS_HTTP_CACHE: "off" })) };
  } finally {
    await server.close();
  }
  log(JSON.stringify(results.bomb));
}

if (!skip.has("parse")) {
  const n = Number(values.files);
  log(`a package of ${n} files, with and without the parse cache`);
  const files: Record<string, string> = {};
  for (let i = 0; i < n; i++) files[`cm-${i}.yaml`] = `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm-${i}\n  namespace: default\ndata:\n  key: value-${i}\n`;
  const dir = await pkgWithInventory(files);
  const cache = await mkdtemp(join(tmpdir(), "kpt-ts-bench-hostile-cache-"));
  // Reads the package as `live apply` does (readCommandPackage), in a process of its own, from
  // tsc's output (.build/), as dist/ holds only the bundle.
  const script = `const { readCommandPackage } = await import(${JSON.stringify(join(dist, "..", ".build", "commands", "io.js"))});
const t = process.hrtime.bigint();
const cpu = process.cpuUsage();
const pkg = await readCommandPackage(${JSON.stringify(dir)}, { env: process.env, stderr: process.stderr, stdout: process.stdout, stdin: process.stdin, signal: new AbortController().signal });
const used = process.cpuUsage(cpu);
process.stdout.write(JSON.stringify({ objects: pkg.objects.length, seconds: Number(process.hrtime.bigint() - t) / 1e9, cpuSeconds: (used.user + used.system) / 1e6 }));`;
  const read = async (setting: string) => {
    const child = spawn(process.execPath, ["--input-type=module", "-e", script], { env: { ...process.env, KPT_TS_PARSE_CACHE: setting }, stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    child.stdout.setEncoding("utf8").on("data", (c: string) => (out += c));
    await new Promise((done) => child.on("close", done));
    return JSON.parse(out) as { objects: number; seconds: number; cpuSeconds: number };
  };
  const off = await read("off");
  const cold = await read(cache);
  const warm = await read(cache);
  // CPU seconds too: on a shared machine they say more than the wall clock.
  results.parse = {
    files: n,
    objects: off.objects,
    seconds: { withoutCache: off.seconds, coldCache: cold.seconds, warmCache: warm.seconds },
    cpuSeconds: { withoutCache: off.cpuSeconds, coldCache: cold.cpuSeconds, warmCache: warm.cpuSeconds },
  };
  log(JSON.stringify(results.parse));
  await rm(dir, { recursive: true, force: true });
  await rm(cache, { recursive: true, force: true });
}

process.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
