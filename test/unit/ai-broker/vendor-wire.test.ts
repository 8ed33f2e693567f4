// The broker's wire to a vendor for answers when tracing is off (an undici Pool, vendor-http.ts):
// the same request and answer as Node's `http` client against the OpenAI-format stand-in, and
// against a server scripted byte by byte: answers in pieces, chunked or with a length or up to the
// close, interim answers, errors with Retry-After, connections reused, closed and retired, a
// hang-up, an abort, no retry, idle connections that do not hold the process open, and a header
// value that would smuggle a line.
import diagnostics from 'node:diagnostics_channel';
import net from 'node:net';
import { markTracingStarted } from '../../../platform/telemetry/trace-context';
import { VendorConnection, VendorHttpError, type VendorWire } from '../../../subgraphs/ai-broker/providers/vendor-http';
import { startVendor, type VendorStandIn } from '../../support/vendors/vendor-stand-in';

const body = { model: 'gpt-4', max_tokens: 8, messages: [{ role: 'user', content: 'Bonjour, ça va? 🙂' }] };
const signal = () => AbortSignal.timeout(5_000);

describe.each<VendorWire>(['undici', 'node-http'])('the %s wire against the stand-in', (wire) => {
  let vendor: VendorStandIn;
  beforeAll(async () => {
    vendor = await startVendor('openai');
  });
  afterAll(() => vendor.close());

  test('sends the same request and reads the answer', async () => {
    const connection = new VendorConnection(vendor.url, wire);
    const answer = (await connection.post('chat/completions', { authorization: 'Bearer sk-1' }, body, signal())) as {
      choices: { message: { content: string } }[];
    };
    expect(answer.choices[0]!.message.content).toBe('Echo: Bonjour, ça va? 🙂');
    const seen = vendor.completions().at(-1)!;
    expect(JSON.parse(seen.body)).toEqual(body);
    expect(seen.headers).toMatchObject({
      host: new URL(vendor.url).host,
      authorization: 'Bearer sk-1',
      accept: 'application/json',
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(seen.body)),
      connection: 'keep-alive',
    });
    connection.close();
  });

  test('an error answer carries its status, Retry-After and body', async () => {
    const connection = new VendorConnection(vendor.url, wire);
    vendor.queue.push('rate_limited');
    const err = (await connection
      .post('chat/completions', {}, body, signal())
      .catch((e: unknown) => e)) as VendorHttpError;
    expect(err).toBeInstanceOf(VendorHttpError);
    expect(err.status).toBe(429);
    expect(err.headers.get('Retry-After')).toBe('7');
    expect(err.error).toMatchObject({ type: 'rate_limit_exceeded' });
    connection.close();
  });
});

