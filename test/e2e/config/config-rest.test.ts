// The config service's REST door over real HTTP, with the real identity, schema registry and
// workflow services on one test database: publishing bundles (content addressing, namespace
// schemas, limits, secret references), promotion approved by a second person through a workflow
// human task, the merge rules and provenance, as_of, partial rollouts by consistent hashing,
// rollback, signatures against the JWKS, the tenant rule, audit events and config.changed notices.
import canonicalize from 'canonicalize';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { AccessTokens } from '../../../platform/auth/jwt';
import { verifyStatement } from '../../../subgraphs/config/config-signature';
import { inRollout } from '../../../subgraphs/config/rollout.rules';
import { TEST_JWT_SECRET } from '../../support/service-harness';
import { until } from '../../support/waiting';
import { call, decide, registerSchema, startConfigPlatform, type ConfigPlatform } from './config.support';

jest.setTimeout(180_000);

const secretDir = fs.mkdtempSync(path.join(os.tmpdir(), 'config-secrets-'));
fs.writeFileSync(path.join(secretDir, 'db-password'), 'file-secret-9f3a\n');
const ENV_SECRET = 'env-secret-77c2';

let p: ConfigPlatform;
let url: string;
const sha = (v: unknown) => createHash('sha256').update(canonicalize(v)!).digest('hex');

const LIMITS_SCHEMA = {
  type: 'object',
  properties: {
    rate: {
      type: 'object',
      properties: { per_second: { type: 'integer', minimum: 1 }, burst: { type: 'integer', minimum: 1 } },
      additionalProperties: false,
    },
    tags: { type: 'array', items: { type: 'string' } },
    mode: { type: 'string' },
    obsolete: {},
  },
};

const publish = (token: string, json: Record<string, unknown>) => call(`${url}/api/config/bundles`, { token, json });
const effective = (token: string, tenant = 'default', query = '') =>
  call(`${url}/api/config/${tenant}/effective${query}`, { token });

/** Requests a promotion as `requester` and has `approver` approve it in the workflow; waits until applied. */
async function promoteAndApprove(
  bundleId: string,
  requester: string,
  approver: { token: string; username: string },
  body: Record<string, unknown> = {},
) {
  const r = await call(`${url}/api/config/rollouts/${bundleId}/promote`, { token: requester, json: body });
  expect(r.status).toBe(202);
  expect(r.body.status).toBe('pending_approval');
  const d = await decide(p, approver.token, approver.username, r.body.approval_task_id);
  expect(d.status).toBe(200);
  let rollout = r.body;
  await until(async () => {
    rollout = (await call(`${url}/api/config/rollouts/${r.body.id}`, { token: requester })).body;
    return rollout.status === 'applied' || rollout.status === 'scheduled';
  }, 'rollout applied');
  return rollout;
}

const ids: Record<string, string> = {};

beforeAll(async () => {
  process.env.CONFIG_SECRET_DB_PASSWORD = ENV_SECRET;
  p = await startConfigPlatform({ CONFIG_SECRET_FILE_ROOTS: secretDir });
  url = p.url;
  await registerSchema(p, p.t.operator, 'limits', LIMITS_SCHEMA);
  await registerSchema(p, p.t.admin, 'db', { type: 'object', properties: { password: { type: 'string' } } });
});

afterAll(async () => {
  delete process.env.CONFIG_SECRET_DB_PASSWORD;
  await p?.close();
  fs.rmSync(secretDir, { recursive: true, force: true });
});

