// Rule packs enter the catalog from the rule-pack registry's bus topics: `rulepack.certified`
// adds (or certifies) a `rule` entry whose artifact is a pointer into that registry, and
// `rulepack.deprecated` marks it deprecated with its replacement. The bus delivers at most once,
// so this is a cache of what the registry owns: the dependency resolver asks the registry itself
// whenever the catalog could be behind (pack-dependencies.ts).
import { RULEPACK_CERTIFIED, RULEPACK_DEPRECATED, type RulePackNotice } from '../../platform/contracts/rulepack.events';
import { contractBus } from '../../platform/events/contract-bus';
import { dedupeNotices } from '../../platform/events/notice-dedupe';
import type { EventBus, Unsubscribe } from '../../platform/events/event-bus';
import type { Logger } from '../../platform/logging/logger';
import type { PackStore } from './pack.store';

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

  /**
   * Subscribes to both topics; the returned function unsubscribes. The contract bus parses each
   * notice (platform/contracts/rulepack.events.ts): a malformed one is logged and skipped, never stored.
   */
  async subscribe(bus: EventBus): Promise<Unsubscribe> {
    const events = contractBus(bus, this.logger);
    const handle = (what: 'certified' | 'deprecated') => async (notice: RulePackNotice) => {
      try {
        await this[what](notice);
      } catch (err) {
        this.logger.warn(
          { err, pack_id: notice.pack_id, version: notice.version },
          `cataloguing rulepack.${what} failed`,
        );
      }
    };
    // The registry's notices come through its notice outbox, at least once: each id is handled
    // once (cataloguing is idempotent too, but a redelivery then costs no reads).
    const offs = [
      await events.subscribe(RULEPACK_CERTIFIED, dedupeNotices(handle('certified'))),
      await events.subscribe(RULEPACK_DEPRECATED, dedupeNotices(handle('deprecated'))),
    ];
    return async () => {
      for (const off of offs) await off();
    };
  }
}
