// The packs registry through the federated router (the whole registered platform, real HTTP):
// submitPack, certifyPack, deprecatePack, the packs/pack/packVersions queries, RulePack stubs
// for rule dependencies, BAD_USER_INPUT naming the field, the tenancy rule, and PackEntry entity
// resolution on the subgraph itself.
import { gql, startPlatform, type Platform } from '../router/platform.support';
import {
  IDENTITY_ENV,
  makeUsers,
  startRulePackStandIn,
  startSchemaStandIn,
  workflowPack,
  type RulePackStandIn,
  type SchemaStandIn,
  type Tokens,
} from './packs.support';

jest.setTimeout(180_000);

let platform: Platform;
let router: string;
let subgraph: string;
let rules: RulePackStandIn;
let schemas: SchemaStandIn;
let t: Tokens;

const ENTRY = `packId version kind status ownerTenant author reviewers certifiedAt deprecatedAt
  replacement { packId version }
  artifact { format sha256 service content source }
  dependencies { rulePacks { id version } schemas { name version } workflowPacks { packId version } }`;

const SUBMIT = `mutation($input: SubmitPackInput!) { submitPack(input: $input) { created pack { ${ENTRY} } } }`;
const CERTIFY = `mutation($packId: String!, $version: String!) { certifyPack(packId: $packId, version: $version) { status reviewers certifiedAt } }`;
const DEPRECATE = `mutation($packId: String!, $version: String!, $r: String) { deprecatePack(packId: $packId, version: $version, replacementVersion: $r) { status replacement { packId version } } }`;
const PACK = `query($packId: String!, $version: String) { pack(packId: $packId, version: $version) { ${ENTRY} } }`;

const submit = (token: string, artifact: unknown, format = 'JSON') =>
  gql(router, SUBMIT, { token, variables: { input: { artifact, format } } });

beforeAll(async () => {
  rules = await startRulePackStandIn();
  schemas = await startSchemaStandIn();
  platform = await startPlatform({
    ...IDENTITY_ENV,
    RULEPACK_REGISTRY_URL: rules.url,
    SCHEMA_REGISTRY_URL: schemas.url,
  });
  router = platform.gateway;
  subgraph = platform.urls['packs-registry']!;
  t = await makeUsers(platform.identity);
});
afterAll(async () => {
  await platform?.close();
  await rules?.close();
  await schemas?.close();
});

