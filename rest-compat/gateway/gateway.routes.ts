// The REST gateway's route table (spec 01, gateway endpoints): which backend and upstream path
// each /api/v1 route reaches, the scope it needs, and whether the tenant id is injected where the
// backend expects it (the ledger takes `tenant_id` in its query and JSON bodies).
import type { Scope } from '../../platform/auth/auth-context';
import type { BackendName } from '../../router/gateway.config';

export interface ProxyRoute {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'HEAD' | 'OPTIONS' | ('GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE')[];
  url: string;
  backend: BackendName;
  /** Upstream path; for wildcard routes, the prefix the path remainder is appended to. */
  upstreamPath: string;
  wildcard?: boolean;
  /** Required scope; by default `read` for GET/HEAD and `write` for everything else. */
  scope?: Scope;
  /** Where the backend expects the tenant id besides the X-Tenant-ID header. */
  injectTenant?: 'query' | 'body';
  summary: string;
}

export const PROXY_ROUTES: ProxyRoute[] = [
  { method: 'POST', url: '/api/v1/rulepacks/execute', backend: 'validation', upstreamPath: '/validate', summary: 'Execute a rule pack (validation POST /validate)' },
  { method: 'POST', url: '/api/v1/workflows/execute', backend: 'workflow', upstreamPath: '/execute', summary: 'Execute a workflow pack (workflow POST /execute)' },
  { method: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'], url: '/api/v1/ocr/*', backend: 'ocr', upstreamPath: '/', wildcard: true, summary: 'Proxied to the OCR service, path remainder kept' },
  { method: 'POST', url: '/api/v1/ledger/append', backend: 'ledger', upstreamPath: '/append', injectTenant: 'body', summary: 'Append a ledger event (ledger POST /append)' },
  { method: 'GET', url: '/api/v1/ledger/verify', backend: 'ledger', upstreamPath: '/verify', injectTenant: 'query', summary: 'Verify the ledger chain (ledger GET /verify)' },
  { method: 'GET', url: '/api/v1/ledger/events', backend: 'ledger', upstreamPath: '/events', injectTenant: 'query', summary: 'Query ledger events (ledger GET /events)' },
];

export function requiredScope(route: Pick<ProxyRoute, 'scope'>, method: string): Scope {
  return route.scope ?? (method === 'GET' || method === 'HEAD' ? 'read' : 'write');
}
