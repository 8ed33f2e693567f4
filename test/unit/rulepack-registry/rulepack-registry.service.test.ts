// The registry's rules without a database: strict fakes of the stores fail on any call a test did
// not expect, so these also prove what is *not* touched (no transaction for a refused move, no
// notice when the commit fails).
import type { Caller } from '../../../platform/auth/caller';
import { TenantAccess } from '../../../platform/auth/tenant-access';
import { ConflictError, ForbiddenError, InputError, NotFoundError } from '../../../platform/errors/domain-errors';
import {
  generateSigningKeyPem,
  parseSigningKeyPem,
  publicJwkOf,
  verifyPack,
} from '../../../subgraphs/rulepack-registry/pack-signature';
import { isAuthor, mayDecide, mayRequestReview } from '../../../subgraphs/rulepack-registry/rulepack-registry.policy';
import { RulePackService } from '../../../subgraphs/rulepack-registry/rulepack-registry.service';
import type {
  RulePackStore,
  RulePackStores,
  RulePackUnitOfWork,
  RulePackVersionRecord,
} from '../../../subgraphs/rulepack-registry/rulepack-registry.types';
import type { SigningKeys } from '../../../subgraphs/rulepack-registry/signing-keys.service';
import { strictFake } from '../../support/strict-fake';

const auth = (username: string, tenantId: string, roles: string[], scopes = ['read']) => ({
  username,
  tenantId,
  roles,
  scopes,
  isService: false,
});
const caller = (a: ReturnType<typeof auth>): Caller => ({ auth: a, correlationId: 'c-1' });
const author = auth('root', 'default', ['admin'], ['read', 'write', 'admin']);
const reviewer = auth('rita', 'default', ['reviewer']);
const stranger = auth('bob', 'tenant-b', ['admin'], ['read', 'write', 'admin']);
const operator = auth('op', 'platform', ['platform-admin'], ['read', 'write', 'admin']);

const pack = {
  metadata: { pack_id: 'p', version: '1.0.0' },
  rules: [{ rule_id: 'r', type: 'FATAL', field: 'a', operator: 'required', error_message: 'm' }],
};
const version = (status: RulePackVersionRecord['status']): RulePackVersionRecord => ({
  packId: 'p',
  version: '1.0.0',
  status,
  pack,
  sha256: 'f'.repeat(64),
  ownerTenant: 'default',
  author: 'root',
  reviewers: [],
  submittedAt: new Date(0),
  certifiedAt: null,
  signature: null,
  keyId: null,
  deprecatedAt: null,
  replacement: null,
});

const privateKey = parseSigningKeyPem(generateSigningKeyPem());
const keys = strictFake<SigningKeys>(
  { current: async () => ({ kid: publicJwkOf(privateKey).kid, privateKey }) },
  'keys',
);
const noAudit = new TenantAccess(async () => {
  throw new Error('no operator access expected');
});

function serviceWith(
  packs: Partial<RulePackStore>,
  tx?: (stores: RulePackStores) => Partial<RulePackStores>,
  notices: unknown[] = [],
) {
  const store = strictFake<RulePackStore>(packs, 'packs');
  const uow = strictFake<RulePackUnitOfWork>(
    {
      packs: store,
      ...(tx
        ? {
            // Notices are written in the transaction (the notice outbox); recorded here as written.
            transaction: async (work: (s: RulePackStores) => Promise<unknown>) =>
              work({
                packs: store,
                notices: {
                  append: async (contract, notice, ctx) => {
                    notices.push({ topic: contract.topic, notice, subject: ctx.subject });
                    return {} as never;
                  },
                },
                ...tx({ packs: store } as RulePackStores),
              } as RulePackStores),
          }
        : {}),
    } as Partial<RulePackUnitOfWork>,
    'stores',
  );
  return new RulePackService(
    uow,
    keys,
    () => undefined,
    noAudit,
    () => undefined,
  );
}

describe('policy', () => {
  it('knows the author, reviewers and writers', () => {
    const v = { ownerTenant: 'default', author: 'root' };
    expect(isAuthor(author, v)).toBe(true);
    expect(isAuthor(auth('root', 'tenant-b', ['admin']), v)).toBe(false); // same name, other tenant
    expect(mayDecide(author, v)).toBe('author');
    expect(mayDecide(reviewer, v)).toBe('yes');
    expect(mayDecide(auth('ada', 'default', ['admin']), v)).toBe('yes');
    expect(mayDecide(auth('alice', 'default', ['user']), v)).toBe('role');
    expect(mayDecide(stranger, v)).toBe('role');
    expect(mayDecide(operator, v)).toBe('yes');
    expect(mayRequestReview(author, v)).toBe(true);
    expect(mayRequestReview(auth('wendy', 'default', ['user'], ['read', 'write']), v)).toBe(true);
    expect(mayRequestReview(auth('alice', 'default', ['user']), v)).toBe(false);
    expect(mayRequestReview(stranger, v)).toBe(false);
  });
});

