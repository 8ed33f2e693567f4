// Where a run's pack comes from: the built-in packs, else the packs registry (a certified
// `dataflow` pack; certification there is the four-eyes review and dependency check). A draft,
// a deprecated version or another kind of pack does not run.
import { ServiceCallError, type ServiceCallContext } from '../../platform/clients/service-request';
import type { PacksRegistryClient } from '../../platform/clients/packs-registry.client';
import { ConflictError, NotFoundError, UnavailableError } from '../../platform/errors/domain-errors';
import type { DataflowPack } from './dataflow.types';
import { BUILTIN_PACKS } from './gtas.pack';
import type { ScheduledPack } from './schedule.runner';

export interface PackSource {
  get(context: ServiceCallContext, packId: string, version?: string): Promise<DataflowPack>;
  /** The certified packs (built-in ones first) whose triggers name an ingestion of `dataset`. */
  triggeredBy(context: ServiceCallContext, dataset: string): Promise<DataflowPack[]>;
  /** The certified packs with a schedule trigger, each with its owner tenant (where it runs). */
  scheduled(context: ServiceCallContext): Promise<ScheduledPack[]>;
}

/** How many certified dataflow packs one ingestion event looks at (the registry's page). */
const MAX_TRIGGERED = 200;

const triggersOn = (pack: DataflowPack, dataset: string) =>
  pack.triggers.some((t) => t.type === 'ingestion' && t.dataset === dataset);

export function registryPackSource(registry: Pick<PacksRegistryClient, 'get' | 'list'>): PackSource {
  // A certified version's artifact never changes: the schedule's polls fetch each one once.
  const certified = new Map<string, DataflowPack | null>();
  return {
    async scheduled(context) {
      const page = await registry.list(context, { kind: 'dataflow', status: 'certified', limit: MAX_TRIGGERED });
      const found: ScheduledPack[] = [];
      for (const entry of page.packs) {
        const id = `${entry.pack_id}@${entry.version}`;
        if (!certified.has(id)) {
          const view = await registry.get(context, entry.pack_id, entry.version);
          if (certified.size > 5000) certified.clear();
          certified.set(id, (view.artifact.content as unknown as DataflowPack | null) ?? null);
        }
        const pack = certified.get(id);
        if (pack?.triggers.some((t) => t.type === 'schedule'))
          found.push({
            tenantId: entry.owner_tenant,
            pack,
            certifiedAt: entry.certified_at ? new Date(entry.certified_at) : null,
          });
      }
      return found;
    },
    async triggeredBy(context, dataset) {
      const builtins = BUILTIN_PACKS.filter((p) => triggersOn(p, dataset));
      let page;
      try {
        page = await registry.list(context, { kind: 'dataflow', status: 'certified', limit: MAX_TRIGGERED });
      } catch (err) {
        throw new UnavailableError(`The packs registry did not answer: ${(err as Error).message}`);
      }
      const fetched: DataflowPack[] = [];
      for (const entry of page.packs) {
        const view = await registry.get(context, entry.pack_id, entry.version);
        const pack = view.artifact.content as unknown as DataflowPack | null;
        if (pack && triggersOn(pack, dataset)) fetched.push(pack);
      }
      return [...builtins, ...fetched];
    },
    async get(context, packId, version) {
      const builtin = BUILTIN_PACKS.find(
        (p) => p.metadata.pack_id === packId && (version === undefined || p.metadata.version === version),
      );
      if (builtin) return builtin;
      let view;
      try {
        view = await registry.get(context, packId, version);
      } catch (err) {
        if (err instanceof ServiceCallError && err.status === 404)
          throw new NotFoundError(`Dataflow pack '${packId}'${version ? ` version ${version}` : ''} not found`);
        throw new UnavailableError(`The packs registry did not answer: ${(err as Error).message}`);
      }
      if (view.kind !== 'dataflow')
        throw new ConflictError(`Pack '${packId}' is a ${view.kind} pack, not a dataflow pack`);
      if (view.status !== 'certified')
        throw new ConflictError(`Pack '${packId}' version ${view.version} is ${view.status}: only certified packs run`);
      return view.artifact.content as unknown as DataflowPack;
    },
  };
}
