// Issue 7: in a terminal, `live apply` and `live destroy` ask before deleting anything. Driven in
// a real pseudo-terminal with tmux: the question comes before the prune, `n` leaves the cluster
// as it was (exit 130), `y` goes ahead; an apply that deletes nothing does not ask; without a
// terminal (pipes, as in scripts and CI) the same apply proceeds without asking, as kpt does.
import { spawnSync } from "node:child_process";
import { rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { writePackage } from "../helpers/fixtures.js";
import { CLI, createNamespace, hasBinary, kptTs, kubeconfig, kubectl, kubectlJson, REPO, waitUntil } from "../helpers/run.js";

const haveTmux = hasBinary("tmux");
if (!haveTmux) console.warn("skipping the terminal confirmation tests: `tmux` is not installed (apt-get install -y tmux)");

const SOCKET = `kpt-ts-confirm-${process.pid}`;
const tmux = (...args: string[]) => spawnSync("tmux", ["-L", SOCKET, ...args], { encoding: "utf8" });

/** Starts a command in a new tmux window (a real terminal) and returns helpers to read and type. */
function terminal(name: string, args: string[]) {
  const sh = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  const command = `cd ${sh(REPO)} && KUBECONFIG=${sh(kubeconfig())} ${sh(process.execPath)} ${sh(CLI)} ${args.map(sh).join(" ")}; echo "EXIT=$?"; sleep 600`;
  const r = tmux("new-session", "-d", "-s", name, "-x", "160", "-y", "50", command);
  if (r.status !== 0) throw new Error(`tmux: ${r.stderr}`);
  const screen = () => tmux("capture-pane", "-p", "-J", "-S", "-200", "-t", name).stdout;
  return {
    screen,
    until: (what: string, re: RegExp) => waitUntil(what, async () => re.exec(screen()) ?? undefined, 60_000),
    type: (keys: string) => tmux("send-keys", "-t", name, keys, "Enter"),
  };
}

const cm = (ns: string, name: string, value: string) => `apiVersion: v1
kind: ConfigMap
metadata:
  name: ${name}
  namespace: ${ns}
data:
  value: "${value}"
`;

const exists = async (ns: string, name: string) => (await kubectl(["get", "configmap", name, "-n", ns])).code === 0;

afterAll(() => {
  if (haveTmux) tmux("kill-server");
});

describe.skipIf(!haveTmux)("confirmation before deleting, in a terminal", () => {
  it("apply asks before pruning: n changes nothing, y prunes; no question when nothing is deleted; none without a terminal", async () => {
    const ns = await createNamespace("e2e-confirm");
    const dir = await writePackage({ "keep.yaml": cm(ns, "keep", "1"), "old.yaml": cm(ns, "old", "1") });
    expect((await kptTs(["live", "init", dir])).code).toBe(0);
    expect((await kptTs(["live", "apply", dir])).code).toBe(0);

    // The package drops `old` and changes `keep`.
    await rm(join(dir, "old.yaml"));
    await writeFile(join(dir, "keep.yaml"), cm(ns, "keep", "2"));

    const no = terminal("no", ["live", "apply", dir]);
    const question = await no.until("the question", /Continue\? \[y\/N\]:/);
    expect(question).toBeTruthy();
    expect(no.screen()).toMatch(/prunes 1 object that left the package/);
    expect(no.screen()).toMatch(new RegExp(`${ns} +old +ConfigMap +delete`));
    // Nothing was written while the question waits.
    expect((await kubectlJson(["get", "configmap", "keep", "-n", ns])).data.value).toBe("1");
    no.type("n");
    await no.until("the exit code", /EXIT=\d+/);
    expect(no.screen()).toMatch(/apply cancelled: nothing was changed/);
    expect(no.screen()).toMatch(/EXIT=130/);
    expect(no.screen()).not.toMatch(/configmap\/keep configured/);
    expect(await exists(ns, "old")).toBe(true);
    expect((await kubectlJson(["get", "configmap", "keep", "-n", ns])).data.value).toBe("1");

    const yes = terminal("yes", ["live", "apply", dir]);
    await yes.until("the question", /Continue\? \[y\/N\]:/);
    yes.type("y");
    await yes.until("the exit code", /EXIT=\d+/);
    expect(yes.screen()).toMatch(/configmap\/old pruned/);
    expect(yes.screen()).toMatch(/EXIT=0/);
    expect(await exists(ns, "old")).toBe(false);
    expect((await kubectlJson(["get", "configmap", "keep", "-n", ns])).data.value).toBe("2");

    // Only creates and updates: no question.
    await writeFile(join(dir, "keep.yaml"), cm(ns, "keep", "3"));
    const quiet = terminal("quiet", ["live", "apply", dir]);
    await quiet.until("the exit code", /EXIT=\d+/);
    expect(quiet.screen()).not.toMatch(/Continue\?/);
    expect(quiet.screen()).toMatch(/EXIT=0/);

    // Without a terminal the prune goes ahead without asking, as kpt's does.
    await writeFile(join(dir, "extra.yaml"), cm(ns, "extra", "1"));
    expect((await kptTs(["live", "apply", dir])).code).toBe(0);
    await rm(join(dir, "extra.yaml"));
    const piped = await kptTs(["live", "apply", dir]);
    expect(piped.code, piped.stdout + piped.stderr).toBe(0);
    expect(piped.stdout + piped.stderr).not.toMatch(/Continue\?/);
    expect(piped.stdout).toMatch(/configmap\/extra pruned/);
    expect(await exists(ns, "extra")).toBe(false);
  });

  it("destroy asks too; --yes and --dry-run do not", async () => {
    const ns = await createNamespace("e2e-confirm-destroy");
    const dir = await writePackage({ "a.yaml": cm(ns, "a", "1") });
    expect((await kptTs(["live", "init", dir])).code).toBe(0);
    expect((await kptTs(["live", "apply", dir])).code).toBe(0);

    const dry = terminal("dry", ["live", "destroy", "--dry-run", dir]);
    await dry.until("the exit code", /EXIT=\d+/);
    expect(dry.screen()).not.toMatch(/Continue\?/);

    const no = terminal("destroy-no", ["live", "destroy", dir]);
    await no.until("the question", /Continue\? \[y\/N\]:/);
    expect(no.screen()).toMatch(/This destroy deletes 1 object of inventory/);
    no.type("");
    await no.until("the exit code", /EXIT=\d+/);
    expect(no.screen()).toMatch(/EXIT=130/);
    expect(await exists(ns, "a")).toBe(true);

    const yes = terminal("destroy-yes", ["live", "destroy", "--yes", dir]);
    await yes.until("the exit code", /EXIT=\d+/);
    expect(yes.screen()).not.toMatch(/Continue\?/);
    expect(yes.screen()).toMatch(/configmap\/a deleted/);
    expect(yes.screen()).toMatch(/EXIT=0/);
    await waitUntil("the ConfigMap to be gone", async () => !(await exists(ns, "a")));
  });
});
