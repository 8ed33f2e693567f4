// The OCR routes' JSON schemas (params, query strings, bodies): each validates the request and
// documents the route in OpenAPI. The upload itself (multipart) is read by the handler.

export const JobParams = { type: 'object', properties: { job_id: { type: 'string' } }, required: ['job_id'] } as const;
export const TenantQuery = { type: 'object', properties: { tenant_id: { type: 'string', minLength: 1 } } } as const;
export const ReviewBody = {
  type: 'object',
  properties: {
    corrected_text: { type: 'string' },
    corrected_fields: { type: 'object', additionalProperties: true, nullable: true },
    confidence_after_review: { type: 'number', minimum: 0, maximum: 1 },
    tenant_id: { type: 'string', minLength: 1 },
  },
  required: ['corrected_text'],
} as const;
export const CacheParams = {
  type: 'object',
  properties: { document_hash: { type: 'string' } },
  required: ['document_hash'],
} as const;
