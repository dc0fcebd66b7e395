// Issue 22: an admission webhook installed by the same package refuses requests until its server
// is up (`failed calling webhook ... connection refused`). kpt-ts retries such a write with
// backoff until the wave's reconcile timeout, and the wait line says which webhook it waits for.
// The webhook here is real: a ValidatingWebhookConfiguration in the package pointing (by URL) at
// a tiny HTTPS server on 127.0.0.1 that the test starts a few seconds into the apply, with a
// certificate the test makes with openssl. It only sees objects carrying this test's label.
import { execFileSync } from "node:child_process";
import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { createServer as createNetServer } from "node:net";
import { createServer, type Server } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startKptTs } from "../helpers/background.js";
import { writePackage } from "../helpers/fixtures.js";
import { createNamespace, hasBinary, kptTs, kubectl } from "../helpers/run.js";
import { configMap, getObject, printed, uniqueName } from "../helpers/scenario.js";

const haveOpenssl = hasBinary("openssl");
if (!haveOpenssl) console.warn("skipping the webhook tests: `openssl` is not on PATH (it makes the webhook's certificate)");

/** A CA and a server certificate for 127.0.0.1, made with openssl. */
async function makeCertificates(): Promise<{ ca: Buffer; cert: Buffer; key: Buffer }> {
  const dir = await mkdtemp(join(tmpdir(), "kpt-ts-webhook-pki-"));
  const sh = (args: string[]) => execFileSync("openssl", args, { cwd: dir, stdio: "pipe" });
  sh(["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.crt", "-days", "1", "-subj", "/CN=kpt-ts e2e webhook CA"]);
  sh(["req", "-newkey", "rsa:2048", "-nodes", "-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=127.0.0.1"]);
  await import("node:fs/promises").then((fs) => fs.writeFile(join(dir, "san.ext"), "subjectAltName=IP:127.0.0.1\n"));
  sh(["x509", "-req", "-in", "server.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial", "-out", "server.crt", "-days", "1", "-extfile", "san.ext"]);
  const [ca, cert, key] = await Promise.all(["ca.crt", "server.crt", "server.key"].map((f) => readFile(join(dir, f))));
  return { ca: ca!, cert: cert!, key: key! };
}

/** A port nobody listens on now (the webhook server takes it later). */
async function freePort(): Promise<number> {
  const s = createNetServer();
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

/** The webhook: allows everything, counts what it saw. */
function startWebhook(pki: { cert: Buffer; key: Buffer }, port: number, seen: string[]): Promise<Server> {
  const server = createServer({ cert: pki.cert, key: pki.key }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const review = JSON.parse(Buffer.concat(chunks).toString("utf8"));
      seen.push(`${review.request.operation} ${review.request.kind.kind}/${review.request.name}`);
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview", response: { uid: review.request.uid, allowed: true } }));
    });
  });
  return new Promise((resolve) => server.listen(port, "127.0.0.1", () => resolve(server)));
}

