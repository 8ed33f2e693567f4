// The registry's REST door over real HTTP (PGlite): submission and its checks, the lifecycle with
// its permissions and states, signatures checked against the published key set, reads, tenancy,
// bus notices after commit and audit events in the outbox. The typed client
// (platform/clients/rulepack-registry.client.ts) reads what the routes serve.
import { RulePackRegistryClient } from '../../../platform/clients/rulepack-registry.client';
import { ServiceCallError } from '../../../platform/clients/service-request';
import { verifyPack } from '../../../subgraphs/rulepack-registry/pack-signature';
import { until } from '../../support/waiting';
import { certified, registryClient, samplePack, startRegistry, type RegistryFixture } from './rulepack.support';

jest.setTimeout(120_000);

let f: RegistryFixture;
let api: ReturnType<typeof registryClient>;

beforeAll(async () => {
  f = await startRegistry();
  api = registryClient(f.registry);
});
afterAll(async () => f?.close());

describe('submission', () => {
  it('stores a draft with author, owner tenant and the canonical SHA-256; the same content again is idempotent', async () => {
    const pack = samplePack('sub-basic', '1.0.0');
    const first = await api.submit(f.people.author, { pack });
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({
      pack_id: 'sub-basic',
      version: '1.0.0',
      status: 'draft',
      owner_tenant: 'default',
      author: 'root',
      reviewers: [],
      certified_at: null,
      signature: null,
      key_id: null,
      deprecated_at: null,
      replacement: null,
      pack,
    });
    expect(first.body.sha256).toMatch(/^[0-9a-f]{64}$/);
    // Key order is not content: the same pack with its keys reordered is the same version.
    const reordered = {
      rules: pack.rules,
      metadata: { name: pack.metadata.name, version: '1.0.0', pack_id: 'sub-basic' },
    };
    const again = await api.submit(f.people.author, { pack: reordered });
    expect(again.status).toBe(200);
    expect(again.body.sha256).toBe(first.body.sha256);
    expect(again.body.submitted_at).toBe(first.body.submitted_at);
  });

  it('accepts a YAML or JSON artifact', async () => {
    const yaml = [
      'metadata:',
      '  pack_id: sub-yaml',
      '  version: 2.0.0-rc.1',
      'rules:',
      '  - rule_id: r1',
      '    type: INFO',
      '    field: customer.name',
      '    operator: required',
      '    error_message: name missing',
    ].join('\n');
    const fromYaml = await api.submit(f.people.author, { artifact: yaml, format: 'yaml' });
    expect(fromYaml.status).toBe(201);
    expect(fromYaml.body.pack.rules[0]).toEqual({
      rule_id: 'r1',
      type: 'INFO',
      field: 'customer.name',
      operator: 'required',
      error_message: 'name missing',
    });
    const fromJson = await api.submit(f.people.author, {
      artifact: JSON.stringify(samplePack('sub-json', '0.1.0')),
      format: 'json',
    });
    expect(fromJson.status).toBe(201);
  });

  it('refuses other content under an existing version (409), and an id another tenant owns (409)', async () => {
    await api.submit(f.people.author, { pack: samplePack('sub-conflict', '1.0.0') });
    const changed = await api.submit(f.people.author, {
      pack: samplePack('sub-conflict', '1.0.0', { rules: [samplePack('x', '1.0.0').rules[0]] }),
    });
    expect(changed.status).toBe(409);
    expect(changed.body.detail).toMatch(/already exists with different content/);
    const taken = await api.submit(f.people.otherTenant, { pack: samplePack('sub-conflict', '2.0.0') });
    expect(taken.status).toBe(409);
    expect(taken.body.detail).toMatch(/belongs to another tenant/);
  });

  it('keeps a certified version immutable', async () => {
    await certified(api, f.people, samplePack('sub-immutable', '1.0.0'));
    const changed = await api.submit(f.people.author, {
      pack: samplePack('sub-immutable', '1.0.0', { rules: [samplePack('x', '1.0.0').rules[1]] }),
    });
    expect(changed.status).toBe(409);
    expect(changed.body.detail).toMatch(/certified \(immutable\)/);
    // The identical pack is still an idempotent 200 with the certified view.
    const same = await api.submit(f.people.author, { pack: samplePack('sub-immutable', '1.0.0') });
    expect(same.status).toBe(200);
    expect(same.body.status).toBe('certified');
  });

  it('needs scope write (403) and a token (401)', async () => {
    expect((await api.submit(f.people.reader, { pack: samplePack('sub-reader', '1.0.0') })).status).toBe(403);
    const anonymous = await fetch(`${f.registry}/rulepacks`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ pack: samplePack('sub-anon', '1.0.0') }),
    });
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toBe('Bearer');
  });
});

