// Typed client of the OCR service (spec 02, port 8137) for the retrieval service's scanned PDFs
// and images: POST /extract (multipart, `file`) then GET /jobs/{job_id} until the job is done.
// Spec 02 gives neither body, so the answer is read leniently: the job id as `job_id` or `id`,
// the text as `extracted_text` (or `text`), states `pending`/`processing` (poll) and `failed`.
import { setTimeout as sleep } from 'node:timers/promises';
import type { DelegatedIdentity } from '../auth/service-identity';
import { credentialHeaders, type ServiceCallContext } from './service-request';
import type { OcrText, OcrJobBody } from '../contracts/clients/ocr.api';
// Re-exported so callers keep importing the client's module; the types live in platform/contracts.
export type { OcrText };

export class OcrUnavailableError extends Error {
  override name = 'OcrUnavailableError';
}

/** The OCR service answered but could not read the document. */
export class OcrFailedError extends Error {
  override name = 'OcrFailedError';
}

const DONE = new Set(['completed', 'review', 'done', 'succeeded']);

export class OcrClient {
  /** `identity`: the calling service's, used for callers without a token (service-request.ts). */
  constructor(
    private readonly baseUrl: string,
    private readonly options: { timeoutMs?: number; pollMs?: number; identity?: DelegatedIdentity } = {},
  ) {}

  private url(path: string): string {
    return `${this.baseUrl.replace(/\/$/, '')}/${path}`;
  }

  private async headers(context: ServiceCallContext): Promise<Record<string, string>> {
    return { accept: 'application/json', ...(await credentialHeaders(context, this.options.identity)) };
  }

  private async call(url: string, init: RequestInit, deadline: number): Promise<OcrJobBody> {
    let res: Response;
    try {
      res = await fetch(url, { ...init, signal: AbortSignal.timeout(Math.max(1, deadline - Date.now())) });
    } catch (err) {
      throw new OcrUnavailableError(`the OCR service is unreachable (${(err as Error).name})`);
    }
    const text = await res.text();
    let body: OcrJobBody = {};
    try {
      body = JSON.parse(text) as OcrJobBody;
    } catch {
      /* not JSON */
    }
    if (res.status >= 500 || res.status === 429 || (res.status === 404 && !url.includes('/jobs/')))
      throw new OcrUnavailableError(`the OCR service answered ${res.status}`);
    if (!res.ok) throw new OcrFailedError(`the OCR service could not read the document (${res.status})`);
    return body;
  }

  /** Text of a scanned document or image; waits for the OCR job to finish. */
  async extract(
    context: ServiceCallContext,
    file: { bytes: Buffer; filename: string; mimeType: string },
  ): Promise<OcrText> {
    const deadline = Date.now() + (this.options.timeoutMs ?? 120_000);
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(file.bytes)], { type: file.mimeType }), file.filename);
    let job = await this.call(
      this.url('extract'),
      { method: 'POST', headers: await this.headers(context), body: form },
      deadline,
    );
    const id = job.job_id ?? job.id;
    for (;;) {
      if (job.status === 'failed')
        throw new OcrFailedError(`the OCR service could not read the document${job.error ? `: ${job.error}` : ''}`);
      if (job.status === undefined || DONE.has(job.status)) break;
      if (!id) throw new OcrFailedError('the OCR service answered without a job id');
      if (Date.now() > deadline) throw new OcrUnavailableError('the OCR job did not finish in time');
      await sleep(this.options.pollMs ?? 250);
      job = await this.call(
        this.url(`jobs/${encodeURIComponent(id)}`),
        { method: 'GET', headers: await this.headers(context) },
        deadline,
      );
    }
    const text = job.extracted_text ?? job.text ?? '';
    return {
      jobId: id ?? '',
      text,
      confidence: typeof job.confidence_score === 'number' ? job.confidence_score : null,
    };
  }
}
