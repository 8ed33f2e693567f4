// The packs registry's REST door over real HTTP (identity for logins, PGlite, stand-ins for the
// rule-pack and schema registries): submitting JSON and YAML workflow packs, every bad input,
// the tenancy rule, dependency resolution (missing, deprecated, cycles, a missed bus event),
// certification and deprecation with their permissions, and the audit events in the outbox.
import canonicalize from 'canonicalize';
import { createHash } from 'node:crypto';
import { identityService } from '../../../services/identity';
import { definePacksRegistryService } from '../../../services/packs-registry';
import { createMemoryEventBus } from '../../../platform/events/memory-event-bus';
import {
  RULEPACK_CERTIFIED,
  RULEPACK_DEPRECATED,
  type RulePackNotice,
} from '../../../platform/contracts/rulepack.events';
import { startNoticeRelay, type NoticeRelay } from '../../../platform/outbox/notice-relay';
import { pendingNotice, sqlInsertNotices } from '../../../platform/outbox/notice.writer';
import { startServices, type Harness } from '../../support/service-harness';
import { until } from '../../support/waiting';
import {
  call,
  IDENTITY_ENV,
  makeUsers,
  startRulePackStandIn,
  startSchemaStandIn,
  workflowPack,
  type RulePackStandIn,
  type SchemaStandIn,
  type Tokens,
} from './packs.support';

jest.setTimeout(120_000);

const bus = createMemoryEventBus();
let h: Harness;
let url: string;
let rules: RulePackStandIn;
let schemas: SchemaStandIn;
let t: Tokens;
/** The rule-pack registry's relay: its notices reach the catalog through the events backbone. */
let registryRelay: NoticeRelay;

/** What the rule-pack registry does on a decision: a notice in its outbox, committed with the change. */
async function registryNotice(topic: 'rulepack.certified' | 'rulepack.deprecated', notice: unknown) {
  const n = notice as RulePackNotice;
  const contract = topic === 'rulepack.certified' ? RULEPACK_CERTIFIED : RULEPACK_DEPRECATED;
  await h.db.sql.transaction((q) =>
    sqlInsertNotices(q, [
      pendingNotice('rulepack-registry', contract, n, {
        tenantId: typeof n.owner_tenant === 'string' ? n.owner_tenant : 'default',
        subject: `${n.pack_id}@${n.version}`,
      }),
    ]),
  );
  registryRelay.wake();
}

const sha = (v: unknown) => createHash('sha256').update(canonicalize(v)!).digest('hex');
const submit = (token: string, artifact: unknown, format: 'json' | 'yaml' = 'json') =>
  call(`${url}/packs`, { token, json: { artifact, format } });
const at = (packId: string, version: string, tail = '') => `${url}/packs/${packId}/versions/${version}${tail}`;
const certify = (token: string, packId: string, version: string) =>
  call(at(packId, version, '/certify'), { method: 'POST', token });
const deprecate = (token: string, packId: string, version: string, body: unknown = {}) =>
  call(at(packId, version, '/deprecate'), { token, json: body });

beforeAll(async () => {
  rules = await startRulePackStandIn();
  schemas = await startSchemaStandIn();
  h = await startServices([identityService, definePacksRegistryService({ bus })], {
    ...IDENTITY_ENV,
    RULEPACK_REGISTRY_URL: rules.url,
    SCHEMA_REGISTRY_URL: schemas.url,
  });
  url = h.services['packs-registry']!.url;
  registryRelay = startNoticeRelay({
    db: h.db,
    bus,
    logger: { warn: () => {}, info: () => {} },
    services: ['rulepack-registry'],
    pollMs: 50,
  });
  t = await makeUsers(h.services.identity!.url);
});
afterAll(async () => {
  await registryRelay?.stop();
  await h?.close();
  await rules?.close();
  await schemas?.close();
});

