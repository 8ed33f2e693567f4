// The validation domain without a database or a registry: ValidationService with its real
// RulePackSource (signature check, cache) and RunAudit, over recording strict fakes of the
// rule-pack registry, its key set, the schema registry, the outbox, the bus and the logger. The
// packs are signed here with a real Ed25519 key, so a tampered pack fails as in production.
import type { Caller } from '../../../platform/auth/caller';
import { TenantAccess } from '../../../platform/auth/tenant-access';
import type { RulePackKeySet, RulePackVersionView } from '../../../platform/clients/rulepack-registry.client';
import { ConflictError, InputError } from '../../../platform/errors/domain-errors';
import { COMPLIANCE_RULE_EXECUTION, type ComplianceRuleExecution } from '../../../platform/contracts/compliance.events';
import type { Logger } from '../../../platform/logging/logger';
import type { AuditedNoticeWriter } from '../../../platform/outbox/notice.writer';
import type { AuditEventInput } from '../../../platform/outbox/outbox.writer';
import {
  generateSigningKeyPem,
  packSha256,
  parseSigningKeyPem,
  publicJwkOf,
  signPack,
} from '../../../subgraphs/rulepack-registry/pack-signature';
import { TtlLru } from '../../../subgraphs/validation/pack.cache';
import { PackSignatureVerifier, type KeySetSource } from '../../../subgraphs/validation/pack-signature';
import { RulePackSource, type RegistryReader, type ResolvedPack } from '../../../subgraphs/validation/rule-pack.source';
import { RULE_EXECUTION_EVENT, RunAudit } from '../../../subgraphs/validation/validation.audit';
import { ValidationService, type SchemaLister } from '../../../subgraphs/validation/validation.service';
import { Fakes, withArgs } from '../../support/recording-fake';

const TENANT = 'tenant-a';
const caller: Caller = {
  auth: { username: 'alice', tenantId: TENANT, roles: ['user'], scopes: ['read', 'write'], isService: false },
  correlationId: 'corr-1',
};
const CONTEXT = { token: 'tok', tenantId: TENANT, correlationId: 'corr-1' };

const pack = {
  metadata: { pack_id: 'kyc', version: '1.0.0' },
  rules: [
    { rule_id: 'name-required', type: 'FATAL', field: 'name', operator: 'required', error_message: 'name is required' },
    { rule_id: 'age-required', type: 'WARNING', field: 'age', operator: 'required', error_message: 'age is missing' },
  ],
};
const privateKey = parseSigningKeyPem(generateSigningKeyPem());
const jwk = publicJwkOf(privateKey);

function view(changes: Partial<RulePackVersionView> = {}): RulePackVersionView {
  return {
    pack_id: 'kyc',
    version: '1.0.0',
    status: 'certified',
    pack,
    sha256: packSha256(pack),
    owner_tenant: TENANT,
    author: 'root',
    reviewers: ['rita'],
    submitted_at: '2024-01-01T00:00:00Z',
    certified_at: '2024-01-02T00:00:00Z',
    signature: signPack(pack, privateKey),
    key_id: jwk.kid,
    deprecated_at: null,
    replacement: null,
    ...changes,
  };
}

function build(
  ports: { registry?: Partial<RegistryReader>; outbox?: Partial<AuditedNoticeWriter>; logger?: Partial<Logger> } = {},
) {
  const fakes = new Fakes();
  const appended: AuditEventInput[] = [];
  const notices: ComplianceRuleExecution[] = [];
  const logger = fakes.make<Logger>('logger', ports.logger ?? {});
  const keys = fakes.make<KeySetSource>('keys', { signingKeys: async () => ({ keys: [jwk] }) as RulePackKeySet });
  const packs = new RulePackSource(
    fakes.make<RegistryReader>('registry', ports.registry ?? {}),
    new PackSignatureVerifier(keys, { ttlMs: 60_000 }),
    new TtlLru<ResolvedPack>(10, 60_000),
    logger,
  );
  // The audit event and its compliance notice arrive together (one transaction in the real writer).
  const outbox = fakes.make<AuditedNoticeWriter>(
    'outbox',
    ports.outbox ?? {
      append: async (e, n) => {
        appended.push(e);
        expect(n?.envelope).toMatchObject({ type: COMPLIANCE_RULE_EXECUTION.topic, tenantid: TENANT });
        notices.push(n!.envelope.data as ComplianceRuleExecution);
      },
    },
  );
  const service = new ValidationService({
    packs,
    schemas: fakes.make<SchemaLister>('schemas', {}),
    audit: new RunAudit(outbox),
    access: new TenantAccess(async () => {
      throw new Error('no operator access expected');
    }),
    config: { maxRecords: 100, requireAuth: true },
  });
  return { fakes, service, packs, appended, notices };
}

