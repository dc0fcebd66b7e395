// `live diff`'s pure core: the line diff, noise removal, Secret masking, the change set and its
// exit code, and the text/JSON renderings.
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { changeSetOf, diffExitCode, summarizeChanges } from "../../src/diff/change-set.js";
import { diffLines, formatHunks, unifiedHunks } from "../../src/diff/line-diff.js";
import { MASKED, MASKED_CHANGED, maskSecretPair } from "../../src/diff/mask-secrets.js";
import { normalizeForDiff } from "../../src/diff/normalize.js";
import { deepEqualJson } from "../../src/apply/csa/json-value.js";
import { formatChangeDiff } from "../../src/diff/object-diff.js";
import type { ObjRef } from "../../src/model/ref.js";
import type { KubeObject } from "../../src/model/kube-object.js";
import { createPalette } from "../../src/print/color.js";
import { changeSetJson, formatChangeSetText } from "../../src/print/diff-printer.js";
import { dryRunEvents, type DryApply, type DryDelete } from "../helpers/dry-run-events.js";

const obj = (yaml: string): KubeObject => parse(yaml) as KubeObject;
const refOf = (o: KubeObject): ObjRef => ({ group: o.apiVersion.includes("/") ? o.apiVersion.split("/")[0]! : "", kind: o.kind, namespace: o.metadata.namespace ?? "", name: o.metadata.name ?? "" });

/** Applies a unified diff's operations to `a`, to check they really turn `a` into `b`. */
function replay(a: string[], ops: ReturnType<typeof diffLines>): string[] {
  const out: string[] = [];
  let i = 0;
  for (const op of ops) {
    if (op.kind === "equal") {
      expect(a[i]).toBe(op.line);
      out.push(a[i++]!);
    } else if (op.kind === "delete") {
      expect(a[i]).toBe(op.line);
      i++;
    } else out.push(op.line);
  }
  expect(i).toBe(a.length);
  return out;
}

describe("diffLines", () => {
  it.each([
    ["identical", "a b c", "a b c", 0],
    ["one changed line", "a b c", "a x c", 2],
    ["insert at start", "b c", "a b c", 1],
    ["delete at end", "a b c", "a b", 1],
    ["from nothing", "", "a b", 2],
    ["to nothing", "a b", "", 2],
    ["interleaved", "a b c d e f", "a c d x f g", 4],
    ["repeated lines", "x y x y x", "y x y x y", 2],
  ])("%s: turns the old lines into the new with the fewest edits", (_name, from, to, edits) => {
    const a = from ? from.split(" ") : [];
    const b = to ? to.split(" ") : [];
    const ops = diffLines(a, b);
    expect(replay(a, ops)).toEqual(b);
    expect(ops.filter((o) => o.kind !== "equal")).toHaveLength(edits);
  });

  it("makes unified hunks with three lines of context, merging changes that are close", () => {
    const a = Array.from({ length: 20 }, (_, i) => `line ${i + 1}`);
    const b = [...a];
    b[4] = "changed 5";
    b[8] = "changed 9";
    b[18] = "changed 19";
    expect(formatHunks(unifiedHunks(diffLines(a, b)))).toEqual([
      "@@ -2,11 +2,11 @@",
      " line 2",
      " line 3",
      " line 4",
      "-line 5",
      "+changed 5",
      " line 6",
      " line 7",
      " line 8",
      "-line 9",
      "+changed 9",
      " line 10",
      " line 11",
      " line 12",
      "@@ -16,5 +16,5 @@",
      " line 16",
      " line 17",
      " line 18",
      "-line 19",
      "+changed 19",
      " line 20",
    ]);
  });

  it("numbers a creation as -0,0", () => {
    expect(formatHunks(unifiedHunks(diffLines([], ["a", "b"])))).toEqual(["@@ -0,0 +1,2 @@", "+a", "+b"]);
  });
});

