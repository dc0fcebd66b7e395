// The dependency graph and its waves (cli-utils pkg/object/graph). An object waits for what it
// names in depends-on, for the Namespace it lives in and for the CRD defining its kind, when
// those are in the set. Waves come from Kahn peeling: every object whose dependencies are all
// in earlier waves forms the next wave. Linear in objects + edges.

import { formatDependsOnRef, isCrd, refKey } from "../model/ref.js";
import type { ObjRef } from "../model/ref.js";
import type { KubeObject } from "../model/kube-object.js";
import { crdGroupKind } from "../model/kube-object.js";
import { readDependsOn } from "./depends-on.js";
import { compareKindOrder } from "./kind-order.js";

export interface GraphNode {
  ref: ObjRef;
  /** Absent for objects known only by reference (prune candidates): they get no depends-on edges. */
  object?: KubeObject;
}

/** `from` depends on `to`. */
interface DependencyEdge {
  from: ObjRef;
  to: ObjRef;
}

type GraphIssueKind = "cyclic-dependency" | "external-dependency" | "duplicate-dependency" | "invalid-annotation";

export interface GraphIssue {
  kind: GraphIssueKind;
  /** The objects at fault, in kind order. */
  objects: ObjRef[];
  edges: DependencyEdge[];
  /** cli-utils' text, e.g. `external dependency: /namespaces/ns/Pod/a -> /namespaces/ns/Pod/b`. */
  message: string;
  /** What to do about it. */
  hint?: string;
}

interface OrderedWaves {
  /** Each wave in kind order. Objects caught in or behind a cycle are in no wave. */
  waves: ObjRef[][];
  /** refKey(object) -> what it waits for (depends-on, its Namespace, its CRD); objects waiting for nothing are absent. */
  dependencies: Map<string, ObjRef[]>;
  issues: GraphIssue[];
}

export function orderWaves(nodes: readonly GraphNode[]): OrderedWaves {
  const graph = buildGraph(nodes);
  const { waves, leftover } = peelWaves(graph);
  const issues = [...graph.issues, ...describeCycles(graph, leftover)];
  const dependencies = new Map<string, ObjRef[]>();
  graph.deps.forEach((deps, i) => {
    if (deps.size > 0) dependencies.set(refKey(graph.refs[i]!), [...deps].map((d) => graph.refs[d]!));
  });
  return { waves: waves.map((w) => w.map((i) => graph.refs[i]!)), dependencies, issues };
}

/** The order for deleting: last wave first, each wave back to front (dependents before what they need). */
export function reverseWaves(waves: readonly (readonly ObjRef[])[]): ObjRef[][] {
  return waves.map((w) => [...w].reverse()).reverse();
}

interface Graph {
  refs: ObjRef[];
  /** deps[i]: the vertices i depends on. */
  deps: Set<number>[];
  /** dependents[j]: the vertices depending on j. */
  dependents: number[][];
  issues: GraphIssue[];
}

function buildGraph(nodes: readonly GraphNode[]): Graph {
  const index = new Map<string, number>();
  const refs: ObjRef[] = [];
  const objects: (KubeObject | undefined)[] = [];
  for (const n of nodes) {
    const key = refKey(n.ref);
    if (index.has(key)) continue;
    index.set(key, refs.length);
    refs.push(n.ref);
    objects.push(n.object);
  }
  const g: Graph = { refs, deps: refs.map(() => new Set()), dependents: refs.map(() => []), issues: [] };
  const addEdge = (from: number, to: number): void => {
    if (g.deps[from]!.has(to)) return;
    g.deps[from]!.add(to);
    g.dependents[to]!.push(from);
  };
  addDependsOnEdges(g, objects, index, addEdge);
  addNamespaceEdges(g, addEdge);
  addCrdEdges(g, objects, addEdge);
  return g;
}

function addDependsOnEdges(g: Graph, objects: (KubeObject | undefined)[], index: Map<string, number>, addEdge: (from: number, to: number) => void): void {
  // For "did you mean": the same object in another namespace (or scope) is the usual slip.
  const byName = new Map<string, ObjRef[]>();
  for (const r of g.refs) {
    const k = `${r.group}/${r.kind}/${r.name}`;
    const list = byName.get(k);
    if (list) list.push(r);
    else byName.set(k, [r]);
  }
  objects.forEach((object, from) => {
    if (!object) return;
    const fromRef = g.refs[from]!;
    const parsed = readDependsOn(object);
    if (!parsed.ok) {
      g.issues.push({ kind: "invalid-annotation", objects: [fromRef], edges: [], message: parsed.message });
      return;
    }
    const seen = new Set<string>();
    for (const to of parsed.refs) {
      const key = refKey(to);
      const edge = { from: fromRef, to };
      const text = `${formatDependsOnRef(fromRef)} -> ${formatDependsOnRef(to)}`;
      if (seen.has(key)) {
        g.issues.push({ kind: "duplicate-dependency", objects: [fromRef], edges: [edge], message: `duplicate dependency: ${text}`, hint: "list each dependency once" });
        continue;
      }
      seen.add(key);
      const target = index.get(key);
      if (target === undefined) {
        const near = byName.get(`${to.group}/${to.kind}/${to.name}`)?.[0];
        g.issues.push({
          kind: "external-dependency",
          objects: [fromRef],
          edges: [edge],
          message: `external dependency: ${text}`,
          hint: near
            ? `did you mean "${formatDependsOnRef(near)}"? depends-on references are not defaulted to the object's namespace`
            : `only objects of this package can be waited for: add ${formatDependsOnRef(to)} to the package or remove it from the depends-on annotation`,
        });
        continue;
      }
      addEdge(from, target);
    }
  });
}

