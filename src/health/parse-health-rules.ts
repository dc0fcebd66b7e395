// HealthRules documents (a package's local-config object, or a file given with --health-rules)
// checked and compiled into rules: every problem found in one pass, each at its file and line,
// like the package reader's. Pure.

import type { PackageIssue } from "../model/errors.js";
import { HEALTH_RULES_API_VERSION, HEALTH_RULES_KIND, LOCAL_CONFIG_ANNOTATION } from "../object/parse-package.js";
import { isRecord, type PackageDocument } from "../model/kube-object.js";
import type { HealthExpression, HealthRule } from "../status/types.js";
import { compileExpression } from "./cel-expression.js";

/** A checked rule and what it matches: an exact apiVersion, or any version of a group. */
export interface CompiledRule extends HealthRule {
  kind: string;
  match: { apiVersion: string } | { group: string };
  /** Where it is written, for duplicate messages. */
  where: string;
}

export interface ParsedHealthRules {
  rules: CompiledRule[];
  issues: PackageIssue[];
}

export interface ParseHealthRulesOptions {
  /** A package's documents must be marked local-config (kpt would apply them otherwise); a flag's file need not. */
  requireLocalConfig: boolean;
}

const DOC_FIELDS = new Set(["apiVersion", "kind", "metadata", "spec"]);
const SPEC_FIELDS = new Set(["rules"]);
const RULE_FIELDS = ["name", "apiVersion", "group", "kind", "current", "failed", "inProgress"] as const;
const EXPRESSIONS = ["failed", "inProgress", "current"] as const;

const KIND_NAME = /^[A-Za-z][A-Za-z0-9]*$/;
const RULE_NAME = /^[A-Za-z0-9][-A-Za-z0-9_.]*$/;
const GROUP_NAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const API_VERSION = /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?v[0-9][a-z0-9]*$/;

export function parseHealthRules(docs: readonly PackageDocument[], opts: ParseHealthRulesOptions): ParsedHealthRules {
  const rules: CompiledRule[] = [];
  const issues: PackageIssue[] = [];
  for (const doc of docs) {
    const found: PackageIssue[] = [];
    parseDocument(doc, opts, rules, found);
    // Top to bottom, as the user reads the file (stable for problems on one line).
    issues.push(...found.sort((a, b) => (a.source?.line ?? 0) - (b.source?.line ?? 0)));
  }
  issues.push(...findDuplicates(rules));
  return { rules, issues };
}

function parseDocument(doc: PackageDocument, opts: ParseHealthRulesOptions, rules: CompiledRule[], issues: PackageIssue[]): void {
  const at = (path: readonly (string | number)[]) => ({ file: doc.source.file, line: doc.lineOf(path) ?? doc.source.line });
  const v = doc.value;
  const name = isRecord(v) && isRecord(v.metadata) && typeof v.metadata.name === "string" ? v.metadata.name : undefined;
  const object = `${HEALTH_RULES_KIND}${name ? `/${name}` : ""}`;
  const issue = (path: readonly (string | number)[], message: string) => issues.push({ source: at(path), object, message });
  if (!isRecord(v) || v.apiVersion !== HEALTH_RULES_API_VERSION || v.kind !== HEALTH_RULES_KIND) {
    issue([], `expected apiVersion: ${HEALTH_RULES_API_VERSION} and kind: ${HEALTH_RULES_KIND} (a health rules file holds only HealthRules documents)`);
    return;
  }
  for (const k of Object.keys(v)) if (!DOC_FIELDS.has(k)) issue([k], `unknown field "${k}": a HealthRules document has apiVersion, kind, metadata and spec`);
  if (opts.requireLocalConfig) {
    const annotations = isRecord(v.metadata) && isRecord(v.metadata.annotations) ? v.metadata.annotations : {};
    if (annotations[LOCAL_CONFIG_ANNOTATION] !== "true") {
      issue(["metadata"], `add the annotation ${LOCAL_CONFIG_ANNOTATION}: "true", so that kpt and kpt-ts never apply it to the cluster`);
    }
  }
  if (!isRecord(v.spec) || !Array.isArray(v.spec.rules)) {
    issue(isRecord(v.spec) ? ["spec"] : [], "spec.rules must be a list of rules (apiVersion or group, kind, and current / failed / inProgress expressions)");
    return;
  }
  for (const k of Object.keys(v.spec)) if (!SPEC_FIELDS.has(k)) issue(["spec", k], `unknown field "spec.${k}": spec has only rules`);
  v.spec.rules.forEach((r: unknown, i: number) => {
    const rule = parseRule(r, ["spec", "rules", i], issue, `${doc.source.file}:${at(["spec", "rules", i]).line}`);
    if (rule) rules.push(rule);
  });
}