describe('through the router', () => {
  it('submits, resolves and certifies a workflow pack; rule dependencies are RulePack entities', async () => {
    const pack = workflowPack('gql-flow', '1.0.0', {
      steps: [{ step: 'v', type: 'validation', rule_pack_id: 'gql-rules', rule_pack_version: '1.0.0' }],
      extra: { input_schema_ref: { name: 'gql-payload', version: '1.0.0' } },
    });
    const res = await submit(t.author, pack);
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.submitPack).toMatchObject({
      created: true,
      pack: {
        packId: 'gql-flow',
        version: '1.0.0',
        kind: 'WORKFLOW',
        status: 'DRAFT',
        ownerTenant: 'default',
        author: 'alice',
        reviewers: [],
        artifact: { format: 'JSON', service: 'packs-registry', content: pack },
        dependencies: {
          rulePacks: [{ id: 'gql-rules', version: '1.0.0' }],
          schemas: [{ name: 'gql-payload', version: '1.0.0' }],
          workflowPacks: [],
        },
      },
    });
    expect(res.body.data.submitPack.pack.artifact.sha256).toMatch(/^[0-9a-f]{64}$/);

    const missing = await gql(router, CERTIFY, {
      token: t.reviewer,
      variables: { packId: 'gql-flow', version: '1.0.0' },
    });
    expect(missing.body.errors?.[0]?.extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      field: 'dependencies.rule_packs.0',
    });

    rules.put({ pack_id: 'gql-rules', version: '1.0.0' });
    schemas.put('gql-payload', '1.0.0');
    const graph = await gql(
      router,
      `query { pack(packId: "gql-flow", version: "1.0.0") { dependencyGraph { root nodes { id kind status source } edges { from to } } } }`,
      { token: t.author },
    );
    expect(graph.body.errors).toBeUndefined();
    expect(graph.body.data.pack.dependencyGraph.nodes).toEqual(
      expect.arrayContaining([
        { id: 'rule:gql-rules@1.0.0', kind: 'RULE', status: 'certified', source: 'rulepack-registry' },
        { id: 'schema:gql-payload@1.0.0', kind: 'SCHEMA', status: 'available', source: 'schema-registry' },
      ]),
    );
    // The router forwarded the caller's token to the subgraph, which forwarded it to the registries.
    expect(rules.authorizations.at(-1)).toBe(`Bearer ${t.author}`);

    const byAuthor = await gql(router, CERTIFY, {
      token: t.author,
      variables: { packId: 'gql-flow', version: '1.0.0' },
    });
    expect(byAuthor.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    const certified = await gql(router, CERTIFY, {
      token: t.reviewer,
      variables: { packId: 'gql-flow', version: '1.0.0' },
    });
    expect(certified.body.errors).toBeUndefined();
    expect(certified.body.data.certifyPack).toMatchObject({ status: 'CERTIFIED', reviewers: ['rita'] });
    const again = await gql(router, CERTIFY, {
      token: t.reviewer,
      variables: { packId: 'gql-flow', version: '1.0.0' },
    });
    expect(again.body.errors?.[0]?.extensions?.code).toBe('CONFLICT');

    const latest = await gql(router, PACK, { token: t.otherAdmin, variables: { packId: 'gql-flow' } });
    expect(latest.body.data.pack).toMatchObject({ version: '1.0.0', status: 'CERTIFIED' });
  });

  it('accepts YAML text and deprecates with a replacement', async () => {
    const yaml =
      'metadata:\n  pack_id: gql-yaml\n  version: 2.0.0\n  workflow_type: risk\n  name: Y\nsteps:\n  - {step: gate, type: hil_approval, reviewer_role: risk-officer}\n';
    const v2 = await submit(t.author, yaml, 'YAML');
    expect(v2.body.data.submitPack.pack.artifact).toMatchObject({ format: 'YAML', source: yaml });
    const v3 = await submit(t.author, yaml.replace('2.0.0', '3.0.0'), 'YAML');
    expect(v3.body.data.submitPack.created).toBe(true);
    for (const version of ['2.0.0', '3.0.0']) {
      expect(
        (await gql(router, CERTIFY, { token: t.admin, variables: { packId: 'gql-yaml', version } })).body.errors,
      ).toBeUndefined();
    }
    const badReplacement = await gql(router, DEPRECATE, {
      token: t.admin,
      variables: { packId: 'gql-yaml', version: '2.0.0', r: 'three' },
    });
    expect(badReplacement.body.errors?.[0]?.extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      field: 'replacementVersion',
    });
    const done = await gql(router, DEPRECATE, {
      token: t.admin,
      variables: { packId: 'gql-yaml', version: '2.0.0', r: '3.0.0' },
    });
    expect(done.body.data.deprecatePack).toEqual({
      status: 'DEPRECATED',
      replacement: { packId: 'gql-yaml', version: '3.0.0' },
    });
    const versions = await gql(router, 'query { packVersions(packId: "gql-yaml") { version status } }', {
      token: t.otherAdmin,
    });
    expect(versions.body.data.packVersions).toEqual([
      { version: '2.0.0', status: 'DEPRECATED' },
      { version: '3.0.0', status: 'CERTIFIED' },
    ]);
  });

  it.each([
    [
      'a step without its rule pack',
      SUBMIT,
      {
        input: {
          format: 'JSON',
          artifact: workflowPack('x', '1.0.0', {
            steps: [{ step: 's', type: 'validation', rule_pack_version: '1.0.0' }],
          }),
        },
      },
      'artifact.steps.0.rule_pack_id',
    ],
    ['YAML that does not parse', SUBMIT, { input: { format: 'YAML', artifact: 'steps: [' } }, 'artifact'],
    ['a version that is not semver', PACK, { packId: 'gql-flow', version: 'latest' }, 'version'],
    ['a bad pack id', PACK, { packId: '-x', version: '1.0.0' }, 'packId'],
    ['a forged cursor', 'query($a: String) { packs(after: $a) { nodes { packId } } }', { a: 'Zm9yZ2Vk' }, 'after'],
    ['a page size of 0', 'query { packs(first: 0) { nodes { packId } } }', {}, 'first'],
  ])('answers BAD_USER_INPUT naming the field for %s', async (_name, query, variables, field) => {
    const res = await gql(router, query, { token: t.author, variables });
    expect(res.body.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field });
  });

  it('refuses submission without the write scope and without a token', async () => {
    const reader = await submit(t.user, workflowPack('x', '1.0.0'));
    expect(['FORBIDDEN', 'UNAUTHENTICATED']).toContain(reader.body.errors?.[0]?.extensions?.code);
    const anonymous = await submit('', workflowPack('x', '1.0.0'));
    expect(anonymous.body.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
  });

  it('keeps a draft inside its tenant: null for another tenant, absent from its listing', async () => {
    expect((await submit(t.author, workflowPack('gql-private', '1.0.0'))).body.errors).toBeUndefined();
    const theirs = await gql(router, PACK, {
      token: t.otherAdmin,
      variables: { packId: 'gql-private', version: '1.0.0' },
    });
    expect(theirs.body.errors).toBeUndefined();
    expect(theirs.body.data.pack).toBeNull();
    const list = await gql(router, 'query { packs(first: 200) { nodes { packId } } }', { token: t.otherAdmin });
    expect(list.body.data.packs.nodes.map((n: any) => n.packId)).not.toContain('gql-private');
    const certify = await gql(router, CERTIFY, {
      token: t.otherAdmin,
      variables: { packId: 'gql-private', version: '1.0.0' },
    });
    expect(certify.body.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
    const ours = await gql(router, PACK, { token: t.user, variables: { packId: 'gql-private', version: '1.0.0' } });
    expect(ours.body.data.pack.status).toBe('DRAFT');
  });

  it('pages with cursors and filters by kind and status', async () => {
    const seen: string[] = [];
    let after: string | null = null;
    for (;;) {
      const res: any = await gql(
        router,
        'query($a: String) { packs(kind: WORKFLOW, status: CERTIFIED, first: 1, after: $a) { edges { cursor node { packId version kind status } } pageInfo { hasNextPage endCursor } } }',
        { token: t.otherAdmin, variables: { a: after } },
      );
      expect(res.body.errors).toBeUndefined();
      const { edges, pageInfo } = res.body.data.packs;
      for (const e of edges) {
        expect(e.node).toMatchObject({ kind: 'WORKFLOW', status: 'CERTIFIED' });
        seen.push(`${e.node.packId}@${e.node.version}`);
      }
      if (!pageInfo.hasNextPage) break;
      after = pageInfo.endCursor;
    }
    expect(seen).toEqual(['gql-flow@1.0.0', 'gql-yaml@3.0.0']);
  });
});