describe("normalizeForDiff", () => {
  it("drops the server's bookkeeping, status and the last-applied annotation, and puts apiVersion/kind first", () => {
    const live = obj(`
kind: ConfigMap
apiVersion: v1
metadata:
  namespace: app
  name: cfg
  uid: 1234
  resourceVersion: "99"
  generation: 3
  creationTimestamp: "2024-01-01T00:00:00Z"
  managedFields: [{manager: kubectl}]
  annotations:
    kubectl.kubernetes.io/last-applied-configuration: '{"data":{"a":"1"}}'
status: {phase: Active}
data: {a: "1"}
`);
    expect(normalizeForDiff(live)).toEqual({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "cfg", namespace: "app" }, data: { a: "1" } });
    expect(Object.keys(normalizeForDiff(live))).toEqual(["apiVersion", "kind", "metadata", "data"]);
    expect(live.status).toBeDefined(); // the input is left alone
  });

  it.each([
    ["key order does not matter", { a: 1, b: { c: [1, 2] } }, { b: { c: [1, 2] }, a: 1 }, true],
    ["list order does", { a: [1, 2] }, { a: [2, 1] }, false],
    ["a missing key differs", { a: 1 }, { a: 1, b: null }, false],
    ["an undefined field is absent, as on the wire", { a: 1, b: undefined }, { a: 1 }, true],
    ["an inherited key is not the object's own", { toString: 1 }, { x: 1 }, false],
    ["a list is not an object with index keys", [1], { 0: 1 }, false],
  ])("deepEqualJson: %s", (_n, a, b, equal) => {
    expect(deepEqualJson(a, b)).toBe(equal);
  });
});

describe("maskSecretPair", () => {
  const before = obj(`
apiVersion: v1
kind: Secret
metadata: {name: s, namespace: app}
data:
  same: ${Buffer.from("keep").toString("base64")}
  changed: ${Buffer.from("old").toString("base64")}
  removed: ${Buffer.from("gone").toString("base64")}
`);
  const after = obj(`
apiVersion: v1
kind: Secret
metadata: {name: s, namespace: app}
data:
  same: ${Buffer.from("keep").toString("base64")}
  changed: ${Buffer.from("new").toString("base64")}
  added: ${Buffer.from("fresh").toString("base64")}
`);

  it("says which keys changed and never what they hold", () => {
    const m = maskSecretPair(before, after);
    expect(m.before!.data).toEqual({ same: MASKED, changed: MASKED, removed: MASKED });
    expect(m.after!.data).toEqual({ same: MASKED, changed: MASKED_CHANGED, added: MASKED });
    const text = JSON.stringify(m);
    for (const secret of ["keep", "old", "new", "gone", "fresh"]) {
      expect(text).not.toContain(secret);
      expect(text).not.toContain(Buffer.from(secret).toString("base64"));
    }
  });

  it("compares stringData with data by value", () => {
    const desired = obj(`{apiVersion: v1, kind: Secret, metadata: {name: s}, stringData: {same: keep, changed: other}}`);
    expect(maskSecretPair(before, desired).after!.stringData).toEqual({ same: MASKED, changed: MASKED_CHANGED });
  });

  it("leaves other kinds alone", () => {
    const cm = obj(`{apiVersion: v1, kind: ConfigMap, metadata: {name: c}, data: {a: "1"}}`);
    expect(maskSecretPair(cm, cm)).toEqual({ before: cm, after: cm });
  });
});

const cm = (data: string, extra = "") =>
  obj(`
apiVersion: v1
kind: ConfigMap
metadata:
  name: cfg
  namespace: app
  resourceVersion: "7"
  annotations: {config.k8s.io/owning-inventory: inv-id${extra}}
data: ${data}
`);