describe('bad input: 422 naming the place', () => {
  const loc = (res: { body: any }) => res.body.detail.map((d: any) => d.loc);

  it('requires metadata.pack_id and a semantic metadata.version', async () => {
    const missing = await api.submit(f.people.author, {
      pack: { metadata: {}, rules: samplePack('x', '1.0.0').rules },
    });
    expect(missing.status).toBe(422);
    expect(loc(missing)).toEqual([
      ['body', 'pack', 'metadata', 'pack_id'],
      ['body', 'pack', 'metadata', 'version'],
    ]);
    const notSemver = await api.submit(f.people.author, { pack: samplePack('bad-version', '1.0') });
    expect(notSemver.status).toBe(422);
    expect(loc(notSemver)).toEqual([['body', 'pack', 'metadata', 'version']]);
  });

  it('reports schema violations at their path: unknown operator, unknown severity, missing fields', async () => {
    const rules = samplePack('x', '1.0.0').rules;
    const operator = await api.submit(f.people.author, {
      pack: samplePack('bad-op', '1.0.0', { rules: [{ ...rules[0], operator: 'eval' }] }),
    });
    expect(operator.status).toBe(422);
    expect(operator.body.detail).toEqual([
      expect.objectContaining({ loc: ['body', 'pack', 'rules', 0, 'operator'], type: 'enum' }),
    ]);
    const severity = await api.submit(f.people.author, {
      pack: samplePack('bad-type', '1.0.0', { rules: [rules[0], { ...rules[1], type: 'CRITICAL' }] }),
    });
    expect(severity.status).toBe(422);
    expect(severity.body.detail).toEqual([
      expect.objectContaining({
        loc: ['body', 'pack', 'rules', 1, 'type'],
        msg: "Input should be 'FATAL' or 'WARNING' or 'INFO'",
      }),
    ]);
    const { error_message: _omitted, ...noMessage } = rules[0]!;
    const missing = await api.submit(f.people.author, {
      pack: samplePack('bad-missing', '1.0.0', { rules: [noMessage] }),
    });
    expect(loc(missing)).toEqual([['body', 'pack', 'rules', 0, 'error_message']]);
    const fromArtifact = await api.submit(f.people.author, {
      artifact: JSON.stringify(samplePack('bad-art', '1.0.0', { rules: [{ ...rules[0], operator: 'eval' }] })),
      format: 'json',
    });
    expect(loc(fromArtifact)).toEqual([['body', 'artifact', 'rules', 0, 'operator']]);
  });

  it('names the artifact when it does not parse and the body fields the route refuses', async () => {
    const broken = await api.submit(f.people.author, { artifact: 'rules: [', format: 'yaml' });
    expect(broken.status).toBe(422);
    expect(loc(broken)).toEqual([['body', 'artifact']]);
    expect(loc(await api.submit(f.people.author, { artifact: '{}', format: 'xml' }))).toEqual([['body', 'format']]);
    expect(loc(await api.submit(f.people.author, {}))).toEqual([['body', 'pack']]);
    expect(loc(await api.submit(f.people.author, { pack: [] }))).toEqual([['body', 'pack']]);
  });

  it('refuses what the engine cannot run: patterns that need backtracking, invalid patterns, bad flags', async () => {
    const rules = samplePack('x', '1.0.0').rules;
    const withPattern = (id: string, extra: Record<string, unknown>) =>
      api.submit(f.people.author, { pack: samplePack(id, '1.0.0', { rules: [rules[0], { ...rules[1], ...extra }] }) });
    // A backreference can only be matched by backtracking (exponential on hostile input): the
    // engine's linear-time RE2 refuses it, and lookaround with it.
    for (const [id, value] of [
      ['bad-backref', '^(a+)+\\1$'],
      ['bad-lookahead', '^(?=a)a+$'],
      ['bad-invalid', '([a-z'],
    ]) {
      const res = await withPattern(id!, { value });
      expect(res.status).toBe(422);
      expect(res.body.detail[0].loc).toEqual(['body', 'pack', 'rules', 1, 'value']);
      expect(res.body.detail[0].msg).toMatch(/pattern/);
      expect((await api.versions(f.people.author, id!)).status).toBe(404); // nothing stored
    }
    // Nested quantifiers are harmless under RE2 (matching is linear whatever the pattern): accepted.
    expect((await withPattern('ok-nested', { value: '^(a+)+$' })).status).toBe(201);
    const flags = await withPattern('bad-flags', { value: 'x', flags: 'g' });
    expect(flags.status).toBe(422);
    expect(flags.body.detail[0].loc).toEqual(['body', 'pack', 'rules', 1, 'flags']);
    const operand = await withPattern('bad-operand', { operator: 'in', value: 'not-a-list' });
    expect(operand.status).toBe(422);
    expect(operand.body.detail[0].loc.slice(0, 4)).toEqual(['body', 'pack', 'rules', 1]);
  });
});

