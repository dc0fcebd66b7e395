// No output of any command, in any format or log level, ever shows a Secret's values. A package
// of Secrets whose values carry random markers (in `data`, in `stringData`, multi-line) goes
// through every command and output format, a failure the server rejects, a field-manager
// conflict, an inventory conflict, a forbidden user and a bad-input refusal; every stdout and
// stderr is searched for the markers, raw and base64-encoded.
import { randomBytes } from "node:crypto";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { writePackage } from "../helpers/fixtures.js";
import { createServiceAccount, serviceAccountKubeconfig } from "../helpers/credentials.js";
import { createNamespace, kptTs, kubectl, type RunResult } from "../helpers/run.js";
import { configMap, docs, getObject, printed } from "../helpers/scenario.js";

const b64 = (s: string): string => Buffer.from(s).toString("base64");

/** A random marker whose length is a multiple of 3, so its base64 appears whole inside any base64 of a value starting with it. */
const marker = (tag: string): string => `${tag}${randomBytes(12).toString("hex").toUpperCase()}`.slice(0, 27);

interface Markers {
  all: string[];
}

/** Every way a marker could show: as is, or base64-encoded (each value starts with its marker, so the encoding is a prefix). */
function forms(markers: string[]): string[] {
  return markers.flatMap((m) => [m, b64(m)]);
}

function expectNoSecrets(r: RunResult, m: Markers, what: string): void {
  for (const form of forms(m.all)) {
    expect(r.stdout.includes(form), `${what}: stdout shows a Secret value (${form})\n${printed(r)}`).toBe(false);
    expect(r.stderr.includes(form), `${what}: stderr shows a Secret value (${form})\n${printed(r)}`).toBe(false);
  }
}

const rg = (ns: string) => `apiVersion: kpt.dev/v1alpha1\nkind: ResourceGroup\nmetadata:\n  name: inventory-secrets\n  namespace: ${ns}\n  labels:\n    cli-utils.sigs.k8s.io/inventory-id: secrets-${ns}\n`;

function secrets(ns: string, v: { token: string; password: string; pem: string; docker: string; base64: string }): string {
  return docs(
    `apiVersion: v1\nkind: Secret\nmetadata:\n  name: app\n  namespace: ${ns}\ndata:\n  token: ${b64(v.token)}\nstringData:\n  password: ${v.password}\n  cert.pem: |\n${v.pem
      .split("\n")
      .map((l) => `    ${l}`)
      .join("\n")}\n`,
    // Refused by the server: .dockerconfigjson must be JSON (the server's message must not carry the value either).
    `apiVersion: v1\nkind: Secret\nmetadata:\n  name: registry\n  namespace: ${ns}\ntype: kubernetes.io/dockerconfigjson\nstringData:\n  .dockerconfigjson: "${v.docker} is not json"\n`,
    configMap("plain", ns),
  );
}

/** Data that is not base64: refused as bad input before the cluster is touched (the server would refuse it while decoding). */
const undecodable = (ns: string, v: { base64: string }) => `apiVersion: v1\nkind: Secret\nmetadata:\n  name: undecodable\n  namespace: ${ns}\ndata:\n  key: "${v.base64}*not*base64"\n`;

function values(tag: string) {
  const pemMarker = marker(`${tag}PEM`);
  return {
    token: marker(`${tag}TOK`),
    password: marker(`${tag}PWD`),
    pem: `${pemMarker}\n-----BEGIN PRIVATE KEY-----\n${marker(`${tag}KEY`)}\n-----END PRIVATE KEY-----`,
    docker: marker(`${tag}DCK`),
    base64: marker(`${tag}B64`),
  };
}

function markersOf(v: ReturnType<typeof values>): string[] {
  return [v.token, v.password, ...v.pem.split("\n").filter((l) => !l.startsWith("-----")), v.docker, v.base64];
}

