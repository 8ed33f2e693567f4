// A real embedding model run in-process, chosen by EMBEDDING_MODEL=onnx:<name>: the ONNX export
// in <EMBEDDING_MODEL_DIR>/<name>/ (config.json, tokenizer.json, tokenizer_config.json,
// onnx/model.onnx; e.g. sentence-transformers' all-MiniLM-L6-v2) through transformers.js on
// onnxruntime's CPU build, with remote loading off: nothing is ever downloaded, so a missing
// model fails at start naming the folder and the files. Token vectors are mean-pooled and
// L2-normalised, as sentence-transformers does. A model whose output is not 384 numbers is
// refused at start (the index is vector(384)). transformers.js is imported only when this
// embedder is picked, so the default one never loads onnxruntime.
import fs from 'node:fs';
import path from 'node:path';
import type { FeatureExtractionPipeline } from '@huggingface/transformers';
import { EMBEDDING_DIMENSIONS, type Embedder } from './embedder';

export const ONNX_MODEL_FILES = ['config.json', 'tokenizer.json', 'tokenizer_config.json', 'onnx/model.onnx'] as const;

export class OnnxEmbedder implements Embedder {
  readonly name: string;

  private constructor(
    private readonly model: string,
    private readonly extract: FeatureExtractionPipeline,
    private readonly batchSize: number,
  ) {
    this.name = `onnx:${model}`;
  }

  static async load(model: string, modelDir: string, batchSize = 32): Promise<OnnxEmbedder> {
    const folder = path.join(modelDir, model);
    const missing = ONNX_MODEL_FILES.filter((f) => !fs.existsSync(path.join(folder, f)));
    if (missing.length > 0) {
      throw new Error(
        `EMBEDDING_MODEL=onnx:${model}: no model in ${folder} (missing ${missing.join(', ')}; expected ${ONNX_MODEL_FILES.join(', ')})`,
      );
    }
    // require, not `await import()`: in the CommonJS build an import() stays a real ES import and
    // loads transformers.js's ESM build, which imports onnxruntime-common's ESM build while
    // onnxruntime-node requires its CommonJS one: two copies of its Tensor class and backend
    // registry in one process (scripts/module-audit.cjs found it; docs/decisions.md, "Dual-package
    // hazards"). The CommonJS build requires one copy, as jest always did. Still loaded only here.
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- on purpose, see above
    const { env, pipeline } = require('@huggingface/transformers') as typeof import('@huggingface/transformers');
    env.allowRemoteModels = false;
    env.allowLocalModels = true;
    env.localModelPath = modelDir;
    const extract = await pipeline('feature-extraction', model, { device: 'cpu', dtype: 'fp32' });
    const embedder = new OnnxEmbedder(model, extract, batchSize);
    await embedder.embed(['dimension check']);
    return embedder;
  }

  async embed(texts: string[]): Promise<number[][]> {
    const out: number[][] = [];
    for (let i = 0; i < texts.length; i += this.batchSize) {
      const output = await this.extract(texts.slice(i, i + this.batchSize), { pooling: 'mean', normalize: true });
      const [rows, dims] = output.dims;
      if (output.dims.length !== 2 || dims !== EMBEDDING_DIMENSIONS) {
        throw new Error(
          `embedding model onnx:${this.model} gives ${output.dims.slice(1).join(' x ')} numbers per text, not ${EMBEDDING_DIMENSIONS}`,
        );
      }
      const data = output.data as Float32Array;
      for (let r = 0; r < rows!; r++) out.push(Array.from(data.subarray(r * dims, (r + 1) * dims)));
    }
    return out;
  }
}
