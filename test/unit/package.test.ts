// The npm package as users get it (`npm pack`): exactly these files, one copy of the code, no
// source maps, the library's declarations and nothing more, every document the help text or the
// README points at, the licence, the repository named in one place, `engines` true to every
// dependency (bundled ones included), and only what the bundle loads at run time installed. Reads the built dist/ (npm run build).
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, normalize } from "node:path";
import semver from "semver";
import { describe, expect, it } from "vitest";
import { CLIENT_NODE } from "../../src/cluster/auth-provider.js";

const root = join(import.meta.dirname, "..", "..");
const built = existsSync(join(root, "dist", "cli-program.cjs"));
const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as Record<string, any>;
/** The packages esbuild put into the bundle (it names each module's source in a comment). */
const bundled = built ? [...new Set([...readFileSync(join(root, "dist", "cli-program.cjs"), "utf8").matchAll(/^\/\/ node_modules\/((?:@[^/]+\/)?[^/]+)\//gm)].map((m) => m[1]!))].sort() : [];

describe.skipIf(!built)("the npm package (run npm run build first)", () => {
  const pack = spawnSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], { cwd: root, encoding: "utf8" });
  const result = pack.status === 0 ? (JSON.parse(pack.stdout) as { files: { path: string; size: number }[]; unpackedSize: number }[])[0]! : undefined;
  const files = result?.files.map((f) => f.path).sort() ?? [];
  const shipped = new Set(files);

  it("holds exactly the launcher, the one bundle, the library's entry and declarations, the docs, README, LICENSE and package.json", () => {
    expect(pack.status, pack.stderr).toBe(0);
    const docs = readdirSync(join(root, "docs")).map((f) => `docs/${f}`);
    const expected = ["LICENSE", "README.md", "package.json", "dist/cli.cjs", "dist/cli.js", "dist/cli-program.cjs", "dist/index.js", ...docs].sort();
    expect(files.filter((f) => !f.endsWith(".d.ts"))).toEqual(expected);
    expect(files.filter((f) => f.endsWith(".d.ts")).every((f) => f.startsWith("dist/"))).toBe(true);
  });

  it("ships the code once, without source maps, in at most 2.5 MB unpacked", () => {
    expect(files.filter((f) => /\.(map|ts)$/.test(f) && !f.endsWith(".d.ts"))).toEqual([]);
    const size = (f: string) => result!.files.find((x) => x.path === f)!.size;
    // The launcher and the library's entry only load the bundle: neither carries the program.
    expect(size("dist/cli.cjs")).toBeLessThan(20_000);
    expect(size("dist/cli.js")).toBeLessThan(1_000);
    expect(size("dist/index.js")).toBeLessThan(4_000);
    expect(readFileSync(join(root, "dist", "index.js"), "utf8")).toContain('("./cli-program.cjs")');
    expect(result!.unpackedSize).toBeLessThanOrEqual(2.5 * 1024 * 1024);
  });

  it("ships the declarations index.d.ts needs, every one of them, and no others (no cli.d.ts)", () => {
    const dts = files.filter((f) => f.endsWith(".d.ts"));
    const reached = new Set<string>();
    const queue = ["dist/index.d.ts"];
    const unresolved: string[] = [];
    while (queue.length > 0) {
      const f = queue.pop()!;
      if (reached.has(f)) continue;
      reached.add(f);
      if (!shipped.has(f)) {
        unresolved.push(f);
        continue;
      }
      for (const m of readFileSync(join(root, f), "utf8").matchAll(/(?:from\s+|import\s*\(\s*)["'](\.{1,2}\/[^"']+)\.js["']/g)) queue.push(normalize(join(dirname(f), `${m[1]}.d.ts`)));
    }
    expect(unresolved).toEqual([]);
    expect(dts.filter((f) => !reached.has(f))).toEqual([]);
    expect(dts).not.toContain("dist/cli.d.ts");
  });

  it("runs the launcher as a CommonJS script (no ES module loader to start), and the bundle is ASCII (read as latin1)", () => {
    const launcher = readFileSync(join(root, "dist", "cli.cjs"), "utf8");
    expect(launcher.startsWith("#!/usr/bin/env node\n")).toBe(true);
    expect(launcher).not.toMatch(/^\s*(import|export)\s/m);
    expect(readFileSync(join(root, "dist", "cli.js"), "utf8")).toContain('import "./cli.cjs"');
    expect(/[^\x00-\x7f]/.test(readFileSync(join(root, "dist", "cli-program.cjs"), "latin1"))).toBe(false);
  });

  it("ships every document the command line's help names, and every file the README and docs link to", () => {
    const named = [...readFileSync(join(root, "dist", "cli-program.cjs"), "utf8").matchAll(/\bdocs\/[\w.-]+\.(?:md|svg)/g)].map((m) => m[0]);
    expect(named.length).toBeGreaterThan(0);
    const markdown = files.filter((f) => f.endsWith(".md"));
    const links = markdown.flatMap((f) =>
      [...readFileSync(join(root, f), "utf8").matchAll(/\]\(([^)\s#]+)(?:#[^)]*)?\)/g)]
        .map((m) => m[1]!)
        .filter((target) => !/^[a-z]+:/.test(target))
        .map((target) => normalize(join(dirname(f), target))),
    );
    expect([...new Set([...named, ...links])].filter((f) => !shipped.has(f))).toEqual([]);
  });
});

describe("package.json", () => {
  it("has the Apache-2.0 licence and names its repository in one place (npm derives the home page and issues from it)", () => {
    expect(pkg.license).toBe("Apache-2.0");
    expect(readFileSync(join(root, "LICENSE"), "utf8")).toMatch(/Apache License\s+Version 2\.0, January 2004/);
    expect(pkg.repository).toMatchObject({ type: "git", url: expect.stringMatching(/^git\+https:\/\/github\.com\/[^/]+\/[^/]+\.git$/) });
    expect(pkg.homepage).toBeUndefined();
    expect(pkg.bugs).toBeUndefined();
  });

  it("builds on prepare, so a git install and `npm pack` of a clean clone have a dist/", () => {
    expect(pkg.scripts.prepare).toBe("npm run build");
    expect(pkg.bin).toEqual({ "kpt-ts": "dist/cli.cjs" });
  });

  it("makes @kubernetes/client-node an optional peer (not installed by default), in the range the install message names", () => {
    expect(pkg.dependencies[CLIENT_NODE.name]).toBeUndefined();
    expect(pkg.peerDependencies[CLIENT_NODE.name]).toBe(CLIENT_NODE.range);
    expect(pkg.peerDependenciesMeta[CLIENT_NODE.name]).toEqual({ optional: true });
  });

  it.skipIf(!built)("installs only what the bundle loads at run time: the packages it carries are devDependencies, and no declaration names one", () => {
    expect(bundled).toEqual(expect.arrayContaining(["@marcbachmann/cel-js", "chalk", "commander", "js-yaml", "yaml", "zod"]));
    for (const name of bundled) {
      expect(pkg.dependencies[name], name).toBeUndefined();
      expect(pkg.devDependencies[name], name).toBeDefined();
    }
    // What the bundle loads from node_modules: only the optional peer (yaml, the precise YAML path, is bundled since issue 30).
    const loaded = [...readFileSync(join(root, "dist", "cli-program.cjs"), "utf8").matchAll(/createRequire\)\(__kptTsUrl\)\("([^"]+)"\)/g)].map((m) => m[1]!);
    expect(Object.keys(pkg.dependencies)).toEqual([]);
    expect(loaded).toEqual([]);
    // The published declarations import node's own modules and each other, nothing installed.
    const dts = readdirSync(join(root, "dist"), { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".d.ts"));
    const imported = dts.flatMap((f) => [...readFileSync(join(root, "dist", f), "utf8").matchAll(/(?:from\s+|import\s*\(\s*)["']([^"'.][^"']*)["']/g)].map((m) => m[1]!));
    expect(imported.filter((m) => !m.startsWith("node:"))).toEqual([]);
  });

  it("asks for a Node every dependency runs on, and each tested line (20, 22, 24) satisfies it", () => {
    const lock = JSON.parse(readFileSync(join(root, "package-lock.json"), "utf8")) as { packages: Record<string, { dev?: boolean; engines?: Record<string, string> | string[]; version?: string }> };
    const floor = semver.minVersion(pkg.engines.node)!.version;
    // Production dependencies, and the optional peer's tree (what a legacy auth-provider user adds).
    // Bundled packages run too, inside the bundle.
    const runtime = Object.entries(lock.packages).filter(
      ([path, p]) => path !== "" && (!p.dev || bundled.some((name) => path === `node_modules/${name}`) || path.includes(`node_modules/${CLIENT_NODE.name}`) || isPeerTree(lock.packages, path)),
    );
    const refused = runtime.flatMap(([path, p]) => {
      const range = !Array.isArray(p.engines) ? p.engines?.node : undefined;
      return range && !semver.satisfies(floor, range) ? [`${path}@${p.version} needs node ${range}`] : [];
    });
    expect(refused).toEqual([]);
    expect(floor).toBe("20.19.0"); // @marcbachmann/cel-js 8's floor
    for (const line of ["20.19.0", "22.12.0", "24.0.0"]) expect(semver.satisfies(line, pkg.engines.node)).toBe(true);
  });
});

/** True for the packages only @kubernetes/client-node pulls in (the lock marks them dev, as it is a devDependency here). */
function isPeerTree(packages: Record<string, unknown>, path: string): boolean {
  return path.startsWith(`node_modules/${CLIENT_NODE.name}/`) || clientNodeDeps(packages).has(path);
}

let deps: Set<string> | undefined;
function clientNodeDeps(packages: Record<string, any>): Set<string> {
  if (deps) return deps;
  deps = new Set();
  const queue = [`node_modules/${CLIENT_NODE.name}`];
  while (queue.length > 0) {
    const at = queue.pop()!;
    for (const name of Object.keys({ ...packages[at]?.dependencies, ...packages[at]?.optionalDependencies })) {
      // Node's resolution: the nearest node_modules up from the dependent.
      let dir = at;
      let found: string | undefined;
      for (;;) {
        const candidate = `${dir}/node_modules/${name}`;
        if (packages[candidate]) {
          found = candidate;
          break;
        }
        const i = dir.lastIndexOf("/node_modules/");
        if (i < 0) break;
        dir = dir.slice(0, i);
      }
      found ??= packages[`node_modules/${name}`] ? `node_modules/${name}` : undefined;
      if (found && !deps.has(found)) {
        deps.add(found);
        queue.push(found);
      }
    }
  }
  return deps;
}
