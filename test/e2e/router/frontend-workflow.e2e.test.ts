// The client conformance suite for the workflow service's GraphQL surface: the router driven as a
// frontend drives it, with Apollo Client 4 (HttpLink, InMemoryCache, a context link that sets the
// token) and GraphQLWsLink over graphql-ws, as in frontend-client.e2e.test.ts. Covered: the
// executeWorkflow mutation, the approvals inbox query, decideApproval updating the cached task in
// place (normalised by its @key), workflowStatusChanged followed to its end, and the errors a
// frontend must branch on (BAD_USER_INPUT naming the field, NOT_FOUND for another tenant's task).
import { ApolloClient, ApolloLink, CombinedGraphQLErrors, HttpLink, InMemoryCache, gql as tag } from '@apollo/client';
import { SetContextLink } from '@apollo/client/link/context';
import { GraphQLWsLink } from '@apollo/client/link/subscriptions';
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { AccessTokens } from '../../../platform/auth/jwt';
import { TEST_JWT_SECRET } from '../../support/service-harness';
import { until } from '../../support/waiting';
import { startPlatform, type Platform } from './platform.support';

jest.setTimeout(180_000);

const EXECUTE = tag`mutation Execute($input: ExecuteWorkflowInput!) {
  executeWorkflow(input: $input) { status workflowId approvalTaskId requiresHumanApproval packSource message execution { id status version workflowType } }
}`;
const INBOX = tag`query Inbox($status: String, $type: String, $reviewer: String) {
  approvalTasks(status: $status, workflowType: $type, reviewer: $reviewer) { nodes { id workflowId workflowType status reviewer decision } nextCursor }
}`;
const DECIDE = tag`mutation Decide($id: ID!, $decision: String!, $notes: String) {
  decideApproval(taskId: $id, decision: $decision, notes: $notes) { workflowStatus message task { id workflowId workflowType status reviewer decision } }
}`;
const STATUS = tag`subscription Status($id: ID!, $after: Int) {
  workflowStatusChanged(workflowId: $id, afterVersion: $after) { workflowId version event status step approvalTaskId }
}`;

function codesOf(error: unknown): string[] {
  if (CombinedGraphQLErrors.is(error)) return error.errors.map((e) => String(e.extensions?.code));
  return [`not a GraphQL error: ${(error as Error)?.name}`];
}

