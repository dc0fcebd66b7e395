// A patch could not be computed or applied: a merge-list item without its merge key, a list
// mixing types, an unknown `$patch` value. The engine reports it as that object's failure.

export class PatchError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "PatchError";
  }
}