function webhookConfiguration(name: string, hook: string, port: number, ca: Buffer, label: string): string {
  return JSON.stringify({
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: "ValidatingWebhookConfiguration",
    metadata: { name },
    webhooks: [
      {
        name: hook,
        clientConfig: { url: `https://127.0.0.1:${port}/validate`, caBundle: ca.toString("base64") },
        rules: [{ apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE", "UPDATE"], resources: ["configmaps"] }],
        // Only this test's objects: the shared cluster's other tests never call it.
        objectSelector: { matchLabels: { "kpt-ts.dev/e2e-webhook": label } },
        failurePolicy: "Fail",
        sideEffects: "None",
        admissionReviewVersions: ["v1"],
        timeoutSeconds: 5,
      },
    ],
  }) + "\n";
}

describe.skipIf(!haveOpenssl)("an admission webhook that is not serving yet", () => {
  const cleanup: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const c of cleanup.splice(0).reverse()) await c().catch(() => undefined);
  });

  async function webhookPackage(ns: string) {
    const pki = await makeCertificates();
    const port = await freePort();
    const vwc = uniqueName("e2e-webhook");
    const hook = `validate.${vwc}.kpt-ts.dev`;
    const dir = await writePackage({ "webhook.yaml": webhookConfiguration(vwc, hook, port, pki.ca, vwc) });
    expect((await kptTs(["live", "init", "--namespace", ns, dir])).code).toBe(0);
    cleanup.push(() => kptTs(["live", "destroy", dir]));
    // The package's webhook configuration first, until the API server enforces it: it picks up a
    // new configuration a moment after storing it, and an object created in that moment is not
    // checked at all (which is what a one-step apply of both raced into on a busy machine).
    expect((await kptTs(["live", "apply", dir])).code).toBe(0);
    await untilEnforced(ns, vwc);
    // Then the object it guards, after the webhook's configuration, as a package that installs both would.
    await writeFile(join(dir, "cm.yaml"), configMap("guarded", ns, { k: "v" }, { labels: { "kpt-ts.dev/e2e-webhook": vwc }, annotations: { "config.kubernetes.io/depends-on": `admissionregistration.k8s.io/ValidatingWebhookConfiguration/${vwc}` } }));
    return { pki, port, hook, dir };
  }

  /** Until a server-side dry run of a ConfigMap the webhook selects is refused for want of the webhook. */
  async function untilEnforced(ns: string, label: string): Promise<void> {
    const probe = configMap("probe", ns, { k: "v" }, { labels: { "kpt-ts.dev/e2e-webhook": label } });
    for (const started = Date.now(); Date.now() - started < 30_000; ) {
      const r = await kubectl(["create", "--dry-run=server", "-f", "-"], { input: probe });
      if (r.code !== 0 && /failed calling webhook/.test(r.stderr)) return;
      await new Promise((done) => setTimeout(done, 200));
    }
    throw new Error(`the API server did not enforce webhook configuration ${label} within 30 s`);
  }

  it("retries the refused write until the webhook serves, naming it while it waits", async () => {
    const ns = await createNamespace("e2e-webhook-late");
    const { pki, port, hook, dir } = await webhookPackage(ns);
    const seen: string[] = [];
    const run = startKptTs(["live", "apply", "--reconcile-timeout=2m", dir]);
    cleanup.push(async () => run.kill());
    // The first refusal, named: the webhook, and why it cannot be called.
    await run.waitForOutput(new RegExp(`configmap/guarded waiting: admission webhook "${hook.replace(/\./g, "\\.")}" not reachable yet \\(connection refused\\)`), { stream: "stderr", timeoutMs: 60_000 });
    await new Promise((r) => setTimeout(r, 3_000));
    const server = await startWebhook(pki, port, seen);
    cleanup.push(() => new Promise((r) => server.close(r)));
    const serving = Date.now();
    const done = await run.done;
    expect(done.code, printed(done)).toBe(0);
    expect(done.stdout).toContain("configmap/guarded created");
    expect(seen).toContain("CREATE ConfigMap/guarded");
    expect((await getObject("configmap", "guarded", ns))?.data).toEqual({ k: "v" });
    // The backoff is at most 8 s between tries.
    expect(Date.now() - serving).toBeLessThan(15_000);
    console.log(`webhook served ${Date.now() - serving} ms before the apply ended; tries refused: ${(done.stderr.match(/not reachable yet/g) ?? []).length} reason line(s)`);
  });

  it("gives up at the reconcile timeout, saying which webhook and what to do", async () => {
    const ns = await createNamespace("e2e-webhook-never");
    const { hook, dir } = await webhookPackage(ns);
    const started = Date.now();
    const r = await kptTs(["live", "apply", "--reconcile-timeout=10s", dir]);
    const elapsed = Date.now() - started;
    expect(r.code, printed(r)).toBe(3);
    expect(r.stdout).toMatch(new RegExp(`configmap/guarded apply failed: .*failed calling webhook "${hook.replace(/\./g, "\\.")}".*connection refused.*; admission webhook "${hook.replace(/\./g, "\\.")}" was still not reachable \\(connection refused\\) after retrying for 10s \\(--reconcile-timeout\\): check the webhook's Service and Pods, or raise --reconcile-timeout`));
    expect(r.stderr).toContain(`configmap/guarded waiting: admission webhook "${hook}" not reachable yet (connection refused)`);
    // Retried for the wave's timeout, not more.
    expect(elapsed).toBeGreaterThan(6_000);
    expect(elapsed).toBeLessThan(40_000);
    expect(await getObject("configmap", "guarded", ns)).toBeUndefined();
  });
});
