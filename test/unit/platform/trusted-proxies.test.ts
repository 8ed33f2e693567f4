// The client address behind trusted proxies (TRUSTED_PROXIES): the right-most address of the chain
// that is not a trusted proxy; a forged X-Forwarded-For from an untrusted peer changes nothing. The
// same answers from clientAddress() (the graphql-ws upgrade) and Fastify's request.ip (every route).
import http from 'node:http';
import Fastify, { type FastifyInstance } from 'fastify';
import { balancerAddress, trustedProxiesFor } from '../../../launcher/deploy-local';
import { ConfigError } from '../../../platform/config/env';
import { clientAddress, parseTrustedProxies, type TrustedProxies } from '../../../platform/http/trusted-proxies';
import { loadGatewayConfig } from '../../../router/gateway.config';

function resolve(proxies: TrustedProxies, peer: string, xff?: string): string | undefined {
  return clientAddress(
    { socket: { remoteAddress: peer } as never, headers: xff === undefined ? {} : { 'x-forwarded-for': xff } },
    proxies,
  );
}

describe('parseTrustedProxies', () => {
  it('accepts addresses and CIDR ranges of both families, with spaces and empty entries', () => {
    const p = parseTrustedProxies(' 10.0.0.5, 172.16.0.0/12 ,, ::1, fd00::/8 ');
    expect(p.entries).toEqual(['10.0.0.5', '172.16.0.0/12', '::1', 'fd00::/8']);
    expect(p.trust('10.0.0.5')).toBe(true);
    expect(p.trust('10.0.0.6')).toBe(false);
    expect(p.trust('172.31.255.255')).toBe(true);
    expect(p.trust('172.32.0.0')).toBe(false);
    expect(p.trust('::1')).toBe(true);
    expect(p.trust('fd12:3456::9')).toBe(true);
    expect(p.trust('fe80::1')).toBe(false);
  });

  it('trusts nobody when empty', () => {
    for (const list of [undefined, '', ' , ']) {
      const p = parseTrustedProxies(list);
      expect(p.entries).toEqual([]);
      expect(p.trust('127.0.0.1')).toBe(false);
    }
  });

  it('matches an IPv4 peer seen by a dual-stack socket (::ffff:a.b.c.d) against IPv4 entries', () => {
    const p = parseTrustedProxies('10.1.0.0/16');
    expect(p.trust('::ffff:10.1.2.3')).toBe(true);
    expect(p.trust('::ffff:10.2.2.3')).toBe(false);
  });

  it('never trusts something that is not an address', () => {
    const p = parseTrustedProxies('0.0.0.0/0, ::/0');
    expect(p.trust('unknown')).toBe(false);
    expect(p.trust('10.0.0.1:8080')).toBe(false);
    expect(p.trust(undefined)).toBe(false);
  });

  it.each(['nginx', '10.0.0.1/33', '::1/129', '10.0.0.0/8/1', '10.0.0.0/', '10.0.0.256', '10.0.0.0/-1'])(
    'refuses %s',
    (entry) => {
      expect(() => parseTrustedProxies(`127.0.0.1,${entry}`)).toThrow(entry);
    },
  );
});

describe('clientAddress', () => {
  const lb = parseTrustedProxies('10.0.0.10, 10.0.1.0/24');

  it('is the TCP peer when nobody is trusted, whatever X-Forwarded-For says', () => {
    expect(resolve(parseTrustedProxies(''), '203.0.113.7', '198.51.100.1')).toBe('203.0.113.7');
  });

  it('is the address a trusted balancer appended', () => {
    expect(resolve(lb, '10.0.0.10', '203.0.113.7')).toBe('203.0.113.7');
  });

  it('walks a chain of trusted proxies (a CIDR) to the first untrusted address from the right', () => {
    // client -> 10.0.1.5 (edge) -> 10.0.0.10 (balancer) -> gateway
    expect(resolve(lb, '10.0.0.10', '203.0.113.7, 10.0.1.5')).toBe('203.0.113.7');
  });

  it('ignores what the client wrote left of its own address (a forger behind the balancer)', () => {
    // nginx's $proxy_add_x_forwarded_for appends the real peer to whatever the client sent.
    expect(resolve(lb, '10.0.0.10', '1.2.3.4, 10.0.1.77, 203.0.113.7')).toBe('203.0.113.7');
  });

  it('gives an untrusted forger straight at the gateway its own address', () => {
    expect(resolve(lb, '203.0.113.66', '198.51.100.1')).toBe('203.0.113.66');
    expect(resolve(lb, '203.0.113.66', '10.0.0.10, 198.51.100.1')).toBe('203.0.113.66');
  });

  it('is the left-most address when every hop is trusted, and the peer without a header', () => {
    expect(resolve(lb, '10.0.0.10', '10.0.1.1, 10.0.1.2')).toBe('10.0.1.1');
    expect(resolve(lb, '10.0.0.10')).toBe('10.0.0.10');
    expect(resolve(lb, '10.0.0.10', ' , ')).toBe('10.0.0.10');
  });

  it('resolves IPv6 peers and chains', () => {
    const v6 = parseTrustedProxies('fd00:1::/64, ::1');
    expect(resolve(v6, '::1', '2001:db8::7')).toBe('2001:db8::7');
    expect(resolve(v6, 'fd00:1::20', '2001:db8::7, fd00:1::3')).toBe('2001:db8::7');
    expect(resolve(v6, '2001:db8::66', '2001:db8::1')).toBe('2001:db8::66');
  });

  it('resolves an IPv4 peer on a dual-stack socket', () => {
    expect(resolve(lb, '::ffff:10.0.0.10', '203.0.113.7')).toBe('203.0.113.7');
  });

  it('reads a repeated header as one list', () => {
    expect(
      clientAddress(
        {
          socket: { remoteAddress: '10.0.0.10' } as never,
          headers: { 'x-forwarded-for': ['203.0.113.7', '10.0.1.5'] as never },
        },
        lb,
      ),
    ).toBe('203.0.113.7');
  });
});