describe('submitting', () => {
  it('stores a JSON pack as a draft with its hash and extracted dependencies; a retry is 200, other content 409', async () => {
    const pack = workflowPack('title-transfer', '1.0.0', {
      steps: [
        {
          step: 'check-title',
          type: 'validation',
          rule_pack_id: 'title-rules',
          rule_pack_version: '1.0.0',
          compensation: 'noop',
        },
        {
          step: 'route',
          type: 'decision',
          branches: [
            {
              when: { field: 'amount', operator: '>', value: 10000 },
              steps: [{ step: 'approve', type: 'hil_approval', reviewer_role: 'reviewer' }],
            },
          ],
          otherwise: [
            {
              step: 'sub',
              type: 'action',
              action: 'run_subflow',
              workflow_pack_id: 'lien-release',
              workflow_pack_version: '2.0.0',
            },
          ],
        },
        {
          step: 'fan-out',
          type: 'parallel',
          steps: [
            { step: 'notify', type: 'action', action: 'notify_parties', idempotency_key: '${workflow_id}:notify' },
            { step: 'summarise', type: 'ai', prompt: 'Summarise the transfer', output_field: 'summary' },
            { step: 'check-title-again', type: 'validation', rule_pack_id: 'title-rules', rule_pack_version: '1.0.0' },
          ],
        },
      ],
      extra: {
        input_schema_ref: { name: 'title-transfer-payload', version: '1.0.0' },
        dependencies: { schemas: [{ name: 'county-codes', version: '3.1.0' }] },
        requires_approval: true,
      },
    });
    const first = await submit(t.author, pack);
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({
      pack_id: 'title-transfer',
      version: '1.0.0',
      kind: 'workflow',
      status: 'draft',
      owner_tenant: 'default',
      author: 'alice',
      reviewers: [],
      certified_at: null,
      deprecated_at: null,
      replacement: null,
      artifact: {
        format: 'json',
        sha256: sha(pack),
        pointer: { service: 'packs-registry', pack_id: 'title-transfer', version: '1.0.0' },
        content: pack,
      },
      dependencies: {
        rule_packs: [{ pack_id: 'title-rules', version: '1.0.0' }],
        schemas: [
          { name: 'title-transfer-payload', version: '1.0.0' },
          { name: 'county-codes', version: '3.1.0' },
        ],
        workflow_packs: [{ pack_id: 'lien-release', version: '2.0.0' }],
      },
    });
    expect(JSON.parse(first.body.artifact.source)).toEqual(pack);

    const again = await submit(t.author, pack);
    expect(again.status).toBe(200);
    expect(again.body.submitted_at).toBe(first.body.submitted_at);

    const changed = await submit(t.author, { ...pack, requires_approval: false });
    expect(changed.status).toBe(409);
    expect(changed.body.detail).toMatch(/already exists with different content/);
  });

  it('keeps a YAML pack verbatim and hashes its parsed JSON', async () => {
    const yaml = [
      '# a comment the registry keeps',
      'metadata:',
      '  pack_id: yaml-pack',
      '  version: 1.0.0',
      '  workflow_type: operational',
      '  name: From YAML',
      'steps:',
      '  - step: do-it',
      '    type: action',
      '    action: do_it',
      '    parameters: { retries: 3, note: "x" }',
      '',
    ].join('\n');
    const res = await submit(t.author, yaml, 'yaml');
    expect(res.status).toBe(201);
    const parsed = {
      metadata: { pack_id: 'yaml-pack', version: '1.0.0', workflow_type: 'operational', name: 'From YAML' },
      steps: [{ step: 'do-it', type: 'action', action: 'do_it', parameters: { retries: 3, note: 'x' } }],
    };
    expect(res.body.artifact).toMatchObject({ format: 'yaml', source: yaml, content: parsed, sha256: sha(parsed) });
    // The same pack as a JSON string hashes the same: the hash is of the content, not the text.
    const asJson = await submit(t.author, JSON.stringify(parsed), 'json');
    expect(asJson.status).toBe(200);
    expect(asJson.body.artifact.format).toBe('yaml');
  });

  const good = () => workflowPack('bad-input', '1.0.0');
  const cases: [string, unknown, 'json' | 'yaml' | string, (string | number)[], string?][] = [
    [
      'a validation step without its rule pack',
      workflowPack('b', '1.0.0', { steps: [{ step: 's', type: 'validation', rule_pack_version: '1.0.0' }] }),
      'json',
      ['body', 'artifact', 'steps', 0, 'rule_pack_id'],
      'missing',
    ],
    [
      'an unknown step type',
      workflowPack('b', '1.0.0', { steps: [{ step: 's', type: 'script', action: 'x' }] }),
      'json',
      ['body', 'artifact', 'steps', 0, 'type'],
      'enum',
    ],
    [
      'a member of another step type',
      workflowPack('b', '1.0.0', { steps: [{ step: 's', type: 'action', action: 'x', prompt: 'p' }] }),
      'json',
      ['body', 'artifact', 'steps', 0, 'prompt'],
      'extra_forbidden',
    ],
    [
      'a nested step without a name',
      workflowPack('b', '1.0.0', { steps: [{ step: 'p', type: 'parallel', steps: [{ type: 'ai', prompt: 'x' }] }] }),
      'json',
      ['body', 'artifact', 'steps', 0, 'steps', 0, 'step'],
      'missing',
    ],
    [
      'a decision on an unknown operator',
      workflowPack('b', '1.0.0', {
        steps: [
          {
            step: 'd',
            type: 'decision',
            branches: [{ when: { field: 'a', operator: 'eval' }, steps: [{ step: 'x', type: 'hil_approval' }] }],
          },
        ],
      }),
      'json',
      ['body', 'artifact', 'steps', 0, 'branches', 0, 'when', 'operator'],
      'enum',
    ],
    [
      'a version that is not semver',
      { ...good(), metadata: { ...(good().metadata as object), version: 'v1' } },
      'json',
      ['body', 'artifact', 'metadata', 'version'],
      'string_pattern_mismatch',
    ],
    [
      'an unknown workflow type',
      { ...good(), metadata: { ...(good().metadata as object), workflow_type: 'fun' } },
      'json',
      ['body', 'artifact', 'metadata', 'workflow_type'],
      'enum',
    ],
    ['no steps', { ...good(), steps: [] }, 'json', ['body', 'artifact', 'steps'], undefined],
    [
      'an unknown top-level member',
      { ...good(), script: 'rm -rf /' },
      'json',
      ['body', 'artifact', 'script'],
      'extra_forbidden',
    ],
    [
      'two steps with one name',
      workflowPack('b', '1.0.0', {
        steps: [
          { step: 's', type: 'hil_approval' },
          { step: 'p', type: 'parallel', steps: [{ step: 's', type: 'hil_approval' }] },
        ],
      }),
      'json',
      ['body', 'artifact', 'steps', 1, 'steps', 0, 'step'],
      'value_error',
    ],
    [
      'a sub-workflow without its version',
      workflowPack('b', '1.0.0', { steps: [{ step: 's', type: 'action', action: 'a', workflow_pack_id: 'x' }] }),
      'json',
      ['body', 'artifact', 'steps', 0],
      undefined,
    ],
    ['JSON text that does not parse', '{"metadata": ', 'json', ['body', 'artifact'], 'json_invalid'],
    ['JSON text with a __proto__ key', '{"__proto__": {"x": 1}}', 'json', ['body', 'artifact'], 'json_invalid'],
    [
      'JSON text with a NUL in a string',
      JSON.stringify({ ...good(), metadata: { ...(good().metadata as object), name: 'a\u0000b' } }),
      'json',
      ['body', 'artifact', 'metadata', 'name'],
      'value_error',
    ],
    ['YAML that does not parse', 'metadata: [unclosed', 'yaml', ['body', 'artifact'], 'yaml_invalid'],
    ['YAML with a duplicate key', 'metadata: {}\nmetadata: {}\n', 'yaml', ['body', 'artifact'], 'yaml_invalid'],
    [
      'YAML with a binary tag',
      'metadata: !!binary aGVsbG8=\nsteps: []\n',
      'yaml',
      ['body', 'artifact'],
      'yaml_invalid',
    ],
    [
      'YAML with an infinite number',
      'metadata: {pack_id: b, version: 1.0.0, workflow_type: risk, name: n}\nsteps: [{step: s, type: action, action: a, parameters: {limit: .inf}}]\n',
      'yaml',
      ['body', 'artifact', 'steps', 0, 'parameters', 'limit'],
      'finite_number',
    ],
    ['YAML nested too deep', `${'['.repeat(100)}${']'.repeat(100)}`, 'yaml', ['body', 'artifact'], 'value_error'],
    ['YAML two documents', 'a: 1\n---\nb: 2\n', 'yaml', ['body', 'artifact'], 'yaml_invalid'],
    ['a YAML artifact sent as an object', good(), 'yaml', ['body', 'artifact'], 'string_type'],
    ['an unknown format', good(), 'xml', ['body', 'format'], undefined],
    ['an artifact that is a list', [good()], 'json', ['body', 'artifact'], undefined],
    ['an artifact that is a number', 42, 'json', ['body', 'artifact'], undefined],
  ];
  it.each(cases)('refuses %s with 422 naming the path', async (_name, artifact, format, loc, type) => {
    const res = await call(`${url}/packs`, { token: t.author, json: { artifact, format } });
    expect(res.status).toBe(422);
    expect(res.body.detail[0].loc).toEqual(loc);
    if (type) expect(res.body.detail[0].type).toBe(type);
  });

  it('refuses a missing artifact, unknown body members and bodies that are not JSON objects', async () => {
    const missing = await call(`${url}/packs`, { token: t.author, json: { format: 'json' } });
    expect(missing.status).toBe(422);
    expect(missing.body.detail[0]).toMatchObject({ loc: ['body', 'artifact'], type: 'missing' });
    const extra = await call(`${url}/packs`, {
      token: t.author,
      json: { format: 'json', artifact: good(), owner: 'x' },
    });
    expect(extra.status).toBe(422);
    expect(extra.body.detail[0].loc).toEqual(['body', 'owner']);
    const broken = await call(`${url}/packs`, { token: t.author, raw: '{"artifact": ' });
    expect(broken.status).toBe(422);
  });

  it('needs a token (401) and the write scope (403)', async () => {
    expect((await call(`${url}/packs`, { json: { artifact: good(), format: 'json' } })).status).toBe(401);
    const reader = await submit(t.user, good());
    expect(reader.status).toBe(403);
    expect(reader.body.detail).toMatch(/write/);
  });
});

