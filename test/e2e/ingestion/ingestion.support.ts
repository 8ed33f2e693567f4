// Shared by the ingestion suites: a token per tenant, a JSON call, a push of a source, and a
// pipeline definition with a CSV source, a JSONata mapping, a target schema and a PII policy.
import { AccessTokens } from '../../../platform/auth/jwt';
import { TEST_JWT_SECRET } from '../../support/service-harness';

const tokens = new AccessTokens(TEST_JWT_SECRET, 3600);

export const token = (tenantId: string, username = `${tenantId}-user`) =>
  tokens.issue({ username, tenantId, roles: ['user'], scopes: ['read', 'write'] });

export async function call(base: string, tok: string, method: string, path: string, body?: unknown) {
  const res = await fetch(base + path, {
    method,
    headers: { authorization: `Bearer ${tok}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    body: body !== undefined ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as any) : null };
}

/** Pushes a source as the raw body (`contentType`) or, with `multipart`, as the `file` part. */
export async function push(
  base: string,
  tok: string,
  pipelineId: string,
  content: string | Buffer,
  options: { contentType?: string; multipart?: string; sourceName?: string } = {},
) {
  const q = options.sourceName ? `?source_name=${encodeURIComponent(options.sourceName)}` : '';
  let body: FormData | string | Buffer;
  const headers: Record<string, string> = { authorization: `Bearer ${tok}` };
  if (options.multipart) {
    const form = new FormData();
    form.append('file', new Blob([content]), options.multipart);
    body = form;
  } else {
    body = content;
    headers['content-type'] = options.contentType ?? 'text/csv';
  }
  const res = await fetch(`${base}/api/ingestion/pipelines/${pipelineId}/push${q}`, { method: 'POST', headers, body });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as any) : null };
}

export function customersPipeline(name = 'customers', overrides: Record<string, unknown> = {}) {
  return {
    name,
    source: { kind: 'rest_push' },
    format: { type: 'csv' },
    mapping: {
      customer_id: '$number(id)',
      full_name: '$trim(first & " " & last)',
      email: '$lowercase(email)',
      ssn: 'ssn',
      phone: 'phone',
      balance: '$number(balance)',
    },
    target: {
      dataset: 'customers',
      schema: {
        type: 'object',
        required: ['customer_id', 'full_name', 'balance'],
        properties: {
          customer_id: { type: 'integer', minimum: 1 },
          full_name: { type: 'string', minLength: 1 },
          email: { type: 'string' },
          ssn: { type: 'string' },
          phone: { type: 'string' },
          balance: { type: 'number', minimum: 0 },
        },
      },
    },
    pii: { fields: { ssn: 'mask', email: 'tokenize', phone: 'remove', full_name: 'hash' } },
    batch_size: 2,
    ...overrides,
  };
}

export const CUSTOMERS_CSV = [
  'id,first,last,email,ssn,phone,balance',
  '1,Ada,Lovelace,ADA@example.com,123-45-6789,+1 202 555 0101,10.5',
  '2,Alan,Turing,alan@example.com,987-65-4321,+1 202 555 0102,20',
  '3,Grace,Hopper,grace@example.com,111-22-3333,+1 202 555 0103,-5',
  '4,Edsger,Dijkstra,edsger@example.com,222-33-4444,+1 202 555 0104,7',
  '',
].join('\n');
