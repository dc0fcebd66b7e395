// Server-side apply's local no-op check: an unchanged re-apply sends no request, and anything
// the server would change (a value, a field the configuration dropped) is still sent.

import { describe, expect, it } from "vitest";
import { isSsaNoop } from "../../src/apply/ssa-noop.js";
import type { KubeObject } from "../../src/model/kube-object.js";

const desired = (ports: object[], image = "pause:3.10"): KubeObject =>
  ({
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: "web", namespace: "ns" },
    spec: { selector: { matchLabels: { app: "web" } }, template: { metadata: { labels: { app: "web" } }, spec: { containers: [{ name: "app", image, ports }] } } },
  }) as KubeObject;

// What the API server records for `desired([{ containerPort: 8080 }])` applied by "kubectl":
// the port is keyed by containerPort and the protocol the server defaulted.
const portKey = 'k:{"containerPort":8080,"protocol":"TCP"}';
const fieldsV1 = {
  "f:spec": {
    "f:selector": {},
    "f:template": {
      "f:metadata": { "f:labels": { "f:app": {} } },
      "f:spec": { "f:containers": { 'k:{"name":"app"}': { ".": {}, "f:image": {}, "f:name": {}, "f:ports": { [portKey]: { ".": {}, "f:containerPort": {} } } } } },
    },
  },
};

function live(ports: object[], image = "pause:3.10"): KubeObject {
  const o = structuredClone(desired(ports, image)) as any;
  o.metadata.managedFields = [{ manager: "kubectl", operation: "Apply", fieldsType: "FieldsV1", fieldsV1 }];
  o.metadata.resourceVersion = "7";
  o.spec.replicas = 1;
  o.spec.template.spec.containers[0].imagePullPolicy = "IfNotPresent";
  o.spec.template.spec.containers[0].ports = ports.map((p) => ({ protocol: "TCP", ...p }));
  return o as KubeObject;
}

describe("isSsaNoop", () => {
  it("is a no-op when the configuration left out a list key the server defaulted", () => {
    expect(isSsaNoop(desired([{ containerPort: 8080 }]), live([{ containerPort: 8080 }]), "kubectl")).toBe(true);
  });

  it("is not a no-op when a value changed", () => {
    expect(isSsaNoop(desired([{ containerPort: 8080 }], "pause:3.9"), live([{ containerPort: 8080 }]), "kubectl")).toBe(false);
  });

  it("is not a no-op when the configuration dropped an item this manager owns", () => {
    expect(isSsaNoop(desired([]), live([{ containerPort: 8080 }]), "kubectl")).toBe(false);
  });

  it("is not a no-op when the item under that key now has another protocol", () => {
    expect(isSsaNoop(desired([{ containerPort: 8080, protocol: "UDP" }]), live([{ containerPort: 8080 }]), "kubectl")).toBe(false);
  });

  it("is not a no-op for another field manager", () => {
    expect(isSsaNoop(desired([{ containerPort: 8080 }]), live([{ containerPort: 8080 }]), "someone-else")).toBe(false);
  });
});

// What the server records for a Secret applied with stringData: ownership of f:stringData, the
// values as base64 data (stringData itself is never stored).
describe("a Secret applied with stringData", () => {
  const secret = (token: string): KubeObject => ({ apiVersion: "v1", kind: "Secret", metadata: { name: "s", namespace: "ns" }, stringData: { token } }) as KubeObject;
  const liveSecret = {
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name: "s", namespace: "ns", managedFields: [{ manager: "kubectl", operation: "Apply", fieldsV1: { "f:stringData": { "f:token": {} } } }] },
    data: { token: Buffer.from("s3cret").toString("base64") },
  } as unknown as KubeObject;

  it("the same value again sends nothing; a changed or dropped value is sent", () => {
    expect(isSsaNoop(secret("s3cret"), liveSecret, "kubectl")).toBe(true);
    expect(isSsaNoop(secret("other"), liveSecret, "kubectl")).toBe(false);
    expect(isSsaNoop({ ...secret("s3cret"), stringData: {} } as KubeObject, liveSecret, "kubectl")).toBe(false);
  });
});
