// Rule packs enter the catalog from the rule-pack registry's bus topics: `rulepack.certified`
// adds (or certifies) a `rule` entry whose artifact is a pointer into that registry, and
// `rulepack.deprecated` marks it deprecated with its replacement. The bus delivers at most once,
// so this is a cache of what the registry owns: the dependency resolver asks the registry itself
// whenever the catalog could be behind (pack-dependencies.ts).
import type { EventBus, Unsubscribe } from '../../platform/events/event-bus';
import type { Logger } from '../../platform/logging/logger';
import { checkPackId, checkVersion } from './pack.rules';
import type { PackStore } from './pack.store';
import type { PackRef } from './pack.types';

export const RULEPACK_CERTIFIED_TOPIC = 'rulepack.certified';
export const RULEPACK_DEPRECATED_TOPIC = 'rulepack.deprecated';

/** The topics' payload (common contract): `{pack_id, version, owner_tenant, replacement?}`. */
export interface RulePackNotice {
  pack_id: string;
  version: string;
  owner_tenant: string;
  replacement?: PackRef | null;
}

/** The payload if it has the contract's shape, else undefined (a bad message is skipped, never stored). */
export function readNotice(payload: unknown): RulePackNotice | undefined {
  if (!payload || typeof payload !== 'object') return undefined;
  const p = payload as Record<string, unknown>;
  try {
    checkPackId('pack_id', p.pack_id);
    checkVersion('version', p.version);
    if (typeof p.owner_tenant !== 'string' || p.owner_tenant.length === 0 || p.owner_tenant.length > 255) return undefined;
    let replacement: PackRef | null = null;
    if (p.replacement != null) {
      const r = p.replacement as Record<string, unknown>;
      replacement = { pack_id: checkPackId('replacement', r.pack_id), version: checkVersion('replacement', r.version) };
    }
    return { pack_id: p.pack_id as string, version: p.version as string, owner_tenant: p.owner_tenant, replacement };
  } catch {
    return undefined;
  }
}

export class RulePackCatalogConsumer {
  constructor(private readonly packs: PackStore, private readonly logger: Logger, private readonly clock: () => Date = () => new Date()) {}

  async certified(notice: RulePackNotice): Promise<void> {
    const owner = await this.packs.ownerOf(notice.pack_id);
    if (owner && owner.kind !== 'rule') {
      this.logger.warn({ pack_id: notice.pack_id }, 'rulepack.certified names a workflow pack id; not catalogued');
      return;
    }
    const existing = await this.packs.lockForUpdate(notice.pack_id, notice.version);
    const now = this.clock();
    if (!existing) {
      await this.packs.insert({
        packId: notice.pack_id, version: notice.version, kind: 'rule', status: 'certified', ownerTenant: notice.owner_tenant, author: null,
        submittedAt: now, certifiedAt: now, artifactFormat: 'json', artifactSource: null, artifactContent: null, artifactSha256: null,
        artifactPointer: { service: 'rulepack-registry', pack_id: notice.pack_id, version: notice.version },
        dependencies: { rule_packs: [], schemas: [], workflow_packs: [] },
      }).catch((err: unknown) => {
        // A redelivered notice raced its first delivery: the entry exists, which is all we want.
        if ((err as { code?: string }).code !== 'CONFLICT') throw err;
      });
      return;
    }
    // Deprecation is final: a late certification notice does not undo it.
    if (existing.status === 'draft') await this.packs.update(notice.pack_id, notice.version, { status: 'certified', certifiedAt: now });
  }

  async deprecated(notice: RulePackNotice): Promise<void> {
    await this.certified(notice);
    const existing = await this.packs.find('all', notice.pack_id, notice.version);
    if (!existing || existing.kind !== 'rule' || existing.status === 'deprecated') return;
    await this.packs.update(notice.pack_id, notice.version, { status: 'deprecated', deprecatedAt: this.clock(), replacement: notice.replacement ?? null });
  }

  /** Subscribes to both topics; the returned function unsubscribes. */
  async subscribe(bus: EventBus): Promise<Unsubscribe> {
    const handle = (what: 'certified' | 'deprecated') => async (payload: unknown) => {
      const notice = readNotice(payload);
      if (!notice) {
        this.logger.warn({ topic: `rulepack.${what}` }, 'malformed rule-pack notice skipped');
        return;
      }
      try {
        await this[what](notice);
      } catch (err) {
        this.logger.warn({ err, pack_id: notice.pack_id, version: notice.version }, `cataloguing rulepack.${what} failed`);
      }
    };
    const offs = [
      await bus.subscribe(RULEPACK_CERTIFIED_TOPIC, handle('certified')),
      await bus.subscribe(RULEPACK_DEPRECATED_TOPIC, handle('deprecated')),
    ];
    return async () => {
      for (const off of offs) await off();
    };
  }
}
