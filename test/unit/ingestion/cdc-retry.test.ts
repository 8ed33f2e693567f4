// The replication runner's promise that no change is lost when staging a WAL batch fails (the
// database unreachable): the failed batch is sent again, as the same batch (same name, same
// content, so it resumes from its checkpoint), before any change that came after it, and the
// changes after it go as the next batch once it lands. The sink is the batch service's interface,
// here a recorder that fails the first call; the stream's messages are fed as pgoutput gives them.
import fs from 'node:fs';
import { CdcRunner, type CdcOptions, type CdcSink } from '../../../subgraphs/ingestion/cdc.connector';
import type { Batch, Pipeline } from '../../../subgraphs/ingestion/pipeline.types';
import type { Spooled } from '../../../subgraphs/ingestion/spool';

const pipeline = {
  id: '00000000-0000-4000-8000-000000000001',
  tenantId: 't',
  name: 'cdc',
  definition: { source: { kind: 'postgres_cdc', table: 'public.items' }, batch_size: 1000 },
} as unknown as Pipeline;

function feed(runner: CdcRunner, commitLsn: string, ids: number[]): void {
  const on = (runner as unknown as { onMessage(lsn: string, m: unknown): void }).onMessage.bind(runner);
  const relation = { columns: [{ name: 'id' }] };
  on(commitLsn, { tag: 'begin' });
  for (const id of ids) on(commitLsn, { tag: 'insert', relation, new: { id } });
  on(commitLsn, { tag: 'commit', commitEndLsn: commitLsn });
}

test('a WAL batch whose staging fails is sent again as the same batch, before the changes after it', async () => {
  const calls: { name: string; ids: number[] }[] = [];
  let fail = true;
  const sink: CdcSink = {
    async ingest(_p: Pipeline, source: Spooled, name: string) {
      const text = fs.readFileSync(source.path, 'utf8');
      calls.push({
        name,
        ids: text
          .trim()
          .split('\n')
          .map((l) => (JSON.parse(l) as { id: number }).id),
      });
      if (fail) {
        fail = false;
        throw new Error('connection refused');
      }
      return { status: 'completed' } as Batch;
    },
    recent: async () => [],
  };
  const warnings: string[] = [];
  const runner = new CdcRunner(pipeline, sink, {
    maxBytes: 1 << 20,
    flushMs: 20,
    heartbeatMs: 60_000,
    logger: {
      warn: ((_o: unknown, m: string) => void warnings.push(m)) as CdcOptions['logger']['warn'],
      info: () => undefined,
    },
  });
  feed(runner, '0/100', [1, 2]);
  // The first lot is staged (and fails) after the flush interval; more changes arrive meanwhile.
  for (let i = 0; calls.length < 1 && i < 100; i++) await new Promise((r) => setTimeout(r, 10));
  expect(calls.length).toBe(1);
  feed(runner, '0/200', [3]);
  for (let i = 0; calls.length < 3 && i < 100; i++) await new Promise((r) => setTimeout(r, 50));
  await runner.stop();

  expect(calls[0]).toEqual({ name: 'wal:0/100-0/100', ids: [1, 2] });
  // Sent again unchanged (the same batch resumes), then what came after, in order, once each.
  expect(calls[1]).toEqual(calls[0]);
  expect(calls[2]).toEqual({ name: 'wal:0/200-0/200', ids: [3] });
  expect(warnings.some((w) => w.includes('sent again'))).toBe(true);
});
