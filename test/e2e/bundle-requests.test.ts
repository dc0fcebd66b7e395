// Issue 30: what a CRD-heavy bundle costs on each run, counted at the wire (a recording proxy in
// front of the shared cluster) and in the parse cache. A re-apply asks the server's dry run about a
// client-side patch it may settle (a CRD's `preserveUnknownFields: false`, which the server omits)
// once per version of the object: the next re-apply sends none. `live status` only reads: no
// write, no WATCH when its first reads settle it (--poll-until known, the default), one list per
// kind. With the cache warm, no run parses a file again (prose full of `*` and `&` included), and
// nothing of the Secret is kept (its document is parsed again from the file).
import { mkdir, mkdtemp, readdir, readFile, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFaultProxy, type FaultProxy } from "../helpers/fault-proxy.js";
import { createNamespace, kptTs, kubeconfig, kubectl } from "../helpers/run.js";
import { printed } from "../helpers/scenario.js";

const GROUP = `req${Date.now().toString(36)}.e2e.kpt-ts.dev`;
const KINDS = ["Alpha", "Beta", "Gamma"];
const SECRET_VALUE = "c3dvcmRmaXNoLWUyZQ==";

/** A CRD as operators publish them: prose with globs and ampersands, and the zero value the server omits. */
function crd(kind: string): string {
  const plural = `${kind.toLowerCase()}s`;
  const props = Array.from({ length: 40 }, (_, i) => `                field${i}:\n                  type: string\n                  description: "Matches *.example.com & *.example.org; R&D's *default* & fallback (${i})."`).join("\n");
  return `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: ${plural}.${GROUP}
spec:
  group: ${GROUP}
  preserveUnknownFields: false
  names: {kind: ${kind}, plural: ${plural}, singular: ${kind.toLowerCase()}, listKind: ${kind}List}
  scope: Namespaced
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          description: A ${kind} selects hosts like *.example.com & *.example.org.
          properties:
            spec:
              type: object
              properties:
${props}
`;
}

let proxy: FaultProxy;
let env: Record<string, string>;
let dir: string;
let parseCache: string;
let httpCache: string;

/** The requests `step` sends through the proxy. */
async function sent(step: () => Promise<void>): Promise<{ method: string; path: string }[]> {
  const from = proxy.stats.log.length;
  await step();
  return proxy.stats.log.slice(from);
}

const isDryRunPatch = (r: { method: string; path: string }) => r.method === "PATCH" && /[?&]dryRun=All/.test(r.path);

beforeAll(async () => {
  proxy = await startFaultProxy(kubeconfig());
  const ns = await createNamespace("e2e-bundle-req");
  const config = join(await mkdtemp(join(tmpdir(), "kpt-ts-req-kc-")), "config");
  await writeFile(config, await readFile(proxy.kubeconfig, "utf8"), { mode: 0o600 });
  const set = await kubectl(["config", "set-context", "--current", `--namespace=${ns}`, "--kubeconfig", config]);
  expect(set.code, set.stderr).toBe(0);
  parseCache = await mkdtemp(join(tmpdir(), "kpt-ts-req-parsed-"));
  httpCache = await mkdtemp(join(tmpdir(), "kpt-ts-req-http-"));
  env = { KUBECONFIG: config, KPT_TS_PARSE_CACHE: parseCache, KPT_TS_HTTP_CACHE: httpCache };
  dir = join(await mkdtemp(join(tmpdir(), "kpt-ts-req-pkg-")), "bundle");
  await mkdir(dir);
  await writeFile(join(dir, "crds.yaml"), KINDS.map(crd).join("---\n"));
  await writeFile(join(dir, "app.yaml"), `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  hosts: "*.example.com & more"\n`);
  await writeFile(join(dir, "secret.yaml"), `apiVersion: v1\nkind: Secret\nmetadata:\n  name: creds\ndata:\n  password: ${SECRET_VALUE}\n`);
  const init = await kptTs(["live", "init", "--name", "bundle-req", dir], { env });
  expect(init.code, printed(init)).toBe(0);
}, 120_000);

afterAll(async () => {
  if (dir) await kptTs(["live", "destroy", dir], { env });
  await proxy?.close();
}, 120_000);

