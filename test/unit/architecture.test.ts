// The module map in docs/architecture.md is the rule: every folder of src/ and every file at its
// root is in it, every import of every file stays within what its row allows, and no import cycle
// exists (between files or folders). The root files are rows of their own: nothing is exempt.

import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = resolve(import.meta.dirname, "../..");
const SRC = join(ROOT, "src");

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? sourceFiles(p) : p.endsWith(".ts") ? [p] : [];
  });
}

/** Relative imports of a file (type-only ones too: they shape the layering as much). */
function importsOf(file: string): string[] {
  const text = readFileSync(file, "utf8");
  return [...text.matchAll(/(?:import|export)[^"';]*?from\s+["'](\.[^"']+)["']|import\(\s*["'](\.[^"']+)["']\s*\)/g)].map((m) =>
    resolve(dirname(file), (m[1] ?? m[2])!).replace(/\.js$/, ".ts"),
  );
}

/** A file's row in the map: its folder, or the file's own name for files at the root of src/. */
const folderOf = (file: string): string => relative(SRC, file).split("/")[0]!;

/** The module map: folder (or root file) -> folders it may import. */
function moduleMap(): Map<string, Set<string>> {
  const doc = readFileSync(join(ROOT, "docs/architecture.md"), "utf8");
  const rows = [...doc.matchAll(/^\| `([a-z.-]+)` \|[^|]*\|([^|]*)\|$/gm)];
  return new Map(rows.map((m) => [m[1]!, new Set([...m[2]!.matchAll(/`([a-z.-]+)`/g)].map((x) => x[1]!))]));
}

const files = sourceFiles(SRC);
const graph = new Map(files.map((f) => [f, importsOf(f).filter((t) => files.includes(t))]));

describe("the module map (docs/architecture.md)", () => {
  const map = moduleMap();

  it("lists exactly the folders and root files of src/", () => {
    const entries = readdirSync(SRC).filter((f) => statSync(join(SRC, f)).isDirectory() || f.endsWith(".ts"));
    expect([...map.keys()].sort()).toEqual(entries.sort());
  });

  it("covers every file of src/", () => {
    expect(files.map(folderOf).filter((f) => !map.has(f))).toEqual([]);
  });

  it("is respected by every import", () => {
    const crossings: string[] = [];
    for (const [file, targets] of graph) {
      const from = folderOf(file);
      for (const t of targets) {
        const to = folderOf(t);
        if (to === from) continue;
        if (!map.get(from)?.has(to)) crossings.push(`${relative(SRC, file)} -> ${relative(SRC, t)}`);
      }
    }
    expect(crossings).toEqual([]);
  });

  it("has no import cycle between files", () => {
    expect(cycles(graph).map((c) => c.map((f) => relative(SRC, f)).join(" -> "))).toEqual([]);
  });

  it("has no import cycle between folders", () => {
    const folders = new Map<string, string[]>();
    for (const [file, targets] of graph) {
      const from = folderOf(file);
      const set = new Set(folders.get(from) ?? []);
      for (const t of targets) if (folderOf(t) !== from) set.add(folderOf(t));
      folders.set(from, [...set]);
    }
    expect(cycles(folders)).toEqual([]);
  });

  it("keeps the cluster client, chalk and process.exit where they belong", () => {
    const offenders = files.flatMap((f) => {
      const text = readFileSync(f, "utf8");
      const rel = relative(SRC, f);
      const out: string[] = [];
      if (/from "@kubernetes\/client-node"|import\("@kubernetes\/client-node"\)/.test(text) && folderOf(f) !== "cluster") out.push(`${rel}: @kubernetes/client-node`);
      if (/from "chalk"/.test(text) && folderOf(f) !== "print") out.push(`${rel}: chalk`);
      if (/\bprocess\.exit\(/.test(text) && rel !== "cli.ts") out.push(`${rel}: process.exit`);
      return out;
    });
    expect(offenders).toEqual([]);
  });
});

/**
 * Outside cluster/, only these call the cluster's write verbs: the writer (every package object)
 * and the inventory's (a ResourceGroup, an ApplySet's parent, the run's lock) and the change
 * history's own storage.
 */
const WRITERS = ["apply/writer.ts", "inventory/cluster-inventory.ts", "inventory/cluster-applyset.ts", "inventory/cluster-lock.ts", "history/cluster-history.ts"];

describe("writes to the cluster", () => {
  it("go through the writer, or the inventory's and history's storage", () => {
    // A call of a write verb on anything named like a cluster: `cluster.apply(`, `ctx.cluster.delete(`.
    const verb = /\b\w*[cC]luster\??\.(create|patch|apply|update|updateStatus|delete)\(/g;
    const offenders = files.flatMap((f) => {
      const rel = relative(SRC, f);
      if (folderOf(f) === "cluster" || WRITERS.includes(rel)) return [];
      return [...readFileSync(f, "utf8").matchAll(verb)].map((m) => `${rel}: ${m[0]}`);
    });
    expect(offenders).toEqual([]);
  });
});

/** Strongly connected components with more than one member (Tarjan). */
function cycles(g: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const on = new Set<string>();
  const out: string[][] = [];
  let n = 0;
  const visit = (v: string): void => {
    index.set(v, n);
    low.set(v, n++);
    stack.push(v);
    on.add(v);
    for (const w of g.get(v) ?? []) {
      if (!g.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const c: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        on.delete(w);
        c.push(w);
      } while (w !== v);
      if (c.length > 1) out.push(c.sort());
    }
  };
  for (const v of g.keys()) if (!index.has(v)) visit(v);
  return out;
}
