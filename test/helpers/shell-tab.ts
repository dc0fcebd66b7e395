// TAB pressed in a real interactive shell: bash (readline), zsh (zle with compinit) or fish, each
// in a terminal that zsh's zpty module provides. Each line is typed, TAB pressed, and the command
// line the shell then holds is written out by a key binding; so what is checked is exactly what
// the shell would run if the user pressed Enter. `shellWords` reads such a line back as the same
// shell would (its own quoting rules), without running anything but printf.
import { spawn } from "node:child_process";
import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

export type Shell = "bash" | "zsh" | "fish";

const sq = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

function spawnDone(cmd: string, args: string[], env: NodeJS.ProcessEnv, timeoutMs: number): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (c: string) => (stdout += c));
    child.stderr.setEncoding("utf8").on("data", (c: string) => (stderr += c));
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? 1, stdout, stderr });
    });
  });
}

/**
 * Types each line into `shell` (its completion `script` sourced, in `cwd`), presses TAB once and
 * returns the command line after it, one per line typed.
 */
export async function afterTab(shell: Shell, o: { script: string; cwd: string; env: NodeJS.ProcessEnv }, lines: string[]): Promise<string[]> {
  const dir = await mkdtemp(join(tmpdir(), "kpt-ts-shell-tab-"));
  const out = join(dir, "lines");
  const setup = {
    bash: ["PS1=", `source ${sq(o.script)}`, `cd ${sq(o.cwd)}`, `_dump() { printf '%s\\n' "$READLINE_LINE" >> ${sq(out)}; READLINE_LINE=; READLINE_POINT=0; }`, `bind -x '"\\C-y": _dump'`],
    zsh: ["PS1=", "autoload -Uz compinit; compinit -u -D", `source ${sq(o.script)}`, `cd ${sq(o.cwd)}`, `_dump() { print -r -- "$BUFFER" >> ${sq(out)}; BUFFER=; }`, "zle -N _dump; bindkey '^Y' _dump; bindkey '^I' complete-word"],
    fish: ["function fish_prompt; end", `source ${sq(o.script)}`, `cd ${sq(o.cwd)}`, `function _dump; commandline >> ${sq(out)}; commandline -r ''; end`, "bind \\cy _dump"],
  }[shell];
  const interactive = { bash: "bash --norc --noprofile -i", zsh: "zsh -f -i", fish: "fish --no-config -i" }[shell];
  // After each line: wait for its dump, reading (and dropping) what the shell shows meanwhile so
  // the terminal never fills up.
  const driver = [
    "zmodload zsh/zpty",
    `zpty s ${sq(interactive)}`,
    ...setup.map((l) => `zpty -w s ${sq(l)}`),
    ...lines.map(
      (l, i) =>
        `zpty -w -n s ${sq(l)}$'\\t\\x19'\nfor t in {1..600}; do [[ -f ${sq(out)} ]] && (( $(wc -l < ${sq(out)}) >= ${i + 1} )) && break; zpty -r -t s junk 2>/dev/null; sleep 0.1; done`,
    ),
    "zpty -d s",
  ].join("\n");
  const driverFile = join(dir, "driver.zsh");
  await writeFile(driverFile, driver);
  const r = await spawnDone("zsh", ["-f", driverFile], o.env, 60_000 + lines.length * 30_000);
  const text = await readFile(out, "utf8").catch(() => "");
  const result = text.split("\n").slice(0, -1);
  if (result.length !== lines.length) throw new Error(`${shell}: ${result.length} of ${lines.length} lines came back (driver exit ${r.code}: ${r.stderr})`);
  return result;
}

/** The words of a command line as `shell` reads it (its quoting rules), printed by printf. */
export async function shellWords(shell: Shell, line: string): Promise<string[]> {
  const printer = shell === "zsh" ? "print -rl --" : "printf '%s\\n'";
  const r = await spawnDone(shell, shell === "fish" ? ["--no-config", "-c", `${printer} ${line}`] : ["-c", `${printer} ${line}`], { ...process.env }, 30_000);
  if (r.code !== 0) throw new Error(`${shell} could not read ${JSON.stringify(line)}: ${r.stderr}`);
  return r.stdout.split("\n").slice(0, -1);
}
