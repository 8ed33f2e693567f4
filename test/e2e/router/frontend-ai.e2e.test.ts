// The client conformance suite for the AI broker (issue 12): its operations through the router
// driven as a frontend drives them, with Apollo Client 4 (HttpLink, InMemoryCache with the type
// policies a frontend declares, the persisted-queries link, an error link that refreshes an
// expired token): models (normalised by id), prompt templates (normalised by id and version),
// inference (also by template, also as a persisted query), explain, generateWorkflow and usage;
// errors as GraphQL codes naming the GraphQL field; another tenant's template is null.
import { createHash } from 'node:crypto';
import { ApolloClient, ApolloLink, CombinedGraphQLErrors, HttpLink, InMemoryCache, gql as tag } from '@apollo/client';
import { ErrorLink } from '@apollo/client/link/error';
import { SetContextLink } from '@apollo/client/link/context';
import { PersistedQueryLink } from '@apollo/client/link/persisted-queries';
import { from, switchMap } from 'rxjs';
import { AccessTokens } from '../../../platform/auth/jwt';
import { TEST_JWT_SECRET } from '../../support/service-harness';
import { DEV, gql, startPlatform, tenantToken, type Platform } from './platform.support';

jest.setTimeout(180_000);

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const SSN = '487-65-4320';

interface Session {
  token: string;
  refreshToken?: string;
  refreshes: number;
}

/** What a frontend tells its cache: templates are identified by id and version, not `id`. */
const cache = () => new InMemoryCache({ typePolicies: { PromptTemplate: { keyFields: ['templateId', 'version'] } } });

/** An Apollo Client the way a frontend builds one: token from the session, refresh on UNAUTHENTICATED. */
function frontendClient(p: Platform, session: Session, options: { persisted?: boolean } = {}): ApolloClient {
  const auth = new SetContextLink((prev) => ({
    headers: { ...prev.headers, authorization: `Bearer ${session.token}` },
  }));
  const refresh = new ErrorLink(({ error, operation, forward }) => {
    const expired =
      CombinedGraphQLErrors.is(error) && error.errors.some((e) => e.extensions?.code === 'UNAUTHENTICATED');
    if (!expired || !session.refreshToken || operation.getContext().retried) return undefined;
    return from(refreshSession(p, session)).pipe(
      switchMap(() => {
        operation.setContext({ retried: true });
        return forward(operation);
      }),
    );
  });
  const links: ApolloLink[] = [refresh, auth];
  if (options.persisted) links.push(new PersistedQueryLink({ sha256 }));
  return new ApolloClient({
    link: ApolloLink.from([...links, new HttpLink({ uri: `${p.gateway}/graphql`, fetch })]),
    cache: cache(),
  });
}

async function refreshSession(p: Platform, session: Session): Promise<void> {
  const { body } = await gql(
    p.gateway,
    'mutation($t: String!) { refreshToken(refreshToken: $t) { accessToken refreshToken } }',
    { variables: { t: session.refreshToken } },
  );
  session.token = body.data.refreshToken.accessToken;
  session.refreshToken = body.data.refreshToken.refreshToken;
  session.refreshes += 1;
}

async function loginSession(p: Platform, username: string, password: string): Promise<Session> {
  const { body } = await gql(
    p.gateway,
    'mutation($u: String!, $p: String!) { login(username: $u, password: $p) { accessToken refreshToken } }',
    { variables: { u: username, p: password } },
  );
  return { token: body.data.login.accessToken, refreshToken: body.data.login.refreshToken, refreshes: 0 };
}

/** The error codes of a failed Apollo Client operation, or the error's name when it is not GraphQL. */
function codesOf(error: unknown): string[] {
  if (CombinedGraphQLErrors.is(error)) return error.errors.map((e) => String(e.extensions?.code));
  return [`not a GraphQL error: ${(error as Error)?.name}`];
}
const failure = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (e: unknown) => e,
  );

const MODELS = tag`query AiModels { aiModels { id provider status costPer1kTokens contextWindow tags } }`;
const MODEL = tag`query AiModel($id: ID!) { aiModel(id: $id) { id provider status cooldownSeconds lastError } }`;
const CREATE_TEMPLATE = tag`mutation CreateTemplate($input: PromptTemplateInput!) { createPromptTemplate(input: $input) { templateId version template variables { name required } versions } }`;
const TEMPLATES = tag`query Templates { promptTemplates { templateId version name } }`;
const TEMPLATE = tag`query Template($id: ID!, $version: Int) { promptTemplate(templateId: $id, version: $version) { templateId version template versions } }`;
const INFERENCE = tag`mutation Inference($input: InferenceInput!) { inference(input: $input) { response modelUsed tokensUsed ragChunksUsed sources correlationId ragUnavailable cost attempts { model outcome } redactions } }`;
const EXPLAIN = tag`mutation Explain($input: ExplainInput!) { explain(input: $input) { ruleId explanation remediation modelUsed tokensUsed correlationId } }`;
const GENERATE = tag`mutation Generate($input: GenerateWorkflowInput!) { generateWorkflow(input: $input) { workflowPack confidence modelUsed correlationId } }`;
// From a fixed past date: a count that does not depend on what day it is.
const USAGE = tag`query Usage($from: String = "2000-01-01T00:00:00Z") { aiUsage(from: $from) { tenantId requests failed totalTokens cost byModel { model requests totalTokens } } }`;

