// The SSRF guard: loopback, private, link-local and multicast addresses (IPv4, IPv6 and IPv4-mapped
// IPv6) are refused at registration and again at delivery time, unless the operator allows them;
// redirects are never followed.
import { randomUUID } from 'node:crypto';
import { createLogger } from '../../../platform/logging/logger';
import { InputError } from '../../../platform/errors/domain-errors';
import { createAddressGuard } from '../../../subgraphs/events/webhooks/address.guard';
import { createWebhookModule, loadWebhookConfig, type WebhookModule } from '../../../subgraphs/events/webhooks';
import { createTestDatabase, type TestDatabase } from '../../support/database';
import { until } from '../../support/waiting';
import { startReceiver, type Receiver } from './webhooks.receiver';

const logger = createLogger('CRITICAL', 'test');
let db: TestDatabase;
let receiver: Receiver;
const started: WebhookModule[] = [];

function hooks(env: Record<string, string> = {}): WebhookModule {
  const config = {
    ...loadWebhookConfig({ EVENTS_WEBHOOK_POLL_MS: '20', EVENTS_WEBHOOK_BACKOFF: '10s', ...env }),
    jitter: 0,
  };
  return createWebhookModule({ db, logger, config });
}

beforeAll(async () => {
  db = await createTestDatabase();
  receiver = await startReceiver();
});
afterEach(async () => {
  await Promise.all(started.splice(0).map((m) => m.worker.stop()));
  await db.sql.query(`DELETE FROM webhook_queue WHERE status = 'pending'`);
  receiver.received.length = 0;
});
afterAll(async () => {
  await receiver?.close();
  await db?.drop();
});

const REFUSED = [
  '127.0.0.1',
  '127.8.9.10',
  '10.1.2.3',
  '172.16.0.1',
  '192.168.1.1',
  '169.254.169.254',
  '100.64.0.1',
  '0.0.0.0',
  '224.0.0.1',
  '255.255.255.255',
  '::1',
  '::',
  '::ffff:127.0.0.1',
  '::ffff:10.0.0.1',
  '::ffff:169.254.169.254',
  'fe80::1',
  'fc00::1',
  'fd12:3456::1',
  'ff02::1',
  '64:ff9b::a00:1',
];

describe('the address guard', () => {
  const strict = createAddressGuard({ allowPrivate: false, allowedAddresses: [] });

  it.each(REFUSED)('refuses %s', (address) => {
    expect(strict.refusal(address)).toMatch(/is a/);
  });

  it.each(['93.184.216.34', '8.8.8.8', '2606:4700:4700::1111', '::ffff:8.8.8.8'])('allows public %s', (address) => {
    expect(strict.refusal(address)).toBeNull();
  });

  it('allows listed addresses and networks only, and everything with EVENTS_WEBHOOK_ALLOW_PRIVATE', () => {
    const listed = createAddressGuard({ allowPrivate: false, allowedAddresses: ['10.0.0.0/8', '::1'] });
    expect(listed.refusal('10.200.0.1')).toBeNull();
    expect(listed.refusal('::ffff:10.200.0.1')).toBeNull();
    expect(listed.refusal('::1')).toBeNull();
    expect(listed.refusal('127.0.0.1')).toMatch(/loopback/);
    expect(listed.refusal('192.168.0.1')).toMatch(/private/);
    const open = createAddressGuard({ allowPrivate: true, allowedAddresses: [] });
    for (const address of REFUSED) expect(open.refusal(address)).toBeNull();
  });

  it('resolves host names and refuses one that resolves to loopback', async () => {
    await expect(strict.resolve('localhost')).rejects.toThrow(/refused: localhost resolves to .* loopback/);
  });
});

