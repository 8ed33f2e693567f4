// Proofs of many entries from a checkpoint's whole tree (LedgerProofService.inclusionStream) on a
// real database: each one verifies in the standalone verifier and equals the batch route's proof
// of the same entry; by ids (any order, answered in seq order, unknown and other tenants' ids
// not found) and by seq range (of one event type); the tenant rule and bad input refused before
// anything is read.
import pino from 'pino';
import { createTestDatabase, type TestDatabase } from '../../support/database';
import { createLedgerModule, createLedgerProofs, type LedgerModule } from '../../../subgraphs/ledger/ledger.module';
import type { InclusionProofBatch, LedgerProofService } from '../../../subgraphs/ledger/ledger-proof.service';
import { prepareAppend } from '../../../subgraphs/ledger/ledger.service';
import { inclusionJson } from '../../../rest-compat/ledger/ledger-proofs.routes';
import { InputError, NotFoundError } from '../../../platform/errors/domain-errors';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const verifier = require('../../../verifier/verify-proof.cjs') as { verify(doc: unknown, jwks: unknown): string };

jest.setTimeout(120_000);

const callerOf = (tenantId: string) =>
  ({
    correlationId: 'stream-test',
    auth: { username: 'auditor', tenantId, roles: ['user'], scopes: ['read'], isService: false },
  }) as never;
const A = 'stream-a';
const B = 'stream-b';

let db: TestDatabase;
let ledger: LedgerModule;
let proofs: LedgerProofService;
let jwks: unknown;
let idsA: string[];
let idsB: string[];

async function append(tenantId: string, count: number): Promise<string[]> {
  const done = await Promise.all(
    Array.from({ length: count }, (_, i) =>
      ledger.committer.append(
        prepareAppend({ tenantId, eventType: i % 3 === 0 ? 'kept' : 'other', eventData: { i }, userId: null }),
      ),
    ),
  );
  return done.map((d) => d.event.id);
}

async function all(stream: Promise<{ batches: AsyncIterable<InclusionProofBatch> }>) {
  const batches: InclusionProofBatch[] = [];
  for await (const b of (await stream).batches) batches.push(b);
  return batches;
}

beforeAll(async () => {
  db = await createTestDatabase();
  ledger = createLedgerModule(db, () => {});
  proofs = await createLedgerProofs(
    db,
    ledger,
    { every: 1_000_000, intervalMs: 0, onDemandPerMinute: 100, privateKeyPem: undefined },
    pino({ level: 'silent' }),
  );
  idsA = await append(A, 37);
  idsB = await append(B, 4);
  jwks = await proofs.jwks();
});
afterAll(async () => db?.drop());

it('proves entries named by id in seq order; each verifies and equals the batch route proof', async () => {
  const checkpoint = await proofs.requestCheckpoint(callerOf(A));
  await append(A, 3); // beyond the checkpoint: not in its tree
  const later = (await ledger.store.eventsBetween(A, 38, 40)).map((e) => e.id);
  const unknown = '00000000-0000-4000-8000-000000000000';
  const asked = [...idsA].reverse().concat(idsB[0]!, unknown, later[0]!);
  const batches = await all(proofs.inclusionStream(callerOf(A), { treeSize: 37, entryIds: asked, batchSize: 10 }));
  expect(batches.map((b) => b.proofs.length)).toEqual([10, 10, 10, 7]);
  const streamed = batches.flatMap((b) => b.proofs);
  expect(streamed.map((p) => p.entry.seq)).toEqual(Array.from({ length: 37 }, (_, i) => i + 1));
  expect(batches.at(-1)!.notFound.sort()).toEqual([idsB[0]!, unknown, later[0]!].sort());
  const reference = await proofs.inclusionBatch(callerOf(A), { entryIds: idsA, treeSize: 37 });
  for (const p of streamed) {
    const doc = inclusionJson({ tenantId: A, treeSize: 37, checkpoint, ...p });
    expect(verifier.verify(doc, jwks)).toContain(`seq ${p.entry.seq}`);
    expect(p.auditPath).toEqual(reference.proofs.find((r) => r.entry.id === p.entry.id)!.auditPath);
  }
});

it('proves a seq range of one event type', async () => {
  const batches = await all(
    proofs.inclusionStream(callerOf(A), { treeSize: 37, fromSeq: 5, toSeq: 30, eventType: 'kept', batchSize: 8 }),
  );
  const seqs = batches.flatMap((b) => b.proofs.map((p) => p.entry.seq));
  expect(seqs.length).toBeGreaterThan(0);
  expect(seqs.every((s) => s >= 5 && s <= 30)).toBe(true);
  expect(batches.flatMap((b) => b.proofs).every((p) => p.entry.eventType === 'kept')).toBe(true);
  expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
});

it('refuses another tenant, bad input and a size with no checkpoint before reading anything', async () => {
  await expect(proofs.inclusionStream(callerOf(A), { tenantId: B, treeSize: 4, entryIds: idsB })).rejects.toThrow(
    'Access to this tenant is not allowed',
  );
  await expect(proofs.inclusionStream(callerOf(A), { treeSize: 37 })).rejects.toBeInstanceOf(InputError);
  await expect(
    proofs.inclusionStream(callerOf(A), { treeSize: 37, entryIds: idsA, fromSeq: 1 }),
  ).rejects.toBeInstanceOf(InputError);
  await expect(proofs.inclusionStream(callerOf(A), { treeSize: 37, entryIds: ['nope'] })).rejects.toBeInstanceOf(
    InputError,
  );
  await expect(proofs.inclusionStream(callerOf(A), { treeSize: 0, fromSeq: 1 })).rejects.toBeInstanceOf(InputError);
  await expect(proofs.inclusionStream(callerOf(A), { treeSize: 36, fromSeq: 1 })).rejects.toBeInstanceOf(NotFoundError);
});
