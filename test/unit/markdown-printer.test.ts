// The Markdown preview (live diff / apply --dry-run --output markdown, and the step summary):
// checked by its structure, read back with the same parser the end-to-end tests use.
import { describe, expect, it } from "vitest";
import { changeSetOf } from "../../src/diff/change-set.js";
import type { ObjRef } from "../../src/model/ref.js";
import type { KubeObject } from "../../src/model/kube-object.js";
import { githubAnnotation, githubAnnotations } from "../../src/print/error-report.js";
import { formatChangeSetMarkdown, wavesFlowchart } from "../../src/print/markdown-printer.js";
import { PackageError } from "../../src/model/errors.js";
import { dryRunEvents } from "../helpers/dry-run-events.js";
import { parseMarkdownPreview } from "../helpers/markdown.js";

const ref = (kind: string, name: string, namespace = "app"): ObjRef => ({ group: "", kind, namespace, name });
const cm = (name: string, data: Record<string, string>): KubeObject => ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace: "app" }, data });
const secret = (data: Record<string, string>): KubeObject => ({ apiVersion: "v1", kind: "Secret", metadata: { name: "db", namespace: "app" }, data });
const b64 = (s: string) => Buffer.from(s).toString("base64");

function sample() {
  const events = dryRunEvents({
    applies: [
      { ref: ref("ConfigMap", "cfg"), live: cm("cfg", { color: "blue" }), event: { after: cm("cfg", { color: "green" }) } },
      { ref: ref("Secret", "db"), live: secret({ password: b64("first-password") }), event: { after: secret({ password: b64("second-password") }) } },
      { ref: ref("ConfigMap", "fresh"), event: { after: cm("fresh", { y: "2" }) } },
      { ref: ref("ConfigMap", "same"), live: cm("same", { x: "1" }), planned: "unchanged" },
      { ref: ref("ConfigMap", "bad|name"), event: { status: "Failed", error: 'error when creating "bad.yaml": denied' } },
    ],
    deletes: [
      { ref: ref("ConfigMap", "old"), live: cm("old", { x: "1" }), decision: { action: "delete" } },
      { ref: ref("ConfigMap", "keep"), live: cm("keep", { x: "1" }), decision: { action: "skip", reason: 'annotation prevents deletion ("cli-utils.sigs.k8s.io/on-remove": "keep")', abandon: true } },
    ],
    waves: { apply: [[ref("Secret", "db"), ref("ConfigMap", "cfg")], [ref("ConfigMap", "fresh"), ref("ConfigMap", "same"), ref("ConfigMap", "bad|name")]], delete: [[ref("ConfigMap", "old"), ref("ConfigMap", "keep")]] },
  });
  return changeSetOf(events, { local: "Preview computed locally (--local): ..." });
}