describe('tenancy', () => {
  it('hides a draft from another tenant (404 everywhere) and publishes it once certified', async () => {
    rules.put({ pack_id: 'kyc-rules', version: '1.0.0' });
    expect(
      (
        await submit(
          t.author,
          workflowPack('private-flow', '1.0.0', {
            steps: [{ step: 'v', type: 'validation', rule_pack_id: 'kyc-rules', rule_pack_version: '1.0.0' }],
          }),
        )
      ).status,
    ).toBe(201);
    for (const path of [
      at('private-flow', '1.0.0'),
      at('private-flow', '1.0.0', '/dependencies'),
      `${url}/packs/private-flow/versions`,
      `${url}/packs/private-flow`,
    ]) {
      const res = await call(path, { token: t.otherAdmin });
      expect([path, res.status]).toEqual([path, 404]);
    }
    expect((await certify(t.otherAdmin, 'private-flow', '1.0.0')).status).toBe(404);
    expect((await deprecate(t.otherAdmin, 'private-flow', '1.0.0')).status).toBe(404);
    const listed = await call(`${url}/packs?limit=200`, { token: t.otherAdmin });
    expect(listed.body.packs.map((p: any) => p.pack_id)).not.toContain('private-flow');
    // Its own tenant sees it; the latest-certified route still has nothing to give.
    expect((await call(at('private-flow', '1.0.0'), { token: t.user })).status).toBe(200);
    expect((await call(`${url}/packs/private-flow`, { token: t.user })).status).toBe(404);
    // The id belongs to the first tenant: another cannot submit under it.
    const squat = await submit(t.otherAdmin, workflowPack('private-flow', '9.0.0'));
    expect(squat.status).toBe(409);

    expect((await certify(t.reviewer, 'private-flow', '1.0.0')).status).toBe(200);
    const published = await call(`${url}/packs/private-flow`, { token: t.otherAdmin });
    expect(published.status).toBe(200);
    expect(published.body).toMatchObject({ version: '1.0.0', status: 'certified', owner_tenant: 'default' });
    expect((await call(at('private-flow', '1.0.0', '/dependencies'), { token: t.otherAdmin })).status).toBe(200);
    // Published is not owned: tenant-b's admin may not retire it.
    expect((await deprecate(t.otherAdmin, 'private-flow', '1.0.0')).status).toBe(403);
  });

  it('lets a tenant name only itself; the platform operator sees every draft', async () => {
    const named = await call(`${url}/packs?tenant_id=default`, { token: t.otherAdmin });
    expect(named.status).toBe(403);
    const all = await call(`${url}/packs?limit=200&status=draft`, { token: t.operator });
    expect(all.status).toBe(200);
    expect(all.body.packs.map((p: any) => p.pack_id)).toContain('title-transfer');
    expect((await call(at('title-transfer', '1.0.0'), { token: t.operator })).status).toBe(200);
  });
});

