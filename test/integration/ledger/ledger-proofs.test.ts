// Proofs built by the ledger on a real database and checked by the standalone verifier
// (verifier/verify-proof.cjs), which trusts nothing the server says: every entry's inclusion,
// consistency between checkpoints, and each kind of tampering refused. Also the tenant rule, bad
// sizes and ids, the on-demand rate limit, the platform chain of checkpoints, and a chain written
// before the tree existed.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pino from 'pino';
import { createTestDatabase, type TestDatabase } from '../../support/database';
import { createLedgerModule, createLedgerProofs, type LedgerModule } from '../../../subgraphs/ledger/ledger.module';
import { PLATFORM_CHAIN, type LedgerProofService } from '../../../subgraphs/ledger/ledger-proof.service';
import { prepareAppend } from '../../../subgraphs/ledger/ledger.service';
import { consistencyJson, checkpointJson, inclusionJson } from '../../../rest-compat/ledger/ledger-proofs.routes';
import { InputError, NotFoundError, RateLimitedError } from '../../../platform/errors/domain-errors';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const verifier = require('../../../verifier/verify-proof.cjs') as { verify(doc: unknown, jwks: unknown): string };

jest.setTimeout(120_000);

const logger = pino({ level: 'silent' });
const callerOf = (tenantId: string) =>
  ({
    correlationId: 'proof-test',
    auth: { username: 'auditor', tenantId, roles: ['user'], scopes: ['read', 'write'], isService: false },
  }) as never;
const A = 'proof-a';
const B = 'proof-b';

let db: TestDatabase;
let ledger: LedgerModule;
let proofs: LedgerProofService;
let jwks: unknown;

async function append(tenantId: string, count: number, from = 0): Promise<void> {
  // Several at once, so the group commit writes them in batches of uneven sizes.
  await Promise.all(
    Array.from({ length: count }, (_, i) =>
      ledger.committer.append(
        prepareAppend({
          tenantId,
          eventType: 'proof_test',
          eventData: { i: from + i, text: 'ünïcødé', nested: { b: [1, 2.5], a: null } },
          userId: i % 2 ? 'alice' : null,
        }),
      ),
    ),
  );
}

beforeAll(async () => {
  db = await createTestDatabase();
  ledger = createLedgerModule(db, () => {});
  proofs = await createLedgerProofs(
    db,
    ledger,
    { every: 1_000_000, intervalMs: 0, onDemandPerMinute: 3, privateKeyPem: undefined },
    logger,
  );
  await append(A, 23);
  await append(B, 5);
  jwks = await proofs.jwks();
});
afterAll(async () => db?.drop());

const clone = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;

