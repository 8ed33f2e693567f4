/**
 * @jest-environment ./test/support/onnx-environment.js
 */
// The ONNX embedder on a real (tiny, generated) BERT-shaped model through transformers.js and
// onnxruntime, nothing mocked: 384 unit-length numbers, the same each time, texts that share words
// closer than unrelated ones; a model of another width and a missing folder refused with a message
// that says what is wrong.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { cosine, EMBEDDING_DIMENSIONS } from '../../../subgraphs/rag/embedding/embedder';
import { createEmbedder } from '../../../subgraphs/rag/embedding/embedder.factory';
import { OnnxEmbedder } from '../../../subgraphs/rag/embedding/onnx.embedder';
import { writeFixtureModel } from '../../support/onnx-model';

let modelDir: string;
let embedder: OnnxEmbedder;

beforeAll(async () => {
  modelDir = fs.mkdtempSync(path.join(os.tmpdir(), 'onnx-models-'));
  writeFixtureModel(modelDir, 'tiny-bert');
  writeFixtureModel(modelDir, 'three-wide', 3);
  embedder = await OnnxEmbedder.load('tiny-bert', modelDir);
});
afterAll(() => fs.rmSync(modelDir, { recursive: true, force: true }));

test('384 unit-length numbers, the same each time, in batches', async () => {
  const texts = Array.from(
    { length: 70 },
    (_, i) => `Supplier invoices are archived for ${i % 2 ? 'ten' : 'five'} years`,
  );
  const vectors = await embedder.embed(texts);
  expect(vectors).toHaveLength(70);
  for (const v of vectors) {
    expect(v).toHaveLength(EMBEDDING_DIMENSIONS);
    expect(Math.hypot(...v)).toBeCloseTo(1, 5);
  }
  expect(vectors[2]).toEqual(vectors[0]);
  expect(await embedder.embed([texts[1]!])).toEqual([vectors[1]]);
  expect(embedder.name).toBe('onnx:tiny-bert');
});

test('texts sharing words are closer than unrelated ones', async () => {
  const [a, b, c] = (await embedder.embed([
    'Suspicious transactions are reported to the compliance team',
    'The compliance team reviews suspicious wire transfers',
    'A recipe for cheese soup and bread',
  ])) as [number[], number[], number[]];
  expect(cosine(a, b)).toBeGreaterThan(cosine(a, c) + 0.2);
});

test('EMBEDDING_MODEL=onnx:<name> through the factory; a model that is not 384 wide is refused', async () => {
  const viaFactory = await createEmbedder({ model: 'onnx:tiny-bert', modelDir, cacheDir: modelDir });
  expect(viaFactory.name).toBe('onnx:tiny-bert');
  await expect(OnnxEmbedder.load('three-wide', modelDir)).rejects.toThrow(
    'embedding model onnx:three-wide gives 3 numbers per text, not 384',
  );
});

test('a missing model fails at start naming the folder and the files expected', async () => {
  const folder = path.join(modelDir, 'all-MiniLM-L6-v2');
  await expect(createEmbedder({ model: 'onnx:all-MiniLM-L6-v2', modelDir, cacheDir: modelDir })).rejects.toThrow(
    `EMBEDDING_MODEL=onnx:all-MiniLM-L6-v2: no model in ${folder} (missing config.json, tokenizer.json, tokenizer_config.json, onnx/model.onnx; ` +
      'expected config.json, tokenizer.json, tokenizer_config.json, onnx/model.onnx)',
  );
  await expect(createEmbedder({ model: 'onnx:', modelDir, cacheDir: modelDir })).rejects.toThrow(
    "name the model folder after 'onnx:'",
  );
});