describe('dependencies and certification', () => {
  it("refuses missing dependencies with 422 listing each, then certifies once they exist (asking with the caller's token)", async () => {
    const missing = await certify(t.reviewer, 'title-transfer', '1.0.0');
    expect(missing.status).toBe(422);
    const msgs = missing.body.detail.map((d: any) => `${d.loc.join('/')} ${d.msg}`);
    expect(msgs).toEqual([
      "path/dependencies/rule_packs/0 Rule pack 'title-rules' version 1.0.0 not found",
      "path/dependencies/schemas/0 Schema 'title-transfer-payload' version 1.0.0 not found",
      "path/dependencies/schemas/1 Schema 'county-codes' version 3.1.0 not found",
      "path/dependencies/workflow_packs/0 Workflow pack 'lien-release' version 2.0.0 not found",
    ]);
    expect(missing.body.detail.every((d: any) => d.type === 'dependency_missing')).toBe(true);

    rules.put({ pack_id: 'title-rules', version: '1.0.0' });
    schemas.put('title-transfer-payload', '1.0.0');
    schemas.put('county-codes', '3.1.0');
    expect(
      (
        await submit(
          t.author,
          workflowPack('lien-release', '2.0.0', {
            steps: [{ step: 'v', type: 'validation', rule_pack_id: 'lien-rules', rule_pack_version: '1.0.0' }],
          }),
        )
      ).status,
    ).toBe(201);
    // The sub-workflow needs a rule pack nobody has: named as needed by it.
    const transitive = await certify(t.reviewer, 'title-transfer', '1.0.0');
    expect(transitive.status).toBe(422);
    expect(transitive.body.detail).toEqual([
      {
        loc: ['path', 'dependencies', 'workflow_packs', 0],
        msg: "Rule pack 'lien-rules' version 1.0.0 not found (needed by workflow:lien-release@2.0.0)",
        type: 'dependency_missing',
      },
    ]);
    rules.put({ pack_id: 'lien-rules', version: '1.0.0', status: 'review' });
    const graph = await call(at('title-transfer', '1.0.0', '/dependencies'), { token: t.author });
    expect(graph.status).toBe(200);
    expect(graph.body.root).toBe('workflow:title-transfer@1.0.0');
    expect(graph.body.nodes.map((n: any) => `${n.id} ${n.status} ${n.source}`).sort()).toEqual([
      'rule:lien-rules@1.0.0 review rulepack-registry',
      'rule:title-rules@1.0.0 certified rulepack-registry',
      'schema:county-codes@3.1.0 available schema-registry',
      'schema:title-transfer-payload@1.0.0 available schema-registry',
      'workflow:lien-release@2.0.0 draft catalog',
      'workflow:title-transfer@1.0.0 draft catalog',
    ]);
    expect(graph.body.edges).toContainEqual({ from: 'workflow:lien-release@2.0.0', to: 'rule:lien-rules@1.0.0' });
    // The registries were asked with the caller's own token.
    expect(rules.authorizations.at(-1)).toBe(`Bearer ${t.author}`);
    expect(schemas.authorizations.at(-1)).toBe(`Bearer ${t.author}`);

    // Drafts and packs under review cannot be depended on by a certified pack.
    const uncertified = await certify(t.reviewer, 'title-transfer', '1.0.0');
    expect(uncertified.status).toBe(409);
    expect(uncertified.body.detail).toMatch(/Rule pack 'lien-rules' version 1.0.0 is under review/);
    expect(uncertified.body.detail).toMatch(/Workflow pack 'lien-release' version 2.0.0 is a draft/);
    rules.put({ pack_id: 'lien-rules', version: '1.0.0' });
    expect((await certify(t.reviewer, 'lien-release', '2.0.0')).status).toBe(200);

    const done = await certify(t.reviewer, 'title-transfer', '1.0.0');
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({ status: 'certified', reviewers: ['rita'] });
    expect(Date.parse(done.body.certified_at)).not.toBeNaN();
    // draft -> certified happens once.
    const twice = await certify(t.admin, 'title-transfer', '1.0.0');
    expect(twice.status).toBe(409);
  });

  it('refuses certification to the author, to plain users and to roles without promotion rights', async () => {
    expect((await submit(t.admin, workflowPack('admin-flow', '1.0.0'))).status).toBe(201);
    const own = await certify(t.admin, 'admin-flow', '1.0.0');
    expect(own.status).toBe(403);
    expect(own.body.detail).toMatch(/author/);
    expect((await submit(t.author, workflowPack('alice-flow', '1.0.0'))).status).toBe(201);
    expect((await certify(t.author, 'alice-flow', '1.0.0')).status).toBe(403);
    expect((await certify(t.user, 'alice-flow', '1.0.0')).status).toBe(403);
    expect((await certify(t.admin, 'alice-flow', '1.0.0')).status).toBe(200);
    expect((await certify(t.reviewer, 'admin-flow', '1.0.0')).status).toBe(200);
  });

  it('refuses a cycle among workflow packs with 422 naming it', async () => {
    const dep = (id: string) => ({ dependencies: { workflow_packs: [{ pack_id: id, version: '1.0.0' }] } });
    expect((await submit(t.author, workflowPack('cycle-a', '1.0.0', { extra: dep('cycle-b') }))).status).toBe(201);
    expect((await submit(t.author, workflowPack('cycle-b', '1.0.0', { extra: dep('cycle-c') }))).status).toBe(201);
    expect((await submit(t.author, workflowPack('cycle-c', '1.0.0', { extra: dep('cycle-a') }))).status).toBe(201);
    const res = await call(at('cycle-a', '1.0.0', '/dependencies'), { token: t.author });
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([
      {
        loc: ['path', 'dependencies', 'workflow_packs', 0],
        msg: 'Dependency cycle among workflow packs: workflow:cycle-a@1.0.0 -> workflow:cycle-b@1.0.0 -> workflow:cycle-c@1.0.0 -> workflow:cycle-a@1.0.0',
        type: 'dependency_cycle',
      },
    ]);
    expect((await certify(t.reviewer, 'cycle-a', '1.0.0')).status).toBe(422);
  });

  it('refuses a deprecated rule pack with 409 naming the replacement, from the backbone or from the registry', async () => {
    // Learned from the backbone: the catalog's deprecation is final, whatever the registry says.
    rules.put({ pack_id: 'aml-rules', version: '1.0.0' });
    await registryNotice('rulepack.certified', {
      pack_id: 'aml-rules',
      version: '1.0.0',
      owner_tenant: 'default',
      replacement: null,
    });
    await registryNotice('rulepack.deprecated', {
      pack_id: 'aml-rules',
      version: '1.0.0',
      owner_tenant: 'default',
      replacement: { pack_id: 'aml-rules', version: '1.1.0' },
    });
    await until(
      async () => (await call(`${url}/packs/aml-rules/versions/1.0.0`, { token: t.user })).body.status === 'deprecated',
      'the deprecation notice',
    );
    expect(
      (
        await submit(
          t.author,
          workflowPack('aml-flow', '1.0.0', {
            steps: [{ step: 'v', type: 'validation', rule_pack_id: 'aml-rules', rule_pack_version: '1.0.0' }],
          }),
        )
      ).status,
    ).toBe(201);
    const viaBus = await certify(t.reviewer, 'aml-flow', '1.0.0');
    expect(viaBus.status).toBe(409);
    expect(viaBus.body.detail).toBe(
      "Rule pack 'aml-rules' version 1.0.0 is deprecated; use 'aml-rules' version 1.1.0 instead",
    );

    // A deprecation the backbone has not delivered: the registry's answer decides.
    rules.put({
      pack_id: 'fraud-rules',
      version: '2.0.0',
      status: 'deprecated',
      replacement: { pack_id: 'fraud-rules', version: '3.0.0' },
    });
    expect(
      (
        await submit(
          t.author,
          workflowPack('fraud-flow', '1.0.0', {
            steps: [{ step: 'v', type: 'validation', rule_pack_id: 'fraud-rules', rule_pack_version: '2.0.0' }],
          }),
        )
      ).status,
    ).toBe(201);
    const viaRegistry = await call(at('fraud-flow', '1.0.0', '/dependencies'), { token: t.author });
    expect(viaRegistry.status).toBe(409);
    expect(viaRegistry.body.detail).toMatch(
      /'fraud-rules' version 2.0.0 is deprecated; use 'fraud-rules' version 3.0.0/,
    );
  });

  it('answers from the catalog while the rule-pack registry is down, and 503 for what only it knows', async () => {
    await registryNotice('rulepack.certified', { pack_id: 'cached-rules', version: '1.0.0', owner_tenant: 'default' });
    await until(
      async () => (await call(`${url}/packs/cached-rules/versions/1.0.0`, { token: t.user })).status === 200,
      'the certification notice',
    );
    expect(
      (
        await submit(
          t.author,
          workflowPack('cached-flow', '1.0.0', {
            steps: [{ step: 'v', type: 'validation', rule_pack_id: 'cached-rules', rule_pack_version: '1.0.0' }],
          }),
        )
      ).status,
    ).toBe(201);
    expect(
      (
        await submit(
          t.author,
          workflowPack('unknown-flow', '1.0.0', {
            steps: [{ step: 'v', type: 'validation', rule_pack_id: 'never-seen', rule_pack_version: '1.0.0' }],
          }),
        )
      ).status,
    ).toBe(201);
    rules.down = true;
    try {
      const cached = await call(at('cached-flow', '1.0.0', '/dependencies'), { token: t.author });
      expect(cached.status).toBe(200);
      expect(cached.body.nodes).toContainEqual(
        expect.objectContaining({ id: 'rule:cached-rules@1.0.0', status: 'certified', source: 'catalog' }),
      );
      const unknown = await call(at('unknown-flow', '1.0.0', '/dependencies'), { token: t.author });
      expect(unknown.status).toBe(503);
    } finally {
      rules.down = false;
    }
  });
});

