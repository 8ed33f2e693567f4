// Rule packs enter the catalog from the rule-pack registry's notices, read from the events
// backbone by durable consumers (platform/events/backbone/durable-consumer.ts): `rulepack.certified`
// adds (or certifies) a `rule` entry whose artifact is a pointer into that registry, and
// `rulepack.deprecated` marks it deprecated with its replacement. The groups are the platform's
// (every tenant's stream) and shared by every process of this service (the catalog is in the
// database: one process handles each notice). Delivery is at least once, and cataloguing is
// idempotent; a failing notice is retried with backoff and, after its last delivery, rests in the
// dead-letter queue. The dependency resolver still asks the registry itself whenever the catalog
// could be behind (pack-dependencies.ts).
import type { Database } from '../../platform/db/database';
import { RULEPACK_CERTIFIED, RULEPACK_DEPRECATED, type RulePackNotice } from '../../platform/contracts/rulepack.events';
import { contractHandler } from '../../platform/events/backbone/contract-handler';
import { consume, type DurableConsumer, type DurableHandler } from '../../platform/events/backbone/durable-consumer';
import type { EventBus } from '../../platform/events/event-bus';
import type { Logger } from '../../platform/logging/logger';
import type { PackStore } from './pack.store';

export interface CatalogConsumerOptions {
  /** Fallback poll of the backbone (default 1 s). */
  pollMs?: number;
  /** First redelivery delay after a failure (default 1 s). */
  backoffMs?: number;
}

export class RulePackCatalogConsumer {
  constructor(
    private readonly packs: PackStore,
    private readonly logger: Logger,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  async certified(notice: RulePackNotice): Promise<void> {
    const owner = await this.packs.ownerOf(notice.pack_id);
    if (owner && owner.kind !== 'rule') {
      this.logger.warn({ pack_id: notice.pack_id }, 'rulepack.certified names a workflow pack id; not catalogued');
      return;
    }
    const existing = await this.packs.lockForUpdate(notice.pack_id, notice.version);
    const now = this.clock();
    if (!existing) {
      await this.packs
        .insert({
          packId: notice.pack_id,
          version: notice.version,
          kind: 'rule',
          status: 'certified',
          ownerTenant: notice.owner_tenant,
          author: null,
          submittedAt: now,
          certifiedAt: now,
          artifactFormat: 'json',
          artifactSource: null,
          artifactContent: null,
          artifactSha256: null,
          artifactPointer: { service: 'rulepack-registry', pack_id: notice.pack_id, version: notice.version },
          dependencies: { rule_packs: [], schemas: [], workflow_packs: [] },
        })
        .catch((err: unknown) => {
          // A redelivered notice raced its first delivery: the entry exists, which is all we want.
          if ((err as { code?: string }).code !== 'CONFLICT') throw err;
        });
      return;
    }
    // Deprecation is final: a late certification notice does not undo it.
    if (existing.status === 'draft')
      await this.packs.update(notice.pack_id, notice.version, { status: 'certified', certifiedAt: now });
  }

  async deprecated(notice: RulePackNotice): Promise<void> {
    await this.certified(notice);
    const existing = await this.packs.find('all', notice.pack_id, notice.version);
    if (!existing || existing.kind !== 'rule' || existing.status === 'deprecated') return;
    await this.packs.update(notice.pack_id, notice.version, {
      status: 'deprecated',
      deprecatedAt: this.clock(),
      replacement: notice.replacement ?? null,
    });
  }

  /** The handler of one topic's durable consumer: the payload is parsed against the contract first. */
  handler(what: 'certified' | 'deprecated'): DurableHandler {
    const contract = what === 'certified' ? RULEPACK_CERTIFIED : RULEPACK_DEPRECATED;
    return contractHandler(contract, (notice: RulePackNotice) => this[what](notice));
  }

  /**
   * Consumes both topics from the backbone; the returned function stops. A new group starts at
   * every stream's beginning: the first start catalogues what the registry certified before.
   */
  async consume(
    db: Pick<Database, 'sql'>,
    bus: Pick<EventBus, 'publish' | 'subscribe'> | undefined,
    options: CatalogConsumerOptions = {},
  ): Promise<() => Promise<void>> {
    const consumers: DurableConsumer[] = [];
    for (const what of ['certified', 'deprecated'] as const) {
      consumers.push(
        await consume(db, {
          subscription: `packs-registry.rulepack-catalog.${what}`,
          topic: what === 'certified' ? RULEPACK_CERTIFIED.topic : RULEPACK_DEPRECATED.topic,
          from: 'start',
          bus,
          logger: this.logger,
          pollMs: options.pollMs,
          backoffMs: options.backoffMs,
          handler: this.handler(what),
        }),
      );
    }
    return async () => {
      for (const c of consumers) await c.stop();
    };
  }
}