describe('registration', () => {
  it.each([
    'http://127.0.0.1:8080/hook',
    'http://10.1.2.3/hook',
    'http://169.254.169.254/latest/meta-data/',
    'http://[::1]/hook',
    'http://[::ffff:127.0.0.1]/hook',
    'http://localhost/hook',
  ])('refuses %s with an input error on the url field', async (url) => {
    const err = await hooks()
      .endpoints.create(`t-${randomUUID()}`, { url })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InputError);
    expect((err as InputError).issues).toEqual([
      { loc: ['url'], msg: expect.stringMatching(/^refused: /), type: 'value_error' },
    ]);
  });

  it('refuses schemes other than http(s) and URLs with credentials', async () => {
    const { endpoints } = hooks({ EVENTS_WEBHOOK_ALLOW_PRIVATE: 'true' });
    for (const url of ['ftp://example.com/x', 'file:///etc/passwd', 'http://user:pw@127.0.0.1/x', 'not a url']) {
      await expect(endpoints.create('t', { url })).rejects.toBeInstanceOf(InputError);
    }
  });

  it('accepts a private address the operator listed, or any with EVENTS_WEBHOOK_ALLOW_PRIVATE', async () => {
    const listed = hooks({ EVENTS_WEBHOOK_ALLOWED_ADDRESSES: '10.0.0.0/8' });
    await expect(listed.endpoints.create('t', { url: 'http://10.1.2.3/hook' })).resolves.toBeTruthy();
    await expect(listed.endpoints.create('t', { url: 'http://127.0.0.1/hook' })).rejects.toBeInstanceOf(InputError);
    const open = hooks({ EVENTS_WEBHOOK_ALLOW_PRIVATE: 'true' });
    await expect(open.endpoints.create('t', { url: 'http://[::1]:9/hook' })).resolves.toBeTruthy();
  });
});

describe('delivery', () => {
  it('re-checks the address at delivery time: an endpoint registered while allowed is refused once it is not', async () => {
    const tenant = `t-${randomUUID()}`;
    // Registered while the operator allowed private addresses (or while the name resolved elsewhere)...
    const lenient = hooks({ EVENTS_WEBHOOK_ALLOW_PRIVATE: 'true' });
    const { endpoint: byIp } = await lenient.endpoints.create(tenant, { url: receiver.url('/by-ip') });
    const port = new URL(receiver.url()).port;
    const { endpoint: byName } = await lenient.endpoints.create(tenant, { url: `http://localhost:${port}/by-name` });
    // ...delivered by a process that does not allow them: nothing reaches the receiver.
    const strict = hooks();
    started.push(strict);
    strict.worker.start();
    await strict.deliver({ id: randomUUID(), type: 'workflow.completed', tenantid: tenant, data: {} });
    for (const ep of [byIp, byName]) {
      await until(async () => (await strict.endpoints.attempts(tenant, ep.id)).length === 1, 'the refused attempt');
      const [attempt] = await strict.endpoints.attempts(tenant, ep.id);
      expect(attempt).toMatchObject({ outcome: 'refused', status_code: null });
      expect(attempt!.response).toMatch(/loopback/);
    }
    expect(receiver.received).toHaveLength(0);
  });

  it('follows no redirect: a 3xx is a failed attempt and the target is never called', async () => {
    const tenant = `t-${randomUUID()}`;
    const module = hooks({ EVENTS_WEBHOOK_ALLOWED_ADDRESSES: '127.0.0.1' });
    started.push(module);
    receiver.answer = (req, res) => {
      if (req.path === '/redirect') res.writeHead(307, { location: receiver.url('/target') }).end();
      else res.writeHead(200).end();
    };
    const { endpoint } = await module.endpoints.create(tenant, { url: receiver.url('/redirect') });
    module.worker.start();
    await module.deliver({ id: randomUUID(), type: 'workflow.completed', tenantid: tenant, data: {} });
    await until(async () => (await module.endpoints.attempts(tenant, endpoint.id)).length === 1, 'the attempt');
    const [attempt] = await module.endpoints.attempts(tenant, endpoint.id);
    expect(attempt).toMatchObject({ outcome: 'http_error', status_code: 307 });
    expect(receiver.received.map((r) => r.path)).toEqual(['/redirect']);
    const [message] = await module.endpoints.messages(tenant, endpoint.id);
    expect(message).toMatchObject({ status: 'pending', attempts: 1, last_error: 'HTTP 307' });
  });
});
