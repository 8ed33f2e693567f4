// Shared helpers for identity's e2e tests: real HTTP with fetch against a started service.
import { startServices, type Harness } from '../../support/service-harness';
import { identityService } from '../../../services/identity';

/** Cheap scrypt (log2 N = 10) keeps the suites fast; the cost parameter is all that changes. */
export const TEST_ENV = {
  PASSWORD_SCRYPT_LOG_N: '10',
  DEV_ADMIN_USERNAME: 'root',
  DEV_ADMIN_PASSWORD: 'root-password-1',
  DEV_USER_USERNAME: 'alice',
  DEV_USER_PASSWORD: 'alice-password-1',
  // The platform operator (role platform-admin, tenant `platform`); `root` is the default tenant's admin.
  PLATFORM_ADMIN_USERNAME: 'operator',
  PLATFORM_ADMIN_PASSWORD: 'operator-password-1',
};

export function loginOperator(url: string): Promise<{ access_token: string; refresh_token: string }> {
  return login(url, TEST_ENV.PLATFORM_ADMIN_USERNAME, TEST_ENV.PLATFORM_ADMIN_PASSWORD, 'platform');
}

export async function startIdentity(env: Record<string, string> = {}): Promise<{ harness: Harness; url: string }> {
  const harness = await startServices([identityService], { ...TEST_ENV, ...env });
  return { harness, url: harness.services.identity!.url };
}

export interface Res<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

export async function call<T = any>(
  url: string,
  init: RequestInit & { json?: unknown; form?: Record<string, string>; token?: string } = {},
): Promise<Res<T>> {
  const headers = new Headers(init.headers);
  let body = init.body;
  if (init.json !== undefined) {
    headers.set('content-type', 'application/json');
    body = JSON.stringify(init.json);
  } else if (init.form) {
    headers.set('content-type', 'application/x-www-form-urlencoded');
    body = new URLSearchParams(init.form).toString();
  }
  if (init.token) headers.set('authorization', `Bearer ${init.token}`);
  const res = await fetch(url, { ...init, headers, body });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // not JSON: keep the text
  }
  return { status: res.status, headers: res.headers, body: parsed as T };
}

export async function login(
  url: string,
  username: string,
  password: string,
  tenantId?: string,
): Promise<{ access_token: string; refresh_token: string }> {
  const res = await call(`${url}/v1/auth/login`, {
    method: 'POST',
    json: { username, password, ...(tenantId ? { tenant_id: tenantId } : {}) },
  });
  if (res.status !== 200) throw new Error(`login ${username} failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

export async function gql<T = any>(
  url: string,
  query: string,
  variables: Record<string, unknown> = {},
  token?: string,
): Promise<Res<{ data?: T; errors?: { message: string; extensions?: { code?: string } }[] }>> {
  return call(`${url}/graphql`, { method: 'POST', json: { query, variables }, token });
}
