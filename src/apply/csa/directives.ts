// The special keys of a strategic merge patch, spelled as apimachinery spells them.

export const PATCH_DIRECTIVE = "$patch";
export const RETAIN_KEYS_DIRECTIVE = "$retainKeys";
export const DELETE_FROM_PRIMITIVE_LIST_PREFIX = "$deleteFromPrimitiveList/";
export const SET_ELEMENT_ORDER_PREFIX = "$setElementOrder/";

/** Keys that carry instructions rather than data. */
export function isDirectiveKey(key: string): boolean {
  return (
    key === PATCH_DIRECTIVE ||
    key === RETAIN_KEYS_DIRECTIVE ||
    key.startsWith(DELETE_FROM_PRIMITIVE_LIST_PREFIX) ||
    key.startsWith(SET_ELEMENT_ORDER_PREFIX)
  );
}
