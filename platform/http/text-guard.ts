// The JSON guard's string rule for the other places text arrives: query strings, path
// parameters and form bodies (identity's /v1/auth/token is application/x-www-form-urlencoded).
// `%00` decodes to NUL, which PostgreSQL text refuses (an error far from the request) and which
// can cut a value short in C-based tools; a lone surrogate cannot be encoded as UTF-8. Both are
// a 422 naming the parameter, before schema validation or any handler runs.
import { Stream } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { InputError, type InputIssue } from '../errors/domain-errors';
import { unstorableText } from '../text';

/** Why a string may not enter the platform, or undefined when it may. */
export function unsafeTextProblem(value: string): string | undefined {
  const problem = unstorableText(value);
  if (!problem) return undefined;
  return problem === 'nul' ? 'NUL (\\u0000) is not allowed' : 'a lone UTF-16 surrogate is not allowed';
}

function checkFields(fields: unknown, prefix: string, issues: InputIssue[]): void {
  // Only flat string maps (parsed query strings, params, form bodies); a stream (a proxied
  // body) or a buffer is left alone.
  if (
    !fields ||
    typeof fields !== 'object' ||
    Array.isArray(fields) ||
    Buffer.isBuffer(fields) ||
    fields instanceof Stream
  )
    return;
  for (const [name, value] of Object.entries(fields as Record<string, unknown>)) {
    const nameProblem = unsafeTextProblem(name);
    if (nameProblem) {
      issues.push({
        loc: [prefix, name, '[key]'],
        msg: `Input should be a valid string: ${nameProblem}`,
        type: 'string_unicode',
      });
      continue;
    }
    const values = Array.isArray(value) ? value : [value];
    for (const v of values) {
      const problem = typeof v === 'string' ? unsafeTextProblem(v) : undefined;
      if (problem) {
        issues.push({ loc: [prefix, name], msg: `Input should be a valid string: ${problem}`, type: 'string_unicode' });
        break;
      }
    }
  }
}

function isForm(request: FastifyRequest): boolean {
  const type = request.raw.headers['content-type'];
  return typeof type === 'string' && type.toLowerCase().startsWith('application/x-www-form-urlencoded');
}

/**
 * The guard as a hook (onRequest or preValidation): a callback, no promise and microtask turn on
 * every request (issue 35).
 */
export const textGuard = (request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void => {
  // Path parameters and query values only differ from the request target's own characters
  // through its %-escapes (and '+'): Node's HTTP parser refuses control bytes there, and other
  // raw bytes read as Latin-1, so without a '%' neither can hold NUL or a lone surrogate.
  const escaped = request.url.includes('%');
  const form = isForm(request);
  if (!escaped && !form) return done();
  const issues: InputIssue[] = [];
  if (escaped) {
    checkFields(request.params, 'path', issues);
    checkFields(request.query, 'query', issues);
  }
  // JSON bodies were checked while parsing (json-scan.ts); form bodies are flat strings.
  if (form) checkFields(request.body, 'body', issues);
  done(issues.length > 0 ? new InputError(issues) : undefined);
};

/**
 * The guard of a GET or HEAD route, run onRequest: such a request has no body then (nor ever:
 * Fastify parses none for these methods), so only the path and query are checked, without
 * reading the content type (a header lookup on every request: issue 35).
 */
export const bodylessTextGuard = (
  request: FastifyRequest,
  _reply: FastifyReply,
  done: HookHandlerDoneFunction,
): void => {
  if (!request.url.includes('%')) return done();
  const issues: InputIssue[] = [];
  checkFields(request.params, 'path', issues);
  checkFields(request.query, 'query', issues);
  done(issues.length > 0 ? new InputError(issues) : undefined);
};

const BODYLESS = new Set(['GET', 'HEAD']);

/**
 * The guard on every route registered after this, where it ran as a preValidation hook for all:
 * a route with a body first among its preValidation hooks; a GET or HEAD route last among its
 * onRequest hooks instead (after authentication and the route's own onRequest hooks, which ran
 * before preValidation too; such a route parses no body and has no preParsing hook between), so
 * its requests skip a whole hook stage (a hook runner and its closures: issue 30). Answers to
 * unknown routes get it from the not-found handler (error-handler.ts).
 */
export function registerTextGuard(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    if (methods.every((method) => BODYLESS.has(method))) {
      const own = hooksOf(route.onRequest);
      if (!own.includes(bodylessTextGuard)) route.onRequest = [...own, bodylessTextGuard];
    } else {
      const own = hooksOf(route.preValidation);
      if (!own.includes(textGuard)) route.preValidation = [textGuard, ...own];
    }
  });
}

function hooksOf<H>(hooks: H | H[] | undefined): H[] {
  return hooks === undefined ? [] : Array.isArray(hooks) ? hooks : [hooks];
}
