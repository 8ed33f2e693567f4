// OpenLineage-shaped run events (https://openlineage.io/spec, RunEvent): the job is the tenant's
// pipeline, the input dataset the source object, the output the target dataset. Kept with the
// run (ingestion_lineage_events) and served by the REST door; counts only, never values.
import type { PipelineDefinition } from './pipeline.types';

export const OPENLINEAGE_PRODUCER = 'https://platform.local/ingestion';
const SCHEMA_URL = 'https://openlineage.io/spec/2-0-2/OpenLineage.json#/definitions/RunEvent';

export interface Dataset {
  namespace: string;
  name: string;
}

export function inputDataset(tenantId: string, definition: PipelineDefinition, sourceName: string): Dataset {
  return { namespace: `${definition.source.kind}://${tenantId}`, name: sourceName };
}

export function outputDataset(tenantId: string, definition: PipelineDefinition): Dataset {
  return { namespace: `ingestion://${tenantId}`, name: definition.target.dataset };
}

export function runEvent(p: {
  eventType: 'START' | 'COMPLETE' | 'FAIL';
  tenantId: string;
  pipelineName: string;
  runId: string;
  inputs: Dataset[];
  outputs: Dataset[];
  facets?: Record<string, unknown>;
  at?: Date;
}): Record<string, unknown> {
  return {
    eventType: p.eventType,
    eventTime: (p.at ?? new Date()).toISOString(),
    producer: OPENLINEAGE_PRODUCER,
    schemaURL: SCHEMA_URL,
    run: { runId: p.runId, facets: p.facets ?? {} },
    job: { namespace: `ingestion://${p.tenantId}`, name: p.pipelineName },
    inputs: p.inputs,
    outputs: p.outputs,
  };
}