describe("formatChangeSetMarkdown", () => {
  const md = formatChangeSetMarkdown(sample());
  const p = parseMarkdownPreview(md);

  it("starts with a heading and a summary line of counts, then the local-preview note", () => {
    expect(p.heading).toBe("kpt-ts live diff: ResourceGroup app/inv");
    expect(p.summary).toBe("**4 changes**: 1 create, 2 update, 1 delete, 1 noop, 1 skipped, 1 error");
    expect(p.notes).toEqual(["Preview computed locally (--local): ..."]);
  });

  it("has one table row per change (noops left out) with operation, kind, namespace, name and why it is skipped", () => {
    expect(p.header).toEqual(["Operation", "Kind", "Namespace", "Name", "Skipped because"]);
    expect(p.rows).toEqual([
      { operation: "create (fails)", kind: "ConfigMap", namespace: "app", name: "bad|name", reason: 'error: error when creating "bad.yaml": denied' },
      { operation: "update", kind: "ConfigMap", namespace: "app", name: "cfg", reason: "" },
      { operation: "update", kind: "Secret", namespace: "app", name: "db", reason: "" },
      { operation: "create", kind: "ConfigMap", namespace: "app", name: "fresh", reason: "" },
      { operation: "delete (skipped)", kind: "ConfigMap", namespace: "app", name: "keep", reason: 'annotation prevents deletion ("cli-utils.sigs.k8s.io/on-remove": "keep")' },
      { operation: "delete", kind: "ConfigMap", namespace: "app", name: "old", reason: "" },
    ]);
  });

  it("has one collapsible section per change apply makes, each a fenced diff", () => {
    expect(p.sections.map((s) => s.summary)).toEqual(["update app/configmap/cfg", "update app/secret/db", "create app/configmap/fresh", "delete app/configmap/old"]);
    for (const s of p.sections) expect(s.lang).toBe("diff");
    const cfg = p.sections[0]!.lines;
    expect(cfg).toContain("-  color: blue");
    expect(cfg).toContain("+  color: green");
    expect(p.sections[3]!.lines).toContain("+++ /dev/null");
  });

  it("never shows a Secret's values", () => {
    expect(md).not.toContain(b64("first-password"));
    expect(md).not.toContain(b64("second-password"));
    expect(p.sections[1]!.lines).toContain("+  password: <masked (changed)>");
  });

  it("draws the apply waves then the prune waves as a Mermaid flowchart, in order", () => {
    expect(p.mermaid[0]).toBe("flowchart TD");
    const boxes = p.mermaid.filter((l) => l.startsWith("  subgraph ")).map((l) => /"(.*)"/.exec(l)![1]);
    expect(boxes).toEqual(["apply wave 1", "apply wave 2", "prune wave 1"]);
    expect(p.mermaid).toContain("  apply1 --> apply2");
    expect(p.mermaid).toContain("  apply2 --> prune1");
    expect(p.mermaid).toContain('    apply1_1["update: ConfigMap app/cfg"]');
    expect(p.mermaid).toContain('    prune1_1["skipped: ConfigMap app/keep"]');
    expect(p.mermaid).toContain('    apply2_1["unchanged: ConfigMap app/same"]');
  });

  it("a fence is longer than any backtick run inside the diff", () => {
    const cs = changeSetOf(dryRunEvents({ applies: [{ ref: ref("ConfigMap", "md"), event: { after: cm("md", { readme: "```sh\nls\n```" }) } }] }));
    const parsed = parseMarkdownPreview(formatChangeSetMarkdown(cs));
    expect(parsed.sections).toHaveLength(1);
    expect(parsed.sections[0]!.lines.join("\n")).toContain("```sh");
  });

  it("with nothing to change: 'No changes', no table, no sections; the chart still shows the run's order", () => {
    const cs = changeSetOf(dryRunEvents({ applies: [{ ref: ref("ConfigMap", "same"), live: cm("same", { x: "1" }), planned: "unchanged" }] }));
    const parsed = parseMarkdownPreview(formatChangeSetMarkdown(cs));
    expect(parsed.summary).toBe("**No changes**: 0 create, 0 update, 0 delete, 1 noop");
    expect(parsed.rows).toEqual([]);
    expect(parsed.sections).toEqual([]);
    expect(wavesFlowchart(cs)).toContain('    apply1_0["unchanged: ConfigMap app/same"]');
  });
});

describe("GitHub annotations", () => {
  it("name the file relative to the working directory and the line, with GitHub's escaping", () => {
    expect(githubAnnotation("/work/repo/pkg/a.yaml", 7, "ConfigMap/x: 50% done\nsecond line", "/work/repo")).toBe("::error file=pkg/a.yaml,line=7::ConfigMap/x: 50%25 done%0Asecond line");
    expect(githubAnnotation("pkg/a,b:c.yaml", 1, "m", "/work/repo")).toBe("::error file=pkg/a%2Cb%3Ac.yaml,line=1::m");
  });

  it("one per problem of a package error that has a file and line", () => {
    const err = new PackageError([
      { source: { file: "/r/pkg/cm.yaml", line: 3 }, object: "ConfigMap/a", message: "metadata.name is missing" },
      { message: "no inventory" },
    ]);
    expect(githubAnnotations(err, "/r")).toEqual(["::error file=pkg/cm.yaml,line=3::ConfigMap/a: metadata.name is missing"]);
    expect(githubAnnotations(new Error("x"), "/r")).toEqual([]);
  });
});
