// Every adapter against a local stand-in speaking its vendor's wire format, through the vendor's
// own SDK: answers, streaming, usage, and each failure as the kind routing acts on (429 with its
// Retry-After, overload, 500, auth, context length, timeout, cut connection); keys rotate without
// rebuilding anything.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { AnthropicProvider } from '../../../subgraphs/ai-broker/providers/anthropic.provider';
import { ExtractiveProvider, extractiveAnswer } from '../../../subgraphs/ai-broker/providers/extractive.provider';
import { OpenAiProvider } from '../../../subgraphs/ai-broker/providers/openai.provider';
import { CredentialSource } from '../../../subgraphs/ai-broker/providers/provider-credentials';
import {
  ProviderError,
  type ChatRequest,
  type ProviderAdapter,
  type StreamEvent,
} from '../../../subgraphs/ai-broker/providers/provider';
import { startVendor, type VendorStandIn } from '../../support/vendors/vendor-stand-in';

let anthropic: VendorStandIn;
let openai: VendorStandIn;
let local: VendorStandIn;
const env: Record<string, string | undefined> = {};

beforeAll(async () => {
  [anthropic, openai, local] = await Promise.all([
    startVendor('anthropic'),
    startVendor('openai'),
    startVendor('openai'),
  ]);
  Object.assign(env, {
    ANTHROPIC_API_KEY: 'sk-ant-1',
    ANTHROPIC_BASE_URL: anthropic.url,
    OPENAI_API_KEY: 'sk-oai-1',
    OPENAI_BASE_URL: openai.url,
    LOCAL_LLM_BASE_URL: local.url,
  });
});
afterAll(async () => Promise.all([anthropic, openai, local].map((v) => v?.close())));
beforeEach(() => {
  for (const v of [anthropic, openai, local]) {
    v.behaviour = 'ok';
    v.queue = [];
    v.acceptKey = undefined;
  }
});

const adapters = () => ({
  anthropic: {
    adapter: new AnthropicProvider(new CredentialSource(env, 'ANTHROPIC')) as ProviderAdapter,
    vendor: anthropic,
    model: 'claude-3-haiku-20240307',
  },
  openai: {
    adapter: new OpenAiProvider('openai', new CredentialSource(env, 'OPENAI')) as ProviderAdapter,
    vendor: openai,
    model: 'gpt-3.5-turbo',
  },
  local: {
    adapter: new OpenAiProvider('local', new CredentialSource(env, 'LOCAL_LLM')) as ProviderAdapter,
    vendor: local,
    model: 'llama3:8b',
  },
});

const request = (model: string, overrides: Partial<ChatRequest> = {}): ChatRequest => ({
  model,
  system: 'Be brief.',
  messages: [{ role: 'user', content: 'What is the capital of France?' }],
  maxTokens: 64,
  signal: AbortSignal.timeout(5_000),
  ...overrides,
});

async function failure(p: Promise<unknown>): Promise<ProviderError> {
  try {
    await p;
  } catch (err) {
    return err as ProviderError;
  }
  throw new Error('expected a failure');
}

describe.each(['anthropic', 'openai', 'local'] as const)('%s adapter', (which) => {
  test('answers with text and token usage; the vendor saw the model, system and message', async () => {
    const { adapter, vendor, model } = adapters()[which];
    const result = await adapter.complete(request(model));
    expect(result.text).toBe('Echo: What is the capital of France?');
    expect(result.promptTokens).toBeGreaterThan(0);
    expect(result.completionTokens).toBeGreaterThan(0);
    const sent = JSON.parse(vendor.completions().at(-1)!.body);
    expect(sent.model).toBe(model);
    expect(JSON.stringify(sent)).toContain('Be brief.');
  });

  test('streams the same text in pieces, then usage', async () => {
    const { adapter, model } = adapters()[which];
    const events: StreamEvent[] = [];
    for await (const e of adapter.stream(request(model))) events.push(e);
    const text = events
      .filter((e) => e.type === 'text')
      .map((e) => (e as { text: string }).text)
      .join('');
    expect(text).toBe('Echo: What is the capital of France?');
    expect(events.filter((e) => e.type === 'text').length).toBeGreaterThan(1);
    expect(events.at(-1)).toMatchObject({ type: 'usage' });
    expect((events.at(-1) as { completionTokens: number }).completionTokens).toBeGreaterThan(0);
  });

  test.each([
    ['rate_limited', 'rate_limited', 429],
    ['overloaded', 'overloaded', undefined],
    ['error', 'unavailable', 500],
    ['unauthorized', 'auth', 401],
    ['context_length', 'context_length', 400],
  ] as const)('a %s answer is a %s failure', async (behaviour, kind, status) => {
    const { adapter, vendor, model } = adapters()[which];
    vendor.queue.push(behaviour);
    const err = await failure(adapter.complete(request(model)));
    expect(err).toBeInstanceOf(ProviderError);
    expect(err.kind).toBe(kind);
    if (status) expect(err.status).toBe(status);
    if (behaviour === 'rate_limited') expect(err.retryAfterSeconds).toBe(7);
    // The vendor's error text never becomes ours (it may quote the request).
    expect(err.message).not.toMatch(/capital|France/);
  });

  test('a hung call times out; a cut connection is unavailable', async () => {
    const { adapter, vendor, model } = adapters()[which];
    vendor.queue.push('hang');
    expect((await failure(adapter.complete(request(model, { signal: AbortSignal.timeout(200) })))).kind).toBe(
      'timeout',
    );
    vendor.queue.push('drop');
    expect((await failure(adapter.complete(request(model)))).kind).toBe('unavailable');
  });

  test('the probe lists models; a vendor that is down fails it', async () => {
    const { adapter, vendor } = adapters()[which];
    await adapter.probe(AbortSignal.timeout(2_000));
    vendor.behaviour = 'overloaded';
    expect((await failure(adapter.probe(AbortSignal.timeout(2_000)))).kind).toBe('overloaded');
  });
});

