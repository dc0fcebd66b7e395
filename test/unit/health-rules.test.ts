// Health rules (docs/health-rules.md): how HealthRules documents are read and refused, and how a
// compiled rule decides an object's status.

import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { formatIssue } from "../../src/model/errors.js";
import { fieldsRead } from "../../src/health/cel-expression.js";
import { HealthRuleSet } from "../../src/health/health-rule-set.js";
import { parseHealthRules } from "../../src/health/parse-health-rules.js";
import { analyzePackage } from "../../src/object/parse-package.js";
import type { KubeObject, PackageDocument } from "../../src/model/kube-object.js";
import { parseYamlDocuments } from "../../src/object/yaml-documents.js";
import { computeStatus } from "../../src/status/compute-status.js";

const HEAD = `apiVersion: kpt-ts.dev/v1alpha1
kind: HealthRules
metadata:
  name: operators
  annotations:
    config.kubernetes.io/local-config: "true"
spec:
  rules:
`;

/** The documents of one YAML text, as the package reader hands them over. */
function docs(text: string, file = "rules.yaml"): PackageDocument[] {
  return parseYamlDocuments(text).documents.map((d) => ({ value: d.value, source: { file, line: d.line }, lineOf: d.lineOf }));
}

function issuesOf(text: string, requireLocalConfig = true): string[] {
  return parseHealthRules(docs(text), { requireLocalConfig }).issues.map(formatIssue);
}

function rulesOf(text: string, requireLocalConfig = true) {
  const parsed = parseHealthRules(docs(text), { requireLocalConfig });
  expect(parsed.issues.map(formatIssue)).toEqual([]);
  return parsed.rules;
}

