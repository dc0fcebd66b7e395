// Shell completion scripts for bash and zsh, generated from the command tree: subcommands, flags,
// values of flags that take a fixed set (or files, directories, contexts, namespaces), and
// directories for PKG_PATH. Pure: specs in, script text out. Both scripts share one set of shell
// helper functions (plain `case` tables, valid in bash and zsh), so they complete the same way.

import type { CommandSpec } from "./command-spec.js";

/** What the value of a flag is: one of these kinds, or a fixed list of words. */
const VALUE_KINDS: Record<string, string> = {
  "--kubeconfig": "@file",
  "--rg-file": "@file",
  "--context": "@context",
  "-n": "@namespace",
  "--namespace": "@namespace",
  "--namespaces": "@namespace",
  "--output": "events table json",
  "--inventory-policy": "strict adopt",
  "--prune-propagation-policy": "Background Foreground Orphan",
  "--delete-propagation-policy": "Background Foreground Orphan",
  "--status-policy": "all none",
  "--poll-until": "known current deleted forever",
  "--statuses": "InProgress Current Failed Terminating NotFound Unknown",
};
const VALUE_KINDS_BY_COMMAND: Record<string, string> = { "live diff --output": "text json" };

function valueKind(path: string, flag: string): string {
  return VALUE_KINDS_BY_COMMAND[`${path} ${flag}`] ?? VALUE_KINDS[flag] ?? "";
}

const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** The shared helpers: `_kpt_ts_subcommands PATH`, `_kpt_ts_flags PATH`, `_kpt_ts_value PATH FLAG` (exit 1: takes no value), `_kpt_ts_positional PATH`. */
function helpers(specs: CommandSpec[]): string {
  const cases = (rows: [string, string][]) => rows.map(([k, v]) => `    ${q(k)}) echo ${q(v)} ;;`).join("\n");
  const valueRows: string[] = [];
  for (const s of specs) {
    for (const f of s.flags.filter((f) => f.takesValue)) for (const n of f.names) valueRows.push(`    ${q(`${s.path}|${n}`)}) echo ${q(valueKind(s.path, n))} ;;`);
  }
  const positional = specs
    .filter((s) => s.takesPackage || s.positionalChoices)
    .map((s) => `    ${q(s.path)}) echo ${q(s.takesPackage ? "@dir" : s.positionalChoices!.join(" "))} ;;`)
    .join("\n");
  return `_kpt_ts_subcommands() {
  case "$1" in
${cases(specs.filter((s) => s.subcommands.length).map((s) => [s.path, s.subcommands.join(" ")]))}
  esac
}

_kpt_ts_flags() {
  case "$1" in
${cases(specs.map((s) => [s.path, s.flags.flatMap((f) => f.names).join(" ")]))}
  esac
}

_kpt_ts_value() {
  case "$1|$2" in
${valueRows.join("\n")}
    *) return 1 ;;
  esac
}

_kpt_ts_positional() {
  case "$1" in
${positional}
  esac
}

# Sets _kpt_ts_cmd to the command path among the words before the cursor (skipping flags and flag values).
_kpt_ts_path() {
  local w prev="" subs
  _kpt_ts_cmd=""
  for w in "$@"; do
    case "$w" in
      -*) ;;
      *)
        if [ -n "$prev" ] && _kpt_ts_value "$_kpt_ts_cmd" "$prev" >/dev/null; then :; else
          subs=" $(_kpt_ts_subcommands "$_kpt_ts_cmd") "
          case "$subs" in *" $w "*) _kpt_ts_cmd="\${_kpt_ts_cmd:+$_kpt_ts_cmd }$w" ;; esac
        fi
        ;;
    esac
    prev="$w"
  done
}`;
}

export function bashCompletion(specs: CommandSpec[]): string {
  return `# bash completion for kpt-ts. Load it with:  source <(kpt-ts completion bash)
# or save it:  kpt-ts completion bash > /etc/bash_completion.d/kpt-ts
${helpers(specs)}

_kpt_ts() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" prev="\${COMP_WORDS[COMP_CWORD-1]}" kind words
  _kpt_ts_path "\${COMP_WORDS[@]:1:COMP_CWORD-1}"
  COMPREPLY=()
  if kind="$(_kpt_ts_value "$_kpt_ts_cmd" "$prev")"; then
    case "$kind" in
      @file) compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -f -- "$cur")) ;;
      @context) COMPREPLY=($(compgen -W "$(kubectl config get-contexts -o name 2>/dev/null)" -- "$cur")) ;;
      @namespace) COMPREPLY=($(compgen -W "$(kubectl get namespaces -o name 2>/dev/null | sed 's|^namespace/||')" -- "$cur")) ;;
      *) COMPREPLY=($(compgen -W "$kind" -- "$cur")) ;;
    esac
    return 0
  fi
  if [[ "$cur" == -* ]]; then
    COMPREPLY=($(compgen -W "$(_kpt_ts_flags "$_kpt_ts_cmd")" -- "$cur"))
    return 0
  fi
  words="$(_kpt_ts_subcommands "$_kpt_ts_cmd")"
  if [ -n "$words" ]; then
    COMPREPLY=($(compgen -W "$words" -- "$cur"))
    return 0
  fi
  kind="$(_kpt_ts_positional "$_kpt_ts_cmd")"
  case "$kind" in
    @dir) compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -d -- "$cur")); [[ -z "$cur" || "$cur" == - ]] && COMPREPLY+=(-) ;;
    ?*) COMPREPLY=($(compgen -W "$kind" -- "$cur")) ;;
  esac
  return 0
}

complete -F _kpt_ts kpt-ts
`;
}

