// A throw-away PKI for the local cluster: one CA, the apiserver's serving cert, an admin client cert
// (group system:masters) and the service-account signing key. openssl does the work.

import { execFile } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

async function openssl(dir: string, args: string[]): Promise<void> {
  try {
    await run("openssl", args, { cwd: dir });
  } catch (err) {
    const e = err as { code?: string | number; stderr?: string };
    if (e.code === "ENOENT") throw new Error("'openssl' is not on PATH; install it (Debian: apt-get install openssl) to start the local cluster");
    throw new Error(`openssl ${args[0]} failed: ${e.stderr ?? String(err)}`);
  }
}

export async function createPki(dir: string): Promise<void> {
  const days = ["-days", "3650"];
  await openssl(dir, ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.crt", ...days, "-subj", "/CN=kpt-ts-local-ca"]);
  await writeFile(
    join(dir, "server.ext"),
    "subjectAltName=IP:127.0.0.1,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,IP:10.96.0.1\nextendedKeyUsage=serverAuth,clientAuth\n",
  );
  await writeFile(join(dir, "client.ext"), "extendedKeyUsage=clientAuth\n");
  await openssl(dir, ["req", "-newkey", "rsa:2048", "-nodes", "-keyout", "apiserver.key", "-out", "apiserver.csr", "-subj", "/CN=kube-apiserver"]);
  await openssl(dir, ["x509", "-req", "-in", "apiserver.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial", "-out", "apiserver.crt", ...days, "-extfile", "server.ext"]);
  await openssl(dir, ["req", "-newkey", "rsa:2048", "-nodes", "-keyout", "admin.key", "-out", "admin.csr", "-subj", "/O=system:masters/CN=kpt-ts-admin"]);
  await openssl(dir, ["x509", "-req", "-in", "admin.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial", "-out", "admin.crt", ...days, "-extfile", "client.ext"]);
  await openssl(dir, ["genrsa", "-out", "sa.key", "2048"]);
  await openssl(dir, ["rsa", "-in", "sa.key", "-pubout", "-out", "sa.pub"]);
}
