// `.krmignore` at a package root: gitignore syntax, honoured by kpt's package reader.
// Supports comments, `!` negation, trailing `/` (directories only), anchoring by a slash,
// `*`, `?`, `[...]` and `**`; the last matching line wins, as in git.

export type IgnoreMatcher = (relPath: string, isDir: boolean) => boolean;

interface IgnoreRule {
  regex: RegExp;
  negate: boolean;
  dirOnly: boolean;
}

export function compileKrmIgnore(text: string): IgnoreMatcher {
  const rules = text.split(/\r?\n/).flatMap((line) => {
    const rule = compileLine(line);
    return rule ? [rule] : [];
  });
  if (rules.length === 0) return () => false;
  return (relPath, isDir) => {
    let ignored = false;
    for (const r of rules) {
      if (r.dirOnly && !isDir) continue;
      if (r.regex.test(relPath)) ignored = !r.negate;
    }
    return ignored;
  };
}

function compileLine(raw: string): IgnoreRule | undefined {
  let line = raw.replace(/(?<!\\)\s+$/, "");
  if (line === "" || line.startsWith("#")) return undefined;
  const negate = line.startsWith("!");
  if (negate) line = line.slice(1);
  if (line.startsWith("\\#") || line.startsWith("\\!")) line = line.slice(1);
  const dirOnly = line.endsWith("/");
  if (dirOnly) line = line.slice(0, -1);
  // A slash anywhere but at the end ties the pattern to the root; otherwise it matches at any depth.
  const anchored = line.includes("/");
  if (line.startsWith("/")) line = line.slice(1);
  if (line === "") return undefined;
  const body = globToRegex(line);
  return { regex: new RegExp(anchored ? `^${body}$` : `^(?:.*/)?${body}$`), negate, dirOnly };
}

function globToRegex(glob: string): string {
  let re = "";
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === "*") {
      if (glob[i + 1] === "*") {
        if (glob[i + 2] === "/") {
          re += "(?:.*/)?";
          i += 2;
        } else {
          re += ".*";
          i += 1;
        }
      } else {
        re += "[^/]*";
      }
    } else if (c === "?") {
      re += "[^/]";
    } else if (c === "[") {
      const end = glob.indexOf("]", i + 2);
      if (end < 0) {
        re += "\\[";
        continue;
      }
      const cls = glob.slice(i + 1, end).replace(/\\/g, "\\\\");
      re += cls.startsWith("!") ? `[^${cls.slice(1)}]` : `[${cls}]`;
      i = end;
    } else if (c === "\\" && i + 1 < glob.length) {
      re += escapeRegex(glob[++i]!);
    } else {
      re += escapeRegex(c);
    }
  }
  return re;
}

function escapeRegex(c: string): string {
  return c.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
}
