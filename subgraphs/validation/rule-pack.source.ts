// Where the pack of a run comes from. Registry packs: fetched with the caller's credentials, run
// only when certified and only after their Ed25519 signature over the canonical JSON verifies;
// compiled once and cached by (pack_id, version) until deprecated or the TTL passes. Inline packs:
// schema-checked and compiled by the engine, their problems reported under `rulePack`.
import type { RulePackVersionView } from '../../platform/clients/rulepack-registry.client';
import type { RulePackNotice } from '../../platform/contracts/rulepack.events';
import { ServiceCallError, type ServiceCallContext } from '../../platform/clients/service-request';
import {
  AuthenticationError,
  ConflictError,
  ForbiddenError,
  InputError,
  NotFoundError,
  UnavailableError,
  type InputIssue,
} from '../../platform/errors/domain-errors';
import { compileRulePack, RulePackError, type CompiledRulePack } from '../../platform/rule-engine';
import type { Logger } from '../../platform/logging/logger';
import { canonicalBytes, sha256Hex } from './pack.digest';
import type { TtlLru } from './pack.cache';
import type { PackSignatureVerifier } from './pack-signature';
import type { PackSource } from './validation.types';

export interface ResolvedPack {
  compiled: CompiledRulePack;
  /** Registry pack id, or the inline pack's own id (`inline:<sha256>` when it names none). */
  packId: string;
  /** The registry version that ran; null for inline packs. */
  registryVersion: string | null;
  /** metadata.version of the pack (the registry version when the pack does not say). */
  packVersion: string | null;
  sha256: string;
  source: PackSource;
}

export interface RegistryReader {
  get(context: ServiceCallContext, packId: string, version?: string): Promise<RulePackVersionView>;
}

/** What `drop` needs of a notice (platform/contracts/rulepack.events.ts): the pack, and the version if one. */
export type DroppedPack = Pick<RulePackNotice, 'pack_id'> & Partial<Pick<RulePackNotice, 'version'>>;

const cacheKey = (packId: string, version: string) => `${packId}\u0000${version}`;

function metadataOf(pack: unknown): { packId?: string; version?: string } {
  const metadata = (pack as { metadata?: unknown } | null)?.metadata;
  if (!metadata || typeof metadata !== 'object') return {};
  const m = metadata as Record<string, unknown>;
  return {
    packId: typeof m.pack_id === 'string' ? m.pack_id : undefined,
    version: typeof m.version === 'string' ? m.version : undefined,
  };
}

