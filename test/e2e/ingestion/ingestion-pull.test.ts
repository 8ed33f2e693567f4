// The pulled sources against real counterparts started here: an HTTP server paging its records
// three ways (Link header, a cursor in the body, page numbers), and an SFTP server (the ssh2
// package's server API) with password and key authentication and a pinned host key. A pull makes
// a completed batch with the records of every page or file; the same content pulled again lands
// nothing twice; a scheduled pipeline is pulled without a request; traversal, a wrong host key, a
// host off the allowlist and another tenant's pipeline are refused.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Server, utils, type Connection } from 'ssh2';
import { ingestionService } from '../../../services/ingestion';
import { startServices, type Harness } from '../../support/service-harness';
import { until } from '../../support/waiting';
import { call, token } from './ingestion.support';

jest.setTimeout(180_000);

const A = 'pull-a';
const B = 'pull-b';
const PASSWORD = 'sftp-test-password-1234';
const RECORDS = Array.from({ length: 7 }, (_, i) => ({ id: i + 1, name: `n${i + 1}` }));

let h: Harness;
let url: string;
let a: string;
let b: string;
let httpServer: http.Server;
let httpBase: string;
let sftpServer: Server;
let sftpPort: number;
let sftpRoot: string;
let secretsDir: string;
let hostPin: string;
let hits = 0;

/** The HTTP source: /link pages by Link header, /cursor by a cursor field, /pages by page number. */
function serveHttp(req: http.IncomingMessage, res: http.ServerResponse) {
  hits++;
  const u = new URL(req.url!, 'http://x');
  const page = (n: number) => RECORDS.slice(n * 3, n * 3 + 3);
  res.setHeader('content-type', 'application/json');
  if (u.pathname === '/link') {
    const n = Number(u.searchParams.get('p') ?? '0');
    if (n < 2) res.setHeader('link', `</link?p=${n + 1}>; rel="next", </link?p=2>; rel="last"`);
    return res.end(JSON.stringify(page(n)));
  }
  if (u.pathname === '/cursor') {
    const n = Number(Buffer.from(u.searchParams.get('after') ?? 'MA==', 'base64').toString());
    const next = n < 2 ? Buffer.from(String(n + 1)).toString('base64') : null;
    return res.end(JSON.stringify({ data: { items: page(n) }, meta: { next } }));
  }
  if (u.pathname === '/pages') return res.end(JSON.stringify(page(Number(u.searchParams.get('page')) - 1)));
  res.statusCode = 404;
  res.end('{}');
}

/** A read-only SFTP server over `sftpRoot`; /evil lists a name that climbs out. */
function serveSftp(client: Connection, clientKey: ReturnType<typeof utils.parseKey>) {
  client.on('authentication', (ctx) => {
    if (ctx.username !== 'loader') return ctx.reject();
    if (ctx.method === 'password' && ctx.password === PASSWORD) return ctx.accept();
    if (ctx.method === 'publickey' && !(clientKey instanceof Error)) {
      const same = ctx.key.algo === clientKey.type && ctx.key.data.equals(clientKey.getPublicSSH());
      if (!same) return ctx.reject();
      if (!ctx.signature) return ctx.accept();
      return clientKey.verify(ctx.blob!, ctx.signature, ctx.hashAlgo) ? ctx.accept() : ctx.reject();
    }
    ctx.reject(['password', 'publickey']);
  });
  client.on('ready', () =>
    client.on('session', (accept) => {
      const session = accept();
      session.on('sftp', (acceptSftp) => {
        const sftp = acceptSftp();
        const handles = new Map<number, { file?: number; dir?: string; listed?: boolean }>();
        let next = 0;
        const local = (p: string) => path.join(sftpRoot, path.posix.normalize('/' + p));
        const STATUS = utils.sftp.STATUS_CODE;
        sftp.on('OPENDIR', (id, p) => {
          const h = next++;
          handles.set(h, { dir: p });
          const buf = Buffer.alloc(4);
          buf.writeUInt32BE(h);
          sftp.handle(id, buf);
        });
        sftp.on('READDIR', (id, handle) => {
          const entry = handles.get(handle.readUInt32BE(0));
          if (!entry?.dir || entry.listed) return sftp.status(id, STATUS.EOF);
          entry.listed = true;
          const attrs = (size: number) => ({ mode: 0o100644, uid: 0, gid: 0, size, atime: 0, mtime: 0 });
          if (entry.dir === '/evil')
            return sftp.name(id, [
              { filename: '../escape.csv', longname: '-rw-r--r-- ../escape.csv', attrs: attrs(3) },
            ]);
          const names = fs.readdirSync(local(entry.dir)).map((n) => {
            const size = fs.statSync(path.join(local(entry.dir!), n)).size;
            return { filename: n, longname: `-rw-r--r-- 1 u g ${size} Jan 1 00:00 ${n}`, attrs: attrs(size) };
          });
          sftp.name(id, names);
        });
        sftp.on('OPEN', (id, p) => {
          const h = next++;
          handles.set(h, { file: fs.openSync(local(p), 'r') });
          const buf = Buffer.alloc(4);
          buf.writeUInt32BE(h);
          sftp.handle(id, buf);
        });
        sftp.on('READ', (id, handle, offset, length) => {
          const entry = handles.get(handle.readUInt32BE(0));
          const buf = Buffer.alloc(length);
          const n = fs.readSync(entry!.file!, buf, 0, length, offset);
          if (n === 0) return sftp.status(id, STATUS.EOF);
          sftp.data(id, buf.subarray(0, n));
        });
        sftp.on('CLOSE', (id, handle) => {
          const entry = handles.get(handle.readUInt32BE(0));
          if (entry?.file !== undefined) fs.closeSync(entry.file);
          handles.delete(handle.readUInt32BE(0));
          sftp.status(id, STATUS.OK);
        });
      });
    }),
  );
  client.on('error', () => undefined);
}

