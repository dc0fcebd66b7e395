// The run's warning about an aggregated API without a working backend, from what discovery and
// the APIService itself say.

import { describe, expect, it } from "vitest";
import { availabilityOf, describeUnavailableApi, unavailableGroupMessage } from "../../src/cluster/unavailable-apis.js";

describe("availabilityOf", () => {
  it.each<[string, unknown, string | undefined]>([
    ["no Service", { status: { conditions: [{ type: "Available", status: "False", reason: "ServiceNotFound", message: 'service/metrics-server in "kube-system" is not present' }] } }, 'ServiceNotFound: service/metrics-server in "kube-system" is not present'],
    ["a backend that does not answer", { status: { conditions: [{ type: "Available", status: "False", reason: "FailedDiscoveryCheck", message: "failing or missing response from https://10.96.0.5:443/apis/metrics.k8s.io/v1beta1" }] } }, "FailedDiscoveryCheck: failing or missing response from https://10.96.0.5:443/apis/metrics.k8s.io/v1beta1"],
    ["available", { status: { conditions: [{ type: "Available", status: "True", reason: "Passed", message: "all checks passed" }] } }, undefined],
    ["not readable (forbidden)", undefined, undefined],
  ])("%s", (_name, obj, expected) => {
    expect(availabilityOf(obj)).toBe(expected);
  });
});

describe("the warning and the per-object error", () => {
  it("names the group, the APIService and its reason", () => {
    expect(describeUnavailableApi({ group: "metrics.k8s.io", version: "v1beta1", apiService: "v1beta1.metrics.k8s.io", condition: "ServiceNotFound: no Service" })).toBe(
      "API group metrics.k8s.io/v1beta1 is unavailable: APIService v1beta1.metrics.k8s.io is not available (ServiceNotFound: no Service). kpt-ts carries on with every other group; objects of metrics.k8s.io cannot be read or written, and a namespace being deleted waits until the APIService is fixed or removed",
    );
  });

  it("falls back on discovery's own error when the APIService cannot be read", () => {
    expect(describeUnavailableApi({ group: "custom.metrics.k8s.io", version: "v1beta2", apiService: "v1beta2.custom.metrics.k8s.io", error: "the server is currently unable to handle the request" })).toContain("(the server is currently unable to handle the request)");
  });

  it("an object of that group fails with the APIService named", () => {
    expect(unavailableGroupMessage({ group: "metrics.k8s.io", version: "v1beta1" }, "use NodeMetrics.metrics.k8s.io")).toBe(
      "cannot use NodeMetrics.metrics.k8s.io: API group metrics.k8s.io/v1beta1 is unavailable (APIService v1beta1.metrics.k8s.io is not available); fix or remove the APIService",
    );
  });
});
