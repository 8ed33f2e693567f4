// Correlation ids: a sane incoming one is kept, any other request gets a created id in the UUID
// shape, never the same twice.
import type { IncomingMessage } from 'node:http';
import { correlationIdFor } from '../../../platform/http/correlation';

const request = (headers: IncomingMessage['headers']) => ({ headers }) as IncomingMessage;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('correlationIdFor', () => {
  it('keeps a sane X-Correlation-ID', () => {
    expect(correlationIdFor(request({ 'x-correlation-id': 'abc-123.x:y_z' }))).toBe('abc-123.x:y_z');
  });

  it('creates a distinct UUID-shaped id when none or an unsafe one is sent', () => {
    const ids = new Set<string>();
    for (let i = 0; i < 1000; i++) ids.add(correlationIdFor(request({})));
    ids.add(correlationIdFor(request({ 'x-correlation-id': 'no spaces allowed' })));
    expect(ids.size).toBe(1001);
    for (const id of ids) expect(id).toMatch(UUID);
  });

  it('counts the last 48 bits up by one, carrying from the low half into the high one', () => {
    // 2^24 ids cross the low half's wrap once whatever the random start.
    const value = (id: string) => Number.parseInt(id.slice(24), 16);
    let previous = correlationIdFor(request({}));
    let carried = false;
    for (let i = 0; i < 2 ** 24 + 1; i++) {
      const id = correlationIdFor(request({}));
      if (id.endsWith('000000')) {
        expect(id).toMatch(UUID);
        expect(id.slice(0, 24)).toBe(previous.slice(0, 24));
        expect(value(id)).toBe((value(previous) + 1) % 2 ** 48);
        carried = true;
      }
      previous = id;
    }
    expect(carried).toBe(true);
  });
});
