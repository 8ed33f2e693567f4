// The workflow triggers' REST door (docs/workflow.md, "Triggers"): enable a certified pack's
// trigger for the caller's tenant, list, read and delete the tenant's triggers. Thin adapters over
// subgraphs/workflow/trigger.service.ts.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { bearerToken } from '../../platform/auth/jwt';
import { callerOf } from '../../platform/http/caller';
import type { TriggerService } from '../../subgraphs/workflow/trigger.service';
import type { WorkflowTrigger } from '../../subgraphs/workflow/trigger.types';
import { responses } from './workflow.schemas';
import { CreateTriggerBody, TriggerDeleted, TriggerJson, TriggerList, TriggerParams } from './triggers.schemas';

export function triggerJson(t: WorkflowTrigger) {
  return {
    trigger_id: t.id,
    workflow_pack_id: t.packId,
    workflow_pack_version: t.packVersion,
    workflow_type: t.workflowType,
    topic: t.topic,
    filter: (t.filter as Record<string, unknown> | null) ?? null,
    created_by: t.createdBy,
    created_at: t.createdAt,
  };
}

const forwarding = (request: FastifyRequest) => ({ token: bearerToken(request.headers.authorization) });

export function registerTriggerRoutes(routes: FastifyInstance, triggers: TriggerService): void {
  routes.post<{ Body: CreateTriggerBody }>(
    '/triggers',
    {
      schema: {
        tags: ['workflow'],
        summary: "Enable a certified workflow pack's trigger: events of its topic in this tenant start it",
        description:
          "The pack is resolved with the caller's token (newest certified unless workflow_pack_version) and pinned. " +
          '404 unknown pack or version; 409 deprecated or uncertified; 422 a pack without a trigger, or of another workflow_type; 503 the packs registry is down.',
        body: CreateTriggerBody,
        response: responses(TriggerJson),
      },
    },
    async (request) => {
      const b = request.body;
      return triggerJson(
        await triggers.create(
          callerOf(request),
          {
            workflowPackId: b.workflow_pack_id,
            workflowPackVersion: b.workflow_pack_version,
            workflowType: b.workflow_type,
          },
          forwarding(request),
        ),
      );
    },
  );

  routes.get(
    '/triggers',
    { schema: { tags: ['workflow'], summary: "The tenant's workflow triggers", response: responses(TriggerList) } },
    async (request) => ({ triggers: (await triggers.list(callerOf(request))).map(triggerJson) }),
  );

  routes.get<{ Params: TriggerParams }>(
    '/triggers/:trigger_id',
    {
      config: { inputLocation: 'path' },
      schema: {
        tags: ['workflow'],
        summary: 'A workflow trigger',
        params: TriggerParams,
        response: responses(TriggerJson),
      },
    },
    async (request) => triggerJson(await triggers.get(callerOf(request), request.params.trigger_id)),
  );

  routes.delete<{ Params: TriggerParams }>(
    '/triggers/:trigger_id',
    {
      config: { inputLocation: 'path' },
      schema: {
        tags: ['workflow'],
        summary: 'Delete a workflow trigger (executions it started run on)',
        params: TriggerParams,
        response: responses(TriggerDeleted),
      },
    },
    async (request) => {
      await triggers.remove(callerOf(request), request.params.trigger_id);
      return { trigger_id: request.params.trigger_id, deleted: true };
    },
  );
}
