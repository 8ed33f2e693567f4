// The schema a pipeline definition must pass: the schema registry's `ingestion-pipeline` (latest),
// which the registry seeds from platform/contracts/ingestion-pipeline.schema.json, compiled once
// per version; that contract file itself when the registry cannot be reached (so a registry
// outage neither blocks pipelines nor lets an unchecked one in).
import fs from 'node:fs';
import path from 'node:path';
import Ajv, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { SchemaRegistryClient } from '../../platform/clients/schema-registry.client';
import type { ServiceCallContext } from '../../platform/clients/service-request';
import { PROJECT_ROOT } from '../../platform/project-root';

export const PIPELINE_SCHEMA_NAME = 'ingestion-pipeline';
export const PIPELINE_CONTRACT = path.join(PROJECT_ROOT, 'platform/contracts/ingestion-pipeline.schema.json');

export interface PipelineSchema {
  validate: ValidateFunction;
  /** `registry@<version>` or `contract-file`. */
  source: string;
}

function compile(schema: Record<string, unknown>): ValidateFunction {
  const ajv = new Ajv({ allErrors: true, strict: false });
  addFormats(ajv);
  const { $id: _id, ...rest } = schema;
  return ajv.compile(rest);
}

export class PipelineSchemaSource {
  private readonly compiled = new Map<string, ValidateFunction>();
  private fallback?: ValidateFunction;

  constructor(private readonly registry?: Pick<SchemaRegistryClient, 'get'>) {}

  async current(context: ServiceCallContext): Promise<PipelineSchema> {
    if (this.registry) {
      try {
        const view = await this.registry.get(context, PIPELINE_SCHEMA_NAME, 'latest');
        const key = `${view.version}:${view.fingerprint ?? JSON.stringify(view.schema).length}`;
        let validate = this.compiled.get(key);
        if (!validate) this.compiled.set(key, (validate = compile(view.schema)));
        return { validate, source: `registry@${view.version}` };
      } catch {
        // fall through to the contract file
      }
    }
    this.fallback ??= compile(JSON.parse(fs.readFileSync(PIPELINE_CONTRACT, 'utf8')) as Record<string, unknown>);
    return { validate: this.fallback, source: 'contract-file' };
  }
}
