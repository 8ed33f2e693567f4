// The operators' REST doors on platform consumer groups (subgraphs/events/platform-groups.service.ts):
// list the groups with their message counts, read a group's dead letters (every tenant's), redrive
// them (all, or one tenant's), audited in each tenant touched. 403 for anyone but a platform operator.
import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { callerOf } from '../../platform/http/caller';
import type { PlatformGroupStats } from '../../platform/events/backbone/platform-group.store';
import { cloudEventJson } from '../../subgraphs/events/events.service';
import { MAX_DEAD_LETTERS, type PlatformGroupsService } from '../../subgraphs/events/platform-groups.service';
import { CloudEventSchema, responses } from './events.schemas';

const GroupParams = Type.Object({
  name: Type.String({
    minLength: 1,
    maxLength: 300,
    description: 'Platform group name, e.g. workflow.triggers.<topic>',
  }),
});
type GroupParams = Static<typeof GroupParams>;

const DlqQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_DEAD_LETTERS, default: 100 })),
});
type DlqQuery = Static<typeof DlqQuery>;

const RedriveBody = Type.Object({
  tenant_id: Type.Optional(
    Type.String({ minLength: 1, maxLength: 255, description: "Only this tenant's dead letters; all when absent" }),
  ),
});
type RedriveBody = Static<typeof RedriveBody>;

const GroupJson = Type.Object({
  name: Type.String(),
  topic: Type.String(),
  max_deliveries: Type.Integer(),
  ack_timeout_ms: Type.Integer(),
  backoff_ms: Type.Integer(),
  seen_at: Type.String(),
  ready: Type.Integer(),
  leased: Type.Integer(),
  dead: Type.Integer(),
});

const PlatformDeadLetter = Type.Object({
  tenant_id: Type.String(),
  position: Type.Integer(),
  attempts: Type.Integer(),
  last_error: Type.Union([Type.String(), Type.Null()]),
  dead_at: Type.String(),
  event: CloudEventSchema,
});

const Redriven = Type.Object({
  group: Type.String(),
  count: Type.Integer(),
  tenants: Type.Array(Type.Object({ tenant_id: Type.String(), positions: Type.Array(Type.Integer()) })),
});

function groupJson(g: PlatformGroupStats) {
  return {
    name: g.name,
    topic: g.topic,
    max_deliveries: g.maxDeliveries,
    ack_timeout_ms: g.ackTimeoutMs,
    backoff_ms: g.backoffMs,
    seen_at: g.seenAt,
    ready: g.ready,
    leased: g.leased,
    dead: g.dead,
  };
}

const tags = ['platform groups (operators)'];

export function registerPlatformGroupRoutes(routes: FastifyInstance, groups: PlatformGroupsService): void {
  routes.get(
    '/platform-groups',
    {
      schema: {
        tags,
        summary: "The platform's consumer groups over every tenant's streams, with their messages by state (operators)",
        response: responses(Type.Object({ groups: Type.Array(GroupJson) })),
      },
    },
    async (request) => ({ groups: (await groups.list(callerOf(request))).map(groupJson) }),
  );

  routes.get<{ Params: GroupParams }>(
    '/platform-groups/:name',
    {
      config: { inputLocation: 'path' },
      schema: { tags, summary: 'A platform group (operators)', params: GroupParams, response: responses(GroupJson) },
    },
    async (request) => groupJson(await groups.group(callerOf(request), request.params.name)),
  );

  routes.get<{ Params: GroupParams; Querystring: DlqQuery }>(
    '/platform-groups/:name/dlq',
    {
      config: { inputLocation: 'query' },
      schema: {
        tags,
        summary:
          "A platform group's dead letters, every tenant's, oldest first (operators; the access is recorded in each tenant shown)",
        params: GroupParams,
        querystring: DlqQuery,
        response: responses(Type.Object({ dead_letters: Type.Array(PlatformDeadLetter) })),
      },
    },
    async (request) => ({
      dead_letters: (await groups.deadLetters(callerOf(request), request.params.name, request.query.limit)).map(
        (d) => ({
          tenant_id: d.event.tenantId,
          position: d.position,
          attempts: d.attempts,
          last_error: d.lastError,
          dead_at: d.deadAt,
          event: cloudEventJson(d.event),
        }),
      ),
    }),
  );

  routes.post<{ Params: GroupParams; Body: RedriveBody }>(
    '/platform-groups/:name/dlq/redrive',
    {
      schema: {
        tags,
        summary:
          "Puts a platform group's dead letters (all, or one tenant's) back on its queue with fresh attempts; audited in each tenant's ledger (operators)",
        params: GroupParams,
        body: RedriveBody,
        response: responses(Redriven),
      },
    },
    async (request) => {
      const moved = await groups.redrive(callerOf(request), request.params.name, request.body?.tenant_id);
      return {
        group: request.params.name,
        count: moved.reduce((n, m) => n + m.positions.length, 0),
        tenants: moved.map((m) => ({ tenant_id: m.tenantId, positions: m.positions })),
      };
    },
  );
}