describe('ValidationService: running a pack', () => {
  it("runs an inline pack's rules, audits the run in the tenant and emits its compliance notice", async () => {
    const { fakes, service, appended, notices } = build();
    const run = await service.validate(caller, { rulePack: pack, payload: [{ name: 'Ada', age: 36 }, { age: 40 }] });
    fakes.verify();
    expect(run.result.valid).toBe(false);
    expect(run).toMatchObject({ packSource: 'inline', rulePackId: 'kyc', records: 2 });
    expect(appended).toEqual([
      expect.objectContaining({
        tenantId: TENANT,
        eventType: RULE_EXECUTION_EVENT,
        userId: 'alice',
        correlationId: 'corr-1',
        eventData: expect.objectContaining({
          rulepack_id: 'kyc',
          result: 'failed',
          rules_executed: 2,
          violations: 1,
          records: 2,
          input_sha256: run.inputSha256,
          pack_source: 'inline',
        }),
      }),
    ]);
    expect(notices).toEqual([
      expect.objectContaining({
        tenant_id: TENANT,
        user_id: 'alice',
        correlation_id: 'corr-1',
        result: 'failed',
        violations: 1,
      }),
    ]);
    expect(fakes.trail('registry')).toEqual([]);
  });

  it('counts warnings as violations but passes the run; nothing of the payload reaches the audit or the notice', async () => {
    const { fakes, service, appended, notices } = build();
    const run = await service.validate(caller, { rulePack: pack, payload: { name: 'Secret Person' } });
    fakes.verify();
    expect(run.result.valid).toBe(true);
    expect(notices[0]).toMatchObject({ result: 'passed', violations: 1 });
    expect(JSON.stringify([appended, notices])).not.toContain('Secret Person');
  });

  it('answers a failed audit write with the error and emits no notice', async () => {
    const { fakes, service, notices } = build({
      outbox: {
        append: async () => {
          throw new Error('outbox down');
        },
      },
    });
    await expect(service.validate(caller, { rulePack: pack, payload: { name: 'x' } })).rejects.toThrow('outbox down');
    fakes.verify();
    expect(notices).toEqual([]);
  });

  it('refuses a malformed request before any call', async () => {
    const { fakes, service } = build();
    await expect(service.validate(caller, { rulePackId: 'kyc', rulePack: pack, payload: {} })).rejects.toBeInstanceOf(
      InputError,
    );
    fakes.verify();
    expect(fakes.calls).toEqual([]);
  });
});

describe('ValidationService: registry packs', () => {
  it("fetches a certified pack with the caller's context, verifies its signature, and caches it by version", async () => {
    const { fakes, service } = build({ registry: { get: withArgs([CONTEXT, 'kyc', '1.0.0'], async () => view()) } });
    for (let i = 0; i < 2; i++) {
      const run = await service.validate(
        caller,
        { rulePackId: 'kyc', rulePackVersion: '1.0.0', payload: { name: 'Ada', age: 1 } },
        { token: 'tok' },
      );
      expect(run).toMatchObject({ packSource: 'registry', registryVersion: '1.0.0', packSha256: packSha256(pack) });
    }
    fakes.verify();
    expect(fakes.argsOf('registry', 'get')).toHaveLength(1);
    expect(fakes.argsOf('keys', 'signingKeys')).toHaveLength(1);
  });

  it('refuses a pack whose content does not match its signature: nothing runs, nothing is audited', async () => {
    const tampered = { ...pack, rules: pack.rules.slice(1) };
    const { fakes, service, appended, notices } = build({
      registry: { get: async () => view({ pack: tampered, sha256: packSha256(tampered) }) },
      logger: { warn: withArgs([expect.objectContaining({ packId: 'kyc' }), expect.any(String)], () => undefined) },
    });
    await expect(
      service.validate(caller, { rulePackId: 'kyc', rulePackVersion: '1.0.0', payload: { name: 'x' } }),
    ).rejects.toThrow(/signature does not match/);
    fakes.verify();
    expect([appended, notices]).toEqual([[], []]);
  });

  it('refuses a deprecated pack, naming its replacement', async () => {
    const { fakes, service, appended } = build({
      registry: { get: async () => view({ status: 'deprecated', replacement: { pack_id: 'kyc', version: '2.0.0' } }) },
    });
    const err = await service
      .validate(caller, { rulePackId: 'kyc', rulePackVersion: '1.0.0', payload: { name: 'x' } })
      .catch((e: unknown) => e);
    fakes.verify();
    expect(err).toBeInstanceOf(ConflictError);
    expect((err as Error).message).toMatch(/deprecated; use rule pack 'kyc' version '2.0.0'/);
    expect(appended).toEqual([]);
  });

  it('fetches again after a rulepack.deprecated event drops the cached version', async () => {
    const { fakes, service, packs } = build({ registry: { get: async () => view() } });
    const run = () => service.validate(caller, { rulePackId: 'kyc', rulePackVersion: '1.0.0', payload: { name: 'x' } });
    await run();
    packs.drop({ pack_id: 'kyc', version: '1.0.0' });
    await run();
    fakes.verify();
    expect(fakes.argsOf('registry', 'get')).toHaveLength(2);
  });
});