describe('RulePackService', () => {
  it('refuses the author before any transaction or signing', async () => {
    const service = serviceWith({ findVersion: async () => version('review') });
    await expect(service.certify(caller(author), { packId: 'p', version: '1.0.0' })).rejects.toBeInstanceOf(
      ForbiddenError,
    );
  });

  it("reads with the caller's tenant as viewer: an invisible version is 404", async () => {
    const viewers: unknown[] = [];
    const service = serviceWith({ findVersion: async (viewer) => (viewers.push(viewer), null) });
    await expect(service.get(caller(stranger), { packId: 'p', version: '1.0.0' })).rejects.toBeInstanceOf(
      NotFoundError,
    );
    expect(viewers).toEqual(['tenant-b']);
  });

  it('certifies with a signature over the pack, records the decision, audit and notice in one transaction', async () => {
    const notices: unknown[] = [];
    const recorded: unknown[] = [];
    const audited: unknown[] = [];
    const service = serviceWith(
      {
        findVersion: async () => version('review'),
        transition: async (_ref, t) => ({
          ...version('certified'),
          reviewers: [t.reviewer!],
          signature: t.signature!,
          keyId: t.keyId!,
          certifiedAt: t.certifiedAt!,
        }),
        recordDecision: async (_ref, d) => void recorded.push(d),
      },
      () => ({ outbox: { append: async (e) => void audited.push(e) } }),
      notices,
    );
    const done = await service.certify(caller(reviewer), { packId: 'p', version: '1.0.0' }, 'fine');
    expect(verifyPack(pack, done.signature!, publicJwkOf(privateKey))).toBe(true);
    expect(recorded).toEqual([
      { decision: 'certified', actor: 'rita', fromState: 'review', toState: 'certified', notes: 'fine' },
    ]);
    expect(audited).toEqual([
      expect.objectContaining({
        tenantId: 'default',
        eventType: 'rulepack_certified',
        userId: 'rita',
        eventData: expect.objectContaining({ sha256: 'f'.repeat(64), key_id: done.keyId }),
      }),
    ]);
    expect(notices).toEqual([
      {
        topic: 'rulepack.certified',
        notice: { pack_id: 'p', version: '1.0.0', owner_tenant: 'default', replacement: null },
        subject: 'p@1.0.0',
      },
    ]);
  });

  it('writes no notice when the transaction fails, and reports a lost race as 409', async () => {
    const notices: unknown[] = [];
    const failing = serviceWith(
      {
        findVersion: async () => version('review'),
        transition: async () => version('certified'),
        recordDecision: async () => undefined,
      },
      () => ({
        outbox: {
          append: async () => {
            throw new Error('database gone');
          },
        },
      }),
      notices,
    );
    await expect(failing.certify(caller(reviewer), { packId: 'p', version: '1.0.0' })).rejects.toThrow('database gone');
    expect(notices).toEqual([]);
    let reads = 0;
    const raced = serviceWith(
      { findVersion: async () => (reads++ === 0 ? version('review') : version('draft')), transition: async () => null },
      () => ({}),
    );
    await expect(raced.certify(caller(reviewer), { packId: 'p', version: '1.0.0' })).rejects.toThrow(ConflictError);
  });

  it('checks notes and replacements before writing', async () => {
    const service = serviceWith({
      findVersion: async (_v, ref) =>
        ref.version === '1.0.0' ? version(ref.packId === 'p' ? 'review' : 'draft') : null,
    });
    await expect(service.reject(caller(reviewer), { packId: 'p', version: '1.0.0' }, '')).rejects.toMatchObject({
      issues: [{ loc: ['notes'] }],
    });
    await expect(
      service.reject(caller(reviewer), { packId: 'p', version: '1.0.0' }, 'a\u0000b'),
    ).rejects.toBeInstanceOf(InputError);
    const certifiedService = serviceWith({
      findVersion: async (_v, ref) => (ref.packId === 'p' && ref.version === '1.0.0' ? version('certified') : null),
    });
    await expect(
      certifiedService.deprecate(caller(reviewer), { packId: 'p', version: '1.0.0' }, { replacementVersion: '1.0.0' }),
    ).rejects.toMatchObject({ issues: [{ loc: ['replacementVersion'], msg: 'A version cannot replace itself' }] });
    await expect(
      certifiedService.deprecate(
        caller(reviewer),
        { packId: 'p', version: '1.0.0' },
        { replacement: { packId: 'q', version: '2.0.0' } },
      ),
    ).rejects.toMatchObject({ issues: [{ loc: ['replacement'] }] });
    await expect(
      certifiedService.deprecate(
        caller(reviewer),
        { packId: 'p', version: '1.0.0' },
        { replacementVersion: '2.0.0', replacement: { packId: 'q', version: '2.0.0' } },
      ),
    ).rejects.toBeInstanceOf(InputError);
  });
});
