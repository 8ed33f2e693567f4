// Limits an imported document must keep before anything walks its structure or the schema
// validator sees it (docs/compliance.md, "Limits"): its serialised size (413), its JSON nesting
// depth (422). The HTTP layer already refuses bodies over BODY_LIMIT_BYTES and nesting over
// JSON_MAX_DEPTH before parsing; these are the service's own, lower where it matters, and hold
// for GraphQL and the typed client as well. Iterative, so a deep document cannot exhaust the stack.
import { InputError, PayloadTooLargeError } from '../../../platform/errors/domain-errors';
import { LIMITS } from '../compliance.types';

/** Deepest nesting of objects and arrays in `value` (a scalar is depth 0), stopping past `max`. */
export function jsonDepth(value: unknown, max: number): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (node === null || typeof node !== 'object') continue;
    const here = depth + 1;
    if (here > deepest) deepest = here;
    if (deepest > max) return deepest;
    for (const child of Array.isArray(node) ? node : Object.values(node)) stack.push([child, here]);
  }
  return deepest;
}

/** Size of `value` as JSON text, in UTF-8 bytes. */
export function jsonBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value) ?? '', 'utf8');
}

/** Refuses a document over the size or depth limit; `field` is where the request carried it. */
export function assertDocumentLimits(document: unknown, field = 'document'): void {
  if (document === null || typeof document !== 'object' || Array.isArray(document))
    throw InputError.of([field], 'Input should be a JSON object', 'dict_type');
  // Depth first: serialising to measure the size recurses, the depth walk does not.
  if (jsonDepth(document, LIMITS.documentDepth) > LIMITS.documentDepth)
    throw InputError.of([field], `The document nests deeper than ${LIMITS.documentDepth} levels`, 'json_too_deep');
  const bytes = jsonBytes(document);
  if (bytes > LIMITS.documentBytes)
    throw new PayloadTooLargeError(`The document is ${bytes} bytes; at most ${LIMITS.documentBytes} are accepted`);
}