describe("changeSetOf: the change set read from a dry run's plan and events", () => {
  const liveCm = cm(`{a: "1"}`);
  const r = refOf(liveCm);
  const cases: { name: string; apply: DryApply; op: string; skip?: boolean; error?: boolean; note?: RegExp; exit: number }[] = [
    { name: "no live object: create", apply: { ref: r, event: { after: cm(`{a: "1"}`) } }, op: "create", exit: 1 },
    { name: "planned unchanged: noop", apply: { ref: r, live: liveCm, planned: "unchanged" }, op: "unchanged", exit: 0 },
    { name: "data changed: update", apply: { ref: r, live: liveCm, event: { after: cm(`{a: "2"}`) } }, op: "update", exit: 1 },
    {
      name: "an update whose difference a diff leaves out: still the plan's update, and a note says why it shows nothing",
      apply: { ref: r, live: liveCm, event: { after: { ...cm(`{a: "1"}`), metadata: { ...liveCm.metadata, resourceVersion: "8", annotations: { ...liveCm.metadata.annotations, "kubectl.kubernetes.io/last-applied-configuration": "{}" } } } } },
      op: "update",
      note: /only what a diff leaves out changes/,
      exit: 1,
    },
    { name: "the dry run refused: error", apply: { ref: r, live: liveCm, event: { status: "Failed", error: "admission webhook denied" } }, op: "update", error: true, exit: 2 },
    { name: "owned by another inventory: the plan's skipped update", apply: { ref: r, live: liveCm, skip: "inventory policy prevented actuation" }, op: "update", skip: true, exit: 0 },
    {
      name: "decided again at execution (the object changed since the plan): the event's operation",
      apply: { ref: r, live: liveCm, planned: "update", event: { operation: "unchanged", after: liveCm } },
      op: "unchanged",
      exit: 0,
    },
    { name: "skipped as the run went (a dependency failed)", apply: { ref: r, event: { status: "Skipped", error: "dependency apply actuation failed: app_x__ConfigMap" } }, op: "create", skip: true, exit: 0 },
    {
      name: "previewed as the package has it (its namespace comes with the package)",
      apply: { ref: r, event: { after: cm(`{a: "1"}`), note: "namespace app is created by this apply: shown as in the package, not previewed by the server" } },
      op: "create",
      note: /namespace app is created by this apply/,
      exit: 1,
    },
  ];
  it.each(cases)("$name", ({ apply, op, skip, error, note, exit }) => {
    const cs = changeSetOf(dryRunEvents({ applies: [apply] }));
    expect(cs.changes).toHaveLength(1);
    expect(cs.changes[0]!.operation).toBe(op);
    expect(Boolean(cs.changes[0]!.skip)).toBe(Boolean(skip));
    expect(Boolean(cs.changes[0]!.error)).toBe(Boolean(error));
    if (note) expect(cs.changes[0]!.note).toMatch(note);
    else expect(cs.changes[0]!.note).toBeUndefined();
    expect(diffExitCode(cs)).toBe(exit);
  });

  const gone = (name: string, annotations = "") => obj(`{apiVersion: v1, kind: ConfigMap, metadata: {name: ${name}, namespace: app${annotations}}, data: {x: "1"}}`);
  it.each<{ name: string; candidate: DryDelete; skip?: RegExp; error?: RegExp; exit: number }>([
    { name: "deleted", candidate: { ref: refOf(gone("old")), live: gone("old"), decision: { action: "delete" } }, exit: 1 },
    {
      name: "kept by an annotation",
      candidate: { ref: refOf(gone("kept")), live: gone("kept"), decision: { action: "skip", reason: "annotation prevents deletion", abandon: true } },
      skip: /annotation prevents deletion/,
      exit: 0,
    },
    {
      name: "needed by a package object",
      candidate: { ref: refOf(gone("dep")), live: gone("dep"), decision: { action: "skip", reason: "dependent scheduled for apply: app_web__Pod", abandon: false } },
      skip: /dependent scheduled for apply: app_web__Pod/,
      exit: 0,
    },
    { name: "unreadable", candidate: { ref: refOf(gone("secret")), decision: { action: "delete" }, unreadable: "secrets is forbidden" }, error: /cannot read it, so it is neither deleted nor forgotten: secrets is forbidden/, exit: 2 },
    { name: "refused by the server's dry run", candidate: { ref: refOf(gone("old")), live: gone("old"), decision: { action: "delete" }, status: "Failed", error: "admission webhook denied" }, error: /webhook denied/, exit: 2 },
  ])("a prune candidate $name", ({ candidate, skip, error, exit }) => {
    const cs = changeSetOf(dryRunEvents({ deletes: [candidate] }));
    expect(cs.changes[0]!.operation).toBe("delete");
    if (skip) expect(cs.changes[0]!.skip).toMatch(skip);
    else expect(cs.changes[0]!.skip).toBeUndefined();
    if (error) expect(cs.changes[0]!.error).toMatch(error);
    expect(diffExitCode(cs)).toBe(exit);
  });

  it("sorts as kapp does (namespace, name, kind), counts each operation, and keeps the plan's waves", () => {
    const b = obj(`{apiVersion: v1, kind: Service, metadata: {name: b, namespace: app}}`);
    const a = obj(`{apiVersion: v1, kind: Namespace, metadata: {name: app}}`);
    const cs = changeSetOf(
      dryRunEvents({
        applies: [
          { ref: refOf(b), event: { after: b } },
          { ref: refOf(a), live: a, planned: "unchanged" },
        ],
        deletes: [{ ref: refOf(gone("a")), live: gone("a"), decision: { action: "delete" } }],
      }),
    );
    expect(cs.changes.map((c) => `${c.ref.namespace}/${c.ref.name}/${c.ref.kind}`)).toEqual(["/app/Namespace", "app/a/ConfigMap", "app/b/Service"]);
    expect(summarizeChanges(cs)).toEqual({ create: 1, update: 0, delete: 1, noop: 1, skipped: 0, errors: 0 });
    expect(cs.waves).toEqual({ apply: [[refOf(b)], [refOf(a)]], delete: [[refOf(gone("a"))]] });
    expect(cs.inventory).toEqual({ name: "inv", namespace: "app", exists: true });
  });

  it("says the preview was computed locally: for the whole run when asked, else the first event that says so", () => {
    const events = dryRunEvents({ applies: [{ ref: refOf(liveCm), live: liveCm, event: { after: cm(`{a: "2"}`), local: "Preview computed locally (the server refused dry-run writes: forbidden)" } }] });
    expect(changeSetOf(events).local).toBe("Preview computed locally (the server refused dry-run writes: forbidden)");
    expect(changeSetOf(events, { local: "Preview computed locally (--local)" }).local).toBe("Preview computed locally (--local)");
    expect(changeSetOf(dryRunEvents({ applies: [{ ref: refOf(liveCm), live: liveCm, planned: "unchanged" }] })).local).toBeUndefined();
  });

  it("masks a Secret's values in the text and the JSON of the change set", () => {
    const secret = (pw: string) => obj(`{apiVersion: v1, kind: Secret, metadata: {name: db, namespace: app}, data: {password: ${Buffer.from(pw).toString("base64")}, user: ${Buffer.from("admin").toString("base64")}}}`);
    const cs = changeSetOf(dryRunEvents({ applies: [{ ref: refOf(secret("x")), live: secret("s3cret-old"), event: { after: secret("s3cret-new") } }] }));
    const text = formatChangeSetText(cs, createPalette(false)).join("\n");
    const json = JSON.stringify(changeSetJson(cs));
    for (const out of [text, json]) {
      for (const v of ["s3cret-old", "s3cret-new", "admin"]) {
        expect(out).not.toContain(v);
        expect(out).not.toContain(Buffer.from(v).toString("base64"));
      }
    }
    expect(text).toContain(`-  password: ${MASKED}`);
    expect(text).toContain(`+  password: ${MASKED_CHANGED}`);
    expect(text).toContain(`   user: ${MASKED}`);
  });
});

