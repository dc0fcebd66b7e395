// Issue 36: the server-side preview after a client-side apply tells the truth. A package is
// applied client-side (by kpt-ts, and by the real kpt when it is on PATH), previewed server-side
// (`live diff --server-side` and `live apply --server-side --dry-run`, as the admin, whose dry runs
// the server makes, and as a read-only identity, whose preview is computed locally), then applied
// server-side. The live objects before and after that apply are compared field by field with what
// each preview showed: the preview must show exactly the fields the apply changed (a field the
// server defaults and the apply keeps is not a removal), and call each object configured or
// unchanged as the apply then does. `kubectl diff --server-side` is the yardstick beside it.
//
// The package: the WordPress fixture, unchanged between the two applies, and a plain Service
// whose second version drops a label, changes an annotation and drops `sessionAffinity: None`
// (which it had set to the server's default: removed, then defaulted again, so unchanged).
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { stringify } from "yaml";
import { afterAll, describe, expect, it } from "vitest";
import { normalizeForDiff } from "../../src/diff/normalize.js";
import { formatChangeDiff } from "../../src/diff/object-diff.js";
import type { KubeObject } from "../../src/model/kube-object.js";
import { serviceAccountToken, writeKubeconfig } from "../helpers/credentials.js";
import { copyWordpress } from "../helpers/fixtures.js";
import { hasBinary, kpt, kptTs, kubectl, type RunResult } from "../helpers/run.js";
import { lines, printed, uniqueName } from "../helpers/scenario.js";

const haveKpt = hasBinary("kpt");
if (!haveKpt) console.warn("skipping the kpt-applied case of the server-side preview test: the real `kpt` is not on PATH");

const ok = (r: RunResult) => expect(r.code, printed(r)).toBe(0);

const clusterScoped: string[] = [];
afterAll(async () => {
  if (clusterScoped.length) await kubectl(["delete", "--ignore-not-found", "--wait=false", ...clusterScoped]);
});

/**
 * The plain Services, version 1 (applied client-side) or 2 (previewed and applied server-side):
 * `web` drops a label and changes an annotation; `web-default` drops `sessionAffinity: None`,
 * which it had set to the server's default (removed, then defaulted again: nothing changes).
 */
function webServices(ns: string, version: 1 | 2): string {
  const web = {
    apiVersion: "v1",
    kind: "Service",
    metadata: { name: "web", namespace: ns, labels: version === 1 ? { app: "web", tier: "front" } : { app: "web" }, annotations: { "example.com/team": version === 1 ? "a" : "b" } },
    spec: { selector: { app: "web" }, ports: [{ name: "http", port: 80 }] },
  };
  const withDefault = {
    apiVersion: "v1",
    kind: "Service",
    metadata: { name: "web-default", namespace: ns },
    spec: { selector: { app: "web" }, ports: [{ port: 8080 }], ...(version === 1 ? { sessionAffinity: "None" } : {}) },
  };
  return `${stringify(web)}---\n${stringify(withDefault)}`;
}

/** A ServiceAccount allowed to get and list everything (README's kpt-ts-preview role): its kubeconfig. */
async function readOnlyKubeconfig(ns: string): Promise<string> {
  const name = `reader-${ns}`;
  const manifests = [
    { apiVersion: "v1", kind: "ServiceAccount", metadata: { name: "reader", namespace: ns } },
    { apiVersion: "rbac.authorization.k8s.io/v1", kind: "ClusterRole", metadata: { name }, rules: [{ apiGroups: ["*"], resources: ["*"], verbs: ["get", "list"] }] },
    {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "ClusterRoleBinding",
      metadata: { name },
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name },
      subjects: [{ kind: "ServiceAccount", name: "reader", namespace: ns }],
    },
  ];
  const r = await kubectl(["apply", "-f", "-"], { input: manifests.map((m) => stringify(m)).join("---\n") });
  if (r.code !== 0) throw new Error(`binding the reader: ${r.stderr}`);
  clusterScoped.push(`clusterrole/${name}`, `clusterrolebinding/${name}`);
  return writeKubeconfig({ token: await serviceAccountToken(ns, "reader") }, { namespace: ns });
}

interface PreviewChange {
  group: string;
  kind: string;
  namespace: string;
  name: string;
  operation: string;
  diff?: string;
  note?: string;
}

const keyOf = (c: { group: string; kind: string; namespace: string; name: string }) => `${c.group}/${c.kind}/${c.namespace}/${c.name}`;