function addNamespaceEdges(g: Graph, addEdge: (from: number, to: number) => void): void {
  const namespaces = new Map<string, number>();
  g.refs.forEach((r, i) => {
    if (r.group === "" && r.kind === "Namespace") namespaces.set(r.name, i);
  });
  g.refs.forEach((r, i) => {
    const ns = r.namespace ? namespaces.get(r.namespace) : undefined;
    if (ns !== undefined && ns !== i) addEdge(i, ns);
  });
}

function addCrdEdges(g: Graph, objects: (KubeObject | undefined)[], addEdge: (from: number, to: number) => void): void {
  const crds = new Map<string, number>();
  objects.forEach((o, i) => {
    const gk = o && isCrd(g.refs[i]!.group, o.kind) ? crdGroupKind(o) : undefined;
    if (gk) crds.set(`${gk.group}/${gk.kind}`, i);
  });
  if (crds.size === 0) return;
  g.refs.forEach((r, i) => {
    const crd = crds.get(`${r.group}/${r.kind}`);
    if (crd !== undefined && crd !== i) addEdge(i, crd);
  });
}

function peelWaves(g: Graph): { waves: number[][]; leftover: number[] } {
  const pending = g.deps.map((d) => d.size);
  const waves: number[][] = [];
  let wave = pending.flatMap((n, i) => (n === 0 ? [i] : []));
  let placed = 0;
  while (wave.length > 0) {
    wave.sort((a, b) => compareKindOrder(g.refs[a]!, g.refs[b]!));
    waves.push(wave);
    placed += wave.length;
    const next: number[] = [];
    for (const v of wave) {
      for (const d of g.dependents[v]!) if (--pending[d]! === 0) next.push(d);
    }
    wave = next;
  }
  const leftover = placed === g.refs.length ? [] : pending.flatMap((n, i) => (n > 0 ? [i] : []));
  return { waves, leftover };
}

/** Only the edges that form cycles (strongly connected components), not everything stuck behind them. */
function describeCycles(g: Graph, leftover: number[]): GraphIssue[] {
  if (leftover.length === 0) return [];
  return findComponents(g, leftover)
    .filter((c) => c.length > 1 || g.deps[c[0]!]!.has(c[0]!))
    .map((component) => {
      const members = new Set(component);
      const byKind = (a: number, b: number): number => compareKindOrder(g.refs[a]!, g.refs[b]!);
      const edges = [...component].sort(byKind).flatMap((from) =>
        [...g.deps[from]!].filter((to) => members.has(to)).sort(byKind).map((to) => ({ from: g.refs[from]!, to: g.refs[to]! })),
      );
      return {
        kind: "cyclic-dependency" as const,
        objects: [...component].sort(byKind).map((i) => g.refs[i]!),
        edges,
        message: `cyclic dependency:\n${edges.map((e) => `- ${formatDependsOnRef(e.from)} -> ${formatDependsOnRef(e.to)}`).join("\n")}`,
        hint: "remove one of these dependencies (a depends-on annotation) to break the cycle",
      };
    });
}

/** Tarjan's strongly connected components over the given vertices, iteratively (packages can be deep). */
function findComponents(g: Graph, vertices: number[]): number[][] {
  const inSet = new Set(vertices);
  const order = new Map<number, number>();
  const low = new Map<number, number>();
  const onStack = new Set<number>();
  const stack: number[] = [];
  const components: number[][] = [];
  const frames: { v: number; next: Iterator<number> }[] = [];
  let counter = 0;
  const enter = (v: number): void => {
    order.set(v, counter);
    low.set(v, counter++);
    stack.push(v);
    onStack.add(v);
    frames.push({ v, next: g.deps[v]!.values() });
  };
  for (const root of vertices) {
    if (order.has(root)) continue;
    enter(root);
    while (frames.length > 0) {
      const frame = frames[frames.length - 1]!;
      const step = frame.next.next();
      if (!step.done) {
        const w = step.value;
        if (!inSet.has(w)) continue;
        if (!order.has(w)) enter(w);
        else if (onStack.has(w)) low.set(frame.v, Math.min(low.get(frame.v)!, order.get(w)!));
        continue;
      }
      frames.pop();
      const parent = frames[frames.length - 1];
      if (parent) low.set(parent.v, Math.min(low.get(parent.v)!, low.get(frame.v)!));
      if (low.get(frame.v) === order.get(frame.v)) {
        const component: number[] = [];
        let w: number;
        do {
          w = stack.pop()!;
          onStack.delete(w);
          component.push(w);
        } while (w !== frame.v);
        components.push(component);
      }
    }
  }
  return components;
}
