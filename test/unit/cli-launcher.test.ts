// Issue 17: the built `kpt-ts` keeps compiled code between runs (V8's code cache per command on
// Node 20; Node's own compile cache from 22.1, issue 24), and a missing, foreign or broken cache
// never changes what a command does. Reads the built dist/ (npm run build).
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import Module from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { filesIn } from "../helpers/fixtures.js";
import { CODE_CACHE_RUNS, readCodeCache } from "../../src/util/code-cache-file.js";

const root = join(import.meta.dirname, "..", "..");
const cli = join(root, "dist", "cli.cjs");
/** Node 22.1 and later: the launcher hands its cache directory to Node's compile cache. */
const nodeCompileCache = typeof (Module as unknown as { enableCompileCache?: unknown }).enableCompileCache === "function";


function run(args: string[], env: Record<string, string>) {
  const r = spawnSync(process.execPath, [cli, ...args], { encoding: "utf8", env: { ...process.env, ...env } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

// Each case spawns the CLI several times: on a busy machine that takes longer than vitest's default 5 s.
describe.skipIf(!existsSync(cli))("the kpt-ts launcher (run npm run build first)", { timeout: 60_000 }, () => {
  it.skipIf(nodeCompileCache)("keeps one code cache per command, and answers the same with it, without it, and with a broken one", () => {
    const dir = mkdtempSync(join(tmpdir(), "kpt-ts-code-"));
    const plain = run(["live", "status", "--help"], { KPT_TS_CODE_CACHE: "off" });
    expect(plain.code).toBe(0);
    expect(plain.stdout).toMatch(/Usage: kpt-ts live status/);

    const first = run(["live", "status", "--help"], { KPT_TS_CODE_CACHE: dir });
    const statusFiles = readdirSync(dir);
    expect(statusFiles).toHaveLength(1);
    const second = run(["live", "status", "--help"], { KPT_TS_CODE_CACHE: dir });
    run(["--version"], { KPT_TS_CODE_CACHE: dir });
    run(["live", "status", "--no-such-flag"], { KPT_TS_CODE_CACHE: dir });
    expect(readdirSync(dir)).toHaveLength(3); // live status --help, --version, live status
    for (const r of [first, second]) expect([r.code, r.stdout, r.stderr]).toEqual([plain.code, plain.stdout, plain.stderr]);

    // Garbage where the cache was: V8 refuses it, the command runs as usual and the cache is rewritten.
    const file = statusFiles[0];
    for (const f of readdirSync(dir)) writeFileSync(join(dir, f), "not a code cache");
    const broken = run(["live", "status", "--help"], { KPT_TS_CODE_CACHE: dir });
    expect([broken.code, broken.stdout, broken.stderr]).toEqual([plain.code, plain.stdout, plain.stderr]);
    expect(readFileSync(join(dir, file!), "utf8")).not.toBe("not a code cache");
  });

  it.skipIf(!nodeCompileCache)("uses Node's compile cache in its directory on Node 22.1 and later, and answers the same with it, without it, and with a broken one", () => {
    const dir = mkdtempSync(join(tmpdir(), "kpt-ts-code-"));
    const plain = run(["live", "status", "--help"], { KPT_TS_CODE_CACHE: "off" });
    expect(plain.code).toBe(0);
    const first = run(["live", "status", "--help"], { KPT_TS_CODE_CACHE: dir });
    const files = filesIn(dir);
    // One entry for the one script, in a directory of this Node's version.
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(new RegExp(`^${process.version}-`));
    const second = run(["live", "status", "--help"], { KPT_TS_CODE_CACHE: dir });
    for (const r of [first, second]) expect([r.code, r.stdout, r.stderr]).toEqual([plain.code, plain.stdout, plain.stderr]);
    writeFileSync(join(dir, files[0]!), "not a code cache");
    const broken = run(["live", "status", "--help"], { KPT_TS_CODE_CACHE: dir });
    expect([broken.code, broken.stdout, broken.stderr]).toEqual([plain.code, plain.stdout, plain.stderr]);
    expect(readFileSync(join(dir, files[0]!), "utf8")).not.toBe("not a code cache");
  });

  it.skipIf(nodeCompileCache)("replaces the same command's cache of another build (an upgrade) when it writes its own", () => {
    const dir = mkdtempSync(join(tmpdir(), "kpt-ts-code-"));
    run(["--version"], { KPT_TS_CODE_CACHE: dir });
    const [mine] = readdirSync(dir);
    const older = `${mine!.split("-")[0]}-0123456789abcdef0123.bin`;
    writeFileSync(join(dir, older), "an older build's cache");
    writeFileSync(join(dir, "other-command.bin"), "another command's");
    writeFileSync(join(dir, mine!), "refused, so written again");
    expect(run(["--version"], { KPT_TS_CODE_CACHE: dir }).code).toBe(0);
    expect(readdirSync(dir).sort()).toEqual([mine!, "other-command.bin"].sort());
  });

  it.skipIf(nodeCompileCache)("writes a command's cache on its first runs (each adds what it compiled), then leaves it; a count it did not write is a new cache", () => {
    const dir = mkdtempSync(join(tmpdir(), "kpt-ts-code-"));
    const plain = run(["live", "status", "--help"], { KPT_TS_CODE_CACHE: "off" });
    const runsOf = (f: string) => readCodeCache(readFileSync(join(dir, f)))?.runs;
    const seen: (number | undefined)[] = [];
    for (let i = 0; i < CODE_CACHE_RUNS + 2; i++) {
      const r = run(["live", "status", "--help"], { KPT_TS_CODE_CACHE: dir });
      expect([r.code, r.stdout, r.stderr]).toEqual([plain.code, plain.stdout, plain.stderr]);
      const files = readdirSync(dir);
      expect(files).toHaveLength(1);
      seen.push(runsOf(files[0]!));
    }
    expect(seen).toEqual([...Array.from({ length: CODE_CACHE_RUNS }, (_, i) => i + 1), CODE_CACHE_RUNS, CODE_CACHE_RUNS]);
    // Left alone once full: the same bytes after another run.
    const [file] = readdirSync(dir);
    const full = readFileSync(join(dir, file!));
    run(["live", "status", "--help"], { KPT_TS_CODE_CACHE: dir });
    expect(readFileSync(join(dir, file!)).equals(full)).toBe(true);
    // Our header with a count no run writes: no cache; the run answers the same and starts a new one.
    const forged = Buffer.from(full);
    forged[full.indexOf(10) + 1] = 200;
    writeFileSync(join(dir, file!), forged);
    const again = run(["live", "status", "--help"], { KPT_TS_CODE_CACHE: dir });
    expect([again.code, again.stdout, again.stderr]).toEqual([plain.code, plain.stdout, plain.stderr]);
    expect(runsOf(file!)).toBe(1);
  });

  it("writes nothing with KPT_TS_CODE_CACHE=off, and exits with the command's own code", () => {
    const home = mkdtempSync(join(tmpdir(), "kpt-ts-code-home-"));
    const bad = run(["live", "apply", "--no-such-flag"], { KPT_TS_CODE_CACHE: "off", XDG_CACHE_HOME: home });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/unknown option '--no-such-flag'/);
    expect(readdirSync(home)).toEqual([]);
  });
});