/** The engine's issue path ("/rules/0/operator", "rules[0].operator" or segments) as loc segments. */
export function pathSegments(path: unknown): (string | number)[] {
  const raw: unknown[] = Array.isArray(path)
    ? path
    : typeof path === 'string'
      ? path
          .replace(/^[$#]?\/?/, '')
          .split(/[/.[\]]+/)
          .filter((s) => s !== '')
      : [];
  return raw.map((s) => (typeof s === 'number' || !/^\d+$/.test(String(s)) ? (s as string | number) : Number(s)));
}

function describe(packId: string, version?: string): string {
  return version === undefined ? `Rule pack '${packId}'` : `Rule pack '${packId}' version '${version}'`;
}

export class RulePackSource {
  /** Bumped on every drop, so a fetch that began before a deprecation never re-caches the pack. */
  private epoch = 0;

  constructor(
    private readonly registry: RegistryReader,
    private readonly signatures: PackSignatureVerifier,
    private readonly cache: TtlLru<ResolvedPack>,
    private readonly logger: Logger,
  ) {}

  /** A certified registry pack, verified and compiled (from the cache when it holds it). */
  async registryPack(context: ServiceCallContext, packId: string, version?: string): Promise<ResolvedPack> {
    if (version !== undefined) {
      const cached = this.cache.get(cacheKey(packId, version));
      if (cached) return cached;
    }
    const epoch = this.epoch;
    const view = await this.fetch(context, packId, version);
    if (view.pack_id !== packId || (version !== undefined && view.version !== version)) {
      throw new UnavailableError('The rule-pack registry answered with another pack than the one asked for');
    }
    const name = describe(packId, view.version);
    if (view.status === 'deprecated') {
      const r = view.replacement;
      throw new ConflictError(
        `${name} is deprecated${r ? `; use rule pack '${r.pack_id}' version '${r.version}' instead` : ' and has no replacement'}`,
      );
    }
    if (view.status !== 'certified')
      throw new ConflictError(`${name} is not certified (status '${view.status}'); only certified packs run`);

    const key = cacheKey(packId, view.version);
    const cached = this.cache.get(key);
    if (cached) return cached;

    const canonical = canonicalBytes(view.pack);
    const sha256 = sha256Hex(canonical);
    const refuse = (reason: string): never => {
      this.logger.warn({ packId, version: view.version, reason }, 'refused a rule pack that failed verification');
      throw new ConflictError(`${name} failed signature verification (${reason}); it was not run`);
    };
    if (view.sha256 && view.sha256.toLowerCase() !== sha256) refuse('its content does not match its published sha256');
    let verdict;
    try {
      verdict = await this.signatures.verify(canonical, view.signature, view.key_id);
    } catch {
      throw new UnavailableError("The rule-pack registry's signing keys are unavailable, retry shortly", 1);
    }
    if (!verdict.ok) refuse(verdict.reason);
    // The signature covers the pack only: its own metadata must not contradict what it was fetched as.
    const meta = metadataOf(view.pack);
    if (meta.packId !== undefined && meta.packId !== packId) refuse(`its metadata names pack '${meta.packId}'`);
    if (meta.version !== undefined && meta.version !== view.version)
      refuse(`its metadata names version '${meta.version}'`);

    let compiled: CompiledRulePack;
    try {
      compiled = compileRulePack(view.pack);
    } catch (err) {
      if (!(err instanceof RulePackError)) throw err;
      throw new ConflictError(
        `${name} is certified but does not compile with this engine: ${err.issues[0]?.message ?? err.message}`,
      );
    }
    const resolved: ResolvedPack = {
      compiled,
      packId,
      registryVersion: view.version,
      packVersion: meta.version ?? view.version,
      sha256,
      source: 'registry',
    };
    if (epoch === this.epoch) this.cache.set(key, resolved);
    return resolved;
  }

  /** The caller's own pack: problems are 422s under `rulePack` (REST `["body","rule_pack",...]`). */
  inlinePack(pack: unknown): ResolvedPack {
    if (!pack || typeof pack !== 'object' || Array.isArray(pack)) {
      throw InputError.of(['rulePack'], 'Input should be a valid dictionary', 'dict_type');
    }
    let compiled: CompiledRulePack;
    try {
      compiled = compileRulePack(pack);
    } catch (err) {
      if (!(err instanceof RulePackError)) throw err;
      const issues: InputIssue[] = err.issues.map((i) => ({
        loc: ['rulePack', ...pathSegments(i.path)],
        msg: i.message,
        type: i.type,
      }));
      throw new InputError(issues.length > 0 ? issues : [{ loc: ['rulePack'], msg: err.message, type: 'value_error' }]);
    }
    const sha256 = compiled.sha256;
    const meta = metadataOf(pack);
    return {
      compiled,
      packId: meta.packId ?? `inline:${sha256}`,
      registryVersion: null,
      packVersion: meta.version ?? null,
      sha256,
      source: 'inline',
    };
  }

  /** Drops a pack version (all versions when the event names none) on `rulepack.deprecated`. */
  drop(event: DroppedPack): void {
    if (!event || typeof event.pack_id !== 'string') return;
    this.epoch++;
    if (typeof event.version === 'string') this.cache.delete(cacheKey(event.pack_id, event.version));
    else this.cache.deleteWhere((k) => k.startsWith(`${event.pack_id}\u0000`));
  }

  private async fetch(context: ServiceCallContext, packId: string, version?: string): Promise<RulePackVersionView> {
    try {
      return await this.registry.get(context, packId, version);
    } catch (err) {
      if (!(err instanceof ServiceCallError)) throw err;
      if (err.status === 404) throw new NotFoundError(`${describe(packId, version)} not found`);
      if (err.status === 401) throw new AuthenticationError('The rule-pack registry requires an authenticated caller');
      if (err.status === 403)
        throw new ForbiddenError(`The rule-pack registry refused access to ${describe(packId, version).toLowerCase()}`);
      if (err.status === 400 || err.status === 422) {
        throw InputError.of(
          [version === undefined ? 'rulePackId' : 'rulePackVersion'],
          'Not a valid rule pack id or version for the registry',
          'value_error',
        );
      }
      this.logger.warn({ status: err.status, error: err.message }, 'rule-pack registry unavailable');
      throw new UnavailableError('The rule-pack registry is unavailable, retry shortly', 1);
    }
  }
}