describe('inclusion', () => {
  it('every entry of a 23-entry checkpoint verifies in the standalone script', async () => {
    const checkpoint = await proofs.requestCheckpoint(callerOf(A));
    expect(checkpoint.treeSize).toBe(23);
    for (let seq = 1; seq <= 23; seq++) {
      const proof = inclusionJson(await proofs.inclusion(callerOf(A), { seq }));
      expect(verifier.verify(proof, jwks)).toContain(`seq ${seq}`);
    }
  });

  it('after its proofs verified, a byte changed anywhere in a path is still refused (the memo of proved nodes)', async () => {
    // The verifier remembers the nodes that verified proofs computed, per checkpoint; a proof that
    // meets one of them must carry the same rest of path to stop early.
    for (const seq of [4, 9, 17]) {
      const proof = inclusionJson(await proofs.inclusion(callerOf(A), { seq }));
      expect(verifier.verify(proof, jwks)).toContain(`seq ${seq}`);
      for (let k = 0; k < proof.audit_path.length; k++) {
        const bad = clone(proof);
        const h = bad.audit_path[k]!;
        bad.audit_path[k] = (h[0] === '0' ? '1' : '0') + h.slice(1);
        expect(() => verifier.verify(bad, jwks)).toThrow(/root/);
      }
      const extra = clone(proof);
      extra.audit_path.push(proof.audit_path[0]!);
      expect(() => verifier.verify(extra, jwks)).toThrow(/too long|root/);
    }
  });

  it('the command line verifier accepts a saved proof and refuses a tampered one', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ledger-proof-'));
    const proof = inclusionJson(await proofs.inclusion(callerOf(A), { seq: 7 }));
    fs.writeFileSync(path.join(dir, 'jwks.json'), JSON.stringify(jwks));
    fs.writeFileSync(path.join(dir, 'proof.json'), JSON.stringify(proof));
    const script = path.resolve(__dirname, '../../../verifier/verify-proof.cjs');
    const ok = await promisify(execFile)(process.execPath, [
      script,
      'proof',
      '--jwks',
      path.join(dir, 'jwks.json'),
      path.join(dir, 'proof.json'),
    ]);
    expect(ok.stdout).toMatch(/^OK: entry .* \(seq 7\)/);
    const bad = clone(proof);
    bad.entry.event_data.i = 8;
    fs.writeFileSync(path.join(dir, 'bad.json'), JSON.stringify(bad));
    await expect(
      promisify(execFile)(process.execPath, [
        script,
        '--jwks',
        path.join(dir, 'jwks.json'),
        path.join(dir, 'bad.json'),
      ]),
    ).rejects.toMatchObject({ code: 1, stderr: expect.stringContaining('content_hash does not match') });
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('refuses one changed byte of the entry, the path, the root or the signature', async () => {
    const proof = inclusionJson(await proofs.inclusion(callerOf(A), { seq: 11 }));
    const flip = (hex: string) => (hex[0] === '0' ? '1' : '0') + hex.slice(1);
    const cases: [string, (p: ReturnType<typeof clone<typeof proof>>) => void, RegExp][] = [
      [
        'event data',
        (p) => {
          p.entry.event_data.text = 'unicode';
        },
        /content_hash/,
      ],
      [
        'content hash',
        (p) => {
          p.entry.content_hash = flip(p.entry.content_hash);
        },
        /content_hash/,
      ],
      [
        'previous hash',
        (p) => {
          p.entry.previous_hash = flip(p.entry.previous_hash);
        },
        /chain_hash/,
      ],
      [
        'chain hash',
        (p) => {
          p.entry.chain_hash = flip(p.entry.chain_hash);
        },
        /chain_hash/,
      ],
      [
        'audit path',
        (p) => {
          p.audit_path[1] = flip(p.audit_path[1]!);
        },
        /root/,
      ],
      [
        'shortened path',
        (p) => {
          p.audit_path.pop();
        },
        /too short/,
      ],
      [
        'root',
        (p) => {
          p.checkpoint.root_hash = flip(p.checkpoint.root_hash);
        },
        /signature/,
      ],
      [
        'signature',
        (p) => {
          const s = Buffer.from(p.checkpoint.signature, 'base64url');
          s[5] = s[5]! ^ 1;
          p.checkpoint.signature = s.toString('base64url');
        },
        /signature/,
      ],
      [
        'tree size',
        (p) => {
          p.checkpoint.tree_size = 24;
          p.tree_size = 24;
        },
        /signature/,
      ],
      [
        'unknown key',
        (p) => {
          p.checkpoint.key_id = 'someone-else';
        },
        /not in the JWKS/,
      ],
    ];
    expect(verifier.verify(proof, jwks)).toMatch(/^entry/);
    for (const [what, tamper, reason] of cases) {
      const bad = clone(proof);
      tamper(bad);
      expect(() => verifier.verify(bad, jwks)).toThrow(reason);
      expect(what).toBeTruthy();
    }
  });

  it('takes a new checkpoint when the entry is newer than the latest one', async () => {
    await append(A, 4, 23);
    const proof = inclusionJson(await proofs.inclusion(callerOf(A), { seq: 26 }));
    expect(proof.tree_size).toBe(27);
    expect(verifier.verify(proof, jwks)).toContain('27 entries');
  });
});

describe('consistency', () => {
  it('each checkpoint extends every earlier one, and tampering is refused', async () => {
    await append(A, 9, 27);
    const latest = await proofs.requestCheckpoint(callerOf(A));
    expect(latest.treeSize).toBe(36);
    const sizes = (await proofs.listCheckpoints(callerOf(A), undefined, 100))
      .map((c) => c.treeSize)
      .sort((a, b) => a - b);
    expect(sizes).toEqual([23, 27, 36]);
    for (const first of sizes) {
      const proof = consistencyJson(await proofs.consistency(callerOf(A), { first }));
      expect(verifier.verify(proof, jwks)).toMatch(first === 36 ? /agree/ : /extends/);
    }
    const proof = consistencyJson(await proofs.consistency(callerOf(A), { first: 23, second: 36 }));
    const bad = clone(proof);
    bad.proof[0] = 'f'.repeat(64);
    expect(() => verifier.verify(bad, jwks)).toThrow(/root/);
    const swapped = clone(proof);
    swapped.first.root_hash = proof.second.root_hash;
    expect(() => verifier.verify(swapped, jwks)).toThrow(/signature/);
  });
});

describe('checkpoints', () => {
  it('are signed with a key of the JWKS and recorded on the platform chain', async () => {
    const latest = await proofs.latestCheckpoint(callerOf(A));
    expect(verifier.verify(checkpointJson(latest), jwks)).toContain('is signed by');
    const platform = await ledger.store.listEvents(
      PLATFORM_CHAIN,
      { eventType: 'ledger.checkpoint' },
      { limit: 100, offset: 0 },
    );
    const recorded = platform.map(
      (e) =>
        JSON.parse(e.eventDataText) as { tenant_id: string; tree_size: number; root_hash: string; signature: string },
    );
    expect(recorded).toContainEqual(
      expect.objectContaining({ tenant_id: A, tree_size: 36, root_hash: latest.rootHash, signature: latest.signature }),
    );
  });

  it('a second request at the same size answers the same checkpoint; the fourth in a minute is rate limited', async () => {
    const caller = callerOf(B);
    const first = await proofs.requestCheckpoint(caller);
    const again = await proofs.requestCheckpoint(caller);
    expect(again).toEqual(first);
    await proofs.requestCheckpoint(caller);
    await expect(proofs.requestCheckpoint(caller)).rejects.toBeInstanceOf(RateLimitedError);
  });
});

describe('the tenant rule and hostile input', () => {
  it("another tenant's entry is not found; naming the other tenant is forbidden", async () => {
    const entryOfB = (await ledger.store.listEvents(B, {}, { limit: 1, offset: 0 }))[0]!;
    await expect(proofs.inclusion(callerOf(A), { entryId: entryOfB.id })).rejects.toBeInstanceOf(NotFoundError);
    await expect(proofs.inclusion(callerOf(A), { tenantId: B, entryId: entryOfB.id })).rejects.toMatchObject({
      code: 'FORBIDDEN',
    });
    await expect(proofs.latestCheckpoint(callerOf(A), B)).rejects.toMatchObject({ code: 'FORBIDDEN' });
  });

  it('sizes beyond the log, garbage ids and sizes are 422; a size with no checkpoint is 404', async () => {
    await expect(proofs.inclusion(callerOf(A), { seq: 1, treeSize: 5000 })).rejects.toBeInstanceOf(InputError);
    await expect(proofs.inclusion(callerOf(A), { seq: 5000 })).rejects.toBeInstanceOf(NotFoundError);
    await expect(proofs.inclusion(callerOf(A), { entryId: 'not-a-uuid' })).rejects.toBeInstanceOf(InputError);
    await expect(proofs.inclusion(callerOf(A), {})).rejects.toBeInstanceOf(InputError);
    await expect(proofs.inclusion(callerOf(A), { seq: -1 })).rejects.toBeInstanceOf(InputError);
    await expect(proofs.inclusion(callerOf(A), { seq: 1.5 })).rejects.toBeInstanceOf(InputError);
    await expect(proofs.inclusion(callerOf(A), { seq: 5, treeSize: 3 })).rejects.toBeInstanceOf(InputError);
    await expect(proofs.consistency(callerOf(A), { first: 0 })).rejects.toBeInstanceOf(InputError);
    await expect(proofs.consistency(callerOf(A), { first: 40, second: 36 })).rejects.toBeInstanceOf(InputError);
    await expect(proofs.consistency(callerOf(A), { first: 5000 })).rejects.toBeInstanceOf(InputError);
    await expect(proofs.consistency(callerOf(A), { first: 24, second: 36 })).rejects.toBeInstanceOf(NotFoundError);
  });
});

describe('a chain written before the tree', () => {
  it('gets its tree built once, and its proofs verify', async () => {
    await append('proof-old', 13);
    // As a chain from before this release looks: no frontier, no nodes.
    await db.sql.query(`UPDATE ledger_chain_heads SET tree_frontier = '' WHERE tenant_id = 'proof-old'`);
    await db.sql.query(`DELETE FROM ledger_tree_nodes WHERE tenant_id = 'proof-old'`);
    expect(await ledger.committer.catchUpTree('proof-old')).toBe(true);
    expect(await ledger.committer.catchUpTree('proof-old')).toBe(false);
    await append('proof-old', 3, 13);
    for (const seq of [1, 8, 13, 16]) {
      expect(verifier.verify(inclusionJson(await proofs.inclusion(callerOf('proof-old'), { seq })), jwks)).toContain(
        `seq ${seq}`,
      );
    }
  });
});
