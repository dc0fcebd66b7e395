// One adapter per tool: the commands that apply a package, re-apply it unchanged, apply its changed
// variant (which prunes), and destroy it. Each runs in its own namespace; the package directories
// already name that namespace on every object.

import { createHash } from "node:crypto";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { kptTsBin, type Command } from "./measure.js";

export type Phase = "apply" | "noop" | "change" | "destroy";
export const PHASES: Phase[] = ["apply", "noop", "change", "destroy"];

export type ToolId = "kpt-ts" | "kpt-ts-ssa" | "kpt" | "kubectl" | "kapp" | "bare";

export interface PackageDirs {
  namespace: string;
  base: string;
  /** The same package with 10% of the objects changed and 25% removed. */
  changed: string;
}

export interface Tool {
  id: ToolId;
  label: string;
  /** The package carries a Kptfile and an inventory (resourcegroup.yaml, written by `init`). */
  kptPackage: boolean;
  /** Untimed, once per generated package. */
  init?: (dir: string) => Command;
  steps: (phase: Phase, pkg: PackageDirs) => Command[];
  /** What the numbers include, for the report. */
  notes: string[];
}

export interface ToolContext {
  repo: string;
  concurrency: number;
  reconcileTimeout: string;
  kappBin?: string;
  bareLoop: string;
}

function kptTs(ctx: ToolContext, serverSide: boolean): Tool {
  const cli = ["node", kptTsBin(ctx.repo), "live"];
  const conc = [`--concurrency=${ctx.concurrency}`];
  const apply = (dir: string) => [...cli, "apply", dir, `--reconcile-timeout=${ctx.reconcileTimeout}`, ...conc, ...(serverSide ? ["--server-side"] : [])];
  return {
    id: serverSide ? "kpt-ts-ssa" : "kpt-ts",
    label: serverSide ? "kpt-ts --server-side" : "kpt-ts",
    kptPackage: true,
    init: (dir) => ({ argv: [...cli, "init", dir, "--quiet"] }),
    steps: (phase, pkg) => {
      if (phase === "destroy") return [{ argv: [...cli, "destroy", pkg.changed, ...conc] }];
      return [{ argv: apply(phase === "change" ? pkg.changed : pkg.base) }];
    },
    notes: [`live apply --reconcile-timeout=${ctx.reconcileTimeout} --concurrency=${ctx.concurrency}${serverSide ? " --server-side" : ""}; live destroy`],
  };
}

function kpt(ctx: ToolContext): Tool {
  const apply = (dir: string) => ["kpt", "live", "apply", dir, `--reconcile-timeout=${ctx.reconcileTimeout}`];
  return {
    id: "kpt",
    label: "kpt",
    kptPackage: true,
    init: (dir) => ({ argv: ["kpt", "live", "init", dir] }),
    steps: (phase, pkg) => {
      if (phase === "destroy") return [{ argv: ["kpt", "live", "destroy", pkg.changed] }];
      return [{ argv: apply(phase === "change" ? pkg.changed : pkg.base) }];
    },
    notes: [`kpt live apply --reconcile-timeout=${ctx.reconcileTimeout}; kpt live destroy`],
  };
}

const APPLYSET_PARENT = "bench-applyset";

/** The parent's applyset id as kubectl computes it: base64url(sha256("<name>.<namespace>.<Kind>.<group>")). */
function applysetId(namespace: string): string {
  return `applyset-${createHash("sha256").update(`${APPLYSET_PARENT}.${namespace}.ConfigMap.`).digest("base64url")}-v1`;
}

function kubectl(ctx: ToolContext): Tool {
  const env = { KUBECTL_APPLYSET: "true" };
  const apply = (pkg: PackageDirs, dir: string): Command[] => [
    { argv: ["kubectl", "apply", "-n", pkg.namespace, "--prune", `--applyset=configmaps/${APPLYSET_PARENT}`, "-f", dir], env },
    { argv: ["kubectl", "wait", "-n", pkg.namespace, "--for=condition=Available", "deployment", "--all", `--timeout=${ctx.reconcileTimeout}`] },
  ];
  return {
    id: "kubectl",
    label: "kubectl applyset",
    kptPackage: false,
    steps: (phase, pkg) => {
      if (phase === "destroy") {
        const selector = `applyset.kubernetes.io/part-of=${applysetId(pkg.namespace)}`;
        return [
          { argv: ["kubectl", "delete", "-n", pkg.namespace, "configmaps,services,deployments.apps", "-l", selector] },
          { argv: ["kubectl", "delete", "-n", pkg.namespace, "configmap", APPLYSET_PARENT] },
        ];
      }
      return apply(pkg, phase === "change" ? pkg.changed : pkg.base);
    },
    notes: [
      "KUBECTL_APPLYSET=true kubectl apply --prune --applyset=configmaps/NAME, then kubectl wait --for=condition=Available deployment --all (kubectl has no wait of its own; after the change, Available is already true while the rollout runs)",
      "destroy: kubectl delete -l applyset.kubernetes.io/part-of=ID (waits for each object to be gone), then the parent ConfigMap",
    ],
  };
}

function kapp(ctx: ToolContext, bin: string): Tool {
  return {
    id: "kapp",
    label: "kapp",
    kptPackage: false,
    steps: (phase, pkg) => {
      if (phase === "destroy") return [{ argv: [bin, "delete", "-a", "bench", "-n", pkg.namespace, "-y"] }];
      return [{ argv: [bin, "deploy", "-a", "bench", "-n", pkg.namespace, "-f", phase === "change" ? pkg.changed : pkg.base, "-y"] }];
    },
    notes: ["kapp deploy -y (waits by default; its own defaults: --apply-concurrency=5, --wait-check-interval=3s); kapp delete -y"],
  };
}

function bare(ctx: ToolContext): Tool {
  const loop = ["node", ctx.bareLoop];
  const conc = `--concurrency=${ctx.concurrency}`;
  return {
    id: "bare",
    label: "bare loop",
    kptPackage: false,
    steps: (phase, pkg) => {
      if (phase === "destroy") return [{ argv: [...loop, "delete", pkg.changed, conc] }];
      if (phase === "change") return [{ argv: [...loop, "apply", pkg.changed, `--prune-from=${pkg.base}`, conc] }];
      return [{ argv: [...loop, "apply", pkg.base, conc] }];
    },
    notes: [`server-side apply PATCH of every object (DELETE for pruned/destroyed ones) at concurrency ${ctx.concurrency}, no discovery, inventory or waiting`],
  };
}

export function createTools(ctx: ToolContext, only?: ToolId[]): Tool[] {
  const all = [kptTs(ctx, false), kptTs(ctx, true), kpt(ctx), kubectl(ctx), ...(ctx.kappBin ? [kapp(ctx, ctx.kappBin)] : []), bare(ctx)];
  return only ? all.filter((t) => only.includes(t.id)) : all;
}

/** Transpiles bare-loop.ts to plain JavaScript next to it (bench/.build), so it starts as fast as node can. */
export async function buildBareLoop(benchDir: string): Promise<string> {
  const ts = (await import("typescript")).default;
  const source = await readFile(join(benchDir, "bare-loop.ts"), "utf8");
  const { outputText } = ts.transpileModule(source, { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } });
  const out = join(benchDir, ".build", "bare-loop.mjs");
  await mkdir(join(benchDir, ".build"), { recursive: true });
  await writeFile(out, outputText);
  return out;
}
