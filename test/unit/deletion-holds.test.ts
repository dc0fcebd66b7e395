// Why an object being deleted is still there: the Namespace controller's conditions, a CRD's
// Terminating condition, finalizers. Each case is the object as the API server shows it.

import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { describeWaitingFor } from "../../src/status/aggregate.js";
import { computeStatus } from "../../src/status/compute-status.js";
import { deletionHolds, failedGroupVersions } from "../../src/status/deletion-holds.js";
import type { KubeObject } from "../../src/model/kube-object.js";
import { formatStatusLine } from "../../src/print/legacy-lines.js";

const yaml = (text: string) => parse(text) as KubeObject;

const stuckNamespace = yaml(`
apiVersion: v1
kind: Namespace
metadata: { name: app, deletionTimestamp: "2026-01-01T00:00:00Z" }
spec: { finalizers: [kubernetes] }
status:
  phase: Terminating
  conditions:
  - type: NamespaceDeletionDiscoveryFailure
    status: "True"
    reason: DiscoveryFailed
    message: "Discovery failed for some groups, 1 failing: unable to retrieve the complete list of server APIs: metrics.k8s.io/v1beta1: stale GroupVersion discovery: metrics.k8s.io/v1beta1"
  - { type: NamespaceDeletionGroupVersionParsingFailure, status: "False", reason: ParsedGroupVersions, message: All legacy kube types successfully parsed }
  - { type: NamespaceDeletionContentFailure, status: "False", reason: ContentDeleted, message: All content successfully deleted, may be waiting on finalization }
  - { type: NamespaceContentRemaining, status: "False", reason: ContentRemoved, message: All content successfully removed }
  - { type: NamespaceFinalizersRemaining, status: "False", reason: ContentHasNoFinalizers, message: All content-preserving finalizers finished }
`);

const namespaceWithContent = yaml(`
apiVersion: v1
kind: Namespace
metadata: { name: app, deletionTimestamp: "2026-01-01T00:00:00Z" }
spec: { finalizers: [kubernetes] }
status:
  conditions:
  - { type: NamespaceContentRemaining, status: "True", reason: SomeResourcesRemain, message: "Some resources are remaining: configmaps. has 1 resource instances" }
  - { type: NamespaceFinalizersRemaining, status: "True", reason: SomeFinalizersRemain, message: "Some content in the namespace has finalizers remaining: example.com/hold in 1 resource instances" }
`);

const terminatingCrd = yaml(`
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: { name: appprojects.argoproj.io, deletionTimestamp: "2026-01-01T00:00:00Z", finalizers: [customresourcecleanup.apiextensions.k8s.io] }
status:
  conditions:
  - { type: Established, status: "True", reason: InitialNamesAccepted, message: the initial names have been accepted }
  - { type: Terminating, status: "True", reason: InstanceDeletionInProgress, message: CustomResource deletion is in progress }
`);

const claimInUse = yaml(`
apiVersion: v1
kind: PersistentVolumeClaim
metadata: { name: data, namespace: app, deletionTimestamp: "2026-01-01T00:00:00Z", finalizers: [kubernetes.io/pvc-protection] }
status: { phase: Bound }
`);