describe('publishing bundles', () => {
  const platformLimits = { rate: { per_second: 10, burst: 20 }, tags: ['a', 'b'], obsolete: 1, mode: 'strict' };

  it('stores an immutable, content-addressed bundle; the same content again is the same bundle (200)', async () => {
    const r = await publish(p.t.operator, { layer: 'platform', namespace: 'limits', content: platformLimits });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ layer: 'platform', scope: '', namespace: 'limits', version: 1, tenant_id: null });
    expect(r.body.sha256).toBe(sha(platformLimits));
    expect(r.body.schema_version).toBe('1.0.0');
    ids.platform1 = r.body.id;
    // Key order does not change the address.
    const again = await publish(p.t.operator, {
      layer: 'platform',
      namespace: 'limits',
      content: { mode: 'strict', obsolete: 1, tags: ['a', 'b'], rate: { burst: 20, per_second: 10 } },
    });
    expect(again.status).toBe(200);
    expect(again.body.id).toBe(ids.platform1);
  });

  it('keeps the platform, suite and module layers for operators, and a tenant layer for its admins', async () => {
    expect((await publish(p.t.admin, { layer: 'platform', namespace: 'limits', content: { mode: 'x' } })).status).toBe(
      403,
    );
    expect(
      (await publish(p.t.admin, { layer: 'suite', scope: 'finance', namespace: 'limits', content: {} })).status,
    ).toBe(403);
    expect((await publish(p.t.user, { layer: 'tenant', namespace: 'limits', content: { mode: 'x' } })).status).toBe(
      403,
    );
    // Another tenant's layer: the tenant rule.
    expect(
      (
        await publish(p.t.otherAdmin, {
          layer: 'tenant',
          namespace: 'limits',
          tenant_id: 'default',
          content: { mode: 'x' },
        })
      ).status,
    ).toBe(403);
    const r = await publish(p.t.admin, {
      layer: 'tenant',
      namespace: 'limits',
      content: { rate: { per_second: 50 }, tags: ['c'], obsolete: null },
    });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      layer: 'tenant',
      scope: 'default',
      tenant_id: 'default',
      version: 1,
      author: 'admin',
    });
    ids.tenant1 = r.body.id;
  });

  it('refuses content that breaks its namespace schema with a 422 naming the pointer, and stores nothing', async () => {
    const before = await p.h.db.sql.query<{ n: number }>('SELECT count(*)::int AS n FROM config_bundles');
    const r = await publish(p.t.admin, {
      layer: 'tenant',
      namespace: 'limits',
      content: { rate: { per_second: 'fast' } },
    });
    expect(r.status).toBe(422);
    expect(r.body.detail[0].loc).toEqual(['body', 'content', '/rate/per_second']);
    expect(r.body.detail[0].msg).toMatch(/integer/);
    const unknown = await publish(p.t.admin, { layer: 'tenant', namespace: 'nothing', content: {} });
    expect(unknown.status).toBe(422);
    expect(unknown.body.detail[0].loc).toEqual(['body', 'namespace']);
    const after = await p.h.db.sql.query<{ n: number }>('SELECT count(*)::int AS n FROM config_bundles');
    expect(after.rows[0]!.n).toBe(before.rows[0]!.n);
  });

  it('refuses a bundle of 50 MB, one nested 10,000 levels and one over the canonical size limit', async () => {
    const before = await p.h.db.sql.query<{ n: number }>('SELECT count(*)::int AS n FROM config_bundles');
    const huge = `{"layer":"tenant","namespace":"limits","content":{"mode":"${'x'.repeat(50 * 1024 * 1024)}"}}`;
    const big = await call(`${url}/api/config/bundles`, { token: p.t.admin, raw: huge });
    expect(big.status).toBe(413);
    const deep = `{"layer":"tenant","namespace":"limits","content":{"obsolete":${'['.repeat(10_000)}${']'.repeat(10_000)}}}`;
    const nested = await call(`${url}/api/config/bundles`, { token: p.t.admin, raw: deep });
    expect(nested.status).toBeGreaterThanOrEqual(400);
    expect(nested.status).toBeLessThan(500);
    const wide = await publish(p.t.admin, {
      layer: 'tenant',
      namespace: 'limits',
      content: { mode: 'y'.repeat(300 * 1024) },
    });
    expect(wide.status).toBe(422);
    expect(wide.body.detail[0].msg).toMatch(/bytes/);
    const after = await p.h.db.sql.query<{ n: number }>('SELECT count(*)::int AS n FROM config_bundles');
    expect(after.rows[0]!.n).toBe(before.rows[0]!.n);
  });

  it('refuses secret references outside the allowed roots, and traversal', async () => {
    for (const ref of [
      'secret://file/../../etc/shadow',
      `secret://file/${secretDir}/../../etc/shadow`,
      'secret://file/etc/shadow',
      'secret://file//etc/shadow',
      `secret://file/${secretDir}/%2e%2e/x`,
      'secret://env/PATH',
      'secret://env/lower',
      'secret://vault/kv/x',
    ]) {
      const r = await publish(p.t.admin, { layer: 'tenant', namespace: 'db', content: { password: ref } });
      expect({ ref, status: r.status }).toEqual({ ref, status: 422 });
      expect(r.body.detail[0].loc).toEqual(['body', 'content', '/password']);
    }
  });
});

