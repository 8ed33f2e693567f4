// JSON request bodies for every service: the bytes must be valid UTF-8 (Fastify's default parser
// turns bad bytes into U+FFFD, so a service would store, or the ledger hash, text the client never
// sent) and valid JSON without prototype-poisoning keys; each failure is FastAPI's 422.
import type { FastifyInstance } from 'fastify';
import secureJson from 'secure-json-parse';
import { InputError } from '../errors/domain-errors';

const utf8 = new TextDecoder('utf-8', { fatal: true });

export function registerJsonBodyParser(app: FastifyInstance): void {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_request, body: Buffer, done) => {
    if (body.length === 0) return done(InputError.of(['body'], 'Field required', 'missing'), undefined);
    let text: string;
    try {
      text = utf8.decode(body);
    } catch {
      return done(InputError.of(['body', 0], 'Invalid UTF-8 in request body', 'json_invalid'), undefined);
    }
    try {
      done(null, secureJson.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' }));
    } catch {
      done(InputError.of(['body', 0], 'JSON decode error', 'json_invalid'), undefined);
    }
  });
}
