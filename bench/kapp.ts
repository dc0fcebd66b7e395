// Builds kapp from its Go module, once per version, into ~/.cache/kpt-ts/bench/kapp-<version>/bin/kapp.
// `go install carvel.dev/kapp/cmd/kapp@v…` fails here: it reads the module's version list to check
// for deprecation, and this machine's module proxy refuses that list (403) while serving the versions
// themselves. So we build through a throwaway wrapper module, as scripts/cluster/build-binaries.sh does.
// v0.64.2's go.mod has no replace directives, so a plain `require` of it builds.

import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, readFile } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";

export const KAPP_VERSION = process.env.KAPP_VERSION ?? "v0.64.2";
const exec = promisify(execFile);

export type KappBuild = { ok: true; bin: string; version: string } | { ok: false; reason: string };

export async function ensureKapp(log: (line: string) => void): Promise<KappBuild> {
  const cache = process.env.XDG_CACHE_HOME ?? join(homedir(), ".cache");
  const dir = join(cache, "kpt-ts", "bench", `kapp-${KAPP_VERSION}`);
  const bin = join(dir, "bin", "kapp");
  const built = async () => existsSync(bin) && (await exec(bin, ["version"]).catch(() => ({ stdout: "" }))).stdout.includes(KAPP_VERSION);
  if (await built()) return { ok: true, bin, version: KAPP_VERSION };
  log(`building kapp ${KAPP_VERSION} from carvel.dev/kapp (first run only; ~2 min)`);
  const src = join(dir, "src");
  const env = { ...process.env, GOTOOLCHAIN: "local", CGO_ENABLED: "0", GOFLAGS: "-mod=mod" };
  const go = (args: string[]) => exec("go", args, { cwd: src, env, maxBuffer: 64 << 20 });
  try {
    await mkdir(src, { recursive: true });
    if (!existsSync(join(src, "go.mod"))) await go(["mod", "init", "kpt-ts.local/kappbin"]);
    await go(["mod", "edit", `-require=carvel.dev/kapp@${KAPP_VERSION}`]);
    const info = JSON.parse((await go(["mod", "download", "-json", `carvel.dev/kapp@${KAPP_VERSION}`])).stdout) as { GoMod: string };
    const goVersion = /^go (\S+)$/m.exec(await readFile(info.GoMod, "utf8"))?.[1];
    if (goVersion) await go(["mod", "edit", `-go=${goVersion}`]);
    const ldflags = `-s -w -X carvel.dev/kapp/pkg/kapp/version.Version=${KAPP_VERSION}`;
    await go(["build", "-trimpath", "-ldflags", ldflags, "-o", bin, "carvel.dev/kapp/cmd/kapp"]);
  } catch (err) {
    const e = err as { stderr?: string; message: string };
    return { ok: false, reason: `building kapp ${KAPP_VERSION} failed: ${(e.stderr || e.message).trim().split("\n").slice(-3).join(" / ")}` };
  }
  return (await built()) ? { ok: true, bin, version: KAPP_VERSION } : { ok: false, reason: `kapp ${KAPP_VERSION} built but does not report its version` };
}
