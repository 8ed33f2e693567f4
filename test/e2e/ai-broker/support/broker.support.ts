// What the AI broker's e2e tests share: a stand-in retrieval service speaking spec 02's POST
// /retrieve, a schema-registry stand-in for the workflow-pack schema, HTTP helpers, and the
// broker's outbox events.
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { SchemaVersionView } from '../../../../platform/clients/schema-registry.client';
import { WORKFLOW_PACK_CONTRACT } from '../../../../subgraphs/ai-broker/workflow-pack.schema-source';
import type { Harness } from '../../../support/service-harness';

/** PII that must never reach a vendor, a response, the ledger or an error (synthetic values). */
export const PII = {
  ssn: '487-65-4320',
  email: 'alice.secret@example.com',
  phone: '(415) 555-0134',
  card: '4111 1111 1111 1111',
  address: '1600 Pennsylvania Avenue NW',
};
export const PII_VALUES = Object.values(PII);

export interface RetrievalStandIn {
  url: string;
  seen: { body: any; tenant?: string; authorization?: string }[];
  chunks: { content: string; document_title: string; score: number; heading: string | null }[];
  /** When set, POST /retrieve answers 503 (the service is down behind its port). */
  down: boolean;
  /** When set, POST /retrieve sends its headers and part of a body, then nothing more. */
  stall: boolean;
  close(): Promise<void>;
}

export async function startRetrieval(): Promise<RetrievalStandIn> {
  const state: RetrievalStandIn = { url: '', seen: [], chunks: [], down: false, stall: false, close: async () => {} };
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/retrieve') {
        res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ detail: 'Not Found' }));
        return;
      }
      if (state.stall) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"chunks": [');
        return;
      }
      if (state.down) {
        res
          .writeHead(503, { 'content-type': 'application/json' })
          .end(JSON.stringify({ detail: 'Service unavailable' }));
        return;
      }
      const parsed = JSON.parse(body);
      state.seen.push({
        body: parsed,
        tenant: req.headers['x-tenant-id'] as string | undefined,
        authorization: req.headers.authorization,
      });
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ query: parsed.query, chunks: state.chunks, retrieval_time_ms: 1.5 }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  state.close = () =>
    new Promise<void>((r) => {
      server.close(() => r());
      server.closeAllConnections();
    });
  return state;
}

/** The schema registry's `get`, serving the contract file (or down). */
export function schemaRegistryStub() {
  const stub = {
    calls: 0,
    down: false,
    async get(_context: unknown, name: string, version = 'latest'): Promise<SchemaVersionView> {
      stub.calls++;
      if (stub.down)
        throw Object.assign(new (class ServiceCallError extends Error {})('unreachable'), { status: undefined });
      if (name !== 'workflow-pack') throw new Error(`unexpected schema ${name} ${version}`);
      return {
        name,
        kind: 'workflow-pack',
        version: '1.0.0',
        schema: JSON.parse(fs.readFileSync(WORKFLOW_PACK_CONTRACT, 'utf8')),
        compatibility: 'BACKWARD',
        owner: 'platform',
        created_at: '2026-01-01T00:00:00Z',
        created_by: null,
        fingerprint: 'f1',
      };
    },
  };
  return stub;
}

export function client(base: string) {
  return async function call(
    method: string,
    path: string,
    options: { token?: string | null; body?: unknown; headers?: Record<string, string> } = {},
  ) {
    const headers: Record<string, string> = { ...options.headers };
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(`${base}${path}`, {
      method,
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
    });
    const text = await res.text();
    let body: any;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    return { status: res.status, text, body, headers: res.headers };
  };
}

export async function brokerEvents(
  h: Harness,
): Promise<
  { event_type: string; tenant_id: string; event_data: any; user_id: string | null; correlation_id: string | null }[]
> {
  const r = await h.db.sql.query<any>(
    `SELECT event_type, tenant_id, event_data, user_id, correlation_id FROM outbox_events WHERE service = 'ai-broker' ORDER BY outbox_events.id`,
  );
  return r.rows.map((row) => ({
    ...row,
    event_data: typeof row.event_data === 'string' ? JSON.parse(row.event_data) : row.event_data,
  }));
}