/**
 * The live objects the package holds, whole, as the API server sends them (its field order, as
 * the preview shows them; `kubectl get -o json` sorts keys), keyed as the preview keys them.
 */
async function snapshot(changes: PreviewChange[]): Promise<Map<string, KubeObject>> {
  const out = new Map<string, KubeObject>();
  for (const c of changes) {
    // The package's kinds are all v1 in their group, and their plurals the kind's name and an s.
    const path = `${c.group ? `/apis/${c.group}/v1` : "/api/v1"}${c.namespace ? `/namespaces/${c.namespace}` : ""}/${c.kind.toLowerCase()}s/${c.name}`;
    const r = await kubectl(["get", "--raw", path]);
    if (r.code !== 0) throw new Error(`GET ${path}: ${r.stderr}`);
    out.set(keyOf(c), JSON.parse(r.stdout) as KubeObject);
  }
  return out;
}

type Json = unknown;
const isMap = (v: Json): v is Record<string, Json> => typeof v === "object" && v !== null && !Array.isArray(v);

/** Every leaf that differs between two JSON values, as `path: before -> after` (lists item by item). */
function changedFields(a: Json, b: Json, path = ""): string[] {
  if (isMap(a) && isMap(b)) return [...new Set([...Object.keys(a), ...Object.keys(b)])].sort().flatMap((k) => changedFields(a[k], b[k], path ? `${path}.${k}` : k));
  if (Array.isArray(a) && Array.isArray(b) && a.length === b.length) return a.flatMap((v, i) => changedFields(v, b[i], `${path}[${i}]`));
  return JSON.stringify(a) === JSON.stringify(b) ? [] : [`${path}: ${JSON.stringify(a) ?? "(absent)"} -> ${JSON.stringify(b) ?? "(absent)"}`];
}

/**
 * What the server-side apply changed in one object, as the live objects before and after it
 * tell: its fields (what a diff shows: without status, which controllers write, and without the
 * bookkeeping every write touches) and whether it was written at all (resourceVersion).
 */
function realChange(before: KubeObject, after: KubeObject) {
  const shown = changedFields(normalizeForDiff(before), normalizeForDiff(after));
  // The apply also moves field ownership (managedFields) and refreshes the last-applied
  // annotation; neither is shown by a diff, but either makes the object "configured".
  const written = before.metadata.resourceVersion !== after.metadata.resourceVersion;
  return { shown, written };
}

/** The unified diff a preview would print for this real change (the same printer, fed the real objects). */
function realDiff(c: PreviewChange, before: KubeObject, after: KubeObject): string | undefined {
  const ref = { group: c.group, kind: c.kind, namespace: c.namespace, name: c.name };
  const lines = formatChangeDiff({ ref, operation: "update", before: normalizeForDiff(before), after: normalizeForDiff(after) });
  return lines.length ? `${lines.join("\n")}\n` : undefined;
}

/** `kind/name configured|unchanged` of each object line a run printed, sorted. */
function objectLines(r: RunResult): string[] {
  return lines(r)
    .filter((l) => /^\S+\/\S+ (configured|unchanged|created)$/.test(l))
    .sort();
}

