// The ingestion routes' JSON schemas (params, query strings, bodies): each validates the request
// and documents the route in OpenAPI. A pushed source (multipart or a raw streamed body) is read
// by the handler, not by a schema.

export const TenantQuery = { type: 'object', properties: { tenant_id: { type: 'string', minLength: 1 } } } as const;
export const ListQuery = {
  type: 'object',
  properties: { tenant_id: { type: 'string', minLength: 1 }, limit: { type: 'integer', minimum: 1, maximum: 500 } },
} as const;
export const PipelineParams = {
  type: 'object',
  properties: { pipeline_id: { type: 'string', maxLength: 100 } },
  required: ['pipeline_id'],
} as const;
export const BatchParams = {
  type: 'object',
  properties: { batch_id: { type: 'string', maxLength: 100 } },
  required: ['batch_id'],
} as const;
export const DefinitionBody = {
  type: 'object',
  properties: {
    definition: { type: 'object', additionalProperties: true, description: 'The pipeline definition as JSON' },
    yaml: { type: 'string', maxLength: 262144, description: 'Or the definition as YAML text' },
    tenant_id: { type: 'string', minLength: 1 },
  },
} as const;
export const PushQuery = {
  type: 'object',
  properties: {
    tenant_id: { type: 'string', minLength: 1 },
    source_name: { type: 'string', minLength: 1, maxLength: 500, pattern: '^[^\\u0000-\\u001f]+$' },
  },
} as const;
export const RecordsQuery = {
  type: 'object',
  properties: {
    tenant_id: { type: 'string', minLength: 1 },
    after: { type: 'integer', minimum: -1 },
    limit: { type: 'integer', minimum: 1, maximum: 1000 },
  },
} as const;