describe('the AI broker as a frontend meets it through the router', () => {
  let p: Platform;
  let admin: Session;

  beforeAll(async () => {
    p = await startPlatform({ PASSWORD_SCRYPT_LOG_N: '10' });
    admin = await loginSession(p, DEV.admin.username, DEV.admin.password);
  });
  afterAll(async () => p?.close());

  it('lists the models, normalised by id: one cache object per model, shared with aiModel(id)', async () => {
    const client = frontendClient(p, admin);
    const { data } = await client.query<any>({ query: MODELS });
    expect(data.aiModels.find((m: any) => m.id === 'extractive')).toMatchObject({
      __typename: 'AiModel',
      provider: 'extractive',
      status: 'available',
    });
    expect(data.aiModels.find((m: any) => m.id === 'gpt-4')).toMatchObject({
      provider: 'openai',
      status: 'unconfigured',
    });
    const one = await client.query<any>({ query: MODEL, variables: { id: 'extractive' } });
    expect(one.data.aiModel).toMatchObject({ id: 'extractive', status: 'available', cooldownSeconds: 0 });
    const keys = Object.keys(client.cache.extract() as Record<string, unknown>).filter((k) => k.startsWith('AiModel:'));
    expect(keys).toHaveLength(data.aiModels.length);
    expect(keys).toContain('AiModel:extractive');
    const unknown = await client
      .query<any>({ query: MODEL, variables: { id: 'vendorZ-9' }, fetchPolicy: 'network-only' })
      .then(
        (r) => r,
        (e: unknown) => e,
      );
    // An unknown model is a null field (or NOT_FOUND), never a crash.
    if (CombinedGraphQLErrors.is(unknown)) expect(codesOf(unknown)).toEqual(['NOT_FOUND']);
    else expect((unknown as any).data.aiModel).toBeNull();
  });

  it('creates templates and versions them; the cache keeps each version apart; another tenant sees none', async () => {
    const client = frontendClient(p, admin);
    const id = `fe-greet-${Date.now()}`;
    const v1 = await client.mutate<any>({
      mutation: CREATE_TEMPLATE,
      variables: { input: { templateId: id, template: 'Greet {{name}}.', variables: ['name'] } },
    });
    expect(v1.data.createPromptTemplate).toMatchObject({
      templateId: id,
      version: 1,
      variables: [{ name: 'name', required: true }],
    });
    const v2 = await client.mutate<any>({
      mutation: CREATE_TEMPLATE,
      variables: { input: { templateId: id, template: 'Greet {{name}} warmly.', variables: ['name'] } },
    });
    expect(v2.data.createPromptTemplate).toMatchObject({ version: 2, versions: [1, 2] });
    const list = await client.query<any>({ query: TEMPLATES, fetchPolicy: 'network-only' });
    expect(list.data.promptTemplates.filter((t: any) => t.templateId === id)).toEqual([
      expect.objectContaining({ version: 2 }),
    ]);
    const first = await client.query<any>({ query: TEMPLATE, variables: { id, version: 1 } });
    expect(first.data.promptTemplate).toMatchObject({ version: 1, template: 'Greet {{name}}.' });
    const cached = client.cache.extract() as Record<string, unknown>;
    expect(Object.keys(cached)).toEqual(
      expect.arrayContaining([
        `PromptTemplate:{"templateId":"${id}","version":1}`,
        `PromptTemplate:{"templateId":"${id}","version":2}`,
      ]),
    );

    const other = frontendClient(p, { token: await tenantToken('tenant-fe-b'), refreshes: 0 });
    const theirs = await other.query<any>({ query: TEMPLATE, variables: { id } });
    expect(theirs.data.promptTemplate).toBeNull();
    expect((await other.query<any>({ query: TEMPLATES })).data.promptTemplates).toEqual([]);
  });

  it('runs inference by prompt and by template (PII redacted), also as a persisted query', async () => {
    const client = frontendClient(p, admin);
    const id = `fe-kyc-${Date.now()}`;
    await client.mutate({
      mutation: CREATE_TEMPLATE,
      variables: { input: { templateId: id, template: 'Check the customer {{name}}.', variables: ['name'] } },
    });
    const r = await client.mutate<any>({
      mutation: INFERENCE,
      variables: { input: { templateId: id, variables: { name: 'Ann' }, prompt: `Her SSN is ${SSN}` } },
    });
    expect(r.data.inference).toMatchObject({
      __typename: 'InferenceResult',
      modelUsed: 'extractive',
      ragChunksUsed: 0,
      redactions: { input: { ssn: 1 } },
    });
    expect(r.data.inference.attempts).toEqual([expect.objectContaining({ model: 'extractive', outcome: 'ok' })]);
    expect(JSON.stringify(r.data)).not.toContain(SSN);

    const persisted = frontendClient(p, admin, { persisted: true });
    const again = await persisted.mutate<any>({
      mutation: INFERENCE,
      variables: { input: { prompt: 'Summarise the approval rule' } },
    });
    expect(again.data.inference).toMatchObject({ modelUsed: 'extractive' });
    expect(again.data.inference.correlationId).not.toBe(r.data.inference.correlationId);
  });

  it('reports bad inference input with BAD_USER_INPUT naming the GraphQL field, and an unknown model as NOT_FOUND', async () => {
    const client = frontendClient(p, admin);
    const missing = await failure(
      client.mutate({ mutation: INFERENCE, variables: { input: { model: 'extractive' } } }),
    );
    expect(codesOf(missing)).toEqual(['BAD_USER_INPUT']);
    expect((missing as CombinedGraphQLErrors).errors[0]!.extensions?.field).toBe('prompt');
    const tokens = await failure(
      client.mutate({ mutation: INFERENCE, variables: { input: { prompt: 'x', maxTokens: 0 } } }),
    );
    expect((tokens as CombinedGraphQLErrors).errors[0]!.extensions?.field).toBe('maxTokens');
    const model = await failure(
      client.mutate({ mutation: INFERENCE, variables: { input: { prompt: 'x', model: SSN } } }),
    );
    expect(codesOf(model)).toEqual(['NOT_FOUND']);
    expect(JSON.stringify((model as CombinedGraphQLErrors).errors)).not.toContain(SSN);
    const readOnly = frontendClient(p, { token: await tenantToken('tenant-fe-b', ['read']), refreshes: 0 });
    expect(
      codesOf(await failure(readOnly.mutate({ mutation: INFERENCE, variables: { input: { prompt: 'x' } } }))),
    ).toEqual(['FORBIDDEN']);
  });

  it('explains a rule failure and generates a workflow pack (JSON scalars as plain objects)', async () => {
    const client = frontendClient(p, admin);
    const e = await client.mutate<any>({
      mutation: EXPLAIN,
      variables: {
        input: { ruleId: 'R1', failureData: { field: 'customer_id', operator: 'required' }, includeRemediation: true },
      },
    });
    expect(e.data.explain).toMatchObject({ ruleId: 'R1', modelUsed: 'extractive', remediation: expect.any(String) });
    expect(e.data.explain.explanation.length).toBeGreaterThan(0);
    const w = await client.mutate<any>({
      mutation: GENERATE,
      variables: {
        input: {
          description: 'Verify the invoice, then approval by a manager, then pay the supplier',
          domain: 'finance',
        },
      },
    });
    expect(w.data.generateWorkflow.workflowPack.steps.map((s: any) => s.type)).toEqual([
      'validation',
      'hil_approval',
      'action',
    ]);
    expect(w.data.generateWorkflow.confidence).toBeGreaterThanOrEqual(0);
    expect(w.data.generateWorkflow.confidence).toBeLessThanOrEqual(1);
  });

  it("reads the tenant's usage, which counts the calls just made; an expired token is refreshed and retried", async () => {
    const session = await loginSession(p, DEV.admin.username, DEV.admin.password);
    const client = frontendClient(p, session);
    const before = await client.query<any>({ query: USAGE, fetchPolicy: 'network-only' });
    expect(before.data.aiUsage).toMatchObject({ tenantId: 'default' });
    await client.mutate({ mutation: INFERENCE, variables: { input: { prompt: 'One more question' } } });
    session.token = await new AccessTokens(TEST_JWT_SECRET, 60).issue(
      { username: 'admin', tenantId: 'default', roles: ['admin', 'user'], scopes: ['read', 'write', 'admin'] },
      Date.now() - 3_600_000,
    );
    const after = await client.query<any>({ query: USAGE, fetchPolicy: 'network-only' });
    expect(session.refreshes).toBe(1);
    // The usage row is committed before the answer, so the count is already there.
    expect(after.data.aiUsage.requests).toBe(before.data.aiUsage.requests + 1);
    expect(after.data.aiUsage.byModel.map((m: any) => m.model)).toContain('extractive');
    const other = frontendClient(p, { token: await tenantToken('tenant-fe-b'), refreshes: 0 });
    expect((await other.query<any>({ query: USAGE })).data.aiUsage).toMatchObject({
      tenantId: 'tenant-fe-b',
      requests: 0,
    });
  });
});
