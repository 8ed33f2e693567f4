// The registry's subgraph through the router (the whole platform as the registry lists it): the
// mutations and queries, GraphQL error codes with extensions.field in GraphQL names, tenancy, and
// the RulePack entity other subgraphs reference by id and version.
import { startPlatform, gql, type Platform } from '../router/platform.support';
import { verifyPack } from '../../../subgraphs/rulepack-registry/pack-signature';
import { TEST_ENV } from '../identity/identity.helpers';
import { createPeople, samplePack, type People } from './rulepack.support';

jest.setTimeout(180_000);

let platform: Platform;
let people: People;
let router: string;

beforeAll(async () => {
  platform = await startPlatform(TEST_ENV);
  router = platform.gateway;
  people = await createPeople(platform.identity);
});
afterAll(async () => platform?.close());

const FIELDS =
  'id version status sha256 ownerTenant author reviewers submittedAt certifiedAt signature keyId deprecatedAt definition replacement { id version status }';
const SUBMIT = `mutation($pack: JSON, $artifact: String, $format: RulePackArtifactFormat) { submitRulePack(pack: $pack, artifact: $artifact, format: $format) { ${FIELDS} } }`;
const REVIEW = `mutation($id: ID!, $version: String!) { submitRulePackForReview(id: $id, version: $version) { status } }`;
const CERTIFY = `mutation($id: ID!, $version: String!, $notes: String) { certifyRulePack(id: $id, version: $version, notes: $notes) { ${FIELDS} } }`;
const REJECT = `mutation($id: ID!, $version: String!, $notes: String!) { rejectRulePack(id: $id, version: $version, notes: $notes) { status reviewers decisions { decision actor notes } } }`;
const DEPRECATE = `mutation($id: ID!, $version: String!, $replacement: RulePackRefInput, $replacementVersion: String) {
  deprecateRulePack(id: $id, version: $version, replacement: $replacement, replacementVersion: $replacementVersion) { ${FIELDS} } }`;
const ONE = `query($id: ID!, $version: String) { rulePack(id: $id, version: $version) { ${FIELDS} } }`;

async function certifiedViaGraphQL(pack: ReturnType<typeof samplePack>) {
  const vars = { id: pack.metadata.pack_id, version: pack.metadata.version };
  expect((await gql(router, SUBMIT, { token: people.author, variables: { pack } })).body.errors).toBeUndefined();
  expect(
    (await gql(router, REVIEW, { token: people.author, variables: vars })).body.data.submitRulePackForReview.status,
  ).toBe('REVIEW');
  const done = await gql(router, CERTIFY, { token: people.reviewer, variables: vars });
  expect(done.body.errors).toBeUndefined();
  return done.body.data.certifyRulePack;
}

