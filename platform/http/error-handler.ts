// The one error handler every service shares. Bodies follow FastAPI: 401 {detail} with
// `WWW-Authenticate: Bearer`, 403 {detail}, 422 {detail: [{loc, msg, type}]}; 5xx details are
// logged, never sent.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isDatabaseUnavailable } from '../db/db-retry';
import { DomainError, InputError, RateLimitedError, type InputIssue, UnavailableError } from '../errors/domain-errors';
import { issuesFromValidation } from './validation';
import { textGuard } from './text-guard';

const STATUS: Record<DomainError['code'], number> = {
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  BAD_USER_INPUT: 422,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  RATE_LIMITED: 429,
  SERVICE_UNAVAILABLE: 503,
  BAD_GATEWAY: 502,
  GATEWAY_TIMEOUT: 504,
};

export function sendUnprocessable(reply: FastifyReply, issues: InputIssue[]): FastifyReply {
  return reply.code(422).send({ detail: issues });
}

/** Where a route's domain fields come from on the wire, when the route does not say. */
export type InputLocation = 'body' | 'query' | 'path';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Where the fields named by the domain's input errors arrive (default: by method). */
    inputLocation?: InputLocation;
    /**
     * Domain field names this route's wire calls otherwise (`{ after: 'cursor' }` when the route
     * passes `query.cursor` as the domain's `after`); unnamed fields are snake_cased.
     */
    inputNames?: Readonly<Record<string, string>>;
    /** Domain fields this route reads from request headers, by header name (`{ idempotencyKey: 'idempotency-key' }`). */
    inputHeaders?: Readonly<Record<string, string>>;
  }
}

const WIRE_LOCATIONS = new Set(['body', 'query', 'path', 'header']);

const snakeCase = (segment: string | number) =>
  typeof segment === 'string' ? segment.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`) : segment;

/**
 * Domain code names its own fields (`eventType`); REST reports the wire's names as FastAPI does
 * (`["body", "event_type"]`). Issues already located (by route schemas) pass unchanged.
 */
export function restIssues(issues: InputIssue[], request: FastifyRequest): InputIssue[] {
  const config = request.routeOptions.config;
  const where = config?.inputLocation ?? (['GET', 'HEAD', 'DELETE'].includes(request.method) ? 'query' : 'body');
  const names = config?.inputNames ?? {};
  const headers = config?.inputHeaders ?? {};
  const wireName = (segment: string | number) =>
    typeof segment === 'string' && Object.hasOwn(names, segment) ? names[segment]! : snakeCase(segment);
  // Only the field itself is renamed: deeper segments are keys of the caller's own data.
  return issues.map((i) => {
    if (WIRE_LOCATIONS.has(String(i.loc[0]))) return i;
    const field = i.loc[0]!;
    if (typeof field === 'string' && Object.hasOwn(headers, field))
      return { ...i, loc: ['header', headers[field]!, ...i.loc.slice(1)] };
    return { ...i, loc: [where, wireName(field), ...i.loc.slice(1)] };
  });
}

export function registerErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    if (err instanceof DomainError) {
      const status = STATUS[err.code];
      if (err.code === 'UNAUTHENTICATED') reply.header('WWW-Authenticate', 'Bearer');
      if ((err instanceof UnavailableError || err instanceof RateLimitedError) && err.retryAfterSeconds)
        reply.header('Retry-After', String(err.retryAfterSeconds));
      if (err instanceof InputError) return sendUnprocessable(reply, restIssues(err.issues, request));
      return reply.code(status).send({ detail: err.message });
    }
    if (err.validation) {
      return sendUnprocessable(reply, issuesFromValidation(err.validation as never, err.validationContext));
    }
    switch (err.code) {
      case 'FST_ERR_CTP_INVALID_JSON_BODY':
        return sendUnprocessable(reply, [{ loc: ['body', 0], msg: 'JSON decode error', type: 'json_invalid' }]);
      case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
        return sendUnprocessable(reply, [{ loc: ['body'], msg: 'Field required', type: 'missing' }]);
      case 'FST_ERR_CTP_BODY_TOO_LARGE':
        return reply.code(413).send({ detail: 'Request body too large' });
      default:
        break;
    }
    if (err instanceof SyntaxError && (err as FastifyError).statusCode === 400) {
      return sendUnprocessable(reply, [{ loc: ['body', 0], msg: 'JSON decode error', type: 'json_invalid' }]);
    }
    if (isDatabaseUnavailable(err)) {
      request.log.error({ err }, 'database unavailable');
      return reply.code(503).header('Retry-After', '1').send({ detail: 'Database unavailable, retry shortly' });
    }
    const status = err.statusCode && err.statusCode >= 400 && err.statusCode < 500 ? err.statusCode : 500;
    if (status >= 500) {
      request.log.error({ err }, 'unhandled error');
      return reply.code(500).send({ detail: 'Internal Server Error' });
    }
    return reply.code(status).send({ detail: err.message });
  });

  // The text guard too (text-guard.ts): routes get it one by one, so a 404's path and query would
  // otherwise go unchecked (a bad escape answers 422 before any 404, as on a known route).
  app.setNotFoundHandler({ preValidation: textGuard }, (_request, reply) =>
    reply.code(404).send({ detail: 'Not Found' }),
  );
}
