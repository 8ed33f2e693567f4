// The trigger (issue 33): a durable consumer of `ingestion.completed` on the events backbone (a
// platform group over every tenant's stream, started at the streams' beginning, so batches that
// landed while DataFlow was down still run). Each batch runs every certified pack whose trigger
// names its dataset, once (the run is claimed per batch id); a failure that may pass (the
// registry or the database away) is a nack, and the redelivery resumes the run where it stopped.
import { INGESTION_COMPLETED } from '../../platform/contracts/pipeline.events';
import type { Database } from '../../platform/db/database';
import { contractHandler } from '../../platform/events/backbone/contract-handler';
import { consume, type ConsumeOptions } from '../../platform/events/backbone/durable-consumer';
import type { DataflowService } from './run.service';

export const INGESTION_GROUP = 'dataflow.ingestion';

export async function consumeIngestion(
  db: Pick<Database, 'sql'>,
  service: DataflowService,
  options: Pick<ConsumeOptions, 'bus' | 'logger' | 'pollMs' | 'backoffMs'>,
): Promise<() => Promise<void>> {
  const consumer = await consume(db, {
    ...options,
    subscription: INGESTION_GROUP,
    topic: INGESTION_COMPLETED.topic,
    from: 'start',
    handler: contractHandler(INGESTION_COMPLETED, async (event, record) => {
      await service.onIngestion(event, record.id);
    }),
  });
  return () => consumer.stop();
}