it('submits, certifies by a reviewer (never the author) and reads the signed pack back', async () => {
  const pack = samplePack('gql-main', '1.0.0');
  const submitted = await gql(router, SUBMIT, { token: people.author, variables: { pack } });
  expect(submitted.body.errors).toBeUndefined();
  expect(submitted.body.data.submitRulePack).toMatchObject({
    id: 'gql-main',
    version: '1.0.0',
    status: 'DRAFT',
    author: 'root',
    ownerTenant: 'default',
    definition: pack,
    signature: null,
    replacement: null,
  });

  await gql(router, REVIEW, { token: people.author, variables: { id: 'gql-main', version: '1.0.0' } });
  const byAuthor = await gql(router, CERTIFY, {
    token: people.author,
    variables: { id: 'gql-main', version: '1.0.0' },
  });
  expect(byAuthor.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
  const done = await gql(router, CERTIFY, {
    token: people.reviewer,
    variables: { id: 'gql-main', version: '1.0.0', notes: 'ok' },
  });
  expect(done.body.errors).toBeUndefined();
  const view = done.body.data.certifyRulePack;
  expect(view).toMatchObject({ status: 'CERTIFIED', reviewers: ['rita'] });

  const keys = (await (await fetch(`${platform.urls['rulepack-registry']}/.well-known/rulepack-keys.json`)).json()) as {
    keys: any[];
  };
  expect(
    verifyPack(
      view.definition,
      view.signature,
      keys.keys.find((k) => k.kid === view.keyId),
    ),
  ).toBe(true);

  const latest = await gql(router, ONE, { token: people.otherTenant, variables: { id: 'gql-main' } });
  expect(latest.body.data.rulePack).toMatchObject({ id: 'gql-main', version: '1.0.0', signature: view.signature });
});

it('reports bad input as BAD_USER_INPUT with extensions.field in GraphQL names', async () => {
  const rules = samplePack('x', '1.0.0').rules;
  const badOperator = await gql(router, SUBMIT, {
    token: people.author,
    variables: { pack: samplePack('gql-bad', '1.0.0', { rules: [{ ...rules[0], operator: 'eval' }] }) },
  });
  expect(badOperator.body.errors![0]!.extensions).toMatchObject({
    code: 'BAD_USER_INPUT',
    field: 'pack.rules.0.operator',
  });
  const badRegex = await gql(router, SUBMIT, {
    token: people.author,
    variables: { pack: samplePack('gql-bad', '1.0.0', { rules: [{ ...rules[1], value: '(a)\\1' }] }) },
  });
  expect(badRegex.body.errors![0]!.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'pack.rules.0.value' });
  const noVersion = await gql(router, SUBMIT, {
    token: people.author,
    variables: { pack: { metadata: { pack_id: 'gql-bad' }, rules } },
  });
  expect(noVersion.body.errors![0]!.extensions).toMatchObject({
    code: 'BAD_USER_INPUT',
    field: 'pack.metadata.version',
  });
  const badYaml = await gql(router, SUBMIT, {
    token: people.author,
    variables: { artifact: 'rules: [', format: 'YAML' },
  });
  expect(badYaml.body.errors![0]!.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'artifact' });
  const notesMissing = await gql(router, REJECT, {
    token: people.reviewer,
    variables: { id: 'gql-main', version: '1.0.0', notes: '' },
  });
  expect(notesMissing.body.errors![0]!.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'notes' });
  const reader = await gql(router, SUBMIT, {
    token: people.reader,
    variables: { pack: samplePack('gql-reader', '1.0.0') },
  });
  expect(reader.body.errors![0]!.extensions?.code).toBe('FORBIDDEN');
  const anonymous = await gql(router, ONE, { variables: { id: 'gql-main' } });
  expect(anonymous.body.errors![0]!.extensions?.code).toBe('UNAUTHENTICATED');
});

it('rejects with notes, refuses wrong states with CONFLICT, deprecates with a replacement', async () => {
  await gql(router, SUBMIT, { token: people.author, variables: { pack: samplePack('gql-life', '1.0.0') } });
  const early = await gql(router, CERTIFY, { token: people.reviewer, variables: { id: 'gql-life', version: '1.0.0' } });
  expect(early.body.errors![0]!).toMatchObject({ extensions: { code: 'CONFLICT' } });
  expect(early.body.errors![0]!.message).toMatch(/is 'draft'/);
  await gql(router, REVIEW, { token: people.author, variables: { id: 'gql-life', version: '1.0.0' } });
  const rejected = await gql(router, REJECT, {
    token: people.admin,
    variables: { id: 'gql-life', version: '1.0.0', notes: 'add a currency rule' },
  });
  expect(rejected.body.data.rejectRulePack).toMatchObject({ status: 'DRAFT', reviewers: ['ada'] });
  expect(rejected.body.data.rejectRulePack.decisions.at(-1)).toEqual({
    decision: 'rejected',
    actor: 'ada',
    notes: 'add a currency rule',
  });

  const v1 = await certifiedViaGraphQL(samplePack('gql-life', '1.0.1'));
  const v2 = await certifiedViaGraphQL(samplePack('gql-life', '2.0.0'));
  const badReplacement = await gql(router, DEPRECATE, {
    token: people.reviewer,
    variables: { id: 'gql-life', version: '1.0.1', replacementVersion: '1.0.0' },
  });
  expect(badReplacement.body.errors![0]!.extensions).toMatchObject({
    code: 'BAD_USER_INPUT',
    field: 'replacementVersion',
  });
  const deprecated = await gql(router, DEPRECATE, {
    token: people.reviewer,
    variables: { id: 'gql-life', version: v1.version, replacement: { id: 'gql-life', version: v2.version } },
  });
  expect(deprecated.body.errors).toBeUndefined();
  expect(deprecated.body.data.deprecateRulePack).toMatchObject({
    status: 'DEPRECATED',
    replacement: { id: 'gql-life', version: '2.0.0', status: 'CERTIFIED' },
  });
});

