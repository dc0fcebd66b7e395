// What a run knows before it plans: the package as it will be applied, the inventory in the
// cluster, and the live objects, read once (see gather.ts). Plain data: the planner is pure.

import type { PatchSchema } from "../apply/csa/patch-schema.js";
import type { ObjRef } from "../model/ref.js";
import type { InventoryInfo, KubeObject, PackageObject } from "../model/kube-object.js";

export interface InventoryFacts {
  info: InventoryInfo;
  /** The ResourceGroup CRD is served: without it, no inventory can exist yet. */
  crdInstalled: boolean;
  /** The ResourceGroup in the cluster; absent when there is none. */
  stored?: KubeObject;
  /** What it lists. */
  previous: ObjRef[];
}

/** Live state by refKey: present objects, and objects whose kind could not be read (with why). */
export interface LiveFacts {
  live: ReadonlyMap<string, KubeObject>;
  unreadable: ReadonlyMap<string, string>;
}

export interface ApplyFacts extends LiveFacts {
  inventory: InventoryFacts;
  /** The package's objects, each in its namespace and marked with the owning inventory. */
  objects: PackageObject[];
  /**
   * Client-side apply's merge schemas, by `apiVersion/kind`, for the kinds with an object to
   * patch (an Error when its OpenAPI document could not be read; undefined: JSON merge patch).
   */
  schemas: ReadonlyMap<string, PatchSchema | undefined | Error>;
}

export interface DestroyFacts extends LiveFacts {
  inventory: InventoryFacts;
  /** The package's pre-destroy and post-destroy hooks (docs/lifecycle.md), prepared as apply prepares objects; their live objects are in `live`. */
  hooks?: PackageObject[];
}

export function schemaKey(obj: KubeObject): string {
  return `${obj.apiVersion}/${obj.kind}`;
}
