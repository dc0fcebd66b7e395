// apiextensions.k8s.io/CustomResourceDefinition (kstatus crdConditions).

import type { KubeObject } from "../../model/kube-object.js";
import { readConditions } from "../conditions.js";
import { current, failed, inProgress } from "../results.js";
import type { StatusResult } from "../types.js";

export function crdStatus(obj: KubeObject): StatusResult {
  for (const c of readConditions(obj)) {
    if (c.type === "NamesAccepted" && c.status === "False") return failed(c.reason, c.message);
    if (c.type === "Established") {
      if (c.status === "False" && c.reason !== "Installing") return failed(c.reason, c.message);
      if (c.status === "True") return current("CRD is established");
    }
  }
  return inProgress("Installing", "Install in progress");
}