describe("Secret values never reach the output", () => {
  it("through every command, output format and log level, failures and conflicts included", async () => {
    const ns = await createNamespace("e2e-secrets");
    const first = values("A");
    const second = values("B");
    const other = marker("OTHER");
    const m: Markers = { all: [...markersOf(first), ...markersOf(second), other] };
    const dir = await writePackage({ "resourcegroup.yaml": rg(ns), "secrets.yaml": secrets(ns, first) });
    const run = async (what: string, args: string[], opts: Parameters<typeof kptTs>[1] = {}): Promise<RunResult> => {
      const r = await kptTs(args, opts);
      expectNoSecrets(r, m, what);
      return r;
    };

    // Before anything exists: previews.
    await run("diff before the first apply", ["live", "diff", dir]);
    await run("diff --output json before the first apply", ["live", "diff", "--output", "json", dir]);
    await run("apply --dry-run", ["live", "apply", "--dry-run", dir]);
    await run("apply --dry-run --output json", ["live", "apply", "--dry-run", "--output", "json", dir]);
    await run("apply --server-side --dry-run --output json", ["live", "apply", "--server-side", "--dry-run", "--output", "json", dir]);

    // The first apply: one Secret is refused by the server (exit 3), the others created.
    const applied = await run("apply", ["live", "apply", "-v", "--show-status-events", dir]);
    expect(applied.code, printed(applied)).toBe(3);
    expect(applied.stdout).toMatch(/secret\/registry apply failed: .*Secret "registry" is invalid/);
    expect(applied.stdout).toContain("secret/app created");
    const live = await getObject("secrets", "app", ns);
    expect(Buffer.from(live?.data.password ?? "", "base64").toString()).toBe(first.password);

    for (const output of ["json", "table", "events"]) await run(`apply --output ${output} (again)`, ["live", "apply", "--output", output, dir]);
    for (const output of ["events", "table", "json"]) await run(`status --output ${output}`, ["live", "status", "--output", output, dir]);

    // New values: what diff and a dry run show of a change.
    await writeFile(join(dir, "secrets.yaml"), secrets(ns, second));
    await run("diff of changed values", ["live", "diff", dir]);
    await run("diff --output json of changed values", ["live", "diff", "--output", "json", dir]);
    await run("diff --server-side of changed values", ["live", "diff", "--server-side", dir]);
    await run("apply --dry-run of changed values", ["live", "apply", "--dry-run", "--output", "json", dir]);
    await run("apply of changed values", ["live", "apply", "--output", "json", "--show-status-events", dir]);
    await run("server-side apply of changed values (takes over from client-side apply)", ["live", "apply", "--server-side", "--force-conflicts", "-v", dir]);

    // A field-manager conflict on the Secret's value: another manager now owns data.token.
    const taken = await kubectl(["apply", "--server-side", "--force-conflicts", "--field-manager", "someone-else", "-f", "-"], {
      input: `apiVersion: v1\nkind: Secret\nmetadata:\n  name: app\n  namespace: ${ns}\ndata:\n  token: ${b64(other)}\n`,
    });
    expect(taken.code, taken.stderr).toBe(0);
    const conflict = await run("server-side apply conflict", ["live", "apply", "--server-side", "-v", dir]);
    expect(conflict.code, printed(conflict)).toBe(3);
    expect(conflict.stdout).toMatch(/secret\/app apply failed: .*conflict/i);
    await run("server-side apply conflict, json", ["live", "apply", "--server-side", "--output", "json", dir]);
    await run("diff --server-side with a conflict", ["live", "diff", "--server-side", "--output", "json", dir]);

    // An inventory conflict: the same Secret in a package with another inventory.
    const thief = await writePackage({ "resourcegroup.yaml": rg(ns).replace("inventory-secrets", "inventory-thief").replace(`secrets-${ns}`, `thief-${ns}`), "secrets.yaml": secrets(ns, second) });
    const refused = await run("apply of a Secret another inventory owns", ["live", "apply", "--output", "json", thief]);
    expect(refused.code, printed(refused)).not.toBe(0);
    await run("diff of a Secret another inventory owns", ["live", "diff", thief]);

    // A user who may read but not write: errors with -v.
    await createServiceAccount(ns, "reader", [
      { apiGroups: [""], resources: ["secrets", "configmaps"], verbs: ["get", "list", "watch"] },
      { apiGroups: ["kpt.dev"], resources: ["resourcegroups"], verbs: ["get", "list", "watch"] },
    ]);
    const reader = await serviceAccountKubeconfig(ns, "reader");
    await run("a forbidden apply, -v", ["live", "apply", "-v", "--kubeconfig", reader, dir]);
    await run("status as a read-only user", ["live", "status", "--output", "json", "--kubeconfig", reader, dir]);

    // Bad input that holds a Secret: the refusal quotes no value.
    const bad = await writePackage({ "resourcegroup.yaml": rg(ns), "secrets.yaml": `${secrets(ns, second)}---\napiVersion: v1\nkind: Secret\nmetadata:\n  name: Bad_Name\n  namespace: ${ns}\nstringData:\n  key: ${second.password}\n  key: ${second.token}\n` });
    const badRun = await run("bad input with Secrets, -v", ["live", "apply", "-v", bad]);
    expect(badRun.code, printed(badRun)).toBe(2);
    const notBase64 = await writePackage({ "resourcegroup.yaml": rg(ns), "secrets.yaml": `${secrets(ns, second)}---\n${undecodable(ns, second)}` });
    const notBase64Run = await run("Secret data that is not base64, -v", ["live", "apply", "-v", notBase64]);
    expect(notBase64Run.code, printed(notBase64Run)).toBe(2);
    expect(notBase64Run.stderr).toContain('Secret/undecodable: data "key" is not base64');

    // And away: previews of the deletion, then the deletion.
    await run("destroy --dry-run", ["live", "destroy", "--dry-run", dir]);
    await run("destroy --output json", ["live", "destroy", "--output", "json", "-v", dir]);
    await run("status after destroy", ["live", "status", dir]);
    expect(await getObject("secrets", "app", ns)).toBeUndefined();
  });
});
