// The per-request logger (platform/logging/lazy-child-logger.ts): lines carry the request's
// bindings exactly as pino's own child writes them, and no child is built for a request that
// writes nothing at an enabled level.
import { Writable } from 'node:stream';
import Fastify from 'fastify';
import pino from 'pino';
import { deferRequestChildren, lazyChildLoggerFactory } from '../../../platform/logging/lazy-child-logger';

function capture(level: string) {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  return { lines, logger: pino({ level, base: { service: 'test' } }, stream) };
}

describe('lazy per-request child logger', () => {
  it('writes enabled lines with the bindings and builds no child for disabled ones', () => {
    const { lines, logger } = capture('warn');
    const childSpy = jest.spyOn(logger, 'child');
    const log = lazyChildLoggerFactory(logger, { correlationId: 'c-1' }, {});
    log.info('not written');
    log.debug({ a: 1 }, 'not written either');
    expect(childSpy).not.toHaveBeenCalled();
    log.warn({ detail: 'x' }, 'written');
    log.error('also written');
    expect(childSpy).toHaveBeenCalledTimes(1);
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatchObject({ correlationId: 'c-1', service: 'test', detail: 'x', msg: 'written', level: 40 });
    expect(lines[1]).toMatchObject({ correlationId: 'c-1', msg: 'also written', level: 50 });
  });

  it('answers level checks like its parent and follows a level change', () => {
    const { lines, logger } = capture('warn');
    const log = lazyChildLoggerFactory(logger, { correlationId: 'c-2' }, {}) as typeof logger;
    expect(log.isLevelEnabled('info')).toBe(false);
    expect(log.level).toBe('warn');
    logger.level = 'info';
    expect(log.isLevelEnabled('info')).toBe(true);
    log.info('now written');
    expect(lines).toEqual([expect.objectContaining({ correlationId: 'c-2', msg: 'now written' })]);
    const grandchild = log.child({ step: 'two' });
    grandchild.info('nested');
    expect(lines[1]).toMatchObject({ correlationId: 'c-2', step: 'two', msg: 'nested' });
  });

  it('serves as Fastify childLoggerFactory: a route that logs carries the request id (real HTTP)', async () => {
    const { lines, logger } = capture('info');
    const app = Fastify({
      loggerInstance: logger,
      childLoggerFactory: lazyChildLoggerFactory,
      disableRequestLogging: true,
      forceCloseConnections: true,
    });
    app.get('/quiet', async () => ({ ok: true }));
    app.get('/loud', async (request) => {
      request.log.info({ who: 'route' }, 'handled');
      return { ok: true };
    });
    const base = await app.listen({ port: 0, host: '127.0.0.1' });
    lines.length = 0; // Fastify's own 'Server listening' line
    await fetch(`${base}/quiet`);
    expect(lines).toHaveLength(0);
    const res = await fetch(`${base}/loud`);
    expect(res.status).toBe(200);
    expect(lines).toEqual([expect.objectContaining({ reqId: expect.any(String), who: 'route', msg: 'handled' })]);
    await app.close();
  });

  it("as the root's own child (deferRequestChildren): Fastify's default factory gets lazy children, nested bindings kept (real HTTP)", async () => {
    const { lines, logger } = capture('info');
    const app = Fastify({ loggerInstance: logger, disableRequestLogging: true, forceCloseConnections: true });
    deferRequestChildren(app.log);
    deferRequestChildren(app.log); // idempotent
    let requestLogger: unknown;
    app.get('/quiet', async (request) => {
      requestLogger = request.log;
      return { ok: true };
    });
    app.get('/loud', async (request) => {
      request.log.info({ who: 'route' }, 'handled');
      request.log.child({ step: 'two' }).info('nested');
      return { ok: true };
    });
    const base = await app.listen({ port: 0, host: '127.0.0.1' });
    lines.length = 0;
    await fetch(`${base}/quiet`);
    expect((requestLogger as object).constructor.name).toBe('LazyChildLogger');
    expect(lines).toHaveLength(0);
    await fetch(`${base}/loud`);
    expect(lines).toEqual([
      expect.objectContaining({ reqId: expect.any(String), who: 'route', msg: 'handled' }),
      expect.objectContaining({ reqId: expect.any(String), step: 'two', msg: 'nested' }),
    ]);
    // A child with its own level is pino's at once; its children are lazy and keep its bindings.
    const own = app.log.child({ part: 'p' }, { level: 'debug' });
    expect(own.constructor.name).not.toBe('LazyChildLogger');
    own.child({ inner: 1 }).debug('deep');
    expect(lines[2]).toMatchObject({ part: 'p', inner: 1, msg: 'deep', level: 20 });
    await app.close();
  });
});
