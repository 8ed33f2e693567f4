// Real HTTP clients for the OCR tests: multipart uploads with fetch's FormData, JSON calls, and
// waiting on a job's status (polling, never sleeping a fixed time).
import { until } from '../../support/waiting';

export interface Answer {
  status: number;
  body: any;
}

export async function upload(
  base: string,
  bytes: Buffer,
  options: {
    token?: string;
    tenant?: string;
    filename?: string;
    type?: string;
    fields?: Record<string, string>;
    fieldName?: string;
  } = {},
): Promise<Answer> {
  const form = new FormData();
  for (const [k, v] of Object.entries(options.fields ?? {})) form.append(k, v);
  form.append(
    options.fieldName ?? 'file',
    new Blob([new Uint8Array(bytes)], { type: options.type ?? 'application/octet-stream' }),
    options.filename ?? 'page.png',
  );
  const headers: Record<string, string> = {};
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.tenant) headers['x-tenant-id'] = options.tenant;
  const res = await fetch(`${base}/extract`, { method: 'POST', body: form, headers });
  return { status: res.status, body: await res.json().catch(() => null) };
}

export async function call(
  base: string,
  method: string,
  path: string,
  options: { token?: string; tenant?: string; body?: unknown } = {},
): Promise<Answer> {
  const headers: Record<string, string> = {};
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.tenant) headers['x-tenant-id'] = options.tenant;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${base}${path}`, {
    method,
    headers,
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  return { status: res.status, body: await res.json().catch(() => null) };
}

/** Polls the job until it leaves pending/processing. */
export async function settled(base: string, jobId: string, token: string): Promise<any> {
  let job: any;
  await until(
    async () => {
      job = (await call(base, 'GET', `/jobs/${jobId}`, { token })).body;
      return job && !['pending', 'processing'].includes(job.status);
    },
    `job ${jobId} to finish`,
    { tries: 2400, everyMs: 50 },
  );
  return job;
}
