// A payload that cannot be turned into records. `path` names where: a record index and column for
// CSV (["row", 3]), an element path for XML/JSON, [] for the payload as a whole.
export class InputFormatError extends Error {
  override readonly name = 'InputFormatError';
  constructor(
    readonly path: (string | number)[],
    message: string,
  ) {
    super(message);
  }
}