describe("HealthRules: malformed rules are refused with file and line", () => {
  // Line 9 is the rule's first line (after HEAD's eight lines).
  it.each([
    ["a syntax error", `  - apiVersion: acc.example.com/v1\n    kind: Widget\n    current: "status.phase =="\n`, "rules.yaml:11: HealthRules/operators: current: \"status.phase ==\" does not compile"],
    ["an unclosed string", `  - apiVersion: acc.example.com/v1\n    kind: Widget\n    failed: "status.phase == 'Failed"\n`, "rules.yaml:11: HealthRules/operators: failed: "],
    ["an int result", `  - apiVersion: acc.example.com/v1\n    kind: Widget\n    current: "size(status.conditions)"\n`, "rules.yaml:11: HealthRules/operators: current: \"size(status.conditions)\" gives an int, not a boolean"],
    ["a string result", `  - apiVersion: acc.example.com/v1\n    kind: Widget\n    current: "'Ready'"\n`, "rules.yaml:11: HealthRules/operators: current: \"'Ready'\" gives a string, not a boolean"],
    ["operands of the wrong types", `  - apiVersion: acc.example.com/v1\n    kind: Widget\n    current: "1 + 'a' == 2"\n`, "rules.yaml:11: HealthRules/operators: current: \"1 + 'a' == 2\" does not compile: no such overload"],
    ["an unknown variable", `  - apiVersion: acc.example.com/v1\n    kind: Widget\n    current: "phase == 'Ready'"\n`, "rules.yaml:11: HealthRules/operators: current: \"phase == 'Ready'\" does not compile: Unknown variable: phase"],
    ["no kind", `  - apiVersion: acc.example.com/v1\n    current: "status.phase == 'Ready'"\n`, "rules.yaml:9: HealthRules/operators: the rule names no kind"],
    ["a kind that is not a kind name", `  - apiVersion: acc.example.com/v1\n    kind: "my widget"\n    current: "status.phase == 'Ready'"\n`, "rules.yaml:10: HealthRules/operators: kind \"my widget\" is not a kind name"],
    ["an unknown field", `  - apiVersion: acc.example.com/v1\n    kind: Widget\n    current: "true"\n    readyWhen: "status.phase == 'Ready'"\n`, "rules.yaml:12: HealthRules/operators: unknown field \"readyWhen\" in a rule"],
    ["no expression", `  - apiVersion: acc.example.com/v1\n    kind: Widget\n`, "rules.yaml:9: HealthRules/operators: the rule has no expression"],
    ["an expression that is not a string", `  - apiVersion: acc.example.com/v1\n    kind: Widget\n    current: true\n`, "rules.yaml:11: HealthRules/operators: current must be a CEL expression in a string"],
    ["neither apiVersion nor group", `  - kind: Widget\n    current: "status.phase == 'Ready'"\n`, "rules.yaml:9: HealthRules/operators: the rule names no apiVersion or group"],
    ["both apiVersion and group", `  - apiVersion: acc.example.com/v1\n    group: acc.example.com\n    kind: Widget\n    current: "status.phase == 'Ready'"\n`, "rules.yaml:10: HealthRules/operators: give apiVersion (one version) or group (any version), not both"],
    ["a malformed apiVersion", `  - apiVersion: acc.example.com\n    kind: Widget\n    current: "status.phase == 'Ready'"\n`, "rules.yaml:9: HealthRules/operators: apiVersion \"acc.example.com\" is not GROUP/VERSION"],
  ])("%s", (_name, rule, expected) => {
    const issues = issuesOf(HEAD + rule);
    expect(issues).toHaveLength(1);
    expect(issues[0]).toContain(expected);
  });

  it("a second rule for the same kind and apiVersion, naming where the first is", () => {
    const r = `  - apiVersion: acc.example.com/v1\n    kind: Widget\n    current: "status.phase == 'Ready'"\n`;
    expect(issuesOf(HEAD + r + r)).toEqual([
      "rules.yaml:12: a second rule for Widget (acc.example.com/v1): also at rules.yaml:9; keep one",
    ]);
  });

  it("a package's HealthRules without the local-config annotation (kpt would apply it); a --health-rules file needs none", () => {
    const text = `apiVersion: kpt-ts.dev/v1alpha1\nkind: HealthRules\nmetadata:\n  name: ops\nspec:\n  rules:\n  - group: acc.example.com\n    kind: Widget\n    current: "status.phase == 'Ready'"\n`;
    expect(issuesOf(text)).toEqual([
      'rules.yaml:3: HealthRules/ops: add the annotation config.kubernetes.io/local-config: "true", so that kpt and kpt-ts never apply it to the cluster',
    ]);
    expect(rulesOf(text, false)).toHaveLength(1);
  });

  it("spec.rules missing, unknown top-level and spec fields, another kind in a rules file", () => {
    expect(issuesOf(`${HEAD.replace("spec:\n  rules:\n", "spec:\n  rulez: []\n")}`)).toEqual([
      "rules.yaml:7: HealthRules/operators: spec.rules must be a list of rules (apiVersion or group, kind, and current / failed / inProgress expressions)",
    ]);
    expect(issuesOf(`${HEAD}  - group: acc.example.com\n    kind: Widget\n    current: "true"\nstatus: {}\n`)).toEqual([
      'rules.yaml:12: HealthRules/operators: unknown field "status": a HealthRules document has apiVersion, kind, metadata and spec',
    ]);
    expect(issuesOf("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n", false)[0]).toMatch(/^rules.yaml:1: HealthRules\/x: expected apiVersion: kpt-ts.dev\/v1alpha1 and kind: HealthRules/);
  });

  it("every problem of a document at once, top to bottom", () => {
    const text = `${HEAD}  - apiVersion: acc.example.com/v1\n    kind: Widget\n    current: "status.phase =="\n  - kind: Gadget\n    group: acc.example.com\n    current: "status.ok"\n    extra: 1\n`;
    expect(issuesOf(text).map((i) => i.split(": ")[0])).toEqual(["rules.yaml:11", "rules.yaml:15"]);
  });
});

describe("the package reader sets HealthRules aside", () => {
  it("never as an object to apply, kept with its position", () => {
    const rg = "apiVersion: kpt.dev/v1alpha1\nkind: ResourceGroup\nmetadata:\n  name: inv\n  namespace: ns\n  labels:\n    cli-utils.sigs.k8s.io/inventory-id: x\n";
    const a = analyzePackage(
      { path: "pkg", fromStdin: false, files: [{ path: "rg.yaml", content: rg }, { path: "health.yaml", content: `${HEAD}  - group: acc.example.com\n    kind: Widget\n    current: "status.phase == 'Ready'"\n` }] },
      { requireInventory: true },
    );
    expect(a.issues).toEqual([]);
    expect(a.objects).toEqual([]);
    expect(a.healthRules?.map((d) => `${d.source.file}:${d.source.line}`)).toEqual(["pkg/health.yaml:1"]);
  });
});