type Report = (path: readonly (string | number)[], message: string) => void;

function parseRule(r: unknown, path: (string | number)[], issue: Report, where: string): CompiledRule | undefined {
  if (!isRecord(r)) {
    issue(path, "a rule must be a map with apiVersion or group, kind, and current / failed / inProgress");
    return undefined;
  }
  let ok = true;
  const bad = (field: string | undefined, message: string) => {
    ok = false;
    issue(field ? [...path, field] : path, message);
  };
  for (const k of Object.keys(r)) {
    if (!(RULE_FIELDS as readonly string[]).includes(k)) bad(k, `unknown field "${k}" in a rule: use ${RULE_FIELDS.join(", ")}`);
  }
  const kind = r.kind;
  if (kind === undefined || kind === "") bad(undefined, "the rule names no kind: add kind (e.g. kind: Widget)");
  else if (typeof kind !== "string" || !KIND_NAME.test(kind)) bad("kind", `kind ${JSON.stringify(kind)} is not a kind name (letters and digits, e.g. Widget)`);

  let match: CompiledRule["match"] | undefined;
  if (r.apiVersion !== undefined && r.group !== undefined) bad("group", "give apiVersion (one version) or group (any version), not both");
  else if (r.apiVersion !== undefined) {
    if (typeof r.apiVersion !== "string" || !API_VERSION.test(r.apiVersion)) bad("apiVersion", `apiVersion ${JSON.stringify(r.apiVersion)} is not GROUP/VERSION (e.g. acc.example.com/v1)`);
    else match = { apiVersion: r.apiVersion };
  } else if (r.group !== undefined) {
    if (typeof r.group !== "string" || (r.group !== "" && !GROUP_NAME.test(r.group))) bad("group", `group ${JSON.stringify(r.group)} is not an API group (e.g. acc.example.com)`);
    else match = { group: r.group };
  } else bad(undefined, "the rule names no apiVersion or group: add apiVersion (e.g. acc.example.com/v1) or group (any version)");

  if (r.name !== undefined && (typeof r.name !== "string" || !RULE_NAME.test(r.name))) bad("name", `name ${JSON.stringify(r.name)} must be letters, digits, '-', '_' or '.'`);

  const expressions: Partial<Record<(typeof EXPRESSIONS)[number], HealthExpression>> = {};
  for (const which of EXPRESSIONS) {
    const text = r[which];
    if (text === undefined) continue;
    if (typeof text !== "string" || text.trim() === "") {
      bad(which, `${which} must be a CEL expression in a string (quote it: ${which}: "status.phase == 'Ready'")`);
      continue;
    }
    const compiled = compileExpression(text);
    if (compiled.ok) expressions[which] = compiled.expression;
    else bad(which, `${which}: ${JSON.stringify(text)} ${compiled.message}`);
  }
  if (EXPRESSIONS.every((w) => r[w] === undefined)) bad(undefined, "the rule has no expression: give current, failed or inProgress (or all three)");

  if (!ok || !match || typeof kind !== "string") return undefined;
  const name = typeof r.name === "string" ? r.name : kind.toLowerCase();
  return { name, kind, match, where, ...expressions };
}

function findDuplicates(rules: CompiledRule[]): PackageIssue[] {
  const seen = new Map<string, CompiledRule>();
  const issues: PackageIssue[] = [];
  for (const r of rules) {
    const key = matchKey(r);
    const first = seen.get(key);
    if (!first) {
      seen.set(key, r);
      continue;
    }
    const [file, line] = splitWhere(r.where);
    issues.push({ source: { file, line }, message: `a second rule for ${describeMatch(r)}: also at ${first.where}; keep one` });
  }
  return issues;
}

export function matchKey(r: Pick<CompiledRule, "kind" | "match">): string {
  return "apiVersion" in r.match ? `${r.match.apiVersion} ${r.kind}` : `${r.match.group}/* ${r.kind}`;
}

function describeMatch(r: CompiledRule): string {
  return "apiVersion" in r.match ? `${r.kind} (${r.match.apiVersion})` : `${r.kind} (group ${r.match.group || "core"})`;
}

function splitWhere(where: string): [string, number] {
  const i = where.lastIndexOf(":");
  return [where.slice(0, i), Number(where.slice(i + 1))];
}