describe('lifecycle', () => {
  it('draft → review → certified: the author cannot certify, a reviewer can; the signature verifies against the key set', async () => {
    const pack = samplePack('life-main', '1.0.0');
    await api.submit(f.people.author, { pack });
    const review = await api.requestReview(f.people.author, 'life-main', '1.0.0');
    expect(review.status).toBe(200);
    expect(review.body.status).toBe('review');

    const byAuthor = await api.certify(f.people.author, 'life-main', '1.0.0');
    expect(byAuthor.status).toBe(403);
    expect(byAuthor.body.detail).toMatch(/author/);
    expect((await api.certify(f.people.reader, 'life-main', '1.0.0')).status).toBe(403);

    const done = await api.certify(f.people.reviewer, 'life-main', '1.0.0', { notes: 'looks right' });
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({ status: 'certified', reviewers: ['rita'], author: 'root' });
    expect(Date.parse(done.body.certified_at)).not.toBeNaN();
    expect(done.body.signature).toMatch(/^[A-Za-z0-9_-]{86}$/);

    const keys = await api.keys();
    expect(keys.status).toBe(200);
    const key = keys.body.keys.find((k: any) => k.kid === done.body.key_id);
    expect(key).toMatchObject({ kty: 'OKP', crv: 'Ed25519', use: 'sig', alg: 'EdDSA' });
    expect(key.d).toBeUndefined();
    expect(verifyPack(done.body.pack, done.body.signature, key)).toBe(true);
    const tampered = structuredClone(done.body.pack);
    tampered.rules[0].value = -1;
    expect(verifyPack(tampered, done.body.signature, key)).toBe(false);

    const decisions = await api.decisions(f.people.author, 'life-main', '1.0.0');
    expect(decisions.body.decisions.map((d: any) => [d.decision, d.actor, d.from_state, d.to_state, d.notes])).toEqual([
      ['submitted', 'root', null, 'draft', null],
      ['review_requested', 'root', 'draft', 'review', null],
      ['certified', 'rita', 'review', 'certified', 'looks right'],
    ]);
  });

  it("another admin of the owner tenant may certify; another tenant's admin gets 404", async () => {
    await api.submit(f.people.author, { pack: samplePack('life-admin', '1.0.0') });
    await api.requestReview(f.people.author, 'life-admin', '1.0.0');
    expect((await api.certify(f.people.otherTenant, 'life-admin', '1.0.0')).status).toBe(404);
    const done = await api.certify(f.people.admin, 'life-admin', '1.0.0');
    expect(done.status).toBe(200);
    expect(done.body.reviewers).toEqual(['ada']);
  });

  it('wrong states are 409 naming the current state', async () => {
    await api.submit(f.people.author, { pack: samplePack('life-state', '1.0.0') });
    const certifyDraft = await api.certify(f.people.reviewer, 'life-state', '1.0.0');
    expect(certifyDraft.status).toBe(409);
    expect(certifyDraft.body.detail).toMatch(/is 'draft'; certify needs 'review'/);
    expect((await api.deprecate(f.people.reviewer, 'life-state', '1.0.0')).body.detail).toMatch(/is 'draft'/);
    await api.requestReview(f.people.author, 'life-state', '1.0.0');
    const twice = await api.requestReview(f.people.author, 'life-state', '1.0.0');
    expect(twice.status).toBe(409);
    expect(twice.body.detail).toMatch(/is 'review'/);
    await api.certify(f.people.reviewer, 'life-state', '1.0.0');
    expect((await api.certify(f.people.admin, 'life-state', '1.0.0')).body.detail).toMatch(/is 'certified'/);
    expect((await api.reject(f.people.reviewer, 'life-state', '1.0.0', 'too late')).status).toBe(409);
  });

  it('unknown versions are 404', async () => {
    expect((await api.certify(f.people.reviewer, 'no-such-pack', '1.0.0')).status).toBe(404);
    expect((await api.get(f.people.author, 'no-such-pack', '1.0.0')).status).toBe(404);
    expect((await api.latest(f.people.author, 'no-such-pack')).status).toBe(404);
    expect((await api.versions(f.people.author, 'no-such-pack')).status).toBe(404);
  });

  it('a reviewer rejects with notes (review → draft), which are recorded; the author may fix nothing in place but resubmit', async () => {
    await api.submit(f.people.author, { pack: samplePack('life-reject', '1.0.0') });
    await api.requestReview(f.people.author, 'life-reject', '1.0.0');
    const noNotes = await call422(() => api.reject(f.people.reviewer, 'life-reject', '1.0.0', ''));
    expect(noNotes).toEqual([['body', 'notes']]);
    expect((await api.reject(f.people.author, 'life-reject', '1.0.0', 'mine')).status).toBe(403);
    const rejected = await api.reject(f.people.reviewer, 'life-reject', '1.0.0', 'IBAN rule is too loose');
    expect(rejected.status).toBe(200);
    expect(rejected.body).toMatchObject({ status: 'draft', reviewers: ['rita'], signature: null });
    const decisions = await api.decisions(f.people.author, 'life-reject', '1.0.0');
    expect(decisions.body.decisions.at(-1)).toMatchObject({
      decision: 'rejected',
      actor: 'rita',
      from_state: 'review',
      to_state: 'draft',
      notes: 'IBAN rule is too loose',
    });
    // Back in review once more.
    expect((await api.requestReview(f.people.author, 'life-reject', '1.0.0')).status).toBe(200);
  });

  it('deprecates with a certified replacement only, and relays both notices from the outbox', async () => {
    const v1 = await certified(api, f.people, samplePack('life-dep', '1.0.0'));
    await until(
      () => f.notices.some((n) => n.topic === 'rulepack.certified' && n.payload.pack_id === 'life-dep'),
      'the certified notice',
    );
    expect(f.notices.find((n) => n.payload.pack_id === 'life-dep')!.payload).toEqual({
      pack_id: 'life-dep',
      version: '1.0.0',
      owner_tenant: 'default',
      replacement: null,
    });

    await api.submit(f.people.author, { pack: samplePack('life-dep', '1.1.0') });
    const draftReplacement = await api.deprecate(f.people.reviewer, 'life-dep', '1.0.0', {
      replacement_version: '1.1.0',
    });
    expect(draftReplacement.status).toBe(422);
    expect(draftReplacement.body.detail[0]).toMatchObject({ loc: ['body', 'replacement_version'] });
    expect(draftReplacement.body.detail[0].msg).toMatch(/must exist and be certified \(it is draft\)/);
    const unknown = await api.deprecate(f.people.reviewer, 'life-dep', '1.0.0', {
      replacement: { pack_id: 'nothing-here', version: '1.0.0' },
    });
    expect(unknown.status).toBe(422);
    expect(unknown.body.detail[0].loc).toEqual(['body', 'replacement']);
    expect((await api.deprecate(f.people.author, 'life-dep', '1.0.0')).status).toBe(403);

    await api.requestReview(f.people.author, 'life-dep', '1.1.0');
    await api.certify(f.people.reviewer, 'life-dep', '1.1.0');
    const deprecated = await api.deprecate(f.people.reviewer, 'life-dep', '1.0.0', {
      replacement_version: '1.1.0',
      notes: 'use 1.1.0',
    });
    expect(deprecated.status).toBe(200);
    expect(deprecated.body).toMatchObject({
      status: 'deprecated',
      replacement: { pack_id: 'life-dep', version: '1.1.0' },
      signature: v1.signature,
    });
    expect(Date.parse(deprecated.body.deprecated_at)).not.toBeNaN();
    await until(
      () => f.notices.some((n) => n.topic === 'rulepack.deprecated' && n.payload.pack_id === 'life-dep'),
      'the deprecated notice',
    );
    expect(f.notices.find((n) => n.topic === 'rulepack.deprecated')!.payload).toEqual({
      pack_id: 'life-dep',
      version: '1.0.0',
      owner_tenant: 'default',
      replacement: { pack_id: 'life-dep', version: '1.1.0' },
    });
    // Through the notice outbox: a CloudEvents envelope per notice, one subject per pack version.
    const dep = f.notices.find((n) => n.topic === 'rulepack.deprecated')!.meta!;
    expect(dep).toMatchObject({
      specversion: '1.0',
      type: 'rulepack.deprecated',
      source: 'urn:platform:service:rulepack-registry',
      subject: 'life-dep@1.0.0',
      tenantid: 'default',
    });
    expect(new Set(f.notices.map((n) => n.meta!.id)).size).toBe(f.notices.length);
  });

  it("writes every step to the owner tenant's audit trail through the outbox", async () => {
    const done = await certified(api, f.people, samplePack('life-audit', '1.0.0'));
    const rows = await f.harness.db.prisma.outboxEvent.findMany({
      where: { service: 'rulepack-registry' },
      orderBy: { id: 'asc' },
    });
    const mine = rows.filter((r) => (r.eventData as any).pack_id === 'life-audit');
    expect(mine.map((r) => [r.eventType, r.userId, r.tenantId])).toEqual([
      ['rulepack_submitted', 'root', 'default'],
      ['rulepack_review_requested', 'root', 'default'],
      ['rulepack_certified', 'rita', 'default'],
    ]);
    expect(mine[2]!.eventData).toMatchObject({ sha256: done.sha256, key_id: done.key_id });
    const types = new Set(rows.map((r) => r.eventType));
    for (const t of ['rulepack_rejected', 'rulepack_deprecated']) expect(types).toContain(t);
  });
});