describe('promotion, merge, provenance, as_of', () => {
  it('applies a promotion only once a second person approves its workflow task; the author cannot', async () => {
    const r = await call(`${url}/api/config/rollouts/${ids.platform1}/promote`, { token: p.t.operator, json: {} });
    expect(r.status).toBe(202);
    expect(r.body).toMatchObject({ status: 'pending_approval', requested_by: 'operator', percentage: 100 });
    expect(r.body.approval_task_id).toEqual(expect.any(String));
    // The author approving its own promotion: refused by the workflow, nothing applied.
    const own = await decide(p, p.t.operator, 'operator', r.body.approval_task_id);
    expect(own.status).toBe(403);
    expect((await call(`${url}/api/config/rollouts/${r.body.id}`, { token: p.t.operator })).body.status).toBe(
      'pending_approval',
    );
    expect((await effective(p.t.admin)).body.config).toEqual({});
    // A second operator approves: the poller applies it.
    expect((await decide(p, p.t.operator2, 'operator2', r.body.approval_task_id)).status).toBe(200);
    await until(async () => (await effective(p.t.admin)).body.config.limits !== undefined, 'platform limits in force');
    const rollout = (await call(`${url}/api/config/rollouts/${r.body.id}`, { token: p.t.operator })).body;
    expect(rollout).toMatchObject({ status: 'applied', approved_by: 'operator2' });
    ids.platformSeq = String(rollout.change_seq);
  });

  it('merges tenant over platform: objects merge, lists replace, null removes; provenance per key', async () => {
    await promoteAndApprove(ids.tenant1!, p.t.admin, { token: p.t.bob, username: 'bob' });
    const r = await effective(p.t.admin);
    expect(r.status).toBe(200);
    expect(r.body.config).toEqual({ limits: { rate: { per_second: 50, burst: 20 }, tags: ['c'], mode: 'strict' } });
    const by = Object.fromEntries(r.body.provenance.map((x: { pointer: string }) => [x.pointer, x]));
    expect(by['/limits/rate/per_second']).toMatchObject({ layer: 'tenant', bundle_id: ids.tenant1, version: 1 });
    expect(by['/limits/rate/burst']).toMatchObject({
      layer: 'platform',
      bundle_id: ids.platform1,
      seq: Number(ids.platformSeq),
    });
    expect(by['/limits/tags']).toMatchObject({ layer: 'tenant' });
    expect(by['/limits/obsolete']).toBeUndefined();
    // as_of the platform change's seq: the configuration then, platform only.
    const then = await effective(p.t.admin, 'default', `?as_of=${ids.platformSeq}`);
    expect(then.body.config).toEqual({
      limits: { rate: { per_second: 10, burst: 20 }, tags: ['a', 'b'], obsolete: 1, mode: 'strict' },
    });
    expect((await effective(p.t.admin, 'default', '?as_of=2000-01-01T00:00:00Z')).body.config).toEqual({});
    expect((await effective(p.t.admin, 'default', '?as_of=yesterday')).status).toBe(422);
  });

  it('signs every change (Ed25519) with a key published in the JWKS', async () => {
    const jwks = (await call(`${url}/.well-known/config-keys.json`)).body;
    const changes = (await call(`${url}/api/config/bundles/${ids.tenant1}/changes`, { token: p.t.admin })).body.changes;
    expect(changes).toHaveLength(1);
    const c = changes[0];
    const key = jwks.keys.find((k: { kid: string }) => k.kid === c.key_id);
    const bundle = (await call(`${url}/api/config/bundles/${ids.tenant1}`, { token: p.t.admin })).body;
    const statement = {
      bundle_id: c.bundle_id,
      sha256: bundle.sha256,
      layer: c.layer,
      scope: c.scope,
      namespace: c.namespace,
      version: bundle.version,
      percentage: c.percentage,
      hash_by: c.hash_by,
      kind: c.kind,
      actor: c.actor,
      approved_by: c.approved_by,
    };
    expect(verifyStatement(statement, c.signature, key)).toBe(true);
    expect(verifyStatement({ ...statement, percentage: 99 }, c.signature, key)).toBe(false);
    expect(c).toMatchObject({ actor: 'admin', approved_by: 'bob', kind: 'promote' });
  });

  it('diffs two versions, and rolls back to an earlier one in one call', async () => {
    const v2 = await publish(p.t.admin, {
      layer: 'tenant',
      namespace: 'limits',
      content: { rate: { per_second: 75 }, mode: 'lenient' },
    });
    expect(v2.body.version).toBe(2);
    ids.tenant2 = v2.body.id;
    const d = await call(`${url}/api/config/bundles/${ids.tenant1}/diff?to=${ids.tenant2}`, { token: p.t.admin });
    expect(d.body.ops).toEqual([
      { op: 'remove', path: '/obsolete' },
      { op: 'remove', path: '/tags' },
      { op: 'add', path: '/mode', value: 'lenient' },
      { op: 'replace', path: '/rate/per_second', value: 75 },
    ]);
    // A version never in force cannot be "rolled back" to (that would skip the approval).
    expect(
      (await call(`${url}/api/config/bundles/${ids.tenant2!}/rollback`, { token: p.t.admin, json: {} })).status,
    ).toBe(409);
    await promoteAndApprove(ids.tenant2!, p.t.admin, { token: p.t.bob, username: 'bob' });
    expect((await effective(p.t.admin)).body.config.limits.mode).toBe('lenient');
    const rb = await call(`${url}/api/config/bundles/${ids.tenant1}/rollback`, { token: p.t.admin, json: {} });
    expect(rb.status).toBe(200);
    expect(rb.body).toMatchObject({ kind: 'rollback', bundle_id: ids.tenant1, percentage: 100, actor: 'admin' });
    expect((await effective(p.t.admin)).body.config.limits).toEqual({
      rate: { per_second: 50, burst: 20 },
      tags: ['c'],
      mode: 'strict',
    });
    const versions = (await call(`${url}/api/config/bundles/${ids.tenant1}/versions`, { token: p.t.admin })).body
      .versions;
    expect(versions.map((v: { version: number }) => v.version)).toEqual([1, 2]);
  });

  it('rolls a bundle out to a percentage of users by flagd-style consistent hashing, then to all', async () => {
    const v3 = await publish(p.t.admin, { layer: 'tenant', namespace: 'limits', content: { mode: 'canary' } });
    const rollout = await promoteAndApprove(
      v3.body.id,
      p.t.admin,
      { token: p.t.bob, username: 'bob' },
      { percentage: 10, hash_by: 'user' },
    );
    const users = Array.from({ length: 60 }, (_, i) => `user-${i}`);
    const key = `tenant\u0000default\u0000limits`;
    const modes = await Promise.all(
      users.map(async (u) => (await effective(p.t.admin, 'default', `?user=${u}`)).body.config.limits.mode),
    );
    const expected = users.map((u) => (inRollout(key, u, 10) ? 'canary' : 'strict'));
    expect(modes).toEqual(expected);
    expect(expected.filter((m) => m === 'canary').length).toBeGreaterThan(0);
    expect(expected.filter((m) => m === 'strict').length).toBeGreaterThan(40);
    expect(rollout.percentage).toBe(10);
    // A plain user cannot read as somebody else.
    expect((await effective(p.t.user, 'default', '?user=user-1')).status).toBe(422);
    await promoteAndApprove(v3.body.id, p.t.admin, { token: p.t.bob, username: 'bob' }, { percentage: 100 });
    const all = await Promise.all(
      users
        .slice(0, 10)
        .map(async (u) => (await effective(p.t.admin, 'default', `?user=${u}`)).body.config.limits.mode),
    );
    expect(new Set(all)).toEqual(new Set(['canary']));
  });

  it('applies a scheduled promotion at its time, not before', async () => {
    const v = await publish(p.t.admin, { layer: 'tenant', namespace: 'limits', content: { mode: 'scheduled' } });
    const at = new Date(Date.now() + 1500).toISOString();
    const rollout = await promoteAndApprove(
      v.body.id,
      p.t.admin,
      { token: p.t.bob, username: 'bob' },
      { scheduled_at: at },
    );
    if (rollout.status === 'scheduled')
      expect((await effective(p.t.admin)).body.config.limits.mode).not.toBe('scheduled');
    await until(
      async () => (await effective(p.t.admin)).body.config.limits.mode === 'scheduled',
      'scheduled change applied',
    );
    const final = (await call(`${url}/api/config/rollouts/${rollout.id}`, { token: p.t.admin })).body;
    expect(final.status).toBe('applied');
  });

  it('records every change in the outbox (audit) and announces it as config.changed, without values', async () => {
    const audit = await p.h.db.sql.query<{ event_type: string; event_data: unknown }>(
      "SELECT event_type, event_data FROM outbox_events WHERE service = 'config' ORDER BY id",
    );
    const types = audit.rows.map((r) => r.event_type);
    for (const t of ['config_bundle_published', 'config_promotion_requested', 'config_promoted', 'config_rolled_back'])
      expect(types).toContain(t);
    const notices = await p.h.db.sql.query<{ topic: string; envelope: unknown }>(
      "SELECT topic, envelope FROM notice_outbox WHERE service = 'config'",
    );
    expect(notices.rows.length).toBeGreaterThanOrEqual(5);
    expect(new Set(notices.rows.map((n) => n.topic))).toEqual(new Set(['config.changed']));
    const text = JSON.stringify([audit.rows, notices.rows]);
    expect(text).not.toContain('canary');
    expect(text).not.toContain(ENV_SECRET);
  });
});

