/**
 * @jest-environment ./test/support/onnx-environment.js
 */
// The rag module over a real database with the ONNX embedder (the tiny generated model, run by
// transformers.js and onnxruntime): documents are ingested, embedded and found again by
// vector-only retrieval, the passage that shares the query's words first.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { registryOf } from '../../../launcher/registry';
import type { Caller } from '../../../platform/auth/caller';
import { createEmbedder } from '../../../subgraphs/rag/embedding/embedder.factory';
import { loadRagConfig } from '../../../subgraphs/rag/rag.config';
import { createRagModule, type RagModule } from '../../../subgraphs/rag/rag.module';
import { createTestDatabase, type TestDatabase } from '../../support/database';
import { writeFixtureModel } from '../../support/onnx-model';

jest.setTimeout(120_000);

let db: TestDatabase;
let rag: RagModule;
let modelDir: string;
const broker = {
  inference: async () =>
    ({ response: 'x', model_used: 'offline', tokens_used: 1, rag_chunks_used: 0, sources: [] }) as never,
};
const caller: Caller = { correlationId: 'c-onnx', headerTenant: 'onnx-t' };

beforeAll(async () => {
  modelDir = fs.mkdtempSync(path.join(os.tmpdir(), 'onnx-models-'));
  writeFixtureModel(modelDir, 'tiny-bert');
  db = await createTestDatabase();
  const config = loadRagConfig(
    { ...process.env, EMBEDDING_MODEL: 'onnx:tiny-bert', EMBEDDING_MODEL_DIR: modelDir },
    registryOf(),
    { requireAuth: false },
  );
  const embedder = await createEmbedder(config.embedding);
  expect(embedder.name).toBe('onnx:tiny-bert');
  rag = createRagModule({ db, config, embedder, broker });
});
afterAll(async () => {
  await db?.drop();
  if (modelDir) fs.rmSync(modelDir, { recursive: true, force: true });
});

test('ingests with the ONNX embedder and retrieves by vector similarity', async () => {
  const docs = {
    Sanctions: 'Payments to an embargoed country are blocked and the compliance team is notified.',
    Holidays: 'Employees take their annual leave in summer or winter after approval by a manager.',
    Recipes: 'A recipe for cheese soup with bread, served for dinner with tea.',
  };
  for (const [title, text] of Object.entries(docs)) {
    await rag.documents.upload(
      caller,
      { bytes: Buffer.from(text), filename: `${title}.md` },
      { title, level: 'platform' },
      {},
    );
  }
  const found = async (query: string) =>
    (await rag.retrieval.retrieve(caller, 'onnx-t', { query, scope: {}, topK: 3, useHybrid: false })).chunks.map(
      (c) => c.documentTitle,
    );
  expect((await found('which payments to an embargoed country are blocked'))[0]).toBe('Sanctions');
  expect((await found('annual leave approval by a manager'))[0]).toBe('Holidays');
  expect((await found('cheese soup recipe'))[0]).toBe('Recipes');
});