test('keys rotate without a restart: from the environment, and from a key file when it changes', async () => {
  const { adapter } = adapters().anthropic;
  anthropic.acceptKey = 'sk-ant-2';
  expect((await failure(adapter.complete(request('claude-3-haiku-20240307')))).kind).toBe('auth');
  env.ANTHROPIC_API_KEY = 'sk-ant-2';
  await adapter.complete(request('claude-3-haiku-20240307'));
  const sent = anthropic.completions().at(-1)!.headers;
  expect(sent['x-api-key'] ?? sent.authorization).toMatch(/^(Bearer )?sk-ant-2$/);

  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'keys-'));
  const file = path.join(dir, 'openai-key');
  fs.writeFileSync(file, 'sk-file-1\n');
  const fileEnv: Record<string, string | undefined> = { OPENAI_API_KEY_FILE: file, OPENAI_BASE_URL: openai.url };
  const fromFile = new OpenAiProvider('openai', new CredentialSource(fileEnv, 'OPENAI'));
  await fromFile.complete(request('gpt-4'));
  expect(openai.completions().at(-1)!.headers.authorization).toBe('Bearer sk-file-1');
  fs.writeFileSync(file, 'sk-file-2-longer\n');
  await fromFile.complete(request('gpt-4'));
  expect(openai.completions().at(-1)!.headers.authorization).toBe('Bearer sk-file-2-longer');
  fs.rmSync(dir, { recursive: true });
});

test('OpenAI-format answers ask for kept-alive connections, and follow a change of base URL at once', async () => {
  const { adapter, model } = adapters().openai;
  for (let i = 0; i < 3; i++) await adapter.complete(request(model));
  expect(
    openai
      .completions()
      .slice(-3)
      .map((c) => c.headers.connection),
  ).toEqual(['keep-alive', 'keep-alive', 'keep-alive']);
  const moved: Record<string, string | undefined> = { OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: openai.url };
  const provider = new OpenAiProvider('openai', new CredentialSource(moved, 'OPENAI'));
  await provider.complete(request(model));
  moved.OPENAI_BASE_URL = local.url;
  const before = local.completions().length;
  await provider.complete(request(model));
  expect(local.completions().length).toBe(before + 1);
});

test('a provider without its key or URL is not configured and says so when called', async () => {
  const bare = new AnthropicProvider(new CredentialSource({}, 'ANTHROPIC'));
  expect(bare.configured()).toBe(false);
  expect((await failure(bare.complete(request('claude-3-haiku-20240307')))).kind).toBe('unconfigured');
  expect(new OpenAiProvider('local', new CredentialSource({}, 'LOCAL_LLM')).configured()).toBe(false);
});

describe('the extractive model', () => {
  test('quotes the passages that answer the question, and says when it has none', async () => {
    const passages = ['Paris is the capital of France. It lies on the Seine.', 'Berlin is the capital of Germany.'];
    expect(extractiveAnswer('What is the capital of France?', passages)).toBe(
      'From the retrieved context: Paris is the capital of France. Berlin is the capital of Germany.',
    );
    expect(extractiveAnswer('What is the capital of France?', [])).toMatch(/no retrieved context/);
    const r = await new ExtractiveProvider().complete(request('extractive', { context: passages }));
    expect(r.text).toContain('Paris is the capital of France.');
    expect(r.promptTokens).toBeGreaterThan(0);
  });
});