describe("a CRD bundle, run after run", () => {
  it("a re-apply dry-runs a patch the server may settle once per version of the object; the next re-apply sends none and writes nothing", async () => {
    const apply = await kptTs(["live", "apply", "--reconcile-timeout=1m", dir], { env });
    expect(apply.code, printed(apply)).toBe(0);
    expect(apply.stdout).toContain("5 resource(s) applied. 5 created");

    // The first re-apply asks the server about each CRD's patch (it adds `preserveUnknownFields: false`, which the server omits).
    let again = apply;
    const first = await sent(async () => {
      again = await kptTs(["live", "apply", "--reconcile-timeout=1m", dir], { env });
    });
    expect(again.code, printed(again)).toBe(0);
    expect(again.stdout).toContain("5 resource(s) applied. 0 created, 5 unchanged, 0 configured");
    expect(first.filter(isDryRunPatch).map((r) => r.path.split("?")[0]!.split("/").at(-1)).sort(), "dry runs of the CRDs' patches").toEqual(KINDS.map((k) => `${k.toLowerCase()}s.${GROUP}`).sort());

    const second = await sent(async () => {
      again = await kptTs(["live", "apply", "--reconcile-timeout=1m", dir], { env });
    });
    expect(again.code, printed(again)).toBe(0);
    expect(again.stdout).toContain("5 resource(s) applied. 0 created, 5 unchanged, 0 configured");
    // Nothing written, and no dry run asked again: the answers of the run before are kept.
    expect(second.filter((r) => r.method !== "GET"), "requests other than reads").toEqual([]);
  });

  it("a re-apply after the object changed asks again, once (its resourceVersion moved)", async () => {
    const name = `alphas.${GROUP}`;
    const label = await kubectl(["label", "crd", name, "touched=yes"]);
    expect(label.code, label.stderr).toBe(0);
    let again: Awaited<ReturnType<typeof kptTs>> | undefined;
    const run = () =>
      sent(async () => {
        again = await kptTs(["live", "apply", "--reconcile-timeout=1m", dir], { env });
        expect(again.code, printed(again)).toBe(0);
      });
    expect((await run()).filter(isDryRunPatch).map((r) => r.path.split("?")[0]!.split("/").at(-1))).toEqual([name]);
    expect((await run()).filter(isDryRunPatch)).toEqual([]);
  });

  it("live status only reads: no write, no WATCH, one list per kind, and no file parsed again", async () => {
    const [cacheFile] = (await readdir(parseCache)).filter((f) => f.endsWith(".json"));
    const before = await stat(join(parseCache, cacheFile!));
    let status = await kptTs(["live", "status", dir], { env });
    const requests = await sent(async () => {
      status = await kptTs(["live", "status", dir], { env });
    });
    expect(status.code, printed(status)).toBe(0);
    for (const kind of KINDS) expect(status.stdout).toContain(`customresourcedefinition.apiextensions.k8s.io/${kind.toLowerCase()}s.${GROUP} is Current`);
    expect(requests.filter((r) => r.method !== "GET"), "writes").toEqual([]);
    expect(requests.filter((r) => /[?&]watch=(true|1)/.test(r.path)), "watches").toEqual([]);
    const lists = requests.map((r) => r.path.split("?")[0]!).filter((p) => /\/(customresourcedefinitions|configmaps|secrets)$/.test(p));
    expect(lists.sort()).toEqual([...new Set(lists)].sort());
    // The package's parses came from the cache: its file was not written again.
    expect((await stat(join(parseCache, cacheFile!))).mtimeMs).toBe(before.mtimeMs);
    console.log(`live status of a ${KINDS.length}-CRD bundle sent ${requests.length} requests: ${requests.map((r) => `${r.method} ${r.path}`).join(", ")}`);
  });

  it("keeps every file in the parse cache, nothing of the Secret's but its lines, and no Secret's value in the HTTP cache", async () => {
    const files = await readdir(parseCache);
    const stored = await Promise.all(files.filter((f) => f.endsWith(".json")).map((f) => readFile(join(parseCache, f), "utf8")));
    expect(stored).toHaveLength(1);
    const entries = Object.values(JSON.parse(stored[0]!).entries) as { documents: { value: { kind?: string } | null; parseAgain?: boolean }[] }[];
    // Every file is kept; the Secret's document as its lines alone (parsed again from the file).
    expect(entries.flatMap((e) => e.documents.map((d) => d.value?.kind ?? (d.parseAgain ? "(parsed again)" : "?"))).sort()).toEqual(["(parsed again)", "ConfigMap", "CustomResourceDefinition", "CustomResourceDefinition", "CustomResourceDefinition", "ResourceGroup"].sort());
    const http = (await readdir(httpCache, { recursive: true, withFileTypes: true })).filter((f) => f.isFile());
    const texts = await Promise.all(http.map((f) => readFile(join(f.parentPath, f.name), "utf8")));
    expect(texts.join("")).not.toContain(SECRET_VALUE);
    expect(stored[0]).not.toContain(SECRET_VALUE);
  });
});
