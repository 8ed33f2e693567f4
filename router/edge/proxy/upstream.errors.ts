// How an upstream failure becomes the gateway's JSON error: 503 when the service is down, not
// deployed or its breaker is open; 504 when it does not answer in time; 502 for anything else.
// The detail names the service, never its internal URL.
export interface GatewayFailure {
  status: 502 | 503 | 504;
  detail: string;
  retryAfterSeconds?: number;
}

/** An upstream 5xx, rejected so the breaker counts it; the response is still relayed. */
export class UpstreamServerError<T> extends Error {
  constructor(readonly response: T) {
    super('upstream answered with a server error');
  }
}

const CONNECT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'UND_ERR_CONNECT_TIMEOUT']);
const TIMEOUT_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'ETIMEDOUT']);

export function failureFor(service: string, _url: string, err: unknown, resetTimeoutMs: number): GatewayFailure {
  const code = errorCode(err);
  if (code === 'EOPENBREAKER') {
    return {
      status: 503,
      detail: `Service '${service}' is unavailable: circuit breaker open after repeated failures`,
      retryAfterSeconds: Math.ceil(resetTimeoutMs / 1000),
    };
  }
  if (code && CONNECT_CODES.has(code)) {
    return {
      status: 503,
      detail: `Service '${service}' is unavailable: nothing is answering (not running or not deployed yet)`,
      retryAfterSeconds: 1,
    };
  }
  if (code && TIMEOUT_CODES.has(code)) return { status: 504, detail: `Service '${service}' did not answer in time` };
  return { status: 502, detail: `Service '${service}' gave an invalid response` };
}

function errorCode(err: unknown): string | undefined {
  let e = err as { code?: string; cause?: unknown } | undefined;
  for (let depth = 0; e && depth < 4; depth++) {
    if (e.code) return e.code;
    e = e.cause as typeof e;
  }
  return undefined;
}