const widget = (status?: Record<string, unknown>, meta: Record<string, unknown> = {}): KubeObject => ({
  apiVersion: "acc.example.com/v1",
  kind: "Widget",
  metadata: { name: "w", namespace: "ns", generation: 1, ...meta },
  spec: { size: 3 },
  ...(status ? { status } : {}),
});

const WIDGET_RULE = `${HEAD}  - apiVersion: acc.example.com/v1
    kind: Widget
    current: "status.phase == 'Ready'"
    failed: "status.phase == 'Failed'"
`;

describe("a rule decides the status", () => {
  const rules = new HealthRuleSet([rulesOf(WIDGET_RULE)]);
  const status = (o: KubeObject) => computeStatus(o, { healthRules: rules });

  it.each([
    ["Ready is Current", widget({ phase: "Ready" }), "Current", "rule widget current: status.phase == 'Ready'"],
    ["Failed is Failed", widget({ phase: "Failed" }), "Failed", `rule widget failed: status.phase == 'Failed'; status.phase is "Failed"`],
    ["anything else waits, saying what the field holds", widget({ phase: "Provisioning" }), "InProgress", `rule widget current: status.phase == 'Ready' is false; status.phase is "Provisioning"`],
    ["no status yet: the missing field is the reason, not a crash", widget(), "InProgress", "rule widget failed: status.phase == 'Failed' cannot be evaluated yet: No such key: phase"],
    ["the generation check comes first", widget({ phase: "Ready", observedGeneration: 1 }, { generation: 2 }), "InProgress", "Widget generation is 2, but latest observed generation is 1"],
    ["a string observedGeneration (Argo Rollouts) is compared as a number", widget({ phase: "Ready", observedGeneration: "1" }, { generation: 2 }), "InProgress", "Widget generation is 2, but latest observed generation is 1"],
    ["a string observedGeneration that matches", widget({ phase: "Ready", observedGeneration: "2" }, { generation: 2 }), "Current", "rule widget current: status.phase == 'Ready'"],
    ["Terminating comes first", widget({ phase: "Ready" }, { deletionTimestamp: "2026-01-01T00:00:00Z" }), "Terminating", "Resource scheduled for deletion"],
    ["the rule replaces the Ready condition", widget({ phase: "Provisioning", conditions: [{ type: "Ready", status: "True" }] }), "InProgress", `rule widget current: status.phase == 'Ready' is false; status.phase is "Provisioning"`],
  ])("%s", (_n, obj, want, message) => {
    const r = status(obj);
    expect(r.status).toBe(want);
    expect(r.message).toBe(message);
  });

  it("without a rule for the kind, kstatus' default applies (no rule: Current as soon as it exists)", () => {
    expect(status({ ...widget({ phase: "Provisioning" }), kind: "Gadget" }).status).toBe("Current");
    expect(computeStatus(widget({ phase: "Provisioning" })).status).toBe("Current");
  });
});

