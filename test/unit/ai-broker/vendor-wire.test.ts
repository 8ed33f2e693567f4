// The broker's own HTTP/1.1 wire to a vendor (vendor-socket.ts, vendor-response.ts), used for
// answers when tracing is off: the same request and answer as Node's `http` client against the
// OpenAI-format stand-in, and against a server scripted byte by byte: answers in pieces, chunked
// or with a length or up to the close, interim answers, errors with Retry-After, connections
// reused, closed and retired, a hang-up, an abort, and a header value that would smuggle a line.
import diagnostics from 'node:diagnostics_channel';
import net from 'node:net';
import { markTracingStarted } from '../../../platform/telemetry/trace-context';
import { VendorConnection, VendorHttpError, type VendorWire } from '../../../subgraphs/ai-broker/providers/vendor-http';
import { ResponseReader, VendorResponseError } from '../../../subgraphs/ai-broker/providers/vendor-response';
import { VENDOR_REQUEST_START } from '../../../subgraphs/ai-broker/providers/vendor-socket';
import { startVendor, type VendorStandIn } from '../../support/vendors/vendor-stand-in';

const body = { model: 'gpt-4', max_tokens: 8, messages: [{ role: 'user', content: 'Bonjour, ça va? 🙂' }] };
const signal = () => AbortSignal.timeout(5_000);

describe.each<VendorWire>(['socket', 'node-http'])('the %s wire against the stand-in', (wire) => {
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

describe('the socket wire against a scripted server', () => {
  test('reads a chunked answer delivered a few bytes at a time, with trailers', async () => {
    const text = `HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;x=y\r\n{"ok"\r\n6\r\n:true}\r\n0\r\nX-Trailer: 1\r\n\r\n`;
    const pieces = text.match(/[\s\S]{1,7}/g)!;
    const plain = [`HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nb\r\n${json}\r\n0\r\n\r\n`];
    const s = await scripted([pieces, plain, ok()]);
    const c = new VendorConnection(s.url, 'socket');
    await expect(c.post('chat/completions', {}, body, signal())).resolves.toEqual({ ok: true });
    await expect(c.post('chat/completions', {}, body, signal())).resolves.toEqual({ ok: true });
    // Each answer was read to its end (trailers or not): the one connection carries the next request.
    await expect(c.post('chat/completions', {}, body, signal())).resolves.toEqual({ ok: true });
    expect(s.connections()).toBe(1);
    expect(s.requests[0]).toMatch(/^POST \/v1\/chat\/completions HTTP\/1\.1\r\nHost: 127\.0\.0\.1:\d+\r\n/);
    c.close();
    await s.close();
  });

  test('reuses a kept-alive connection; a closing answer, or a retired idle one, gets a new connection', async () => {
    const s = await scripted([ok(), ok('Connection: close\r\n'), ok('Keep-Alive: timeout=1\r\n'), ok(), ok()]);
    const c = new VendorConnection(s.url, 'socket');
    await c.post('chat/completions', {}, body, signal());
    await c.post('chat/completions', {}, body, signal());
    expect(s.connections()).toBe(1);
    // The second answer said close: a new connection. Its own answer says timeout=1, so the
    // connection is retired at once (a second before the server's timeout).
    await c.post('chat/completions', {}, body, signal());
    expect(s.connections()).toBe(2);
    await c.post('chat/completions', {}, body, signal());
    expect(s.connections()).toBe(3);
    await c.post('chat/completions', {}, body, signal());
    expect(s.connections()).toBe(3);
    c.close();
    await s.close();
  });

  test('skips an interim answer; reads a body that runs to the close', async () => {
    const s = await scripted([
      ['HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n', ...ok()],
      ['HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\r\n{"ok"', ':true}'],
    ]);
    const c = new VendorConnection(s.url, 'socket');
    await expect(c.post('chat/completions', {}, body, signal())).resolves.toEqual({ ok: true });
    await expect(c.post('chat/completions', {}, body, signal())).resolves.toEqual({ ok: true });
    c.close();
    await s.close();
  });

  test('a connection closed before the answer is a hang-up; an abort rejects with its reason', async () => {
    const s = await scripted(['close', 'hang', ok()]);
    const c = new VendorConnection(s.url, 'socket');
    await expect(c.post('chat/completions', {}, body, signal())).rejects.toMatchObject({ code: 'ECONNRESET' });
    const controller = new AbortController();
    const call = c.post('chat/completions', {}, body, controller.signal);
    await new Promise((r) => setTimeout(r, 50));
    controller.abort(new DOMException('The operation timed out.', 'TimeoutError'));
    await expect(call).rejects.toMatchObject({ name: 'TimeoutError' });
    // The aborted connection is not reused: the next call has a fresh one and its answer.
    await expect(c.post('chat/completions', {}, body, signal())).resolves.toEqual({ ok: true });
    expect(s.connections()).toBe(3);
    c.close();
    await s.close();
  });

  test('a header value with a line break is refused before anything is sent; URL user info is basic auth', async () => {
    const s = await scripted([ok()]);
    const withUser = s.url.replace('http://', 'http://me:p%40ss@');
    const c = new VendorConnection(withUser, 'socket');
    await expect(
      c.post('chat/completions', { authorization: 'Bearer k\r\nX-Injected: 1' }, body, signal()),
    ).rejects.toThrow(TypeError);
    expect(s.requests).toHaveLength(0);
    await c.post('chat/completions', {}, body, signal());
    expect(s.requests[0]).toContain(`\r\nAuthorization: Basic ${Buffer.from('me:p@ss').toString('base64')}\r\n`);
    c.close();
    await s.close();
  });
});

test('a response that is not HTTP/1.x, or has a bad length or chunk size, is refused', () => {
  expect(() => new ResponseReader().push(Buffer.from('SSH-2.0-OpenSSH\r\n\r\n'))).toThrow(VendorResponseError);
  expect(() => new ResponseReader().push(Buffer.from('HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n'))).toThrow(
    VendorResponseError,
  );
  expect(() =>
    new ResponseReader().push(Buffer.from('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n')),
  ).toThrow(VendorResponseError);
  const r = new ResponseReader();
  expect(r.push(Buffer.from('HTTP/1.1 204 No Content\r\n\r\n'))).toMatchObject({ status: 204, reusable: true });
});

// Last in the file: tracing, once started, stays on for the module registry of this file.
test("the socket wire while tracing is off; Node's client (which the HTTP instrumentation traces) once it is on", async () => {
  const vendor = await startVendor('openai');
  const seen = { socket: 0, http: 0 };
  const onSocket = () => seen.socket++;
  const onHttp = () => seen.http++;
  diagnostics.subscribe(VENDOR_REQUEST_START.name as string, onSocket);
  diagnostics.subscribe('http.client.request.start', onHttp);
  try {
    const before = new VendorConnection(vendor.url);
    await before.post('chat/completions', {}, body, signal());
    expect(seen).toEqual({ socket: 1, http: 0 });
    markTracingStarted();
    const after = new VendorConnection(vendor.url);
    await after.post('chat/completions', {}, body, signal());
    expect(seen).toEqual({ socket: 1, http: 1 });
    before.close();
    after.close();
  } finally {
    diagnostics.unsubscribe(VENDOR_REQUEST_START.name as string, onSocket);
    diagnostics.unsubscribe('http.client.request.start', onHttp);
    await vendor.close();
  }
});