describe('deprecation', () => {
  it('retires a certified version, naming a certified replacement; the latest certified moves on', async () => {
    expect((await submit(t.author, workflowPack('retiring', '1.0.0'))).status).toBe(201);
    expect(
      (await submit(t.author, workflowPack('retiring', '1.1.0', { extra: { requires_approval: false } }))).status,
    ).toBe(201);
    expect(
      (await submit(t.author, workflowPack('retiring', '1.2.0-rc.1', { extra: { requires_approval: true } }))).status,
    ).toBe(201);
    expect((await deprecate(t.reviewer, 'retiring', '1.0.0')).status).toBe(409); // a draft
    expect((await certify(t.reviewer, 'retiring', '1.0.0')).status).toBe(200);
    expect((await call(`${url}/packs/retiring`, { token: t.user })).body.version).toBe('1.0.0');

    const toDraft = await deprecate(t.reviewer, 'retiring', '1.0.0', { replacement_version: '1.1.0' });
    expect(toDraft.status).toBe(422);
    expect(toDraft.body.detail[0].loc).toEqual(['body', 'replacement_version']);
    const toNothing = await deprecate(t.reviewer, 'retiring', '1.0.0', { replacement_version: '7.0.0' });
    expect(toNothing.status).toBe(422);
    const toSelf = await deprecate(t.reviewer, 'retiring', '1.0.0', { replacement_version: '1.0.0' });
    expect(toSelf.status).toBe(422);
    const notSemver = await deprecate(t.reviewer, 'retiring', '1.0.0', { replacement_version: 'latest' });
    expect(notSemver.status).toBe(422);
    expect(notSemver.body.detail[0].loc).toEqual(['body', 'replacement_version']);
    expect((await deprecate(t.author, 'retiring', '1.0.0')).status).toBe(403);

    expect((await certify(t.reviewer, 'retiring', '1.1.0')).status).toBe(200);
    const retired = await deprecate(t.reviewer, 'retiring', '1.0.0', { replacement_version: '1.1.0' });
    expect(retired.status).toBe(200);
    expect(retired.body).toMatchObject({
      status: 'deprecated',
      replacement: { pack_id: 'retiring', version: '1.1.0' },
      reviewers: ['rita'],
    });
    expect((await deprecate(t.reviewer, 'retiring', '1.0.0')).status).toBe(409);
    // Certified versions are immutable, deprecated ones too.
    expect(
      (await submit(t.author, workflowPack('retiring', '1.0.0', { extra: { requires_approval: false } }))).status,
    ).toBe(409);

    const latest = await call(`${url}/packs/retiring`, { token: t.otherAdmin });
    expect(latest.body.version).toBe('1.1.0');
    const versions = await call(`${url}/packs/retiring/versions`, { token: t.author });
    expect(versions.body.versions.map((v: any) => `${v.version} ${v.status}`)).toEqual([
      '1.0.0 deprecated',
      '1.1.0 certified',
      '1.2.0-rc.1 draft',
    ]);
    // Tenant B sees the published versions only.
    const theirs = await call(`${url}/packs/retiring/versions`, { token: t.otherAdmin });
    expect(theirs.body.versions.map((v: any) => v.version)).toEqual(['1.0.0', '1.1.0']);

    // A pack depending on the deprecated version is refused, naming the replacement.
    expect(
      (
        await submit(
          t.author,
          workflowPack('uses-retired', '1.0.0', {
            extra: { dependencies: { workflow_packs: [{ pack_id: 'retiring', version: '1.0.0' }] } },
          }),
        )
      ).status,
    ).toBe(201);
    const refused = await certify(t.reviewer, 'uses-retired', '1.0.0');
    expect(refused.status).toBe(409);
    expect(refused.body.detail).toBe(
      "Workflow pack 'retiring' version 1.0.0 is deprecated; use 'retiring' version 1.1.0 instead",
    );
  });
});

