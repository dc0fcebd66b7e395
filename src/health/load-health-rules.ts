// The run's health rules: the package's HealthRules documents and the files given with
// --health-rules, checked and compiled before anything touches the cluster. A bad rule is bad
// input (PackageError, exit 2) with its file and line.

import { readFile } from "node:fs/promises";
import { PackageError, type PackageIssue } from "../model/errors.js";
import type { PackageDocument } from "../model/kube-object.js";
import { parseYamlDocuments } from "../object/yaml-documents.js";
import { HealthRuleSet } from "./health-rule-set.js";
import { parseHealthRules } from "./parse-health-rules.js";

export interface HealthRuleSources {
  /** The package's HealthRules documents (Package.healthRules). */
  packageDocuments?: readonly PackageDocument[];
  /** Files given with --health-rules; their rules win over the package's. */
  files?: readonly string[];
}

/** Undefined when there is no rule at all (statuses are kstatus' alone). */
export async function loadHealthRules(sources: HealthRuleSources): Promise<HealthRuleSet | undefined> {
  const issues: PackageIssue[] = [];
  const fileDocs: PackageDocument[] = [];
  for (const file of sources.files ?? []) fileDocs.push(...(await readRulesFile(file, issues)));
  const fromFiles = parseHealthRules(fileDocs, { requireLocalConfig: false });
  const fromPackage = parseHealthRules(sources.packageDocuments ?? [], { requireLocalConfig: true });
  issues.push(...fromFiles.issues, ...fromPackage.issues);
  if (issues.length > 0) throw new PackageError(issues);
  const set = new HealthRuleSet([fromFiles.rules, fromPackage.rules]);
  return set.size > 0 ? set : undefined;
}

async function readRulesFile(file: string, issues: PackageIssue[]): Promise<PackageDocument[]> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why = code === "ENOENT" ? "no such file" : code === "EISDIR" ? "it is a directory" : (err as Error).message;
    issues.push({ source: { file, line: 1 }, message: `cannot read the --health-rules file: ${why}` });
    return [];
  }
  const parsed = parseYamlDocuments(text);
  for (const e of parsed.errors) issues.push({ source: { file, line: e.line }, message: `invalid YAML: ${e.message}` });
  const docs = parsed.documents.filter((d) => d.value !== null && d.value !== undefined);
  if (docs.length === 0 && parsed.errors.length === 0) issues.push({ source: { file, line: 1 }, message: "the --health-rules file holds no HealthRules document" });
  return docs.map((d) => ({ value: d.value, source: { file, line: d.line }, lineOf: d.lineOf }));
}
