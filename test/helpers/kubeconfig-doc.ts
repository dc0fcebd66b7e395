// A kubeconfig as a plain object, from its clusters, users and contexts given as [name, value].

export interface KubeconfigEntries {
  clusters?: [string, object][];
  users?: [string, object][];
  contexts?: [string, object][];
  current?: string;
}

export function kubeconfigDoc(o: KubeconfigEntries): Record<string, unknown> {
  return {
    apiVersion: "v1",
    kind: "Config",
    clusters: (o.clusters ?? []).map(([name, cluster]) => ({ name, cluster })),
    users: (o.users ?? []).map(([name, user]) => ({ name, user })),
    contexts: (o.contexts ?? []).map(([name, context]) => ({ name, context })),
    ...(o.current ? { "current-context": o.current } : {}),
  };
}