describe('the catalog', () => {
  it('lists rule packs learned from the backbone as pointers, which only the rule-pack registry promotes', async () => {
    await registryNotice('rulepack.certified', {
      pack_id: 'tenant-b-rules',
      version: '1.0.0',
      owner_tenant: 'tenant-b',
    });
    await registryNotice('rulepack.certified', {
      pack_id: 'title-transfer',
      version: '5.0.0',
      owner_tenant: 'tenant-b',
    }); // a workflow pack's id: skipped
    await registryNotice('rulepack.certified', { pack_id: '../etc', version: 'x' }); // malformed: skipped
    await until(
      async () => (await call(`${url}/packs/tenant-b-rules/versions/1.0.0`, { token: t.user })).status === 200,
      'the notice',
    );
    const entry = await call(`${url}/packs/tenant-b-rules/versions/1.0.0`, { token: t.user });
    expect(entry.body).toMatchObject({
      kind: 'rule',
      status: 'certified',
      owner_tenant: 'tenant-b',
      author: null,
      artifact: {
        format: 'json',
        sha256: null,
        content: null,
        source: null,
        pointer: { service: 'rulepack-registry', pack_id: 'tenant-b-rules', version: '1.0.0' },
      },
    });
    expect((await call(at('title-transfer', '5.0.0'), { token: t.operator })).status).toBe(404);
    expect((await certify(t.otherAdmin, 'tenant-b-rules', '1.0.0')).status).toBe(409);
    const graph = await call(at('tenant-b-rules', '1.0.0', '/dependencies'), { token: t.user });
    expect(graph.body).toEqual({
      root: 'rule:tenant-b-rules@1.0.0',
      nodes: [expect.objectContaining({ kind: 'rule', status: 'certified' })],
      edges: [],
    });

    const rulesOnly = await call(`${url}/packs?kind=rule&limit=200`, { token: t.user });
    expect(rulesOnly.body.packs.every((p: any) => p.kind === 'rule')).toBe(true);
    expect(rulesOnly.body.packs.map((p: any) => p.pack_id)).toEqual(
      expect.arrayContaining(['tenant-b-rules', 'aml-rules', 'cached-rules']),
    );
  });

  it('pages through the catalog with opaque cursors and filters by status', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: any = await call(`${url}/packs?limit=2${cursor ? `&cursor=${cursor}` : ''}`, { token: t.author });
      expect(page.status).toBe(200);
      expect(page.body.packs.length).toBeLessThanOrEqual(2);
      seen.push(...page.body.packs.map((p: any) => `${p.pack_id}@${p.version}`));
      cursor = page.body.next_cursor;
    } while (cursor);
    const whole = await call(`${url}/packs?limit=200`, { token: t.author });
    expect(seen).toEqual(whole.body.packs.map((p: any) => `${p.pack_id}@${p.version}`));
    expect(new Set(seen).size).toBe(seen.length);
    const certified = await call(`${url}/packs?status=certified&limit=200`, { token: t.author });
    expect(certified.body.packs.length).toBeGreaterThan(0);
    expect(certified.body.packs.every((p: any) => p.status === 'certified')).toBe(true);
  });

  it.each([
    ['a forged cursor', '/packs?cursor=bm90LWEtY3Vyc29y', ['query', 'cursor']],
    ['a page size of 0', '/packs?limit=0', ['query', 'limit']],
    ['an unknown kind', '/packs?kind=scanner', ['query', 'kind']],
    ['an unknown status', '/packs?status=review', ['query', 'status']],
    ['a pack id that does not start with a letter or digit', '/packs/-x', ['path', 'pack_id']],
    ['a pack id with a space', '/packs/a%20b/versions', ['path', 'pack_id']],
    ['a version that is not semver', '/packs/title-transfer/versions/latest', ['path', 'version']],
    ['a version with a leading v', '/packs/title-transfer/versions/v1.0.0/dependencies', ['path', 'version']],
  ])('refuses %s with 422', async (_name, path, loc) => {
    const res = await call(`${url}${path}`, { token: t.author });
    expect(res.status).toBe(422);
    expect(res.body.detail[0].loc).toEqual(loc);
  });

  it('answers 404 for unknown packs and versions', async () => {
    expect((await call(`${url}/packs/nope`, { token: t.author })).status).toBe(404);
    expect((await call(`${url}/packs/nope/versions`, { token: t.author })).status).toBe(404);
    expect((await call(at('title-transfer', '9.9.9'), { token: t.author })).status).toBe(404);
    expect((await certify(t.reviewer, 'nope', '1.0.0')).status).toBe(404);
  });
});

