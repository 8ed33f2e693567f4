// A real embedding model behind an HTTP endpoint, chosen by EMBEDDING_MODEL:
//   openai:<model>  POST <EMBEDDING_URL>/v1/embeddings {model, input: [...], dimensions: 384}
//                   -> {data: [{index, embedding}]}  (OpenAI, vLLM, LM Studio, llama.cpp...)
//   ollama:<model>  POST <EMBEDDING_URL>/api/embed {model, input: [...], dimensions: 384}
//                   -> {embeddings: [[...]]}
// A model that answers another length is refused at the first call (the index is vector(384)).
import { EMBEDDING_DIMENSIONS, l2normalise, type Embedder } from './embedder';

export type RemoteFlavour = 'openai' | 'ollama';

export class EmbeddingEndpointError extends Error {
  override name = 'EmbeddingEndpointError';
}

export class RemoteEmbedder implements Embedder {
  readonly name: string;

  constructor(
    private readonly flavour: RemoteFlavour,
    private readonly model: string,
    private readonly baseUrl: string,
    private readonly apiKey: string | undefined,
    private readonly timeoutMs = 30_000,
    private readonly batchSize = 64,
  ) {
    this.name = `${flavour}:${model}`;
  }

  async embed(texts: string[]): Promise<number[][]> {
    const out: number[][] = [];
    for (let i = 0; i < texts.length; i += this.batchSize)
      out.push(...(await this.batch(texts.slice(i, i + this.batchSize))));
    return out;
  }

  private async batch(input: string[]): Promise<number[][]> {
    if (input.length === 0) return [];
    const path = this.flavour === 'openai' ? 'v1/embeddings' : 'api/embed';
    const url = new URL(path, this.baseUrl.endsWith('/') ? this.baseUrl : `${this.baseUrl}/`);
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (this.apiKey) headers.authorization = `Bearer ${this.apiKey}`;
    let res: Response;
    try {
      res = await fetch(url, {
        method: 'POST',
        headers,
        signal: AbortSignal.timeout(this.timeoutMs),
        body: JSON.stringify({ model: this.model, input, dimensions: EMBEDDING_DIMENSIONS }),
      });
    } catch (err) {
      throw new EmbeddingEndpointError(`embedding endpoint ${url.origin} unreachable: ${(err as Error).message}`);
    }
    if (!res.ok) throw new EmbeddingEndpointError(`embedding endpoint answered ${res.status}`);
    const body = (await res.json()) as { data?: { index?: number; embedding?: unknown }[]; embeddings?: unknown[] };
    const vectors: unknown[] =
      this.flavour === 'openai'
        ? [...(body.data ?? [])].sort((a, b) => (a.index ?? 0) - (b.index ?? 0)).map((d) => d.embedding)
        : (body.embeddings ?? []);
    if (vectors.length !== input.length)
      throw new EmbeddingEndpointError(
        `embedding endpoint returned ${vectors.length} vectors for ${input.length} texts`,
      );
    return vectors.map((v) => {
      if (!Array.isArray(v) || v.length !== EMBEDDING_DIMENSIONS || !v.every((x) => typeof x === 'number')) {
        throw new EmbeddingEndpointError(
          `embedding model ${this.model} did not return ${EMBEDDING_DIMENSIONS} numbers`,
        );
      }
      return l2normalise(v as number[]);
    });
  }
}
