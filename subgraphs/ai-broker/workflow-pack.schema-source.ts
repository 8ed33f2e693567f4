// The workflow-pack schema a generated pack must pass: the schema registry's `workflow-pack`
// (latest), compiled once per version; the contract file platform/contracts/workflow-pack.schema.json
// when the registry cannot be reached (the registry seeds itself from that same file).
import fs from 'node:fs';
import path from 'node:path';
import Ajv, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { SchemaRegistryClient } from '../../platform/clients/schema-registry.client';
import type { ServiceCallContext } from '../../platform/clients/service-request';
import { PROJECT_ROOT } from '../../platform/project-root';

export const WORKFLOW_PACK_CONTRACT = path.join(PROJECT_ROOT, 'platform/contracts/workflow-pack.schema.json');

export interface WorkflowPackSchema {
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

export class WorkflowPackSchemaSource {
  private readonly compiled = new Map<string, ValidateFunction>();
  private fallback?: ValidateFunction;

  constructor(private readonly registry: Pick<SchemaRegistryClient, 'get'>) {}

  async current(context: ServiceCallContext): Promise<WorkflowPackSchema> {
    try {
      const view = await this.registry.get(context, 'workflow-pack', 'latest');
      const key = `${view.version}:${view.fingerprint ?? JSON.stringify(view.schema).length}`;
      let validate = this.compiled.get(key);
      if (!validate) this.compiled.set(key, (validate = compile(view.schema)));
      return { validate, source: `registry@${view.version}` };
    } catch {
      this.fallback ??= compile(JSON.parse(fs.readFileSync(WORKFLOW_PACK_CONTRACT, 'utf8')) as Record<string, unknown>);
      return { validate: this.fallback, source: 'contract-file' };
    }
  }
}
