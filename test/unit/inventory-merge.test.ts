// Two runs of one package writing the inventory at once (issue 8's race, seen again in an e2e run):
// run A's final write conflicts and merges B's list into its own; when B's list already held all
// of A's, the merged write changes nothing, and the server (like the in-memory cluster) then keeps
// the resourceVersion. B's final write, based on that same resourceVersion, would succeed and drop
// an object A created after B found it missing. A merge must always be a write B's precondition sees.

import { describe, expect, it } from "vitest";
import { installResourceGroupCrd, readClusterInventory, writeClusterInventory } from "../../src/inventory/cluster-inventory.js";
import { MERGED_FROM_ANNOTATION } from "../../src/model/inventory-keys.js";
import { refOf, type ObjRef } from "../../src/model/ref.js";
import { configMap, INVENTORY, namespace } from "../helpers/engine-run.js";
import { MemoryCluster } from "../helpers/memory-cluster.js";

const ref = (name: string): ObjRef => refOf(configMap(name));
const names = (refs: ObjRef[]) => refs.map((r) => r.name).sort();

describe("concurrent final inventory writes", () => {
  it("a merge that changes no list still changes the inventory, so the other run's write merges too", async () => {
    const c = new MemoryCluster().seed(namespace());
    await installResourceGroupCrd(c);
    // Both runs read the inventory listing a; A recorded its new object n first.
    const start = await writeClusterInventory(c, INVENTORY, [ref("a")]);
    const afterA = await writeClusterInventory(c, INVENTORY, [ref("a"), ref("n")], { basedOn: start, onConflict: "fail" });
    // B read A's initial inventory (a, n), found n missing (A had not created it yet), added b.
    const afterB = await writeClusterInventory(c, INVENTORY, [ref("a"), ref("n"), ref("b")], { basedOn: afterA, onConflict: "fail" });

    // A's final write (a and n), based on its own initial write: a conflict, then a merge whose
    // list is exactly what B stored.
    const finalA = await writeClusterInventory(c, INVENTORY, [ref("a"), ref("n")], { basedOn: afterA, onConflict: "merge" });
    expect(names((await readClusterInventory(c, INVENTORY)).refs)).toEqual(["a", "b", "n"]);
    expect(finalA.metadata.resourceVersion).not.toBe(afterB.metadata.resourceVersion);
    expect(finalA.metadata.annotations?.[MERGED_FROM_ANNOTATION]).toBe(afterB.metadata.resourceVersion);

    // B's final write drops n (it found it missing): based on its own initial write, it must
    // conflict with A's merge, and merge n back in.
    await writeClusterInventory(c, INVENTORY, [ref("a"), ref("b")], { basedOn: afterB, onConflict: "merge" });
    expect(names((await readClusterInventory(c, INVENTORY)).refs)).toEqual(["a", "b", "n"]);
  });

  it("a write without a conflict carries no merge mark", async () => {
    const c = new MemoryCluster().seed(namespace());
    await installResourceGroupCrd(c);
    const first = await writeClusterInventory(c, INVENTORY, [ref("a")]);
    const second = await writeClusterInventory(c, INVENTORY, [ref("a"), ref("b")], { basedOn: first, onConflict: "merge" });
    expect(second.metadata.annotations?.[MERGED_FROM_ANNOTATION]).toBeUndefined();
  });
});