describe("deletionHolds", () => {
  it.each<[string, KubeObject, string[]]>([
    [
      "a Namespace whose discovery fails names the API group and its APIService",
      stuckNamespace,
      ["NamespaceDeletionDiscoveryFailure: cannot discover API group metrics.k8s.io/v1beta1 (APIService v1beta1.metrics.k8s.io)"],
    ],
    [
      "a Namespace whose content is still there",
      namespaceWithContent,
      ["NamespaceContentRemaining (SomeResourcesRemain)", "NamespaceFinalizersRemaining (SomeFinalizersRemain)"],
    ],
    [
      "a Namespace whose content is still being deleted, nothing failing: its own finalizer",
      yaml(`{apiVersion: v1, kind: Namespace, metadata: {name: x, deletionTimestamp: "2026-01-01T00:00:00Z"}, spec: {finalizers: [kubernetes]}, status: {phase: Terminating}}`),
      ["finalizer kubernetes (the namespace's content is deleted first)"],
    ],
    ["a CRD removing its custom resources", terminatingCrd, ["Terminating: InstanceDeletionInProgress", "finalizer customresourcecleanup.apiextensions.k8s.io (its custom resources are deleted first)"]],
    ["a claim a Pod still uses", claimInUse, ["finalizer kubernetes.io/pvc-protection (the claim is still used by a Pod)"]],
    ["an unknown finalizer is named as it is", yaml(`{apiVersion: v1, kind: ConfigMap, metadata: {name: c, deletionTimestamp: "2026-01-01T00:00:00Z", finalizers: [example.com/hold]}}`), ["finalizer example.com/hold"]],
    ["not being deleted: nothing holds it", yaml(`{apiVersion: v1, kind: ConfigMap, metadata: {name: c, finalizers: [example.com/hold]}}`), []],
    ["a malformed status explains nothing but the finalizers", yaml(`{apiVersion: v1, kind: Namespace, metadata: {name: x, deletionTimestamp: "2026-01-01T00:00:00Z"}, spec: {finalizers: [kubernetes]}, status: {conditions: 7}}`), ["finalizer kubernetes (the namespace's content is deleted first)"]],
  ])("%s", (_name, obj, messages) => {
    expect(deletionHolds(obj).map((r) => r.message)).toEqual(messages);
  });

  it("keeps the condition's own words as the detail", () => {
    expect(deletionHolds(namespaceWithContent)[0]!.detail).toBe("Some resources are remaining: configmaps. has 1 resource instances");
  });
});

describe("failedGroupVersions", () => {
  it.each([
    ["one group", "Discovery failed for some groups, 1 failing: unable to retrieve the complete list of server APIs: metrics.k8s.io/v1beta1: stale GroupVersion discovery: metrics.k8s.io/v1beta1", [["metrics.k8s.io", "v1beta1", "stale GroupVersion discovery: metrics.k8s.io/v1beta1"]]],
    [
      "two groups, an error with a comma of its own",
      "unable to retrieve the complete list of server APIs: custom.metrics.k8s.io/v1beta2: the server is currently unable to handle the request, metrics.k8s.io/v1beta1: stale GroupVersion discovery: metrics.k8s.io/v1beta1",
      [
        ["custom.metrics.k8s.io", "v1beta2", "the server is currently unable to handle the request"],
        ["metrics.k8s.io", "v1beta1", "stale GroupVersion discovery: metrics.k8s.io/v1beta1"],
      ],
    ],
    ["another error", "Get \"https://10.0.0.1/apis\": dial tcp: connection refused", []],
  ])("%s", (_name, message, expected) => {
    expect(failedGroupVersions(message).map((g) => [g.group, g.version, g.error])).toEqual(expected);
  });
});

describe("what a wait and a status line say about an object being deleted", () => {
  it("the wait line names what holds it", () => {
    expect(describeWaitingFor(computeStatus(claimInUse), "NotFound")).toBe("not yet deleted (Terminating: held by finalizer kubernetes.io/pvc-protection (the claim is still used by a Pod))");
  });

  it("without anything holding it, the wait line is kstatus' own", () => {
    const plain = yaml(`{apiVersion: v1, kind: ConfigMap, metadata: {name: c, deletionTimestamp: "2026-01-01T00:00:00Z"}}`);
    expect(describeWaitingFor(computeStatus(plain), "NotFound")).toBe("not yet deleted (Terminating: Resource scheduled for deletion)");
  });

  it("live status keeps kstatus' message and adds the holds", () => {
    const r = computeStatus(stuckNamespace);
    expect(r.message).toBe("Resource scheduled for deletion");
    expect(formatStatusLine({ ref: { group: "", kind: "Namespace", namespace: "", name: "app" }, status: r.status, message: r.message, heldBy: r.heldBy })).toBe(
      "namespace/app is Terminating: Resource scheduled for deletion; held by NamespaceDeletionDiscoveryFailure: cannot discover API group metrics.k8s.io/v1beta1 (APIService v1beta1.metrics.k8s.io)",
    );
  });
});
