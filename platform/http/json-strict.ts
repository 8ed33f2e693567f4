// The one JSON input guard: every service's body parser (json-body.ts) and the gateway's proxy
// (which reads a body only to check and inject its tenant_id) call parseJsonStrict, so a body is
// refused in the same words wherever it arrives. Order matters: size first, then UTF-8, then
// the linear pre-scan (json-scan.ts), and only then JSON.parse and the prototype-poisoning
// check, so nothing recursive or expensive ever sees an abusive body.
import secureJson from 'secure-json-parse';
import { InputError, PayloadTooLargeError } from '../errors/domain-errors';
import { decodeError, scanJson, type JsonLimits } from './json-scan';

export type { JsonLimits } from './json-scan';

export interface InputLimits extends JsonLimits {
  /** Largest body in bytes (BODY_LIMIT_BYTES); Fastify enforces it while reading, this backs it up. */
  maxBytes: number;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Parses a JSON body or throws: PayloadTooLargeError (413) above `maxBytes`, InputError (422,
 * `loc` under `prefix`) for invalid UTF-8, invalid JSON or anything json-scan refuses. A string
 * is taken as already decoded; bytes must be UTF-8 (a leading BOM is dropped).
 */
export function parseJsonStrict(
  input: string | Uint8Array,
  limits: InputLimits,
  prefix: (string | number)[] = ['body'],
): unknown {
  let text: string;
  if (typeof input === 'string') {
    if (Buffer.byteLength(input) > limits.maxBytes) throw new PayloadTooLargeError();
    text = input.charCodeAt(0) === 0xfeff ? input.slice(1) : input;
  } else {
    if (input.byteLength > limits.maxBytes) throw new PayloadTooLargeError();
    try {
      text = utf8.decode(input);
    } catch {
      throw InputError.of([...prefix, 0], 'Invalid UTF-8 in request body', 'json_invalid');
    }
  }
  scanJson(text, limits, prefix);
  try {
    // protoAction is a backstop (json-scan already names a `__proto__` key); constructorAction
    // catches `{"constructor": {"prototype": ...}}`.
    return secureJson.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' });
  } catch {
    throw decodeError(prefix);
  }
}
