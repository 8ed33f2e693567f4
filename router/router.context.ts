// What each GraphQL request carries through the gateway to the subgraphs.
import type { AuthContext } from '../platform/auth/auth-context';

export interface RouterContext {
  auth?: AuthContext;
  /** The tenant the subgraphs see: the token's, or one a platform admin named in X-Tenant-ID. */
  tenantId?: string;
  /** The verified bearer token, forwarded as Authorization (never logged). */
  token?: string;
  correlationId: string;
  traceparent?: string;
  tracestate?: string;
}

/** Headers every subgraph call carries: identity, tenant from the verified token, tracing. */
export function forwardedHeaders(context: RouterContext): Record<string, string> {
  const headers: Record<string, string> = { 'x-correlation-id': context.correlationId };
  if (context.token) headers.authorization = `Bearer ${context.token}`;
  if (context.tenantId) headers['x-tenant-id'] = context.tenantId;
  if (context.traceparent) headers.traceparent = context.traceparent;
  if (context.tracestate) headers.tracestate = context.tracestate;
  return headers;
}