export function zshCompletion(specs: CommandSpec[]): string {
  return `#compdef kpt-ts
# zsh completion for kpt-ts. Load it with:  source <(kpt-ts completion zsh)
# or save it as _kpt-ts in a directory of your $fpath.
${helpers(specs)}

_kpt_ts() {
  local cur="\${words[CURRENT]}" prev="\${words[CURRENT-1]}" kind subs
  _kpt_ts_path "\${(@)words[2,CURRENT-1]}"
  if kind="$(_kpt_ts_value "$_kpt_ts_cmd" "$prev")"; then
    case "$kind" in
      @file) _files ;;
      @context) compadd -- \${(f)"$(kubectl config get-contexts -o name 2>/dev/null)"} ;;
      @namespace) compadd -- \${(f)"$(kubectl get namespaces -o name 2>/dev/null | sed 's|^namespace/||')"} ;;
      *) compadd -- \${=kind} ;;
    esac
    return
  fi
  if [[ "$cur" == -* ]]; then
    compadd -- \${=$(_kpt_ts_flags "$_kpt_ts_cmd")}
    return
  fi
  subs="$(_kpt_ts_subcommands "$_kpt_ts_cmd")"
  if [[ -n "$subs" ]]; then
    compadd -- \${=subs}
    return
  fi
  kind="$(_kpt_ts_positional "$_kpt_ts_cmd")"
  case "$kind" in
    @dir) _path_files -/; compadd -- - ;;
    ?*) compadd -- \${=kind} ;;
  esac
}

if [[ "\${funcstack[1]}" == _kpt_ts || "\${funcstack[1]}" == _kpt-ts ]]; then
  _kpt_ts "$@"
else
  compdef _kpt_ts kpt-ts
fi
`;
}

/** fish's own `complete` rules, one per command path and flag; the command path is worked out as in bash and zsh. */
export function fishCompletion(specs: CommandSpec[]): string {
  const at = (path: string) => `-n ${q(`__kpt_ts_at ${q(path)}`)}`;
  // Subcommands and package paths are not offered where a flag's value is due.
  const atWord = (path: string) => `-n ${q(`__kpt_ts_at ${q(path)}; and not __kpt_ts_value_due ${q(path)}`)}`;
  const lines: string[] = [];
  for (const s of specs) {
    if (s.subcommands.length) lines.push(`complete -c kpt-ts ${atWord(s.path)} -a ${q(s.subcommands.join(" "))}`);
    for (const f of s.flags) {
      const long = f.names.find((n) => n.startsWith("--"));
      const short = f.names.find((n) => /^-[a-z]$/.test(n));
      const names = [long ? `-l ${long.slice(2)}` : "", short ? `-s ${short.slice(1)}` : ""].filter(Boolean).join(" ");
      const kind = f.takesValue ? valueKind(s.path, long ?? short ?? "") : "";
      const values =
        !f.takesValue ? "" : kind === "@file" ? " -r -F" : kind === "@context" ? ` -x -a ${q("(kubectl config get-contexts -o name 2>/dev/null)")}` : kind === "@namespace" ? ` -x -a ${q("(kubectl get namespaces -o name 2>/dev/null | string replace namespace/ '')")}` : kind ? ` -x -a ${q(kind)}` : " -x";
      lines.push(`complete -c kpt-ts ${at(s.path)} ${names}${values}`);
    }
    if (s.takesPackage) lines.push(`complete -c kpt-ts ${atWord(s.path)} -a ${q("(__fish_complete_directories (commandline -ct)) -")}`);
    else if (s.positionalChoices) lines.push(`complete -c kpt-ts ${atWord(s.path)} -a ${q(s.positionalChoices.join(" "))}`);
  }
  const subcommandCases = specs
    .filter((s) => s.subcommands.length)
    .map((s) => `        case ${q(s.path)}\n            echo ${s.subcommands.join(" ")}`)
    .join("\n");
  const valueFlags = specs.flatMap((s) => s.flags.filter((f) => f.takesValue).flatMap((f) => f.names.map((n) => q(`${s.path}|${n}`))));
  return `# fish completion for kpt-ts. Load it with:  kpt-ts completion fish | source
# or save it:  kpt-ts completion fish > ~/.config/fish/completions/kpt-ts.fish

set -g __kpt_ts_value_flags ${valueFlags.join(" ")}

function __kpt_ts_subcommands
    switch "$argv[1]"
${subcommandCases}
    end
end

# The command path among the words before the cursor (flags and their values skipped).
function __kpt_ts_path
    set -l tokens (commandline -opc)
    set -e tokens[1]
    set -l path ''
    set -l skip 0
    for t in $tokens
        if test $skip -eq 1
            set skip 0
            continue
        end
        switch $t
            case '--*=*'
            case '-*'
                if contains -- "$path|$t" $__kpt_ts_value_flags
                    set skip 1
                end
            case '*'
                if contains -- $t (string split ' ' -- (__kpt_ts_subcommands "$path"))
                    set path (string trim -- "$path $t")
                end
        end
    end
    echo $path
end

function __kpt_ts_at
    test (__kpt_ts_path) = "$argv[1]"
end

# The word before the cursor is a flag of this command that takes a value.
function __kpt_ts_value_due
    set -l tokens (commandline -opc)
    contains -- "$argv[1]|$tokens[-1]" $__kpt_ts_value_flags
end

complete -c kpt-ts -f
${lines.join("\n")}
`;
}