async function call422(work: () => Promise<{ status: number; body: any }>): Promise<unknown[]> {
  const res = await work();
  expect(res.status).toBe(422);
  return res.body.detail.map((d: any) => d.loc);
}

describe('reads and tenancy', () => {
  it('GET /rulepacks/{id} is the newest certified version by semantic version, not by text', async () => {
    await certified(api, f.people, samplePack('read-semver', '1.9.0'));
    await certified(api, f.people, samplePack('read-semver', '1.10.0'));
    await api.submit(f.people.author, { pack: samplePack('read-semver', '2.0.0') }); // a draft does not count
    const latest = await api.latest(f.people.otherTenant, 'read-semver');
    expect(latest.status).toBe(200);
    expect(latest.body.version).toBe('1.10.0');
    const versions = await api.versions(f.people.author, 'read-semver');
    expect(versions.body.versions.map((v: any) => v.version)).toEqual(['2.0.0', '1.10.0', '1.9.0']);
    expect(versions.body.versions[0]).not.toHaveProperty('pack');
    // Another tenant sees the published versions only.
    expect((await api.versions(f.people.otherTenant, 'read-semver')).body.versions.map((v: any) => v.version)).toEqual([
      '1.10.0',
      '1.9.0',
    ]);
  });

  it('a pack whose versions are all deprecated is 409 naming the replacement', async () => {
    await certified(api, f.people, samplePack('read-old', '1.0.0'));
    await certified(api, f.people, samplePack('read-new', '1.0.0'));
    await api.deprecate(f.people.reviewer, 'read-old', '1.0.0', {
      replacement: { pack_id: 'read-new', version: '1.0.0' },
    });
    const latest = await api.latest(f.people.author, 'read-old');
    expect(latest.status).toBe(409);
    expect(latest.body.detail).toMatch(/'1.0.0' is deprecated; use 'read-new' version '1.0.0'/);
    // The deprecated version itself stays readable by version.
    expect((await api.get(f.people.otherTenant, 'read-old', '1.0.0')).body.status).toBe('deprecated');
  });

  it("drafts and reviews are the owner tenant's: another tenant gets 404 everywhere", async () => {
    await api.submit(f.people.author, { pack: samplePack('read-private', '1.0.0') });
    await api.submit(f.people.author, { pack: samplePack('read-private', '1.1.0') });
    await api.requestReview(f.people.author, 'read-private', '1.1.0');
    for (const version of ['1.0.0', '1.1.0']) {
      expect((await api.get(f.people.otherTenant, 'read-private', version)).status).toBe(404);
      expect((await api.decisions(f.people.otherTenant, 'read-private', version)).status).toBe(404);
      expect((await api.requestReview(f.people.otherTenant, 'read-private', version)).status).toBe(404);
      expect((await api.reject(f.people.otherTenant, 'read-private', version, 'no')).status).toBe(404);
      expect((await api.get(f.people.reader, 'read-private', version)).status).toBe(200);
    }
    expect((await api.versions(f.people.otherTenant, 'read-private')).status).toBe(404);
    expect((await api.latest(f.people.otherTenant, 'read-private')).status).toBe(404);
    const list = await api.list(f.people.otherTenant, '?limit=200');
    expect(list.body.rulepacks.map((v: any) => v.pack_id)).not.toContain('read-private');
    // A platform operator sees them (recorded in the tenant's audit trail).
    expect((await api.get(f.people.operator, 'read-private', '1.1.0')).status).toBe(200);
    const access = await f.harness.db.prisma.outboxEvent.findMany({
      where: { service: 'rulepack-registry', eventType: 'platform_operator_access', tenantId: 'default' },
    });
    expect(access.length).toBeGreaterThan(0);
  });

  it("lists the caller's drafts and every tenant's published versions, by status, in pages", async () => {
    await api.submit(f.people.otherTenant, { pack: samplePack('b-draft', '1.0.0') });
    await certified(
      api,
      { ...f.people, author: f.people.otherTenant, reviewer: f.people.operator },
      samplePack('b-cert', '1.0.0'),
    );
    const drafts = await api.list(f.people.author, '?status=draft&limit=200');
    expect(drafts.status).toBe(200);
    expect(drafts.body.rulepacks.every((v: any) => v.status === 'draft' && v.owner_tenant === 'default')).toBe(true);
    const bDrafts = await api.list(f.people.otherTenant, '?status=draft');
    expect(bDrafts.body.rulepacks.map((v: any) => v.pack_id)).toEqual(['b-draft']);
    const certifiedAll = await api.list(f.people.author, '?status=certified&limit=200');
    expect(certifiedAll.body.rulepacks.map((v: any) => v.pack_id)).toEqual(
      expect.arrayContaining(['b-cert', 'life-main']),
    );

    // Paging: every version once, in (pack id, version) order.
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: any = await api.list(f.people.author, `?limit=3${cursor ? `&cursor=${cursor}` : ''}`);
      expect(page.status).toBe(200);
      expect(page.body.rulepacks.length).toBeLessThanOrEqual(3);
      seen.push(...page.body.rulepacks.map((v: any) => `${v.pack_id}@${v.version}`));
      cursor = page.body.next_cursor;
    } while (cursor);
    const all = await api.list(f.people.author, '?limit=200');
    expect(seen).toEqual(all.body.rulepacks.map((v: any) => `${v.pack_id}@${v.version}`));
    expect(new Set(seen).size).toBe(seen.length);

    expect((await api.list(f.people.author, '?status=retired')).body.detail[0].loc).toEqual(['query', 'status']);
    expect((await api.list(f.people.author, '?cursor=forged')).body.detail[0].loc).toEqual(['query', 'cursor']);
  });

  it("serves the typed client's contract", async () => {
    await certified(api, f.people, samplePack('read-client', '3.1.4'));
    const client = new RulePackRegistryClient(f.registry);
    const context = { token: f.people.otherTenant };
    const view = await client.get(context, 'read-client');
    expect(Object.keys(view).sort()).toEqual([
      'author',
      'certified_at',
      'deprecated_at',
      'key_id',
      'owner_tenant',
      'pack',
      'pack_id',
      'replacement',
      'reviewers',
      'sha256',
      'signature',
      'status',
      'submitted_at',
      'version',
    ]);
    expect(await client.get(context, 'read-client', '3.1.4')).toEqual(view);
    const keys = await client.signingKeys();
    expect(
      verifyPack(
        view.pack,
        view.signature!,
        keys.keys.find((k) => k.kid === view.key_id)!,
      ),
    ).toBe(true);
    await expect(client.get(context, 'read-client', '9.9.9')).rejects.toMatchObject({ status: 404 });
    await expect(client.get(context, 'read-client', '9.9.9')).rejects.toBeInstanceOf(ServiceCallError);
  });
});