describe('the tenant rule', () => {
  it('lets a tenant read only its own effective configuration, bundles and rollouts', async () => {
    expect((await effective(p.t.otherAdmin, 'default')).status).toBe(403);
    const own = await effective(p.t.otherAdmin, 'tenant-b');
    expect(own.status).toBe(200);
    expect(own.body.config.limits).toEqual({
      rate: { per_second: 10, burst: 20 },
      tags: ['a', 'b'],
      obsolete: 1,
      mode: 'strict',
    });
    for (const tail of ['', '/versions', '/changes', `/diff?to=${ids.tenant1}`])
      expect((await call(`${url}/api/config/bundles/${ids.tenant1}${tail}`, { token: p.t.otherAdmin })).status).toBe(
        404,
      );
    expect(
      (await call(`${url}/api/config/rollouts/${ids.tenant1}/promote`, { token: p.t.otherAdmin, json: {} })).status,
    ).toBe(404);
    expect(
      (await call(`${url}/api/config/bundles/${ids.tenant1}/rollback`, { token: p.t.otherAdmin, json: {} })).status,
    ).toBe(404);
    expect((await call(`${url}/api/config/bundles/not-a-uuid`, { token: p.t.admin })).status).toBe(404);
    // The operator layers' bundles are the operators'.
    expect((await call(`${url}/api/config/bundles/${ids.platform1}`, { token: p.t.admin })).status).toBe(404);
  });
});

