// Shell completion scripts for bash, zsh and fish, generated from the command tree: subcommands,
// flags, the values each flag's spec accepts (or files, directories, contexts, namespaces,
// inventories), and directories for PKG_PATH. Pure: specs in, script text out. Both scripts share one set of shell
// helper functions (plain `case` tables, valid in bash and zsh), so they complete the same way.
//
// Names of contexts, namespaces and inventories come from a kubeconfig or an API server: text,
// never code. `kpt-ts live __names KIND` lists them one a line (a name no line can hold, with a
// newline or another control character, is left out), read with the --kubeconfig and --context
// typed earlier on the line. Each script reads those lines as they are (never through
// `compgen -W` or an unquoted expansion: nothing is split, globbed or run) and gives them to the
// shell quoted for the command line: bash's `printf %q`; zsh's compadd (never -Q) and fish quote
// what they insert themselves. Values typed on the line are read as text too: quotes and
// backslashes removed, a leading ~/ expanded, nothing evaluated.

import type { CommandSpec, CompletionFlag } from "./command-spec.js";

/** A flag's value as the scripts' tables hold it: `@kind`, or the words to offer ("" for none). */
function valueWords(f: CompletionFlag): string {
  if (!f.value) return "";
  return "kind" in f.value ? `@${f.value.kind}` : f.value.values.join(" ");
}

const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** The shared helpers: `_kpt_ts_subcommands PATH`, `_kpt_ts_flags PATH`, `_kpt_ts_value PATH FLAG` (exit 1: takes no value), `_kpt_ts_positional PATH`. */
function helpers(specs: CommandSpec[]): string {
  const cases = (rows: [string, string][]) => rows.map(([k, v]) => `    ${q(k)}) echo ${q(v)} ;;`).join("\n");
  const valueRows: string[] = [];
  for (const s of specs) {
    for (const f of s.flags.filter((f) => f.takesValue)) for (const n of f.names) valueRows.push(`    ${q(`${s.path}|${n}`)}) echo ${q(valueWords(f))} ;;`);
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
      =) continue ;; # bash splits --flag=value at the =
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

# A value typed on the line as the shell will read it, in the simple cases (one pair of quotes or
# backslashes removed, a leading ~/ expanded): worked out as text, never evaluated.
_kpt_ts_typed() {
  local w="$1"
  case "$w" in
    "~/"*) w="$HOME/\${w:2}" ;;
    \\'*\\') w="\${w:1:\${#w}-2}" ;;
    \\"*\\") w="\${w:1:\${#w}-2}" ;;
    *) w="\${w//\\\\/}" ;;
  esac
  printf '%s' "$w"
}

# The names of a kind (context, namespace, inventory), one a line, from the kubeconfig and
# context typed earlier on the line (--kubeconfig F, --kubeconfig=F, --context C).
_kpt_ts_names() {
  local i w flags=()
  for ((i = 1; i < COMP_CWORD; i++)); do
    w="\${COMP_WORDS[i]}"
    case "$w" in
      --kubeconfig|--context)
        [[ "\${COMP_WORDS[i+1]}" == "=" ]] && i=$((i + 1))
        if ((i + 1 < COMP_CWORD)); then
          i=$((i + 1))
          flags+=("$w=$(_kpt_ts_typed "\${COMP_WORDS[i]}")")
        fi
        ;;
      --kubeconfig=*|--context=*) flags+=("\${w%%=*}=$(_kpt_ts_typed "\${w#*=}")") ;;
    esac
  done
  command kpt-ts live __names "$1" "\${flags[@]}" 2>/dev/null
}

# Offers each line of standard input that starts with the word being completed, quoted for the
# command line: read as text, never split, globbed or expanded.
_kpt_ts_offer() {
  local line quoted
  while IFS= read -r line; do
    [[ -n "$line" ]] || continue
    printf -v quoted '%q' "$line"
    if [[ "$line" == "$cur"* || "$quoted" == "$cur"* ]]; then COMPREPLY+=("$quoted"); fi
  done
}

# Adds each line of standard input to the completions as it is (files, with -o filenames set:
# bash quotes them). A loop, not mapfile: macOS's bash 3.2 has none.
_kpt_ts_lines() {
  local line
  while IFS= read -r line; do COMPREPLY+=("$line"); done
}

# Our own words (subcommands, flags, a flag's fixed values), one a line.
_kpt_ts_words() {
  local -a ws
  read -ra ws <<<"$1"
  printf '%s\\n' "\${ws[@]}"
}

_kpt_ts() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" prev="\${COMP_WORDS[COMP_CWORD-1]}" kind words
  # --flag=VALUE: bash splits the word at the =.
  if [[ "$cur" == "=" ]]; then
    cur=""
  elif [[ "$prev" == "=" && COMP_CWORD -ge 2 ]]; then
    prev="\${COMP_WORDS[COMP_CWORD-2]}"
  fi
  _kpt_ts_path "\${COMP_WORDS[@]:1:COMP_CWORD-1}"
  COMPREPLY=()
  if kind="$(_kpt_ts_value "$_kpt_ts_cmd" "$prev")"; then
    case "$kind" in
      @file) compopt -o filenames 2>/dev/null; _kpt_ts_lines < <(compgen -f -- "$cur") ;;
      @directory) compopt -o filenames 2>/dev/null; _kpt_ts_lines < <(compgen -d -- "$cur") ;;
      @context) _kpt_ts_offer < <(_kpt_ts_names context) ;;
      @namespace) _kpt_ts_offer < <(_kpt_ts_names namespace) ;;
      @inventory) _kpt_ts_offer < <(_kpt_ts_names inventory) ;;
      *) _kpt_ts_offer < <(_kpt_ts_words "$kind") ;;
    esac
    return 0
  fi
  if [[ "$cur" == -* ]]; then
    _kpt_ts_offer < <(_kpt_ts_words "$(_kpt_ts_flags "$_kpt_ts_cmd")")
    return 0
  fi
  words="$(_kpt_ts_subcommands "$_kpt_ts_cmd")"
  if [ -n "$words" ]; then
    _kpt_ts_offer < <(_kpt_ts_words "$words")
    return 0
  fi
  kind="$(_kpt_ts_positional "$_kpt_ts_cmd")"
  case "$kind" in
    @dir) compopt -o filenames 2>/dev/null; _kpt_ts_lines < <(compgen -d -- "$cur"); [[ -z "$cur" || "$cur" == - ]] && COMPREPLY+=(-) ;;
    ?*) _kpt_ts_offer < <(_kpt_ts_words "$kind") ;;
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

