// Issue 23, findings 1, 6 and 9: the caches (V8's code cache, parsed files, discovery) are used
// only where nobody else can have written them, check what they read, write through temporary
// files created exclusively and removed even when the run ends early, and cost the same per file
// however many files the cache holds. Tests that need another user chown a planted cache to
// `nobody` (65534); they are skipped, with a message, when not run as root.
import { spawnSync } from "node:child_process";
import { chmodSync, chownSync, cpSync, existsSync, lchownSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, statSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { mkdtemp, readdir, readFile, realpath, stat, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import Module from "node:module";
import { describe, expect, it } from "vitest";
import { filesIn } from "../helpers/fixtures.js";
import { cleanUpDaily, parseCacheFor } from "../../src/object/parse-cache.js";
import { readPackage } from "../../src/object/read-package.js";
import { parseYamlDocuments } from "../../src/object/yaml-documents.js";
import { diskCacheFor } from "../../src/cluster/disk-cache.js";
import { privateDir, readEntrySync as readEntry, writeEntry } from "../../src/util/user-cache.js";

/** Why the directory may not hold a cache (undefined: it may). */
const privateDirProblem = (dir: string) => {
  const r = privateDir(dir);
  return "problem" in r ? r.problem : undefined;
};

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
  return { cli: join(top, "dist", "cli.cjs"), useEvil: () => put(evil), useReal: () => put(real) };
}


function help(cli: string, cacheDir: string, extra: string[] = []): { line: string; stderr: string } {
  const r = spawnSync(process.execPath, [cli, "--help", ...extra], { encoding: "utf8", env: { ...process.env, KPT_TS_CODE_CACHE: cacheDir } });
  return { line: /.*version of kpt-ts.*/.exec(r.stdout)?.[0]?.trim() ?? `(no help: ${r.stderr})`, stderr: r.stderr };
}

describe.skipIf(!existsSync(join(dist, "cli.cjs")))("the code cache (run npm run build first)", () => {
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

describe.skipIf(!existsSync(join(dist, "cli.cjs")) || !nodeCompileCache)("Node's compile cache (Node 22.1 and later)", () => {
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

  // Issue 35: the link someone else owns, and directories a group may write.
  it.skipIf(!isRoot)("is refused through a link another user owns, even to the user's own private directory", () => {
    const top = mkdtempSync(join(tmpdir(), "kpt-ts-hostile-dir-"));
    const victim = join(top, "victim-private");
    mkdirSync(victim, { mode: 0o700 });
    symlinkSync(victim, join(top, "theirs"));
    lchownSync(join(top, "theirs"), NOBODY, NOBODY);
    expect(privateDirProblem(join(top, "theirs"))).toBe(`${join(top, "theirs")} is a link that belongs to uid ${NOBODY}, not to you (uid 0) or root: it could be re-pointed while kpt-ts writes`);
    // A link of theirs higher up, too.
    mkdirSync(join(victim, "kpt-ts"));
    expect(privateDirProblem(join(top, "theirs", "kpt-ts"))).toMatch(new RegExp(`^${join(top, "theirs")} is a link that belongs to uid ${NOBODY}`));
    // The user's own link is followed, and the resolved directory is the one to use from then on.
    symlinkSync(victim, join(top, "mine"));
    expect(privateDir(join(top, "mine"))).toEqual({ dir: realpathSync(victim) });
  });

  it("is refused under a directory a group may write (root:team 0775), unless it is root's with the sticky bit (/tmp)", () => {
    const top = mkdtempSync(join(tmpdir(), "kpt-ts-hostile-dir-"));
    const under = (name: string, mode: number) => {
      mkdirSync(join(top, name));
      chmodSync(join(top, name), mode);
      return join(top, name, "kpt-ts", "parsed");
    };
    expect(privateDirProblem(under("team", 0o775))).toBe(`group ${statSync(top).gid} may write to ${join(top, "team")} (mode 775, no sticky bit)`);
    expect(privateDirProblem(under("everyone", 0o777))).toBe(`everyone may write to ${join(top, "everyone")} (mode 777, no sticky bit)`);
    expect(existsSync(join(top, "team", "kpt-ts"))).toBe(false); // nothing made under it
    if (isRoot) {
      expect(privateDirProblem(under("tmp-like", 0o1777))).toBeUndefined(); // root's, sticky: /tmp
      expect(privateDirProblem(under("team-sticky", 0o1775))).toBeUndefined();
      const theirsSticky = under("theirs-sticky", 0o1777);
      chownSync(join(top, "theirs-sticky"), NOBODY, NOBODY);
      expect(privateDirProblem(theirsSticky)).toBe(`${join(top, "theirs-sticky")} belongs to uid ${NOBODY}, not to you (uid 0) or root`);
    }
    // A link of the user's own to such a directory: the resolved path's directories are checked too.
    const target = under("team-target", 0o775);
    symlinkSync(join(top, "team-target"), join(top, "link-to-team"));
    chmodSync(join(top, "team-target"), 0o755);
    mkdirSync(target, { recursive: true });
    chmodSync(join(top, "team-target"), 0o775);
    expect(privateDirProblem(join(top, "link-to-team", "kpt-ts", "parsed"))).toMatch(/^group \d+ may write to .*team-target \(mode 775, no sticky bit\)$/);
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

/**
 * Where a cache may not live (issue 35): a link another user owns, to the user's own private
 * directory (they could re-point it while the run writes), and a directory under one a group may
 * write; and where it may: the user's own link to that private directory.
 */
function badPlaces(): { victim: string; theirLink: string; team: string; myLink: string } {
  const top = mkdtempSync(join(tmpdir(), "kpt-ts-hostile-places-"));
  const victim = join(top, "victim");
  mkdirSync(victim, { mode: 0o700 });
  symlinkSync(victim, join(top, "theirs"));
  if (isRoot) lchownSync(join(top, "theirs"), NOBODY, NOBODY);
  mkdirSync(join(top, "team"));
  chmodSync(join(top, "team"), 0o775);
  symlinkSync(victim, join(top, "mine"));
  return { victim, theirLink: join(top, "theirs"), team: join(top, "team", "cache"), myLink: join(top, "mine") };
}
const THEIR_LINK = new RegExp(`is a link that belongs to uid ${NOBODY}, not to you \\(uid 0\\) or root`);
const TEAM = /group \d+ may write to .*team \(mode 775, no sticky bit\)/;

describe("every cache, through another user's link or under a directory a group may write (issue 35)", () => {
  it.skipIf(!isRoot || !existsSync(join(dist, "cli.cjs")))("the code cache (Node's compile cache on Node 22.1 and later) is not used there, -v says why, and nothing is written", { timeout: 60_000 }, () => {
    const p = badPlaces();
    const run = (dir: string) => spawnSync(process.execPath, [join(dist, "cli.cjs"), "--help", "-v"], { encoding: "utf8", env: { ...process.env, KPT_TS_CODE_CACHE: dir } });
    const viaLink = run(p.theirLink);
    expect(viaLink.status).toBe(0);
    expect(viaLink.stderr).toContain(`kpt-ts: not using the code cache in ${p.theirLink}: ${p.theirLink} is a link that belongs to uid ${NOBODY}`);
    const underTeam = run(p.team);
    expect(underTeam.status).toBe(0);
    expect(underTeam.stderr).toMatch(new RegExp(`kpt-ts: not using the code cache in ${p.team}: ${TEAM.source}`));
    expect(filesIn(p.victim)).toEqual([]);
    expect(existsSync(p.team)).toBe(false);
    // The user's own link: used, and what is kept lands in the directory it resolved to.
    const mine = run(p.myLink);
    expect(mine.stderr).toBe("");
    expect(filesIn(p.victim).length).toBeGreaterThan(0);
  });

  it.skipIf(!isRoot)("the parse cache is not used there, and says why", async () => {
    const p = badPlaces();
    for (const [dir, why] of [
      [p.theirLink, THEIR_LINK],
      [p.team, TEAM],
    ] as const) {
      const notes: string[] = [];
      expect(parseCacheFor({ KPT_TS_PARSE_CACHE: dir }, { onUnusable: (m) => notes.push(m) })).toBeUndefined();
      expect(notes).toEqual([expect.stringMatching(why)]);
    }
    expect(filesIn(p.victim)).toEqual([]);
    const mine = parseCacheFor({ KPT_TS_PARSE_CACHE: p.myLink })!.open("/pkg");
    mine.write(TEXT, parseYamlDocuments(TEXT).snapshot!()!);
    await mine.save();
    expect(filesIn(p.victim).filter((f) => f.endsWith(".json"))).toHaveLength(1);
  });

  it.skipIf(!isRoot)("the discovery cache is not used there, and says why", async () => {
    const p = badPlaces();
    for (const [dir, why] of [
      [p.theirLink, THEIR_LINK],
      [p.team, TEAM],
    ] as const) {
      const notes: string[] = [];
      const cache = diskCacheFor("https://10.0.0.1:6443", { KPT_TS_HTTP_CACHE: dir }, undefined, { onUnusable: (m) => notes.push(m) })!;
      await cache.write("discovery /apis", { etag: '"e1"', body: "{}" });
      expect(await cache.read("discovery /apis")).toBeUndefined();
      expect(notes).toEqual([expect.stringMatching(why)]);
    }
    expect(filesIn(p.victim)).toEqual([]);
    const mine = diskCacheFor("https://10.0.0.1:6443", { KPT_TS_HTTP_CACHE: p.myLink })!;
    await mine.write("discovery /apis", { etag: '"e1"', body: "{}" });
    expect(await mine.read("discovery /apis")).toEqual({ etag: '"e1"', body: "{}" });
    expect(filesIn(p.victim)).toHaveLength(1);
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