describe('audit', () => {
  it('writes pack_submitted, pack_certified and pack_deprecated to the outbox in the owner tenant', async () => {
    const rows = await h.db.prisma.outboxEvent.findMany({
      where: { service: 'packs-registry' },
      orderBy: { id: 'asc' },
    });
    const about = (type: string, packId: string, version: string) =>
      rows.find(
        (r) =>
          r.eventType === type && (r.eventData as any).pack_id === packId && (r.eventData as any).version === version,
      );
    expect(about('pack_submitted', 'title-transfer', '1.0.0')).toMatchObject({
      tenantId: 'default',
      userId: 'alice',
      eventData: expect.objectContaining({ kind: 'workflow', format: 'json' }),
    });
    expect(about('pack_certified', 'title-transfer', '1.0.0')).toMatchObject({
      tenantId: 'default',
      userId: 'rita',
      eventData: expect.objectContaining({ status: 'certified' }),
    });
    expect(about('pack_deprecated', 'retiring', '1.0.0')).toMatchObject({
      tenantId: 'default',
      userId: 'rita',
      eventData: expect.objectContaining({
        status: 'deprecated',
        replacement: { pack_id: 'retiring', version: '1.1.0' },
      }),
    });
    // A retried submission of the same content is not a second submission.
    expect(
      rows.filter((r) => r.eventType === 'pack_submitted' && (r.eventData as any).pack_id === 'title-transfer'),
    ).toHaveLength(1);
    // The operator's look at a tenant's draft is recorded in that tenant.
    expect(
      rows.some(
        (r) =>
          r.eventType === 'platform_operator_access' &&
          r.tenantId === 'default' &&
          (r.eventData as any).action === 'packs.get',
      ),
    ).toBe(true);
  });
});