describe('the workflow service as a frontend meets it through the router', () => {
  let p: Platform;
  let alice: string;
  let bob: string;
  let eve: string;
  const sockets: Client[] = [];
  const issue = (username: string, tenantId: string) =>
    new AccessTokens(TEST_JWT_SECRET, 3600).issue({ username, tenantId, roles: ['user'], scopes: ['read', 'write'] });

  /** HttpLink with the token set per request, as a frontend's auth link does. */
  const httpClient = (token: string) =>
    new ApolloClient({
      link: ApolloLink.from([
        new SetContextLink((prev) => ({ headers: { ...prev.headers, authorization: `Bearer ${token}` } })),
        new HttpLink({ uri: `${p.gateway}/graphql`, fetch }),
      ]),
      cache: new InMemoryCache(),
    });
  const wsClient = (token: string) => {
    const ws = createClient({
      url: `${p.gateway.replace('http', 'ws')}/graphql`,
      webSocketImpl: WebSocket,
      connectionParams: () => ({ authorization: `Bearer ${token}` }),
      retryAttempts: 0,
    });
    sockets.push(ws);
    return new ApolloClient({ link: new GraphQLWsLink(ws), cache: new InMemoryCache() });
  };

  beforeAll(async () => {
    p = await startPlatform({ PASSWORD_SCRYPT_LOG_N: '10', WORKFLOW_POLL_MS: '50' });
    alice = await issue('alice', 'fe-wf-a');
    bob = await issue('bob', 'fe-wf-a');
    eve = await issue('eve', 'fe-wf-b');
  });
  afterAll(async () => {
    for (const s of sockets) await s.dispose();
    await p?.close();
  });

  it('executeWorkflow, the inbox, decideApproval (the cached task updated in place) and workflowStatusChanged to the end', async () => {
    const requester = httpClient(alice);
    const started = await requester.mutate<any>({
      mutation: EXECUTE,
      variables: { input: { workflowType: 'legal', payload: { property: 'FE-1' } } },
    });
    const run = started.data.executeWorkflow;
    expect(run).toMatchObject({
      status: 'PENDING_APPROVAL',
      requiresHumanApproval: true,
      packSource: 'BUILTIN',
      approvalTaskId: expect.any(String),
    });
    expect(run.execution).toMatchObject({ id: run.workflowId, status: 'PENDING_APPROVAL', workflowType: 'legal' });
    // The execution is normalised by its @key.
    expect(Object.keys(requester.cache.extract() as Record<string, unknown>)).toContain(
      `WorkflowExecution:${run.workflowId}`,
    );

    // Subscribed from version 0 through GraphQLWsLink: the replay first, then live, then complete.
    const events: any[] = [];
    let completed = false;
    const errors: unknown[] = [];
    const sub = wsClient(alice)
      .subscribe<any>({ query: STATUS, variables: { id: run.workflowId, after: 0 } })
      .subscribe({
        next: (r) => (r.error ? errors.push(r.error) : events.push(r.data.workflowStatusChanged)),
        error: (e) => errors.push(e),
        complete: () => (completed = true),
      });
    try {
      await until(
        () => events.some((e) => e.event === 'approval.requested') || errors.length > 0,
        'the replayed approval.requested',
      );
      expect(errors).toEqual([]);

      // The reviewer's inbox lists the pending task.
      const reviewer = httpClient(bob);
      const inbox = await reviewer.query<any>({
        query: INBOX,
        variables: { status: 'pending', type: 'legal' },
        fetchPolicy: 'network-only',
      });
      expect(inbox.data.approvalTasks.nodes.map((n: any) => n.id)).toContain(run.approvalTaskId);
      expect((reviewer.cache.extract() as Record<string, unknown>)[`ApprovalTask:${run.approvalTaskId}`]).toMatchObject(
        { status: 'pending', reviewer: null },
      );

      const decided = await reviewer.mutate<any>({
        mutation: DECIDE,
        variables: { id: run.approvalTaskId, decision: 'approve', notes: 'checked' },
      });
      expect(decided.data.decideApproval).toMatchObject({
        workflowStatus: 'COMPLETED',
        task: { status: 'approved', reviewer: 'bob', decision: 'approve' },
      });
      // The mutation's answer updated the task the inbox query had cached, without a refetch.
      const cached = reviewer.readQuery<any>({ query: INBOX, variables: { status: 'pending', type: 'legal' } });
      expect(cached.approvalTasks.nodes.find((n: any) => n.id === run.approvalTaskId)).toMatchObject({
        status: 'approved',
        reviewer: 'bob',
      });
      // The inbox filtered by reviewer, from the server.
      const mine = await reviewer.query<any>({
        query: INBOX,
        variables: { status: 'approved', reviewer: 'bob' },
        fetchPolicy: 'network-only',
      });
      expect(mine.data.approvalTasks.nodes.map((n: any) => n.id)).toContain(run.approvalTaskId);

      await until(() => completed, 'the status subscription to complete after the final transition');
      expect(errors).toEqual([]);
      expect(events.map((e) => e.version)).toEqual(events.map((_, i) => i + 1));
      expect(events[0]).toMatchObject({ event: 'workflow.started', workflowId: run.workflowId });
      expect(events.find((e) => e.event === 'approval.decided')).toMatchObject({ approvalTaskId: run.approvalTaskId });
      expect(events.at(-1)).toMatchObject({ event: 'workflow.completed', status: 'COMPLETED' });
    } finally {
      sub.unsubscribe();
    }
  });

  it("the errors a frontend branches on: BAD_USER_INPUT naming the field, NOT_FOUND for another tenant's task and workflow", async () => {
    const requester = httpClient(alice);
    const missing = await requester
      .mutate({ mutation: EXECUTE, variables: { input: { workflowType: 'cooking', payload: {} } } })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(codesOf(missing)).toEqual(['BAD_USER_INPUT']);
    expect((missing as CombinedGraphQLErrors).errors[0]!.extensions?.field).toBe('workflowType');

    const run = (
      await requester.mutate<any>({ mutation: EXECUTE, variables: { input: { workflowType: 'risk', payload: {} } } })
    ).data.executeWorkflow;
    const word = await httpClient(bob)
      .mutate({ mutation: DECIDE, variables: { id: run.approvalTaskId, decision: 'perhaps' } })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(codesOf(word)).toEqual(['BAD_USER_INPUT']);
    expect((word as CombinedGraphQLErrors).errors[0]!.extensions?.field).toBe('decision');

    const stranger = httpClient(eve);
    const foreign = await stranger
      .mutate({ mutation: DECIDE, variables: { id: run.approvalTaskId, decision: 'approve' } })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(codesOf(foreign)).toEqual(['NOT_FOUND']);
    const inbox = await stranger.query<any>({
      query: INBOX,
      variables: { status: 'pending' },
      fetchPolicy: 'network-only',
    });
    expect(inbox.data.approvalTasks.nodes.map((n: any) => n.id)).not.toContain(run.approvalTaskId);

    const spied: unknown[] = [];
    let ended = false;
    const sub = wsClient(eve)
      .subscribe<any>({ query: STATUS, variables: { id: run.workflowId, after: 0 } })
      .subscribe({
        next: (r) => spied.push(r),
        error: (e) => {
          spied.push(e);
          ended = true;
        },
        complete: () => (ended = true),
      });
    try {
      await until(() => ended || spied.length > 0, "the other tenant's subscription to be refused");
      expect(JSON.stringify(spied)).toContain('NOT_FOUND');
      expect(JSON.stringify(spied)).not.toContain('workflow.started');
    } finally {
      sub.unsubscribe();
    }
  });
});
