// One way for a service to call another's REST API: JSON in and out, the caller's bearer token
// and tenant forwarded, a timeout, and errors that say whether a retry can help. The typed
// clients beside this file are thin wrappers that name the routes.
//
// A caller who presented no token (the spec's trust-the-gateway mode) is never forwarded as an
// absence: the calling service's own identity, scoped to the caller's tenant, goes instead
// (platform/auth/service-identity.ts). A caller's token is forwarded as it came.
import type { DelegatedIdentity } from '../auth/service-identity';

export interface ServiceCallContext {
  /** The caller's bearer token, forwarded so the callee applies its own tenant rule. */
  token?: string;
  tenantId?: string;
  correlationId?: string;
}

/** Where a client sends its calls, and the identity it uses for callers without a token. */
export interface ServiceEndpoint {
  baseUrl: string;
  /** Absent: an anonymous caller's call goes out anonymous (a client built without one, in tests). */
  identity?: DelegatedIdentity;
}

/**
 * The credentials a call carries: the caller's token; else, for a call in a tenant, the service
 * identity's token for that tenant; else none. Every client builds its headers with this.
 */
export async function credentialHeaders(
  context: ServiceCallContext,
  identity?: DelegatedIdentity,
): Promise<Record<string, string>> {
  const headers: Record<string, string> = {};
  const token =
    context.token ??
    (context.tenantId !== undefined && identity ? await identity.tokenFor(context.tenantId) : undefined);
  if (token) headers.authorization = `Bearer ${token}`;
  if (context.tenantId) headers['x-tenant-id'] = context.tenantId;
  if (context.correlationId) headers['x-correlation-id'] = context.correlationId;
  return headers;
}

export class ServiceCallError extends Error {
  override name = 'ServiceCallError';
  constructor(
    message: string,
    /** The callee's status; undefined when it could not be reached. */
    readonly status: number | undefined,
    /** The callee's parsed error body (`{detail: ...}`), when it sent one. */
    readonly body: unknown,
  ) {
    super(message);
  }

  get retryable(): boolean {
    return this.status === undefined || this.status >= 500 || this.status === 429 || this.status === 408;
  }
}

export interface ServiceRequestOptions {
  method?: 'GET' | 'POST' | 'PUT' | 'DELETE';
  body?: unknown;
  query?: Record<string, string | number | undefined>;
  timeoutMs?: number;
  /** Extra request headers (e.g. `Idempotency-Key`). */
  headers?: Record<string, string>;
}

export async function serviceRequest<T>(
  endpoint: string | ServiceEndpoint,
  path: string,
  context: ServiceCallContext,
  options: ServiceRequestOptions = {},
): Promise<T> {
  const { baseUrl, identity } = typeof endpoint === 'string' ? { baseUrl: endpoint, identity: undefined } : endpoint;
  const url = new URL(path, baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`);
  for (const [key, value] of Object.entries(options.query ?? {})) {
    if (value !== undefined) url.searchParams.set(key, String(value));
  }
  const headers: Record<string, string> = {
    accept: 'application/json',
    ...options.headers,
    ...(await credentialHeaders(context, identity)),
  };
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  let res: Response;
  try {
    res = await fetch(url, {
      method: options.method ?? (options.body === undefined ? 'GET' : 'POST'),
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      signal: AbortSignal.timeout(options.timeoutMs ?? 5_000),
    });
  } catch (err) {
    throw new ServiceCallError(`${url.origin} unreachable: ${(err as Error).message}`, undefined, undefined);
  }
  let text: string;
  try {
    text = await res.text();
  } catch (err) {
    // The body stopped arriving (timeout or a dropped connection after the headers): as unreachable.
    throw new ServiceCallError(`${url.origin} stopped answering: ${(err as Error).message}`, undefined, undefined);
  }
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  if (!res.ok) throw new ServiceCallError(`${url.pathname} answered ${res.status}`, res.status, parsed);
  return parsed as T;
}