# A value typed on the line as the shell will read it (zsh's own unquoting, a leading ~/
# expanded): worked out as text, never evaluated.
_kpt_ts_typed() {
  local w="$1"
  if [[ "$w" == '~/'* ]]; then w="$HOME/\${w#??}"; else w="\${(Q)w}"; fi
  print -r -- "$w"
}

# The names of a kind (context, namespace, inventory), one a line, from the kubeconfig and
# context typed earlier on the line (--kubeconfig F, --kubeconfig=F, --context C).
_kpt_ts_names() {
  local i w
  local -a flags
  for (( i = 2; i < CURRENT; i++ )); do
    w="\${words[i]}"
    case "$w" in
      --kubeconfig|--context) if (( i + 1 < CURRENT )); then (( i++ )); flags+=("$w=$(_kpt_ts_typed "\${words[i]}")"); fi ;;
      --kubeconfig=*|--context=*) flags+=("\${w%%=*}=$(_kpt_ts_typed "\${w#*=}")") ;;
    esac
  done
  command kpt-ts live __names "$1" "\${(@)flags}" 2>/dev/null
}

# Offers the names of a kind, each a whole word as written: compadd quotes what it inserts.
_kpt_ts_offer_names() {
  local -a names
  names=("\${(@f)$(_kpt_ts_names "$1")}")
  compadd -- "\${(@)names:#}"
}

_kpt_ts() {
  emulate -L zsh
  local cur="\${words[CURRENT]}" prev="\${words[CURRENT-1]}" kind subs
  # --flag=VALUE: the value after the =.
  if [[ "$cur" == --*=* ]]; then
    prev="\${cur%%=*}"
    compset -P '*='
  fi
  _kpt_ts_path "\${(@)words[2,CURRENT-1]}"
  if kind="$(_kpt_ts_value "$_kpt_ts_cmd" "$prev")"; then
    case "$kind" in
      @file) _files ;;
      @directory) _path_files -/ ;;
      @context) _kpt_ts_offer_names context ;;
      @namespace) _kpt_ts_offer_names namespace ;;
      @inventory) _kpt_ts_offer_names inventory ;;
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

/** fish's `complete` options for a flag's value: files, directories, a command's output, or fixed words. */
function fishValue(f: CompletionFlag): string {
  if (!f.takesValue) return "";
  const v = f.value;
  if (!v) return " -x";
  if (!("kind" in v)) return ` -x -a ${q(v.values.join(" "))}`;
  if (v.kind === "file") return " -r -F";
  if (v.kind === "directory") return ` -x -a ${q("(__fish_complete_directories (commandline -ct))")}`;
  return ` -x -a ${q(`(__kpt_ts_names ${v.kind})`)}`;
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
      lines.push(`complete -c kpt-ts ${at(s.path)} ${names}${fishValue(f)}`);
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

# A value typed on the line, a leading ~/ expanded (fish has removed its quotes): never evaluated.
function __kpt_ts_typed
    if string match -q -- '~/*' $argv[1]
        echo $HOME/(string sub -s 3 -- $argv[1])
    else
        echo $argv[1]
    end
end

# The names of a kind (context, namespace, inventory), one a line, from the kubeconfig and
# context typed earlier on the line (--kubeconfig F, --kubeconfig=F, --context C). fish takes
# each line as one candidate, as written, and quotes it when it inserts it.
function __kpt_ts_names
    set -l tokens (commandline -opc)
    set -l flags
    set -l i 2
    while test $i -le (count $tokens)
        set -l t $tokens[$i]
        switch $t
            case --kubeconfig --context
                set i (math $i + 1)
                if test $i -le (count $tokens)
                    set -l v (__kpt_ts_typed $tokens[$i])
                    set -a flags "$t=$v"
                end
            case '--kubeconfig=*' '--context=*'
                set -l parts (string split -m 1 = -- $t)
                set -l v (__kpt_ts_typed $parts[2])
                set -a flags "$parts[1]=$v"
        end
        set i (math $i + 1)
    end
    command kpt-ts live __names $argv[1] $flags 2>/dev/null
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
