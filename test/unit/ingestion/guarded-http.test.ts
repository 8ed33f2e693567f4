// The pull connector's guard against server-side request forgery, against a real local server:
// loopback refused by literal address and by a name that resolves to it, hosts off the allowlist
// refused, a server that does not answer cut at the deadline, an over-size body cut at its limit.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { InputError, PayloadTooLargeError } from '../../../platform/errors/domain-errors';
import {
  checkPullUrl,
  guardedGet,
  hostAllowed,
  isPublicAddress,
  type PullGuard,
} from '../../../subgraphs/ingestion/guarded-http';
import { linkNext } from '../../../subgraphs/ingestion/rest-pull.connector';

let server: http.Server;
let port: number;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    if (req.url === '/silent') return; // never answers
    if (req.url === '/big') return res.end('x'.repeat(10_000));
    res.setHeader('content-type', 'application/json');
    res.end('[{"id":1}]');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const guard = (over: Partial<PullGuard> = {}): PullGuard => ({
  allowedHosts: [],
  allowPrivate: false,
  timeoutMs: 5000,
  ...over,
});

it('tells public addresses from private, loopback, link-local and mapped ones', () => {
  expect(isPublicAddress('93.184.216.34')).toBe(true);
  for (const a of [
    '127.0.0.1',
    '10.1.2.3',
    '192.168.0.1',
    '172.16.5.5',
    '169.254.169.254',
    '::1',
    'fc00::1',
    '::ffff:127.0.0.1',
    '0.0.0.0',
  ])
    expect(isPublicAddress(a)).toBe(false);
});

it('matches the allowlist by host or *.suffix; an empty list allows any host', () => {
  expect(hostAllowed('api.example.com', [])).toBe(true);
  expect(hostAllowed('api.example.com', ['*.example.com'])).toBe(true);
  expect(hostAllowed('example.com.evil.io', ['*.example.com'])).toBe(false);
  expect(hostAllowed('api.example.com', ['example.com'])).toBe(false);
});

it('refuses a loopback address by literal and by a name that resolves to it', async () => {
  expect(() => checkPullUrl(`http://127.0.0.1:${port}/`, guard())).toThrow(/private or reserved/);
  expect(() => checkPullUrl(`http://[::1]:${port}/`, guard())).toThrow(InputError);
  await expect(guardedGet(new URL(`http://localhost:${port}/`), guard(), { maxBytes: 1000 })).rejects.toThrow(
    /resolves to .*private or reserved/,
  );
  expect(() => checkPullUrl('file:///etc/passwd', guard())).toThrow(/only http and https/);
  expect(() => checkPullUrl('http://user:pw@example.com/', guard())).toThrow(/credentials/);
});

it('refuses a host off the allowlist, and reaches an allowed one when private addresses are allowed', async () => {
  const g = guard({ allowPrivate: true, allowedHosts: ['127.0.0.1'] });
  expect(() => checkPullUrl(`http://localhost:${port}/`, g)).toThrow(/not on the pull allowlist/);
  const res = await guardedGet(new URL(`http://127.0.0.1:${port}/ok`), g, { maxBytes: 1000 });
  expect(res.status).toBe(200);
  expect(JSON.parse(res.body.toString())).toEqual([{ id: 1 }]);
});

it('cuts a silent server at the deadline and a large body at the limit', async () => {
  const g = guard({ allowPrivate: true, timeoutMs: 300 });
  await expect(guardedGet(new URL(`http://127.0.0.1:${port}/silent`), g, { maxBytes: 1000 })).rejects.toThrow(
    /did not answer within 300 ms/,
  );
  await expect(guardedGet(new URL(`http://127.0.0.1:${port}/big`), g, { maxBytes: 1000 })).rejects.toThrow(
    PayloadTooLargeError,
  );
});

it('reads the next link of a Link header', () => {
  expect(linkNext('<https://a/x?page=2>; rel="next", <https://a/x?page=9>; rel="last"')).toBe('https://a/x?page=2');
  expect(linkNext('<https://a/x?page=1>; rel="prev"')).toBeUndefined();
  expect(linkNext(undefined)).toBeUndefined();
});
