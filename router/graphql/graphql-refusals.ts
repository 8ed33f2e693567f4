// The router's own refusals on /graphql, as GraphQL responses. The shared HTTP guards (address
// and tenant rate limits, URL and body limits, malformed bodies) answer FastAPI's `{detail}` for
// REST; a GraphQL client cannot read that: Apollo Client 4 only parses a non-2xx answer as a
// GraphQL result when it is `application/graphql-response+json`, so an expired token became a
// network error instead of UNAUTHENTICATED. This hook, on the /graphql route only, rewrites every
// error answer that did not come from Apollo into `{errors: [{message, extensions: {code}}]}` and
// gives it the media type the client accepts (GraphQL over HTTP: graphql-response+json when
// accepted, else application/json), keeping the status.
import type { FastifyReply, FastifyRequest } from 'fastify';

export const GRAPHQL_RESPONSE_JSON = 'application/graphql-response+json';

const CODES: Record<number, string> = {
  400: 'BAD_REQUEST',
  401: 'UNAUTHENTICATED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
  408: 'REQUEST_TIMEOUT',
  413: 'PAYLOAD_TOO_LARGE',
  414: 'URI_TOO_LONG',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  429: 'RATE_LIMITED',
  431: 'REQUEST_HEADER_FIELDS_TOO_LARGE',
  502: 'BAD_GATEWAY',
  503: 'SERVICE_UNAVAILABLE',
  504: 'GATEWAY_TIMEOUT',
};

/** The media type for a GraphQL answer, chosen from Accept as Apollo Server chooses it. */
export function graphqlMediaType(accept: string | undefined): string {
  if (!accept) return 'application/json';
  let graphqlQ = -1;
  let jsonQ = -1;
  for (const part of accept.split(',')) {
    const [type, ...params] = part.trim().toLowerCase().split(';');
    const qParam = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const q = qParam ? Number(qParam.slice(2)) : 1;
    if (!Number.isFinite(q)) continue;
    if (type === GRAPHQL_RESPONSE_JSON) graphqlQ = Math.max(graphqlQ, q);
    else if (type === 'application/json') jsonQ = Math.max(jsonQ, q);
  }
  return graphqlQ > 0 && graphqlQ >= jsonQ ? GRAPHQL_RESPONSE_JSON : 'application/json';
}

interface RestRefusal {
  detail?: unknown;
  errors?: unknown;
}

/**
 * onSend hook for the /graphql route. A callback hook, not an async one: it runs on every query,
 * and a promise per query costs hook calls once tracing's AsyncLocalStorage is on (issue 31).
 */
export function graphqlRefusals(
  request: FastifyRequest,
  reply: FastifyReply,
  payload: unknown,
  done: (err: Error | null, payload?: unknown) => void,
): void {
  let answer: unknown;
  try {
    answer = refusalPayload(request, reply, payload);
  } catch (err) {
    return done(err as Error);
  }
  done(null, answer);
}

/** The payload to send: a REST-shaped refusal (429, 401, 413...) rewritten as a GraphQL response. */
function refusalPayload(request: FastifyRequest, reply: FastifyReply, payload: unknown): unknown {
  if (reply.statusCode < 400 || typeof payload !== 'string') return payload;
  const contentType = String(reply.getHeader('content-type') ?? '');
  // Apollo's own answers (parse, validation, CSRF, depth, cost...) are already negotiated.
  if (!contentType.startsWith('application/json') || contentType.includes('graphql')) return payload;
  let body: RestRefusal;
  try {
    body = JSON.parse(payload) as RestRefusal;
  } catch {
    return payload;
  }
  reply.header('content-type', `${graphqlMediaType(request.headers.accept)}; charset=utf-8`);
  if (Array.isArray(body.errors)) return payload;
  const status = reply.statusCode;
  const code = CODES[status] ?? (status >= 500 ? 'INTERNAL_SERVER_ERROR' : 'BAD_REQUEST');
  const extensions: Record<string, unknown> = { code };
  const retryAfter = Number(reply.getHeader('retry-after'));
  if (Number.isFinite(retryAfter) && retryAfter > 0) extensions.retryAfterSeconds = retryAfter;
  // 422 lists from the JSON body check name what was wrong; GraphQL keeps them as issues.
  // GraphQL over HTTP answers a body that is not a GraphQL request with 400, not 422.
  if (Array.isArray(body.detail)) {
    reply.code(400);
    return JSON.stringify({
      errors: [
        {
          message: 'The request body is not a valid GraphQL request',
          extensions: { code: 'BAD_REQUEST', issues: body.detail },
        },
      ],
    });
  }
  return JSON.stringify({
    errors: [{ message: typeof body.detail === 'string' ? body.detail : 'Request refused', extensions }],
  });
}