beforeAll(async () => {
  httpServer = http.createServer(serveHttp);
  await new Promise<void>((resolve) => httpServer.listen(0, '127.0.0.1', resolve));
  httpBase = `http://127.0.0.1:${(httpServer.address() as AddressInfo).port}`;

  sftpRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'ingestion-sftp-'));
  fs.mkdirSync(path.join(sftpRoot, 'outbound'));
  fs.mkdirSync(path.join(sftpRoot, 'evil'));
  fs.writeFileSync(path.join(sftpRoot, 'outbound', 'a.csv'), 'id,name\n1,n1\n2,n2\n');
  fs.writeFileSync(path.join(sftpRoot, 'outbound', 'b.csv'), 'id,name\n3,n3\n');
  const hostKeys = utils.generateKeyPairSync('ed25519');
  const hostPublic = utils.parseKey(hostKeys.public);
  if (hostPublic instanceof Error) throw hostPublic;
  hostPin = 'SHA256:' + createHash('sha256').update(hostPublic.getPublicSSH()).digest('base64').replace(/=+$/, '');
  const clientKeys = utils.generateKeyPairSync('ed25519');
  secretsDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ingestion-secrets-'));
  fs.writeFileSync(path.join(secretsDir, 'loader.key'), clientKeys.private, { mode: 0o600 });
  const clientPublic = utils.parseKey(clientKeys.public);
  sftpServer = new Server({ hostKeys: [hostKeys.private] }, (client) => serveSftp(client, clientPublic as any));
  await new Promise<void>((resolve) => sftpServer.listen(0, '127.0.0.1', resolve));
  sftpPort = (sftpServer.address() as AddressInfo).port;

  h = await startServices([ingestionService], {
    REQUIRE_AUTH: 'true',
    SCHEMA_REGISTRY_URL: 'http://127.0.0.1:1',
    INGESTION_PULL_ALLOW_PRIVATE: 'true',
    INGESTION_PULL_ALLOWED_HOSTS: '127.0.0.1',
    INGESTION_SCHEDULER_TICK_MS: '200',
    INGESTION_SECRET_ROOTS: secretsDir,
    SFTP_TEST_PASSWORD: PASSWORD,
  });
  url = h.services.ingestion!.url;
  a = await token(A);
  b = await token(B);
});

afterAll(async () => {
  await h?.close();
  httpServer?.closeAllConnections();
  await new Promise((resolve) => httpServer?.close(resolve));
  await new Promise((resolve) => sftpServer?.close(resolve));
  for (const d of [sftpRoot, secretsDir]) if (d) fs.rmSync(d, { recursive: true, force: true });
});

function definition(name: string, source: Record<string, unknown>, format: Record<string, unknown> = { type: 'json' }) {
  return {
    name,
    source,
    format,
    mapping: { id: '$number(id)', name: 'name' },
    target: { dataset: name, schema: { type: 'object', required: ['id', 'name'] } },
    batch_size: 2,
  };
}

async function create(tok: string, def: Record<string, unknown>) {
  const res = await call(url, tok, 'POST', '/api/ingestion/pipelines', { definition: def });
  expect(res.status).toBe(201);
  return res.body.id as string;
}

async function stagedIds(batchId: string) {
  const res = await call(url, a, 'GET', `/api/ingestion/batches/${batchId}/records?limit=100`);
  return (res.body.records as any[]).map((r) => r.data.id);
}