async function previewAndApply(tool: "kpt-ts" | "kpt") {
  const ns = uniqueName(`e2e-ssa-preview-${tool}`);
  const dir = await copyWordpress(ns);
  await writeFile(join(dir, "web.yaml"), webServices(ns, 1));
  const run = tool === "kpt" ? kpt : kptTs;
  ok(await run(["live", "init", dir]));
  ok(await run(["live", "apply", "--reconcile-timeout=3m", dir]));
  clusterScoped.push(`namespace/${ns}`, `persistentvolume/${ns}-mysql-pv`, `persistentvolume/${ns}-wp-pv`);
  await writeFile(join(dir, "web.yaml"), webServices(ns, 2));
  const reader = await readOnlyKubeconfig(ns);

  // The previews: the admin's (server dry runs), the reader's (computed locally); text and events.
  const adminDiff = await kptTs(["live", "diff", "--server-side", "--output", "json", dir]);
  const readerDiff = await kptTs(["live", "diff", "--server-side", "--output", "json", "--kubeconfig", reader, dir]);
  const adminDry = await kptTs(["live", "apply", "--server-side", "--dry-run", dir]);
  const readerDry = await kptTs(["live", "apply", "--server-side", "--dry-run", "--kubeconfig", reader, dir]);
  for (const r of [adminDiff, readerDiff]) expect(r.code, printed(r)).toBeLessThan(2);
  for (const r of [adminDry, readerDry]) ok(r);
  const admin = JSON.parse(adminDiff.stdout) as { changes: PreviewChange[]; local?: string };
  const readOnly = JSON.parse(readerDiff.stdout) as { changes: PreviewChange[]; local?: string };
  expect(admin.local).toBeUndefined();
  expect(readOnly.local).toMatch(/^Preview computed locally \(the server refused dry-run writes/);
  // The yardstick: kubectl's own server-side diff of the package's files.
  const yardstick = await kubectl(["diff", "--server-side", "--force-conflicts", "--field-manager=kubectl", "-f", join(dir, "web.yaml"), "-f", join(dir, "namespace.yaml"), "-f", join(dir, "volumes.yaml"), "-f", join(dir, "mysql"), "-f", join(dir, "wordpress")]);

  const before = await snapshot(admin.changes);
  const applied = await kptTs(["live", "apply", "--server-side", "--reconcile-timeout=3m", dir]);
  ok(applied);
  const after = await snapshot(admin.changes);
  return { ns, admin, readOnly, adminDry, readerDry, applied, yardstick, before, after };
}

describe.each([
  ["kpt-ts", true],
  ["kpt", haveKpt],
] as const)("the server-side preview after a client-side apply by %s", (tool, present) => {
  it.skipIf(!present)("shows exactly the fields `live apply --server-side` then changes, as the admin and as a read-only identity", async () => {
    const r = await previewAndApply(tool);
    const real = new Map([...r.before].map(([key, b]) => [key, realChange(b, r.after.get(key)!)]));

    // What the apply changed, field by field: the Service's dropped label and changed annotation,
    // nothing else in any object (the server's defaults stay: type, sessionAffinity, a port's
    // protocol and targetPort, a Namespace's name label, a volume's volumeMode...).
    const shown = [...real].flatMap(([key, c]) => c.shown.map((f) => `${key}: ${f}`));
    expect(shown).toEqual([`/Service/${r.ns}/web: metadata.annotations.example.com/team: "a" -> "b"`, `/Service/${r.ns}/web: metadata.labels.tier: "front" -> (absent)`]);

    // Every object, for both previews: its diff is the diff of the live objects before and after
    // the apply, and it is an update exactly when the apply writes it. All mismatches at once.
    // Except, for the read-only identity, the Service that drops a value it had set to the
    // server's default: computed locally, its preview cannot know the default (its note says
    // so), and shows the removal the server then undoes. That one is checked below.
    const mismatches: string[] = [];
    const withDefault = `/Service/${r.ns}/web-default`;
    for (const [who, preview] of [
      ["admin", r.admin],
      ["read-only", r.readOnly],
    ] as const) {
      expect(preview.changes.map(keyOf).sort(), who).toEqual([...r.before.keys()].sort());
      for (const c of preview.changes) {
        const key = keyOf(c);
        if (who === "read-only" && key === withDefault) continue;
        const expected = realDiff(c, r.before.get(key)!, r.after.get(key)!);
        if (c.diff !== expected) mismatches.push(`${who} preview of ${key} shows:\n${c.diff ?? "(no diff)"}\nthe apply changed:\n${expected ?? "(nothing)"}`);
        const operation = real.get(key)!.written ? "update" : "noop";
        if (c.operation !== operation) mismatches.push(`${who} preview of ${key}: ${c.operation}, the apply made it an ${operation}`);
      }
    }
    expect(mismatches, mismatches.join("\n\n")).toEqual([]);
    const local = r.readOnly.changes.find((c) => keyOf(c) === withDefault);
    expect(local?.diff?.split("\n").filter((l) => /^[-+] /.test(l))).toEqual(["-  sessionAffinity: None"]);
    expect(r.readOnly.local).toContain("it cannot show what admission webhooks or the server's defaulting would change");

    // The dry runs' object lines are the apply's own.
    expect(objectLines(r.adminDry)).toEqual(objectLines(r.applied));
    expect(objectLines(r.readerDry)).toEqual(objectLines(r.applied));
    // kubectl's server-side diff (which makes no migration) shows the same two fields and no removal.
    // kubectl's server-side diff (no migration: the client-side applier keeps its fields) removes
    // no field either; besides its own last-applied annotation, it changes the team annotation.
    expect(r.yardstick.code, printed(r.yardstick)).toBe(1);
    const removed = r.yardstick.stdout.split("\n").filter((l) => l.startsWith("-") && !l.startsWith("---") && !l.includes('{"apiVersion":') && !/^-\s+generation:/.test(l));
    expect(removed, r.yardstick.stdout).toEqual(["-    example.com/team: a"]);
  });
});
