// JSON request bodies for every service, through the kernel's one input guard (json-strict.ts):
// size, valid UTF-8, nesting depth, string length, no NUL or lone surrogate, finite and exact
// numbers, no prototype-poisoning keys; each failure is FastAPI's 422 (413 for size). The limits
// are also decorated on the app, so code that reads a raw body itself (the gateway's proxy)
// applies exactly the same ones.
import type { FastifyInstance } from 'fastify';
import { InputError } from '../errors/domain-errors';
import { parseJsonStrict, type InputLimits } from './json-strict';

declare module 'fastify' {
  interface FastifyInstance {
    /** The JSON input limits every body of this app is held to. */
    inputLimits: InputLimits;
  }
}

export function registerJsonBodyParser(app: FastifyInstance, limits: InputLimits): void {
  app.decorate('inputLimits', limits);
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_request, body: Buffer, done) => {
    if (body.length === 0) return done(InputError.of(['body'], 'Field required', 'missing'), undefined);
    try {
      done(null, parseJsonStrict(body, limits));
    } catch (err) {
      done(err as Error, undefined);
    }
  });
}