describe("formatChangeSetText", () => {
  it("prints the table, the counts and a unified diff per change", () => {
    const cs = changeSetOf(
      dryRunEvents({
        applies: [{ ref: refOf(cm("")), live: cm(`{a: "1"}`), event: { after: cm(`{a: "2"}`) } }],
        deletes: [{ ref: { group: "", kind: "ConfigMap", namespace: "app", name: "old" }, live: obj(`{apiVersion: v1, kind: ConfigMap, metadata: {name: old, namespace: app}}`), decision: { action: "skip", reason: "namespace still in use: app", abandon: false } }],
      }),
    );
    expect(formatChangeSetText(cs, createPalette(false))).toEqual([
      "Inventory: ResourceGroup app/inv (in the cluster)",
      "",
      "Namespace  Name  Kind       Op      Note",
      "app        cfg   ConfigMap  update",
      "app        old   ConfigMap  delete  skip: namespace still in use: app",
      "",
      "Op: 0 create, 1 update, 0 delete, 0 noop, 1 skipped",
      "",
      "--- app/configmap/cfg (live)",
      "+++ app/configmap/cfg (after apply)",
      "@@ -6,4 +6,4 @@",
      "   annotations:",
      "     config.k8s.io/owning-inventory: inv-id",
      " data:",
      '-  a: "1"',
      '+  a: "2"',
    ]);
  });

  it("shows no diff for a noop, a skipped or a failing change", () => {
    const base = { ref: refOf(cm("")), before: cm(""), after: cm(`{a: "2"}`) };
    expect(formatChangeDiff({ ...base, operation: "unchanged" })).toEqual([]);
    expect(formatChangeDiff({ ...base, operation: "update", skip: "policy" })).toEqual([]);
    expect(formatChangeDiff({ ...base, operation: "update", error: "denied" })).toEqual([]);
  });
});

describe("diffs print YAML that keeps its types when pasted into a package (issue 36)", () => {
  it.each([
    ["yes", '"yes"'],
    ["on", '"on"'],
    ["No", '"No"'],
    ["2026-01-01", '"2026-01-01"'],
    ["1_000", '"1_000"'],
    ["true", '"true"'],
    ["blue", "blue"],
  ])("the string %s is printed as %s", (value, printed) => {
    const before = cm(`{flag: "x"}`);
    const after = { ...before, data: { flag: value } } as KubeObject;
    const lines = formatChangeDiff({ ref: refOf(before), operation: "update", before, after });
    expect(lines).toContain(`+  flag: ${printed}`);
    // Read back as kubectl reads a manifest (YAML 1.1), the printed value is the string again.
    expect(parse(`flag: ${printed}`, { version: "1.1" })).toEqual({ flag: value });
  });

  it("a key YAML 1.1 reads as a boolean is quoted too", () => {
    const before = cm(`{}`);
    const after = { ...before, data: { n: "1" } } as KubeObject;
    expect(formatChangeDiff({ ref: refOf(before), operation: "update", before, after })).toContain('+  "n": "1"');
  });
});
