// Issue 23, findings 1, 6 and 9: the caches (V8's code cache, parsed files, discovery) are used
// only where nobody else can have written them, check what they read, write through temporary
// files created exclusively and removed even when the run ends early, and cost the same per file
// however many files the cache holds. Tests that need another user chown a planted cache to
// `nobody` (65534); they are skipped, with a message, when not run as root.
import { spawnSync } from "node:child_process";
import { chmodSync, chownSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { mkdtemp, readdir, readFile, realpath, stat, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import Module from "node:module";
import { describe, expect, it } from "vitest";
import { filesIn } from "../helpers/fixtures.js";
import { cleanUpDaily, parseCacheFor } from "../../src/object/parse-cache.js";
import { readPackage } from "../../src/object/read-package.js";
import { parseYamlDocuments } from "../../src/object/yaml-documents.js";
import { privateDirProblem, readEntry, writeEntry } from "../../src/util/user-cache.js";

const root = join(import.meta.dirname, "..", "..");
const dist = join(root, "dist");
const isRoot = process.getuid?.() === 0;
const NOBODY = 65534;
if (!isRoot) console.warn("hostile-caches: not root, so the tests that plant a cache owned by another user (chown) are skipped");

function chownTree(path: string, uid: number): void {
  chownSync(path, uid, uid);
  if (statSync(path).isDirectory()) for (const f of readdirSync(path)) chownTree(join(path, f), uid);
}

/**
 * A copy of the built CLI (dist/ and package.json) in a temporary directory, and a way to swap its
 * program for another of the same length and time: what a user who could write the code cache
 * would run as the victim, were the cache trusted.
 */
function distCopy(): { cli: string; useEvil(): void; useReal(): void } {
  const top = mkdtempSync(join(tmpdir(), "kpt-ts-hostile-dist-"));
  cpSync(dist, join(top, "dist"), { recursive: true });
  cpSync(join(root, "package.json"), join(top, "package.json"));
  const prog = join(top, "dist", "cli-program.cjs");
  const real = readFileSync(prog);
  const evil = Buffer.from(real.toString("latin1").replace("Print the version of kpt-ts", "PWNED the version of kpt-ts"), "latin1");
  expect(evil.length).toBe(real.length);
  const st = statSync(prog);
  const put = (b: Buffer) => {
    writeFileSync(prog, b);
    utimesSync(prog, st.atime, st.mtime);
  };
  put(real); // its time to the millisecond, as every swap leaves it
  return { cli: join(top, "dist", "cli.js"), useEvil: () => put(evil), useReal: () => put(real) };
}


function help(cli: string, cacheDir: string, extra: string[] = []): { line: string; stderr: string } {
  const r = spawnSync(process.execPath, [cli, "--help", ...extra], { encoding: "utf8", env: { ...process.env, KPT_TS_CODE_CACHE: cacheDir } });
  return { line: /.*version of kpt-ts.*/.exec(r.stdout)?.[0]?.trim() ?? `(no help: ${r.stderr})`, stderr: r.stderr };
}

describe.skipIf(!existsSync(join(dist, "cli.js")))("the code cache (run npm run build first)", () => {
  it("never runs what was compiled from another program of the same length and time", { timeout: 60_000 }, () => {
    const d = distCopy();
    const cache = mkdtempSync(join(tmpdir(), "kpt-ts-hostile-code-"));
    d.useEvil();
    expect(help(d.cli, cache).line).toMatch(/PWNED/); // the other program fills the cache
    d.useReal();
    expect(help(d.cli, cache).line).toMatch(/^version +Print the version of kpt-ts$/);
  });

  it.skipIf(!isRoot)("is not used from a directory another user owns (they planted code there), and -v says so", { timeout: 60_000 }, () => {
    const d = distCopy();
    // What the victim's cache file is called: learnt from a run with a cache of its own.
    const scratch = mkdtempSync(join(tmpdir(), "kpt-ts-hostile-code-"));
    help(d.cli, scratch);
    const [name] = filesIn(scratch); // `<command>-<build>.bin`, or on Node 22.1+ `<node>/<entry>` of Node's compile cache
    // The attacker's directory, with code compiled from their program under that name.
    const planted = mkdtempSync(join(tmpdir(), "kpt-ts-hostile-code-"));
    d.useEvil();
    const evilCache = mkdtempSync(join(tmpdir(), "kpt-ts-hostile-code-"));
    help(d.cli, evilCache);
    mkdirSync(dirname(join(planted, name!)), { recursive: true });
    writeFileSync(join(planted, name!), readFileSync(join(evilCache, filesIn(evilCache)[0]!)));
    d.useReal();
    chownTree(planted, NOBODY);
    const run = help(d.cli, planted, ["-v"]);
    expect(run.line).toMatch(/^version +Print the version of kpt-ts$/);
    expect(run.stderr).toContain(`kpt-ts: not using the code cache in ${planted}: it belongs to uid ${NOBODY}, not to you (uid 0)`);
    expect(help(d.cli, planted).stderr).toBe(""); // said only with -v
  });
});

const nodeCompileCache = typeof (Module as unknown as { enableCompileCache?: unknown }).enableCompileCache === "function";

describe.skipIf(!existsSync(join(dist, "cli.js")) || !nodeCompileCache)("Node's compile cache (Node 22.1 and later)", () => {
  it.skipIf(!isRoot)("is not used when an entry in the user's own directory belongs to another user, and -v names it", { timeout: 60_000 }, () => {
    const d = distCopy();
    const cache = mkdtempSync(join(tmpdir(), "kpt-ts-hostile-code-"));
    d.useEvil();
    help(d.cli, cache); // the attacker's code compiled into the entry Node would read
    d.useReal();
    const [entry] = filesIn(cache);
    chownTree(join(cache, dirname(entry!)), NOBODY);
    const run = help(d.cli, cache, ["-v"]);
    expect(run.line).toMatch(/^version +Print the version of kpt-ts$/);
    expect(run.stderr).toContain(`kpt-ts: not using the code cache in ${cache}: ${join(cache, dirname(entry!))} belongs to uid ${NOBODY}`);
  });
});

describe("a private cache directory", () => {
  it("is refused when group or others may write to it", () => {
    const dir = mkdtempSync(join(tmpdir(), "kpt-ts-hostile-dir-"));
    expect(privateDirProblem(dir)).toBeUndefined();
    chmodSync(dir, 0o777);
    expect(privateDirProblem(dir)).toMatch(/others may write to it \(mode 777\)/);
    chmodSync(dir, 0o720);
    expect(privateDirProblem(dir)).toMatch(/others may write to it/);
  });

  it.skipIf(!isRoot)("is refused when it, or a directory above it, belongs to another user", () => {
    const top = mkdtempSync(join(tmpdir(), "kpt-ts-hostile-dir-"));
    mkdirSync(join(top, "shared", "kpt-ts", "parsed"), { recursive: true });
    chownSync(join(top, "shared"), NOBODY, NOBODY); // HOME=/tmp: someone else made ~/.cache
    expect(privateDirProblem(join(top, "shared", "kpt-ts", "parsed"))).toBe(`${join(top, "shared")} belongs to uid ${NOBODY}, not to you (uid 0) or root`);
    const mine = mkdtempSync(join(tmpdir(), "kpt-ts-hostile-dir-"));
    chownSync(mine, NOBODY, NOBODY);
    expect(privateDirProblem(mine)).toBe(`it belongs to uid ${NOBODY}, not to you (uid 0)`);
  });

  it("reads a file only when it is a regular file of the user's that nobody else may write", async () => {
    const dir = await mkdtemp(join(tmpdir(), "kpt-ts-hostile-dir-"));
    await writeFile(join(dir, "ok"), "ok", { mode: 0o600 });
    expect((await readEntry(join(dir, "ok")))?.toString()).toBe("ok");
    await writeFile(join(dir, "target"), "planted", { mode: 0o600 });
    symlinkSync(join(dir, "target"), join(dir, "link"));
    expect(await readEntry(join(dir, "link"))).toBeUndefined();
    await writeFile(join(dir, "open"), "planted", { mode: 0o666 });
    chmodSync(join(dir, "open"), 0o666);
    expect(await readEntry(join(dir, "open"))).toBeUndefined();
    if (isRoot) {
      await writeFile(join(dir, "theirs"), "planted", { mode: 0o600 });
      chownSync(join(dir, "theirs"), NOBODY, NOBODY);
      expect(await readEntry(join(dir, "theirs"))).toBeUndefined();
    }
  });

  it("writes an entry through a temporary file of its own, never through a link planted where one is expected", async () => {
    const dir = await mkdtemp(join(tmpdir(), "kpt-ts-hostile-dir-"));
    const victim = join(await mkdtemp(join(tmpdir(), "kpt-ts-hostile-victim-")), "authorized_keys");
    await writeFile(victim, "the victim's file\n");
    const entry = join(dir, "entry.json");
    // The name a write used to go through (FILE.PID.tmp), and a few around it.
    for (const pid of [process.pid, process.pid + 1]) symlinkSync(victim, `${entry}.${pid}.tmp`);
    await writeEntry(entry, "the entry");
    expect(await readFile(victim, "utf8")).toBe("the victim's file\n");
    expect(await readFile(entry, "utf8")).toBe("the entry");
  });
});

describe.skipIf(!existsSync(join(dist, "util", "user-cache.js")))("temporary files of a run that ends early (run npm run build first)", () => {
  it("are removed at exit, however far the write got", { timeout: 60_000 }, () => {
    const dir = mkdtempSync(join(tmpdir(), "kpt-ts-hostile-tmp-"));
    // A write of 64 MiB still under way when the process exits (as `live diff` exits).
    const script = `import { writeEntry } from ${JSON.stringify(join(dist, "util", "user-cache.js"))};
void writeEntry(${JSON.stringify(join(dir, "entry.json"))}, Buffer.alloc(64 * 1024 * 1024, 97)).catch(() => {});
setTimeout(() => process.exit(0), 5);`;
    for (let i = 0; i < 5; i++) {
      const r = spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" });
      expect(r.status, r.stderr).toBe(0);
    }
    expect(readdirSync(dir).filter((f) => f.endsWith(".tmp"))).toEqual([]);
  });
});

const TEXT = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n  namespace: app\ndata:\n  mode: safe\n";
const RG = "apiVersion: kpt.dev/v1alpha1\nkind: ResourceGroup\nmetadata:\n  name: inv\n  namespace: app\n  labels:\n    cli-utils.sigs.k8s.io/inventory-id: inv-id\n";

/** Writes `texts` to the cache of package `scope`; the package's cache file. */
async function packageFile(dir: string, scope: string, texts: string[]): Promise<string> {
  const pkgCache = parseCacheFor({ KPT_TS_PARSE_CACHE: dir })!.open(scope);
  for (const t of texts) pkgCache.write(t, parseYamlDocuments(t).snapshot!()!);
  await pkgCache.save();
  const files = (await readdir(dir)).filter((f) => f.endsWith(".json"));
  expect(files).toHaveLength(1);
  return join(dir, files[0]!);
}

/** The ConfigMap's entry turned into a Secret with another value: what a planted entry says. */
async function poison(file: string): Promise<void> {
  const stored = JSON.parse(await readFile(file, "utf8"));
  for (const snap of Object.values(stored.entries) as { documents: { value: any }[] }[]) {
    const v = snap.documents[0]!.value;
    if (v.kind !== "ConfigMap") continue;
    v.kind = "Secret";
    v.data.mode = "cG9pc29uZWQ=";
  }
  await writeFile(file, JSON.stringify(stored));
}

describe("the parse cache", () => {
  it("looks an entry up by the hash of the text it is read for: an entry for other text is never used; a corrupt file is a miss", async () => {
    const dir = await mkdtemp(join(tmpdir(), "kpt-ts-hostile-pc-"));
    const file = await packageFile(dir, "/pkg", [TEXT.replace("safe", "other")]);
    // The other text's parse stored under this text's hash (a swapped or tampered entry).
    const stored = JSON.parse(await readFile(file, "utf8"));
    const [otherKey] = Object.keys(stored.entries);
    const mine = await packageFile(await mkdtemp(join(tmpdir(), "kpt-ts-hostile-pc-")), "/pkg", [TEXT]);
    const [myKey] = Object.keys(JSON.parse(await readFile(mine, "utf8")).entries);
    expect(myKey).not.toBe(otherKey);
    const cache = parseCacheFor({ KPT_TS_PARSE_CACHE: dir })!;
    expect(cache.open("/pkg").read(TEXT)).toBeUndefined();
    expect(cache.open("/pkg").read(TEXT.replace("safe", "other"))?.documents[0]!.value).toMatchObject({ data: { mode: "other" } });
    await writeFile(file, "{ not json");
    expect(cache.open("/pkg").read(TEXT.replace("safe", "other"))).toBeUndefined();
    await writeFile(file, JSON.stringify({ entries: { [otherKey!]: { documents: "nope" } } }));
    expect(cache.open("/pkg").read(TEXT.replace("safe", "other"))).toBeUndefined();
    // A snapshot of a file read whole by the precise parser, with a malformed mark or document index.
    const doc = { value: {}, line: 1, firstLine: 1, lineCount: 1, textLength: 1 };
    for (const bad of [{ documents: [doc], wholeFile: "yes" }, { documents: [{ ...doc, index: -1 }], wholeFile: true }, { documents: [{ ...doc, index: "0" }], wholeFile: true }]) {
      await writeFile(file, JSON.stringify({ entries: { [otherKey!]: bad } }));
      expect(cache.open("/pkg").read(TEXT.replace("safe", "other"))).toBeUndefined();
    }
  });

  it.skipIf(!isRoot)("is not used from a directory another user owns: a planted entry never changes what is sent", async () => {
    const dir = await mkdtemp(join(tmpdir(), "kpt-ts-hostile-pc-"));
    const pkg = await mkdtemp(join(tmpdir(), "kpt-ts-hostile-pkg-"));
    await writeFile(join(pkg, "cm.yaml"), TEXT);
    await writeFile(join(pkg, "rg.yaml"), RG);
    await poison(await packageFile(dir, await realpath(pkg), [TEXT]));
    chownTree(dir, NOBODY);
    const notes: string[] = [];
    const cache = parseCacheFor({ KPT_TS_PARSE_CACHE: dir }, { onUnusable: (m) => notes.push(m) });
    const read = await readPackage(pkg, cache ? { parseCache: cache } : {});
    expect(read.objects.map((o) => [o.object.kind, o.object.data])).toEqual([["ConfigMap", { mode: "safe" }]]);
    expect(notes).toEqual([`not using the parse cache in ${dir}: it belongs to uid ${NOBODY}, not to you (uid 0)`]);
  });

  it("reads and writes one file per package, and scans its directory at most once a day (a 10,000-file package paid a scan on 1 write in 32)", async () => {
    const dir = await mkdtemp(join(tmpdir(), "kpt-ts-hostile-pc-"));
    // Cleaned an hour ago; an entry unused for two months is still there.
    await writeFile(join(dir, ".last-clean"), "");
    const hourAgo = new Date(Date.now() - 3600_000);
    await utimes(join(dir, ".last-clean"), hourAgo, hourAgo);
    await writeFile(join(dir, "stale.json"), "{}");
    const old = new Date(Date.now() - 60 * 24 * 3600_000);
    await utimes(join(dir, "stale.json"), old, old);
    const pkg = await mkdtemp(join(tmpdir(), "kpt-ts-hostile-pkg-"));
    await writeFile(join(pkg, "rg.yaml"), RG);
    for (let i = 0; i < 200; i++) await writeFile(join(pkg, `cm-${i}.yaml`), TEXT.replace("name: cm", `name: cm-${i}`));
    const cache = parseCacheFor({ KPT_TS_PARSE_CACHE: dir })!;
    await readPackage(pkg, { parseCache: cache });
    await readPackage(pkg, { parseCache: cache });
    expect((await readdir(dir)).filter((f) => f !== "stale.json").length).toBe(2); // the stamp and the package's file
    expect(existsSync(join(dir, "stale.json"))).toBe(true); // no scan today
    // A day later the next run scans once, removes it, and says when.
    const dayAgo = new Date(Date.now() - 25 * 3600_000);
    await utimes(join(dir, ".last-clean"), dayAgo, dayAgo);
    expect(await cleanUpDaily(dir)).toBe(true);
    expect(existsSync(join(dir, "stale.json"))).toBe(false);
    expect(await cleanUpDaily(dir)).toBe(false);
    expect((await stat(join(dir, ".last-clean"))).mtimeMs).toBeGreaterThan(Date.now() - 60_000);
  });
});
