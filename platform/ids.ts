// Identifier checks shared by every service: an id that is not a UUID can never match a row, so
// it is a 404 before any query (and never reaches a `uuid` column as a cast error).
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: string): boolean {
  return UUID.test(value);
}
