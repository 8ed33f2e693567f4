// The per-request GraphQL context: the caller, the ingestion domain, and a DataLoader that
// batches the IngestionPipeline references of one request into one tenant-scoped store read.
import DataLoader from 'dataloader';
import type { Caller } from '../../platform/auth/caller';
import type { IngestionModule } from './ingestion.module';
import type { Pipeline } from './pipeline.types';

export interface IngestionGraphQLContext {
  caller: Caller;
  ingestion: IngestionModule;
  loaders: { pipelineById: DataLoader<string, Pipeline | null> };
}

export function ingestionContext(caller: Caller, ingestion: IngestionModule): IngestionGraphQLContext {
  return {
    caller,
    ingestion,
    loaders: { pipelineById: new DataLoader((ids) => ingestion.pipelines.byIds(caller, ids)) },
  };
}
