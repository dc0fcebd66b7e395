// Copies a package from fixtures/ into a temp dir, renaming its namespace (and the cluster-scoped
// names derived from it) so tests running side by side on one cluster never collide.
import { readdirSync } from "node:fs";
import { cp, mkdtemp, readFile, readdir, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { REPO } from "./run.js";

async function* yamlFiles(dir: string): AsyncGenerator<string> {
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) yield* yamlFiles(p);
    else if (/\.ya?ml$/.test(e.name)) yield p;
  }
}

/** The WordPress demo under a unique namespace; PV names and their selector labels follow it. */
export async function copyWordpress(namespace: string): Promise<string> {
  const dir = join(await mkdtemp(join(tmpdir(), "kpt-ts-fixture-")), namespace);
  await cp(join(REPO, "fixtures/wordpress"), dir, { recursive: true });
  for await (const f of yamlFiles(dir)) {
    const text = (await readFile(f, "utf8"))
      .replace(/namespace: wordpress\b/g, `namespace: ${namespace}`)
      .replace(/namespaces\/wordpress\//g, `namespaces/${namespace}/`)
      .replace(/^kind: Namespace\nmetadata:\n  name: wordpress$/m, `kind: Namespace\nmetadata:\n  name: ${namespace}`)
      .replace(/wordpress-(mysql|wp)-pv/g, `${namespace}-$1-pv`)
      .replace(/volume: (mysql|wordpress)$/gm, `volume: ${namespace}-$1`)
      .replace(/\/tmp\/kpt-ts-demo\//g, `/tmp/${namespace}/`);
    await writeFile(f, text);
  }
  return dir;
}

/** Writes a package of YAML documents into a new temp dir. */
export async function writePackage(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "kpt-ts-pkg-"));
  for (const [name, text] of Object.entries(files)) {
    const p = join(dir, name);
    await import("node:fs/promises").then((fs) => fs.mkdir(join(p, ".."), { recursive: true }));
    await writeFile(p, text);
  }
  return dir;
}

/** Every file under a directory, relative to it. */
export function filesIn(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath ?? (e as { path?: string }).path ?? dir, e.name).slice(dir.length + 1));
}
