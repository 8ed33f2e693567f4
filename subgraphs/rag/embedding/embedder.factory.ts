// EMBEDDING_MODEL picks the embedder: `sif-glove` (default, offline), `hashing` (offline
// fallback), `onnx:<name>` (a local ONNX model in EMBEDDING_MODEL_DIR/<name>, offline),
// `openai:<model>` or `ollama:<model>` at EMBEDDING_URL (key in EMBEDDING_API_KEY).
// When the word-vector cache cannot be built (the package missing), the hashing fallback is
// used and /readyz says so through `embedding_model`.
import type { Embedder } from './embedder';
import { HashingEmbedder } from './hashing.embedder';
import { OnnxEmbedder } from './onnx.embedder';
import { RemoteEmbedder } from './remote.embedder';
import { SifGloveEmbedder } from './sif-glove.embedder';

export interface EmbedderConfig {
  model: string;
  url?: string;
  apiKey?: string;
  cacheDir: string;
  /** Where `onnx:<name>` models live, one folder per name (EMBEDDING_MODEL_DIR). */
  modelDir: string;
}

export async function createEmbedder(
  config: EmbedderConfig,
  warn: (msg: string) => void = () => {},
): Promise<Embedder> {
  const [kind, ...rest] = config.model.split(':');
  const model = rest.join(':');
  if (kind === 'hashing') return new HashingEmbedder();
  if (kind === 'onnx') {
    if (!model) throw new Error(`EMBEDDING_MODEL=${config.model}: name the model folder after 'onnx:'`);
    return OnnxEmbedder.load(model, config.modelDir);
  }
  if (kind === 'openai' || kind === 'ollama') {
    if (!model) throw new Error(`EMBEDDING_MODEL=${config.model}: name the model after '${kind}:'`);
    const url = config.url ?? (kind === 'ollama' ? 'http://127.0.0.1:11434' : 'https://api.openai.com');
    return new RemoteEmbedder(kind, model, url, config.apiKey);
  }
  if (kind !== 'sif-glove')
    throw new Error(
      `EMBEDDING_MODEL=${config.model}: expected sif-glove, hashing, onnx:<name>, openai:<model> or ollama:<model>`,
    );
  try {
    return await SifGloveEmbedder.load(config.cacheDir);
  } catch (err) {
    warn(`word vectors unavailable (${(err as Error).message}); using the hashing embedder`);
    return new HashingEmbedder();
  }
}