describe("rule expressions", () => {
  const one = (rule: string) => new HealthRuleSet([rulesOf(`${HEAD}  - group: acc.example.com\n    kind: Widget\n${rule}`)]);
  const status = (rule: string, obj: KubeObject) => computeStatus(obj, { healthRules: one(rule) });

  it.each([
    ["conditions with exists()", `    current: "status.conditions.exists(c, c.type == 'Synced' && c.status == 'True')"\n`, widget({ conditions: [{ type: "Synced", status: "True" }] }), "Current"],
    ["conditions with exists(), not yet", `    current: "status.conditions.exists(c, c.type == 'Synced' && c.status == 'True')"\n`, widget({ conditions: [{ type: "Synced", status: "False" }] }), "InProgress"],
    ["has() guards a missing field", `    current: "has(status.phase) && status.phase == 'Ready'"\n`, widget(), "InProgress"],
    ["numbers from JSON compare with CEL ints", `    current: "status.readyInstances >= spec.size"\n`, widget({ readyInstances: 3 }), "Current"],
    ["the whole object as self", `    current: "self.status.phase == 'Ready' && self.metadata.name == 'w'"\n`, widget({ phase: "Ready" }), "Current"],
    ["the whole object as object", `    current: "object.status.phase == 'Ready'"\n`, widget({ phase: "Ready" }), "Current"],
    ["a boolean field (dyn, checked when evaluated)", `    current: "status.ready"\n`, widget({ ready: true }), "Current"],
    ["a dyn field that is not a boolean waits, saying so", `    current: "status.ready"\n`, widget({ ready: "yes" }), "InProgress"],
    ["inProgress holds it even when current is true", `    inProgress: "status.updating == true"\n    current: "status.phase == 'Ready'"\n`, widget({ phase: "Ready", updating: true }), "InProgress"],
    ["failed comes before current", `    failed: "status.errors > 0"\n    current: "status.phase == 'Ready'"\n`, widget({ phase: "Ready", errors: 1 }), "Failed"],
    ["only failed: Current when it does not hold", `    failed: "has(status.error)"\n`, widget({}), "Current"],
  ])("%s", (_n, rule, obj, want) => {
    expect(status(rule, obj).status).toBe(want);
  });

  it("a Secret's values are never shown, whatever its rule reads", () => {
    const rules = new HealthRuleSet([rulesOf(`${HEAD}  - apiVersion: v1\n    kind: Secret\n    current: "object.data.token == 'x'"\n    failed: "object.data.token"\n`)]);
    const secret = { apiVersion: "v1", kind: "Secret", metadata: { name: "s" }, data: { token: "c2VjcmV0" } } as KubeObject;
    const r = computeStatus(secret, { healthRules: rules });
    expect(r.status).toBe("InProgress");
    expect(r.message).toBe("rule secret failed: object.data.token gave a string, not true or false");
    const r2 = computeStatus({ ...secret, data: {} } as KubeObject, { healthRules: new HealthRuleSet([rulesOf(`${HEAD}  - apiVersion: v1\n    kind: Secret\n    current: "has(object.data.token) && object.data.token == 'x'"\n`)]) });
    expect(r2.message).toBe("rule secret current: has(object.data.token) && object.data.token == 'x' is false");
    expect(JSON.stringify([r, r2])).not.toContain("c2VjcmV0");
  });

  it("a non-boolean value at run time names the value", () => {
    expect(status(`    current: "status.ready"\n`, widget({ ready: "yes" })).message).toBe(`rule widget current: status.ready gave "yes", not true or false`);
  });
});

describe("which rule applies", () => {
  const rule = (match: string, current: string, name: string) => `  - ${match}\n    kind: Widget\n    name: ${name}\n    current: "${current}"\n`;
  const pkg = rulesOf(HEAD + rule("group: acc.example.com", "true", "pkg-group") + rule("apiVersion: acc.example.com/v1", "true", "pkg-v1"));
  const flag = rulesOf(HEAD + rule("group: acc.example.com", "true", "flag-group"), false);

  it.each([
    ["the flag's rule wins over the package's, even a group rule over an exact one", [flag, pkg], "acc.example.com/v1", "flag-group"],
    ["within one source, the exact apiVersion wins over the group", [pkg], "acc.example.com/v1", "pkg-v1"],
    ["a group rule covers any version", [pkg], "acc.example.com/v2beta1", "pkg-group"],
    ["another group has no rule", [flag, pkg], "other.example.com/v1", undefined],
  ])("%s", (_n, layers, apiVersion, name) => {
    expect(new HealthRuleSet(layers).find(apiVersion, "Widget")?.name).toBe(name);
  });
});

describe("fieldsRead: what a waiting message shows", () => {
  it.each([
    ["status.phase == 'Ready'", ["status.phase"]],
    ["object.status.phase == 'status.x'", ["status.phase"]],
    ["status.conditions.exists(c, c.type == 'Ready')", ["status.conditions"]],
    ["self.spec.replicas == status.readyReplicas", ["spec.replicas", "status.readyReplicas"]],
    ["true", []],
  ])("%s", (text, fields) => {
    expect(fieldsRead(text)).toEqual(fields);
  });
});