describe('REST pull', () => {
  it.each([
    ['link', { url: '/link' }],
    [
      'cursor',
      { url: '/cursor', pagination: { items_field: 'data.items', next_field: 'meta.next', cursor_param: 'after' } },
    ],
    ['pages', { url: '/pages', pagination: { page_param: 'page' } }],
  ])('follows %s pagination to the end; the same pull again lands nothing twice', async (name, source) => {
    const id = await create(
      a,
      definition(`pull-${name}`, { kind: 'rest_pull', ...source, url: httpBase + (source as { url: string }).url }),
    );
    const first = await call(url, a, 'POST', `/api/ingestion/pipelines/${id}/pull`);
    expect(first.status).toBe(200);
    expect(first.body.batches).toHaveLength(1);
    const [batch] = first.body.batches;
    expect(batch).toMatchObject({ status: 'completed', progress: { rows_read: 7, rows_staged: 7 } });
    expect(batch.manifest.row_count).toBe(7);
    expect(await stagedIds(batch.id)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    const again = await call(url, a, 'POST', `/api/ingestion/pipelines/${id}/pull`);
    expect(again.body.batches[0].id).toBe(batch.id);
    const list = await call(url, a, 'GET', `/api/ingestion/pipelines/${id}/batches`);
    expect(list.body.batches).toHaveLength(1);
  });

  it('pulls a scheduled pipeline without being asked', async () => {
    const id = await create(a, {
      ...definition('pull-scheduled', { kind: 'rest_pull', url: `${httpBase}/link` }),
      schedule: { interval_seconds: 3600 },
    });
    let batches: any[] = [];
    await until(
      async () => {
        batches = (await call(url, a, 'GET', `/api/ingestion/pipelines/${id}/batches`)).body.batches;
        return batches.some((x) => x.status === 'completed');
      },
      'the scheduler to pull',
      { tries: 600, everyMs: 100 },
    );
    expect(batches[0].progress.rows_staged).toBe(7);
  });

  it('refuses a host off the allowlist, and another tenant cannot pull or see the pipeline', async () => {
    const before = hits;
    const off = await create(
      a,
      definition('pull-off-list', { kind: 'rest_pull', url: httpBase.replace('127.0.0.1', 'localhost') + '/link' }),
    );
    const refused = await call(url, a, 'POST', `/api/ingestion/pipelines/${off}/pull`);
    expect(refused.status).toBe(422);
    expect(JSON.stringify(refused.body.detail)).toMatch(/not on the pull allowlist/);
    expect(hits).toBe(before);
    expect((await call(url, b, 'POST', `/api/ingestion/pipelines/${off}/pull`)).status).toBe(404);
    expect((await call(url, b, 'GET', `/api/ingestion/pipelines/${off}`)).status).toBe(404);
  });
});

describe('SFTP', () => {
  const sftpSource = (over: Record<string, unknown> = {}) => ({
    kind: 'sftp',
    host: '127.0.0.1',
    port: sftpPort,
    username: 'loader',
    path: '/outbound',
    host_key_sha256: hostPin,
    password: 'secret://env/SFTP_TEST_PASSWORD',
    ...over,
  });

  it('pulls each file with a password, one batch per file, and nothing twice', async () => {
    const id = await create(a, definition('sftp-password', sftpSource(), { type: 'csv' }));
    const first = await call(url, a, 'POST', `/api/ingestion/pipelines/${id}/pull`);
    expect(first.status).toBe(200);
    expect(first.body.batches.map((x: any) => [x.source_name, x.status, x.progress.rows_staged])).toEqual([
      ['a.csv', 'completed', 2],
      ['b.csv', 'completed', 1],
    ]);
    expect(await stagedIds(first.body.batches[0].id)).toEqual([1, 2]);
    const again = await call(url, a, 'POST', `/api/ingestion/pipelines/${id}/pull`);
    expect(again.body.batches.map((x: any) => x.id)).toEqual(first.body.batches.map((x: any) => x.id));
  });

  it('authenticates with a private key from a secret file', async () => {
    const def = definition(
      'sftp-key',
      sftpSource({ password: undefined, private_key: `secret://file${secretsDir}/loader.key` }),
      { type: 'csv' },
    );
    delete (def.source as Record<string, unknown>).password;
    const id = await create(a, def);
    const res = await call(url, a, 'POST', `/api/ingestion/pipelines/${id}/pull`);
    expect(res.status).toBe(200);
    expect(res.body.batches.map((x: any) => x.status)).toEqual(['completed', 'completed']);
  });

  it('refuses a wrong host key, a path that climbs, and a name from the server that climbs', async () => {
    const wrongPin = await create(
      a,
      definition('sftp-wrong-pin', sftpSource({ host_key_sha256: 'SHA256:' + 'A'.repeat(43) }), { type: 'csv' }),
    );
    const pinned = await call(url, a, 'POST', `/api/ingestion/pipelines/${wrongPin}/pull`);
    expect(pinned.status).toBe(422);
    expect(JSON.stringify(pinned.body.detail)).toMatch(/SFTP/);

    const climbing = await create(
      a,
      definition('sftp-climb', sftpSource({ path: '/outbound/../../etc' }), { type: 'csv' }),
    );
    const climbed = await call(url, a, 'POST', `/api/ingestion/pipelines/${climbing}/pull`);
    expect(climbed.status).toBe(422);
    expect(JSON.stringify(climbed.body.detail)).toMatch(/no \.\. segment/);

    const evil = await create(a, definition('sftp-evil', sftpSource({ path: '/evil' }), { type: 'csv' }));
    const listed = await call(url, a, 'POST', `/api/ingestion/pipelines/${evil}/pull`);
    expect(listed.status).toBe(422);
    expect(JSON.stringify(listed.body.detail)).toMatch(/not a plain file name/);
    // The service keeps serving.
    expect((await call(url, a, 'GET', '/api/ingestion/pipelines')).status).toBe(200);
  });
});