describe("Fastify's request.ip with the same trust", () => {
  // Real sockets from chosen loopback addresses (Linux answers on all of 127.0.0.0/8).
  const lb = parseTrustedProxies('127.0.0.1, 127.0.1.0/24');
  const cases: [string, string | undefined, string][] = [
    ['127.0.0.1', '203.0.113.7', '203.0.113.7'],
    ['127.0.1.9', '203.0.113.7, 127.0.1.5', '203.0.113.7'],
    ['127.0.0.1', '1.2.3.4, 127.0.1.77, 203.0.113.7', '203.0.113.7'],
    ['127.0.0.9', '198.51.100.1', '127.0.0.9'],
    ['127.0.0.1', '127.0.1.1, 127.0.1.2', '127.0.1.1'],
    ['127.0.0.1', undefined, '127.0.0.1'],
    ['127.0.0.1', '2001:db8::7, 127.0.1.3', '2001:db8::7'],
  ];
  let app: FastifyInstance;
  let url: string;
  beforeAll(async () => {
    app = Fastify({ trustProxy: (address: string, hop: number) => lb.trust(address, hop) });
    app.get('/', async (request) => ({ ip: request.ip, raw: clientAddress(request.raw, lb) }));
    url = await app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(async () => app.close());

  it.each(cases)('peer %s, X-Forwarded-For %s: %s', async (peer, xff, expected) => {
    const body = await new Promise<string>((done, fail) => {
      const req = http.request(
        url,
        { localAddress: peer, agent: false, headers: xff === undefined ? {} : { 'x-forwarded-for': xff } },
        (res) => {
          let text = '';
          res.on('data', (c: Buffer) => (text += c.toString()));
          res.on('end', () => done(text));
        },
      );
      req.on('error', fail);
      req.end();
    });
    expect(JSON.parse(body)).toEqual({ ip: expected, raw: expected });
  });
});

describe('where TRUSTED_PROXIES is read', () => {
  it('stops the gateway at start on a bad entry, naming the setting', () => {
    expect(() => loadGatewayConfig({ TRUSTED_PROXIES: '10.0.0.1, balancer' }, [])).toThrow(ConfigError);
    expect(() => loadGatewayConfig({ TRUSTED_PROXIES: '10.0.0.1, balancer' }, [])).toThrow(
      /TRUSTED_PROXIES.*"balancer"/,
    );
    expect(loadGatewayConfig({}, []).trustedProxies.entries).toEqual([]);
    expect(loadGatewayConfig({ TRUSTED_PROXIES: '10.0.0.1,fd00::/8' }, []).trustedProxies.entries).toEqual([
      '10.0.0.1',
      'fd00::/8',
    ]);
  });

  it("deploy:local trusts nginx's bind address, plus the proxies the operator names in front of it", () => {
    expect(balancerAddress({})).toBe('127.0.0.1');
    expect(balancerAddress({ DEPLOY_BALANCER_ADDRESS: '127.0.0.254' })).toBe('127.0.0.254');
    for (const bad of ['10.0.0.1', '::1', 'localhost'])
      expect(() => balancerAddress({ DEPLOY_BALANCER_ADDRESS: bad })).toThrow(/DEPLOY_BALANCER_ADDRESS/);
    expect(trustedProxiesFor({}, '127.0.0.254')).toBe('127.0.0.254');
    expect(trustedProxiesFor({ TRUSTED_PROXIES: '203.0.113.0/24, 127.0.0.254' }, '127.0.0.254')).toBe(
      '127.0.0.254,203.0.113.0/24',
    );
  });
});
