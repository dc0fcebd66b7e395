// How large an object's annotations will be once the API server stores them, which is what its
// 256 KiB limit on annotations applies to: the package's annotations, plus the owning-inventory
// annotation kpt-ts adds, plus, for client-side apply, the last-applied-configuration annotation,
// a second copy of the whole object (its annotations included). A 250 KiB annotation fits with
// server-side apply and does not with client-side apply. Pure.

import { LAST_APPLIED_ANNOTATION, type KubeObject } from "../model/kube-object.js";
import { lastAppliedBytes } from "./csa/last-applied.js";

/** The API server's limit on the total size of an object's annotations (keys and values, in bytes). */
export const MAX_ANNOTATIONS_BYTES = 256 * 1024;

/** Keys and values in bytes, as the API server counts them (ValidateAnnotationsSize). */
function annotationBytes(annotations: Readonly<Record<string, string>> | undefined): number {
  let n = 0;
  for (const [k, v] of Object.entries(annotations ?? {})) n += Buffer.byteLength(k) + Buffer.byteLength(v);
  return n;
}

/**
 * The bytes of annotations the server will store for `sent` (the object as it is sent, with its
 * owning-inventory annotation): with client-side apply, its last-applied copy counted too.
 */
export function storedAnnotationBytes(sent: KubeObject, how: "client-side" | "server-side"): number {
  const { [LAST_APPLIED_ANNOTATION]: _own, ...annotations } = sent.metadata.annotations ?? {};
  const base = annotationBytes(annotations);
  if (how === "server-side") return base;
  return base + Buffer.byteLength(LAST_APPLIED_ANNOTATION) + lastAppliedBytes(sent);
}
