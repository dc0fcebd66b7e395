// `kpt-ts live install-resource-group`

import { installResourceGroupCrd } from "../inventory/cluster-inventory.js";
import type { GlobalFlags } from "./command-specs.js";
import type { CommandIO } from "./io.js";
import { openCluster } from "./open-cluster.js";

export async function installResourceGroup(g: GlobalFlags, io: CommandIO): Promise<void> {
  const cluster = openCluster(g, { io });
  io.stdout.write("installing inventory ResourceGroup CRD...");
  try {
    await installResourceGroupCrd(cluster, { signal: io.signal });
    io.stdout.write("success\n");
  } catch (err) {
    io.stdout.write("failed\n");
    throw err;
  } finally {
    cluster.close();
  }
}