describe('the REST gateway', () => {
  it("proxies /api/v1/packs to the registry with the caller's token", async () => {
    const headers = (token: string) => ({ authorization: `Bearer ${token}`, 'content-type': 'application/json' });
    const posted = await fetch(`${router}/api/v1/packs`, {
      method: 'POST',
      headers: headers(t.author),
      body: JSON.stringify({ artifact: workflowPack('gw-flow', '1.0.0'), format: 'json' }),
    });
    expect(posted.status).toBe(201);
    const read = await fetch(`${router}/api/v1/packs/gw-flow/versions/1.0.0`, { headers: headers(t.author) });
    expect(read.status).toBe(200);
    expect(((await read.json()) as { author: string }).author).toBe('alice');
    const theirs = await fetch(`${router}/api/v1/packs/gw-flow/versions/1.0.0`, { headers: headers(t.otherAdmin) });
    expect(theirs.status).toBe(404);
    const certified = await fetch(`${router}/api/v1/packs/gw-flow/versions/1.0.0/certify`, {
      method: 'POST',
      headers: { authorization: `Bearer ${t.admin}` },
    });
    expect(certified.status).toBe(200);
  });
});

describe('the subgraph', () => {
  it('resolves PackEntry references for the caller only', async () => {
    const query =
      'query($r: [_Any!]!) { _entities(representations: $r) { ... on PackEntry { packId version status } } }';
    const representations = [
      { __typename: 'PackEntry', packId: 'gql-flow', version: '1.0.0' },
      { __typename: 'PackEntry', packId: 'gql-private', version: '1.0.0' },
      { __typename: 'PackEntry', packId: 'nope', version: '1.0.0' },
    ];
    const mine = await gql(subgraph, query, { token: t.author, variables: { r: representations } });
    expect(mine.body.data._entities).toEqual([
      { packId: 'gql-flow', version: '1.0.0', status: 'CERTIFIED' },
      { packId: 'gql-private', version: '1.0.0', status: 'DRAFT' },
      null,
    ]);
    const theirs = await gql(subgraph, query, { token: t.otherAdmin, variables: { r: representations } });
    expect(theirs.body.data._entities).toEqual([
      { packId: 'gql-flow', version: '1.0.0', status: 'CERTIFIED' },
      null,
      null,
    ]);
  });
});
