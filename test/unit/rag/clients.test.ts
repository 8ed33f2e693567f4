// The retrieval service's outbound clients against local HTTP stand-ins speaking each wire
// format: the OCR service (POST /extract multipart, then GET /jobs/{id} until done) and an
// embeddings endpoint (OpenAI-compatible /v1/embeddings and Ollama /api/embed, 384 dimensions).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { OcrClient, OcrFailedError, OcrUnavailableError } from '../../../platform/clients/ocr.client';
import { RemoteEmbedder, EmbeddingEndpointError } from '../../../subgraphs/rag/embedding/remote.embedder';
import { DocumentReader } from '../../../subgraphs/rag/ingestion/document-reader';
import { freePort } from '../../support/waiting';

type Handler = (req: http.IncomingMessage, body: Buffer) => { status: number; json: unknown };

async function standIn(handler: Handler): Promise<{
  url: string;
  requests: { method: string; url: string; headers: http.IncomingHttpHeaders; body: Buffer }[];
  close(): Promise<void>;
}> {
  const requests: { method: string; url: string; headers: http.IncomingHttpHeaders; body: Buffer }[] = [];
  const server = http.createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (p: Buffer) => parts.push(p));
    req.on('end', () => {
      const body = Buffer.concat(parts);
      requests.push({ method: req.method!, url: req.url!, headers: req.headers, body });
      const r = handler(req, body);
      res.writeHead(r.status, { 'content-type': 'application/json' }).end(JSON.stringify(r.json));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

describe('OCR client', () => {
  test('submits the file as multipart and polls the job until it completes', async () => {
    let polls = 0;
    const ocr = await standIn((req) => {
      if (req.method === 'POST' && req.url === '/extract')
        return { status: 202, json: { job_id: 'j1', status: 'processing' } };
      polls++;
      return {
        status: 200,
        json:
          polls < 3
            ? { job_id: 'j1', status: 'processing' }
            : { job_id: 'j1', status: 'completed', extracted_text: 'Scanned words', confidence_score: 0.91 },
      };
    });
    try {
      const r = await new OcrClient(ocr.url, { pollMs: 5 }).extract(
        { tenantId: 't1', token: 'tok', correlationId: 'c1' },
        { bytes: Buffer.from('PNGDATA'), filename: 'scan.png', mimeType: 'image/png' },
      );
      expect(r).toEqual({ jobId: 'j1', text: 'Scanned words', confidence: 0.91 });
      const submit = ocr.requests[0]!;
      expect(submit.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
      expect(submit.headers['x-tenant-id']).toBe('t1');
      expect(submit.headers.authorization).toBe('Bearer tok');
      expect(submit.body.toString()).toContain('name="file"; filename="scan.png"');
      expect(submit.body.toString()).toContain('PNGDATA');
      expect(ocr.requests.slice(1).every((r) => r.url === '/jobs/j1' && r.method === 'GET')).toBe(true);
    } finally {
      await ocr.close();
    }
  });

  test('an answer with the text at once needs no polling; a failed job and a 5xx are told apart', async () => {
    const ocr = await standIn((req) =>
      req.headers['x-tenant-id'] === 'down'
        ? { status: 503, json: { detail: 'busy' } }
        : req.headers['x-tenant-id'] === 'bad'
          ? { status: 200, json: { id: 'j2', status: 'failed', error: 'unreadable' } }
          : { status: 200, json: { id: 'j3', status: 'completed', extracted_text: 'done' } },
    );
    try {
      const client = new OcrClient(ocr.url, { pollMs: 5 });
      const file = { bytes: Buffer.from('x'), filename: 'a.png', mimeType: 'image/png' };
      expect((await client.extract({ tenantId: 'ok' }, file)).text).toBe('done');
      await expect(client.extract({ tenantId: 'bad' }, file)).rejects.toBeInstanceOf(OcrFailedError);
      await expect(client.extract({ tenantId: 'down' }, file)).rejects.toBeInstanceOf(OcrUnavailableError);
    } finally {
      await ocr.close();
    }
  });

  test('unreachable OCR: the reader answers 503 (UnavailableError); an OCR failure is a 422 on the file', async () => {
    const reader = new DocumentReader(
      new OcrClient(`http://127.0.0.1:${await freePort()}`, { timeoutMs: 5_000 }),
      1_000_000,
    );
    const png = Buffer.from('89504e470d0a1a0a0000', 'hex');
    await expect(reader.read({ tenantId: 't' }, { bytes: png, filename: 'a.png' })).rejects.toMatchObject({
      code: 'SERVICE_UNAVAILABLE',
    });
    const failing = new DocumentReader(
      {
        extract: async () => {
          throw new OcrFailedError('unreadable');
        },
      },
      1_000_000,
    );
    await expect(failing.read({ tenantId: 't' }, { bytes: png, filename: 'a.png' })).rejects.toMatchObject({
      code: 'BAD_USER_INPUT',
    });
    const ok = new DocumentReader(
      { extract: async () => ({ jobId: 'j', text: 'from ocr', confidence: 0.9 }) },
      1_000_000,
    );
    expect(await ok.read({ tenantId: 't' }, { bytes: png, filename: 'a.png' })).toMatchObject({
      text: 'from ocr',
      extraction: 'ocr',
      sourceType: 'image/png',
    });
  });
});

describe('remote embedders', () => {
  const vec = (seed: number) => Array.from({ length: 384 }, (_, i) => Math.sin(seed + i));

  test('OpenAI-compatible: POST /v1/embeddings with dimensions 384, vectors in index order, normalised', async () => {
    const api = await standIn((_req, body) => {
      const { input } = JSON.parse(body.toString()) as { input: string[] };
      return {
        status: 200,
        json: { data: input.map((_, i) => ({ index: i, embedding: vec(i) })).reverse(), model: 'm' },
      };
    });
    try {
      const e = new RemoteEmbedder('openai', 'text-embedding-3-small', api.url, 'sk-test');
      const out = await e.embed(['a', 'b']);
      expect(e.name).toBe('openai:text-embedding-3-small');
      expect(out).toHaveLength(2);
      expect(Math.hypot(...out[0]!)).toBeCloseTo(1, 6);
      expect(out[1]![0]! / out[1]![1]!).toBeCloseTo(vec(1)[0]! / vec(1)[1]!, 6);
      const sent = JSON.parse(api.requests[0]!.body.toString());
      expect(api.requests[0]!.url).toBe('/v1/embeddings');
      expect(api.requests[0]!.headers.authorization).toBe('Bearer sk-test');
      expect(sent).toEqual({ model: 'text-embedding-3-small', input: ['a', 'b'], dimensions: 384 });
    } finally {
      await api.close();
    }
  });

  test('Ollama: POST /api/embed; a model of another size is refused', async () => {
    const api = await standIn((_req, body) => {
      const { model, input } = JSON.parse(body.toString()) as { model: string; input: string[] };
      return { status: 200, json: { embeddings: input.map((_, i) => (model === 'wrong' ? [1, 2, 3] : vec(i))) } };
    });
    try {
      expect(await new RemoteEmbedder('ollama', 'all-minilm', api.url, undefined).embed(['x'])).toHaveLength(1);
      expect(api.requests[0]!.url).toBe('/api/embed');
      await expect(new RemoteEmbedder('ollama', 'wrong', api.url, undefined).embed(['x'])).rejects.toBeInstanceOf(
        EmbeddingEndpointError,
      );
    } finally {
      await api.close();
    }
  });
});
