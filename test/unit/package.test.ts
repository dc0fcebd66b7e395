// The npm package as users get it (`npm pack`): the licence, where the project lives, and source
// maps that resolve without the repository (each carries its sources). Reads the built dist/.
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const root = join(import.meta.dirname, "..", "..");
const built = existsSync(join(root, "dist", "cli.js"));

describe.skipIf(!built)("the npm package (run npm run build first)", () => {
  const pack = spawnSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], { cwd: root, encoding: "utf8" });
  const files: string[] = pack.status === 0 ? (JSON.parse(pack.stdout) as { files: { path: string }[] }[])[0]!.files.map((f) => f.path) : [];

  it("ships the Apache-2.0 licence that package.json names, and says where the project lives", () => {
    expect(pack.status, pack.stderr).toBe(0);
    const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as Record<string, unknown>;
    expect(pkg.license).toBe("Apache-2.0");
    expect(files).toContain("LICENSE");
    expect(readFileSync(join(root, "LICENSE"), "utf8")).toMatch(/Apache License\s+Version 2\.0, January 2004/);
    expect(pkg.repository).toMatchObject({ type: "git", url: expect.stringMatching(/^git\+https:\/\//) });
    expect(pkg.homepage).toMatch(/^https:\/\//);
  });

  it("every shipped source map carries the text of every source it names (src/ is not shipped)", () => {
    const maps = files.filter((f) => f.endsWith(".map"));
    expect(maps.length).toBeGreaterThan(0);
    expect(files.some((f) => f.startsWith("src/"))).toBe(false);
    const unresolved = maps.flatMap((f) => {
      const m = JSON.parse(readFileSync(join(root, f), "utf8")) as { sources: string[]; sourcesContent?: (string | null)[] };
      return m.sources.filter((_, i) => typeof m.sourcesContent?.[i] !== "string").map((s) => `${f}: ${s}`);
    });
    expect(unresolved).toEqual([]);
  });
});
