// Namespaces the run needs that are not there. An object (or the inventory) in a namespace that
// neither exists in the cluster nor comes with the package fails at the server, after the
// inventory was written (`namespaces "x" not found`): it is found here instead, before the first
// write and in dry runs too, as bad input naming the file and line. A namespace where the run
// already found an object exists without asking; for the others, a Namespace is cluster-scoped,
// so the run reads it only if this identity may (a team with one namespace's Role may not: its
// runs then make no cluster-scoped read, and a missing namespace is left to the server).

import type { Cluster } from "../cluster/types.js";
import { PackageError, type PackageIssue } from "../model/errors.js";
import type { InventoryInfo, PackageObject, SourcePos } from "../model/kube-object.js";

interface NamespaceUser {
  /** Where it is named: computed only for a namespace that is missing (an object's line costs a parse with positions). */
  source: () => SourcePos;
  object: string;
}

interface CheckOptions {
  /** Namespaces known to exist: the run found an object (or its inventory) in them. */
  found: ReadonlySet<string>;
  signal?: AbortSignal;
}

/** Throws a PackageError naming, for each missing namespace, the first object (or the inventory) in it. */
export async function refuseMissingNamespaces(objects: readonly PackageObject[], inventory: InventoryInfo, cluster: Cluster, o: CheckOptions): Promise<void> {
  const { found, signal } = o;
  const created = new Set(objects.filter((po) => po.object.apiVersion === "v1" && po.object.kind === "Namespace").map((po) => po.object.metadata.name));
  const users = new Map<string, NamespaceUser[]>();
  const use = (ns: string | undefined, user: NamespaceUser) => {
    if (!ns || created.has(ns) || found.has(ns)) return;
    const list = users.get(ns);
    if (list) list.push(user);
    else users.set(ns, [user]);
  };
  for (const po of objects) {
    use(po.object.metadata.namespace, { source: () => ({ ...po.source, line: po.lineOf?.(["metadata", "namespace"]) ?? po.source.line }), object: `${po.object.kind}/${po.object.metadata.name ?? ""}` });
  }
  use(inventory.namespace, { source: () => ({ ...inventory.source, line: inventory.namespaceLine?.() ?? inventory.source.line }), object: inventory.origin === "kptfile" ? "Kptfile" : `ResourceGroup/${inventory.name}` });
  if (!users.size) return;
  const absent = await Promise.all(
    [...users.keys()].map(async (ns) => {
      // Undefined (the server cannot tell): read, as before access reviews existed.
      const mayRead = await cluster.accessReview?.({ verb: "get", group: "", kind: "Namespace", namespace: "", name: ns }, signal);
      if (mayRead?.allowed === false) return undefined;
      const there = await cluster.get({ group: "", kind: "Namespace", namespace: "", name: ns }, signal, { metadataOnly: true }).then(
        (o) => o !== undefined,
        () => true,
      );
      return there ? undefined : ns;
    }),
  );
  const issues = absent.filter((ns): ns is string => ns !== undefined).map((ns) => missingNamespaceIssue(ns, users.get(ns)!));
  if (issues.length) throw new PackageError(issues);
}

function missingNamespaceIssue(ns: string, users: NamespaceUser[]): PackageIssue {
  const [first] = users;
  const more = users.length > 1 ? ` (${users.length} objects of the package are in it)` : "";
  return {
    source: first!.source(),
    object: first!.object,
    message: `namespace "${ns}" does not exist in the cluster, and the package does not create it${more}: create it (kubectl create namespace ${ns}), add a Namespace object for it to the package, or fix metadata.namespace`,
  };
}
