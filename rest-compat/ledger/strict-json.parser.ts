// JSON bodies for the ledger routes: bytes must be valid UTF-8 (the default parser would turn bad
// bytes into U+FFFD and we would hash text the client never sent) and valid JSON; both failures
// are FastAPI's 422 `json_invalid`.
import type { FastifyInstance } from 'fastify';
import { InputError } from '../../platform/errors/domain-errors';

const utf8 = new TextDecoder('utf-8', { fatal: true });

export function registerStrictJsonParser(app: FastifyInstance): void {
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
      done(null, JSON.parse(text));
    } catch {
      done(InputError.of(['body', 0], 'JSON decode error', 'json_invalid'), undefined);
    }
  });
}
