// Which kinds a CRD makes available, so apply can wait until discovery lists them.
import { describe, expect, it } from "vitest";
import { servedKinds } from "../../src/engine/crd-discovery.js";
import type { KubeObject } from "../../src/model/kube-object.js";

const crd = (spec: unknown): KubeObject => ({ apiVersion: "apiextensions.k8s.io/v1", kind: "CustomResourceDefinition", metadata: { name: "x" }, spec });

describe("servedKinds", () => {
  it.each([
    ["one served version", { group: "ex.com", names: { kind: "Widget" }, versions: [{ name: "v1", served: true }] }, [{ apiVersion: "ex.com/v1", kind: "Widget" }]],
    [
      "only the served ones of several",
      { group: "ex.com", names: { kind: "Widget" }, versions: [{ name: "v1alpha1", served: false }, { name: "v1beta1", served: true }, { name: "v1", served: true }] },
      [{ apiVersion: "ex.com/v1beta1", kind: "Widget" }, { apiVersion: "ex.com/v1", kind: "Widget" }],
    ],
    ["no versions", { group: "ex.com", names: { kind: "Widget" } }, []],
    ["no group", { names: { kind: "Widget" }, versions: [{ name: "v1", served: true }] }, []],
    ["no kind", { group: "ex.com", names: {}, versions: [{ name: "v1", served: true }] }, []],
    ["malformed versions", { group: "ex.com", names: { kind: "Widget" }, versions: [null, "v1", { served: true }] }, []],
  ])("%s", (_name, spec, expected) => {
    expect(servedKinds(crd(spec))).toEqual(expected);
  });
});
