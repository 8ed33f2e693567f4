// Shared by the retrieval e2e suites: tokens for tenants, a JSON caller and a multipart uploader
// (Node's own fetch with FormData: a real multipart body on the wire).
import { AccessTokens } from '../../../platform/auth/jwt';
import { TEST_JWT_SECRET } from '../../support/service-harness';

export function token(tenantId: string, roles = ['user'], username = `someone-${tenantId}`): Promise<string> {
  return new AccessTokens(TEST_JWT_SECRET, 3600).issue({ username, tenantId, roles, scopes: ['read', 'write'] });
}

export async function call(
  base: string,
  method: string,
  path: string,
  tok?: string,
  body?: unknown,
): Promise<{ status: number; body: any }> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: {
      ...(tok ? { authorization: `Bearer ${tok}` } : {}),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    /* not JSON */
  }
  return { status: res.status, body: parsed };
}

export async function upload(
  base: string,
  tok: string | undefined,
  file: { content: string | Buffer; filename: string; type?: string } | null,
  fields: Record<string, string>,
): Promise<{ status: number; body: any }> {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  if (file)
    form.append(
      'file',
      new Blob([typeof file.content === 'string' ? file.content : new Uint8Array(file.content)], {
        type: file.type ?? 'text/plain',
      }),
      file.filename,
    );
  const res = await fetch(`${base}/documents/upload`, {
    method: 'POST',
    headers: tok ? { authorization: `Bearer ${tok}` } : {},
    body: form,
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    /* not JSON */
  }
  return { status: res.status, body: parsed };
}

export const POLICY_MD = `# Travel policy

## Flights
Employees book economy class for flights under six hours. Business class needs the approval of a director.

## Hotels
Hotel nights are reimbursed up to 180 euros in capital cities and 120 euros elsewhere, breakfast included.
`;