/** A server answering each request with the next scripted reply (pieces written apart). */
async function scripted(replies: (string[] | 'hang' | 'close')[]) {
  const requests: string[] = [];
  let connections = 0;
  const server = net.createServer((socket) => {
    connections++;
    // The server's end never holds the process open: only the client's sockets count below.
    socket.unref();
    let pending = '';
    socket.on('data', async (d) => {
      pending += d.toString('latin1');
      const head = pending.indexOf('\r\n\r\n');
      if (head < 0) return;
      const length = Number(/content-length: (\d+)/i.exec(pending.slice(0, head))?.[1] ?? 0);
      if (pending.length < head + 4 + length) return;
      requests.push(pending.slice(0, head + 4 + length));
      pending = '';
      const reply = replies.shift();
      if (reply === 'close' || reply === undefined) return socket.destroy();
      if (reply === 'hang') return;
      for (const piece of reply) {
        socket.write(piece);
        await new Promise((r) => setTimeout(r, 5));
      }
      if (/connection: close/i.test(reply.join('')) || !/content-length|chunked/i.test(reply.join(''))) socket.end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}/v1`;
  return {
    url,
    requests,
    connections: () => connections,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

const json = '{"ok":true}';
const ok = (extra = '') => [`HTTP/1.1 200 OK\r\ncontent-length: ${json.length}\r\n${extra}\r\n${json}`];

describe('the undici wire against a scripted server', () => {
  test('reads a chunked answer delivered a few bytes at a time, with trailers', async () => {
    const text = `HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;x=y\r\n{"ok"\r\n6\r\n:true}\r\n0\r\nX-Trailer: 1\r\n\r\n`;
    const pieces = text.match(/[\s\S]{1,7}/g)!;
    const plain = [`HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nb\r\n${json}\r\n0\r\n\r\n`];
    const s = await scripted([pieces, plain, ok()]);
    const c = new VendorConnection(s.url, 'undici');
    await expect(c.post('chat/completions', {}, body, signal())).resolves.toEqual({ ok: true });
    await expect(c.post('chat/completions', {}, body, signal())).resolves.toEqual({ ok: true });
    // Each answer was read to its end (trailers or not): a connection carries a later request.
    // (undici's pool frees a connection a tick after its answer, so a caller that sends as soon as
    // it has one answer may open a second connection; it never opens one per request.)
    await expect(c.post('chat/completions', {}, body, signal())).resolves.toEqual({ ok: true });
    expect(s.connections()).toBeLessThan(3);
    expect(s.requests[0]).toMatch(/^POST \/v1\/chat\/completions HTTP\/1\.1\r\n/);
    expect(s.requests[0]).toMatch(/\r\nhost: 127\.0\.0\.1:\d+\r\n/i);
    c.close();
    await s.close();
  });

  test('reuses kept-alive connections; a closing answer, or a retired idle one, gets a new connection', async () => {
    const calls = async (reply: string[]) => {
      const s = await scripted([reply, reply, reply, reply, reply, reply]);
      const c = new VendorConnection(s.url, 'undici');
      for (let i = 0; i < 6; i++)
        await expect(c.post('chat/completions', {}, body, signal())).resolves.toEqual({ ok: true });
      c.close();
      await s.close();
      return s.connections();
    };
    expect(await calls(ok())).toBeLessThanOrEqual(2);
    expect(await calls(ok('Connection: close\r\n'))).toBe(6);
    // timeout=1: retired at once, a second before the server's timeout.
    expect(await calls(ok('Keep-Alive: timeout=1\r\n'))).toBe(6);
    expect(await calls(ok('Keep-Alive: timeout=5\r\n'))).toBeLessThanOrEqual(2);
  });

  test('skips an interim answer; reads a body that runs to the close', async () => {
    const s = await scripted([
      ['HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n', ...ok()],
      ['HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\r\n{"ok"', ':true}'],
    ]);
    const c = new VendorConnection(s.url, 'undici');
    await expect(c.post('chat/completions', {}, body, signal())).resolves.toEqual({ ok: true });
    await expect(c.post('chat/completions', {}, body, signal())).resolves.toEqual({ ok: true });
    c.close();
    await s.close();
  });

  test('a connection closed before the answer is a hang-up; an abort rejects with its reason', async () => {
    const s = await scripted(['close', 'hang', ok()]);
    const c = new VendorConnection(s.url, 'undici');
    await expect(c.post('chat/completions', {}, body, signal())).rejects.toMatchObject({ code: 'UND_ERR_SOCKET' });
    const controller = new AbortController();
    const call = c.post('chat/completions', {}, body, controller.signal);
    await new Promise((r) => setTimeout(r, 50));
    controller.abort(new DOMException('The operation timed out.', 'TimeoutError'));
    await expect(call).rejects.toMatchObject({ name: 'TimeoutError' });
    // The aborted connection is not reused: the next call has a fresh one and its answer.
    await expect(c.post('chat/completions', {}, body, signal())).resolves.toEqual({ ok: true });
    expect(s.requests).toHaveLength(3);
    expect(s.connections()).toBeGreaterThanOrEqual(3);
    c.close();
    await s.close();
  });

  test('a header value with a line break is refused before anything is sent; URL user info is basic auth', async () => {
    const s = await scripted([ok()]);
    const withUser = s.url.replace('http://', 'http://me:p%40ss@');
    const c = new VendorConnection(withUser, 'undici');
    await expect(
      c.post('chat/completions', { authorization: 'Bearer k\r\nX-Injected: 1' }, body, signal()),
    ).rejects.toThrow(TypeError);
    expect(s.requests).toHaveLength(0);
    await c.post('chat/completions', {}, body, signal());
    expect(s.requests[0]).toMatch(
      new RegExp(`\r\nauthorization: Basic ${Buffer.from('me:p@ss').toString('base64')}\r\n`, 'i'),
    );
    c.close();
    await s.close();
  });
});

test('a failed call is not retried, and an answer that is not HTTP is refused without a status', async () => {
  const s = await scripted([
    'close',
    ['SSH-2.0-OpenSSH_9.6\r\n\r\n'],
    ['HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n'],
  ]);
  const c = new VendorConnection(s.url, 'undici');
  for (let i = 0; i < 3; i++) {
    const err = (await c.post('chat/completions', {}, body, signal()).catch((e: unknown) => e)) as { status?: number };
    expect(err).toBeInstanceOf(Error);
    expect(err.status).toBeUndefined();
  }
  // One request per call: the executor, not the wire, decides whether to try again.
  expect(s.requests).toHaveLength(3);
  c.close();
  await s.close();
});

test('an idle kept-alive connection does not hold the process open; one in flight does', async () => {
  const s = await scripted([ok(), 'hang']);
  const c = new VendorConnection(s.url, 'undici');
  const clientSockets = () => process.getActiveResourcesInfo().filter((r) => r === 'TCPSocketWrap').length;
  const server = s.url;
  const before = clientSockets();
  await c.post('chat/completions', {}, body, signal());
  await new Promise((r) => setImmediate(r));
  // Kept alive (the next call reuses it) but unref'd.
  expect(s.connections()).toBe(1);
  const idle = clientSockets();
  const controller = new AbortController();
  const hanging = c.post('chat/completions', {}, body, controller.signal).catch(() => undefined);
  await new Promise((r) => setTimeout(r, 50));
  const busy = clientSockets();
  controller.abort(new Error('done'));
  await hanging;
  expect({ server, idle: idle - before, busy: busy - before }).toEqual({ server, idle: 0, busy: 1 });
  c.close();
  await s.close();
});

// Last in the file: tracing, once started, stays on for the module registry of this file.
test("the undici wire while tracing is off; Node's client (which the HTTP instrumentation traces) once it is on", async () => {
  const vendor = await startVendor('openai');
  const seen = { undici: 0, http: 0 };
  const onSocket = () => seen.undici++;
  const onHttp = () => seen.http++;
  diagnostics.subscribe('undici:request:create', onSocket);
  diagnostics.subscribe('http.client.request.start', onHttp);
  try {
    const before = new VendorConnection(vendor.url);
    await before.post('chat/completions', {}, body, signal());
    expect(seen).toEqual({ undici: 1, http: 0 });
    markTracingStarted();
    const after = new VendorConnection(vendor.url);
    await after.post('chat/completions', {}, body, signal());
    expect(seen).toEqual({ undici: 1, http: 1 });
    before.close();
    after.close();
  } finally {
    diagnostics.unsubscribe('undici:request:create', onSocket);
    diagnostics.unsubscribe('http.client.request.start', onHttp);
    await vendor.close();
  }
});