describe("docs/health-rules.md", () => {
  const text = readFileSync(new URL("../../docs/health-rules.md", import.meta.url), "utf8");
  const blocks = [...text.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => m[1]!).filter((b) => b.includes("kind: HealthRules"));
  const all = blocks.flatMap((b) => rulesOf(b));
  const set = new HealthRuleSet([all]);
  const judge = (o: Omit<KubeObject, "metadata"> & { metadata?: KubeObject["metadata"] }) => computeStatus({ metadata: { name: "x", generation: 1 }, ...o } as KubeObject, { healthRules: set }).status;
  const cond = (type: string, status: string, extra: Record<string, unknown> = {}) => ({ type, status, ...extra });

  it("every HealthRules example compiles", () => {
    expect(blocks.length).toBeGreaterThanOrEqual(2);
    expect(all.map((r) => r.kind)).toEqual(["Widget", "Instance", "Rollout", "Certificate", "Cluster"]);
  });

  it.each([
    ["Crossplane: Synced and Ready", { apiVersion: "ec2.aws.upbound.io/v1beta1", kind: "Instance", status: { conditions: [cond("Synced", "True"), cond("Ready", "True")] } }, "Current"],
    ["Crossplane: Ready but not Synced", { apiVersion: "ec2.aws.upbound.io/v1beta2", kind: "Instance", status: { conditions: [cond("Synced", "Unknown"), cond("Ready", "True")] } }, "InProgress"],
    ["Crossplane: a reconcile error", { apiVersion: "ec2.aws.upbound.io/v1beta1", kind: "Instance", status: { conditions: [cond("Synced", "False", { reason: "ReconcileError" })] } }, "Failed"],
    ["Crossplane: just created", { apiVersion: "ec2.aws.upbound.io/v1beta1", kind: "Instance" }, "InProgress"],
    ["Argo Rollouts: Healthy", { apiVersion: "argoproj.io/v1alpha1", kind: "Rollout", status: { phase: "Healthy", observedGeneration: "1" } }, "Current"],
    ["Argo Rollouts: Paused", { apiVersion: "argoproj.io/v1alpha1", kind: "Rollout", status: { phase: "Paused", observedGeneration: "1" } }, "InProgress"],
    ["Argo Rollouts: Degraded", { apiVersion: "argoproj.io/v1alpha1", kind: "Rollout", status: { phase: "Degraded", observedGeneration: "1" } }, "Failed"],
    ["cert-manager: Ready for this generation", { apiVersion: "cert-manager.io/v1", kind: "Certificate", status: { conditions: [cond("Ready", "True", { observedGeneration: 1 })] } }, "Current"],
    ["cert-manager: Ready for an older generation", { apiVersion: "cert-manager.io/v1", kind: "Certificate", metadata: { name: "c", generation: 2 }, status: { conditions: [cond("Ready", "True", { observedGeneration: 1 })] } }, "InProgress"],
    ["cert-manager: re-issuing", { apiVersion: "cert-manager.io/v1", kind: "Certificate", status: { conditions: [cond("Ready", "True", { observedGeneration: 1 }), cond("Issuing", "True")] } }, "InProgress"],
    ["CloudNativePG: healthy", { apiVersion: "postgresql.cnpg.io/v1", kind: "Cluster", status: { phase: "Cluster in healthy state", instances: 3, readyInstances: 3 } }, "Current"],
    ["CloudNativePG: creating", { apiVersion: "postgresql.cnpg.io/v1", kind: "Cluster", status: { phase: "Setting up primary", instances: 3, readyInstances: 0 } }, "InProgress"],
    ["CloudNativePG: unrecoverable", { apiVersion: "postgresql.cnpg.io/v1", kind: "Cluster", status: { phase: "Cluster is in an unrecoverable state, needs manual intervention" } }, "Failed"],
  ])("%s", (_n, obj, want) => {
    expect(judge(obj as KubeObject)).toBe(want);
  });
});