describe('secret references', () => {
  it('returns references, resolves them only for a service with the config:secrets scope', async () => {
    const v = await publish(p.t.admin, {
      layer: 'tenant',
      namespace: 'db',
      content: { password: 'secret://env/CONFIG_SECRET_DB_PASSWORD', file: `secret://file/${secretDir}/db-password` },
    });
    expect(v.status).toBe(201);
    await promoteAndApprove(v.body.id, p.t.admin, { token: p.t.bob, username: 'bob' });
    const plain = await effective(p.t.admin, 'default', '?namespace=db');
    expect(plain.body.config.db.password).toBe('secret://env/CONFIG_SECRET_DB_PASSWORD');
    expect((await effective(p.t.admin, 'default', '?namespace=db&resolve_secrets=true')).status).toBe(422);
    expect((await effective(p.t.operator, 'default', '?namespace=db&resolve_secrets=true')).status).toBe(422);
    const tokens = new AccessTokens(TEST_JWT_SECRET, 60);
    const unscoped = await tokens.issue({
      username: 'svc-gateway',
      tenantId: 'platform',
      roles: ['service:gateway'],
      scopes: ['read'],
    });
    expect((await effective(unscoped, 'default', '?namespace=db&resolve_secrets=true')).status).toBe(422);
    const scoped = await tokens.issue({
      username: 'svc-ai-broker',
      tenantId: 'platform',
      roles: ['service:ai-broker'],
      scopes: ['read', 'config:secrets'],
    });
    const resolved = await effective(scoped, 'default', '?namespace=db&resolve_secrets=true');
    expect(resolved.status).toBe(200);
    expect(resolved.body.config.db).toEqual({ password: ENV_SECRET, file: 'file-secret-9f3a' });
    // Never stored resolved.
    const stored = await p.h.db.sql.query<{ t: string }>('SELECT content::text AS t FROM config_bundles');
    expect(JSON.stringify(stored.rows)).not.toContain(ENV_SECRET);
    expect(JSON.stringify(stored.rows)).not.toContain('file-secret-9f3a');
  });
});