it('keeps drafts in their tenant and pages through rulePacks', async () => {
  await gql(router, SUBMIT, { token: people.author, variables: { pack: samplePack('gql-private', '1.0.0') } });
  const hidden = await gql(router, ONE, {
    token: people.otherTenant,
    variables: { id: 'gql-private', version: '1.0.0' },
  });
  expect(hidden.body.errors).toBeUndefined();
  expect(hidden.body.data.rulePack).toBeNull();
  const mine = await gql(router, ONE, { token: people.reader, variables: { id: 'gql-private', version: '1.0.0' } });
  expect(mine.body.data.rulePack.status).toBe('DRAFT');
  // No certified version: null, not an error.
  expect(
    (await gql(router, ONE, { token: people.author, variables: { id: 'gql-private' } })).body.data.rulePack,
  ).toBeNull();

  const LIST = `query($status: RulePackStatus, $after: String) { rulePacks(status: $status, first: 2, after: $after) { pageInfo { hasNextPage endCursor } edges { cursor node { id version status ownerTenant } } } }`;
  const seen: string[] = [];
  let after: string | null = null;
  do {
    const page: any = await gql(router, LIST, { token: people.otherTenant, variables: { after } });
    expect(page.body.errors).toBeUndefined();
    const conn = page.body.data.rulePacks;
    for (const e of conn.edges) {
      expect(['CERTIFIED', 'DEPRECATED']).toContain(e.node.status);
      seen.push(`${e.node.id}@${e.node.version}`);
    }
    after = conn.pageInfo.hasNextPage ? conn.pageInfo.endCursor : null;
  } while (after);
  expect(seen).toEqual(expect.arrayContaining(['gql-main@1.0.0', 'gql-life@2.0.0', 'gql-life@1.0.1']));
  expect(seen).not.toContain('gql-private@1.0.0');
  const drafts = await gql(router, LIST, { token: people.author, variables: { status: 'DRAFT' } });
  expect(
    drafts.body.data.rulePacks.edges.every((e: any) => e.node.status === 'DRAFT' && e.node.ownerTenant === 'default'),
  ).toBe(true);
  const forged = await gql(router, LIST, { token: people.author, variables: { after: 'forged' } });
  expect(forged.body.errors![0]!.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'after' });
});

it('resolves RulePack entities by id and version for other subgraphs, null when the caller may not see them', async () => {
  const ENTITIES = `query($r: [_Any!]!) { _entities(representations: $r) { ... on RulePack { id version status } } }`;
  const representations = [
    { __typename: 'RulePack', id: 'gql-main', version: '1.0.0' },
    { __typename: 'RulePack', id: 'gql-private', version: '1.0.0' },
    { __typename: 'RulePack', id: 'nothing', version: '1.0.0' },
  ];
  const subgraph = platform.urls['rulepack-registry']!;
  const asB = await gql(subgraph, ENTITIES, { token: people.otherTenant, variables: { r: representations } });
  expect(asB.body.errors).toBeUndefined();
  expect(asB.body.data._entities).toEqual([{ id: 'gql-main', version: '1.0.0', status: 'CERTIFIED' }, null, null]);
  const asOwner = await gql(subgraph, ENTITIES, { token: people.author, variables: { r: representations } });
  expect(asOwner.body.data._entities[1]).toEqual({ id: 'gql-private', version: '1.0.0', status: 'DRAFT' });
});
