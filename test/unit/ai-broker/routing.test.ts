// Routing and health without a network: order by cost and latency, compliance tags, context
// windows, the offline model only when no vendor is configured, LiteLLM-style cooldowns (429 at
// once for Retry-After; other failures after allowed_fails within a minute), probe backoff.
import { ModelHealth } from '../../../subgraphs/ai-broker/model-health';
import { parseCatalogue, type ModelEntry } from '../../../subgraphs/ai-broker/model-catalogue';
import { planRoute } from '../../../subgraphs/ai-broker/model-router';
import {
  ProviderError,
  type ProviderAdapter,
  type ProviderName,
} from '../../../subgraphs/ai-broker/providers/provider';
import { InputError } from '../../../platform/errors/domain-errors';

const catalogue = parseCatalogue({
  models: [
    {
      id: 'cheap',
      provider: 'openai',
      cost_per_1k_tokens: 0.001,
      context_window: 4000,
      tags: ['vendor'],
      expected_latency_ms: 500,
    },
    {
      id: 'dear',
      provider: 'anthropic',
      cost_per_1k_tokens: 0.05,
      context_window: 200000,
      tags: ['vendor'],
      expected_latency_ms: 500,
    },
    {
      id: 'local',
      provider: 'local',
      cost_per_1k_tokens: 0,
      context_window: 8000,
      tags: ['local'],
      expected_latency_ms: 3000,
    },
    {
      id: 'extractive',
      provider: 'extractive',
      cost_per_1k_tokens: 0,
      context_window: 1000000,
      tags: ['local', 'offline'],
    },
  ],
});
const byId = (id: string) => catalogue.models.find((m) => m.id === id)!;

function setup(configured: ProviderName[]) {
  let now = 1_000_000;
  const probes: Record<string, 'ok' | 'fail'> = { openai: 'ok', anthropic: 'ok', local: 'ok' };
  const adapter = (name: ProviderName): ProviderAdapter => ({
    name,
    configured: () => name === 'extractive' || configured.includes(name),
    complete: async () => ({ text: '', promptTokens: 0, completionTokens: 0 }),
    stream: async function* () {},
    probe: async () => {
      if (probes[name] === 'fail') throw new ProviderError('unavailable', name);
    },
  });
  const adapters = {
    openai: adapter('openai'),
    anthropic: adapter('anthropic'),
    local: adapter('local'),
    extractive: adapter('extractive'),
  };
  const health = new ModelHealth(
    adapters,
    {
      probeIntervalMs: 30_000,
      probeTimeoutMs: 1000,
      maxBackoffMs: 300_000,
      allowedFails: 2,
      cooldownMs: 30_000,
      latencyWindow: 10,
    },
    () => now,
  );
  return { health, probes, tick: (ms: number) => (now += ms) };
}
const ids = (models: ModelEntry[]) => models.map((m) => m.id);
const req = { promptTokens: 100, maxTokens: 100 };

test('cheapest and fastest first; measured latency moves a model back', async () => {
  const { health } = setup(['openai', 'anthropic']);
  await health.probeDue();
  expect(ids(planRoute(catalogue.models, health, {}, req, 'balanced').candidates)).toEqual(['cheap', 'dear']);
  for (let i = 0; i < 5; i++) health.recordSuccess(byId('cheap'), 20_000);
  expect(ids(planRoute(catalogue.models, health, {}, req, 'latency').candidates)).toEqual(['dear', 'cheap']);
  expect(ids(planRoute(catalogue.models, health, {}, req, 'cost').candidates)).toEqual(['cheap', 'dear']);
});

test('compliance tags, context windows and the offline model', async () => {
  const { health } = setup(['openai', 'anthropic']);
  await health.probeDue();
  // Local only, no local server: the offline model.
  expect(ids(planRoute(catalogue.models, health, { requiredTags: ['local'] }, req, 'balanced').candidates)).toEqual([
    'extractive',
  ]);
  expect(() =>
    planRoute(catalogue.models, health, { requiredTags: ['local'] }, { ...req, named: byId('dear') }, 'balanced'),
  ).toThrow(InputError);
  const big = planRoute(catalogue.models, health, {}, { promptTokens: 5000, maxTokens: 100 }, 'balanced');
  expect(ids(big.candidates)).toEqual(['dear']);
  expect(big.skipped).toEqual([expect.objectContaining({ model: 'cheap', reason: 'context_window' })]);
  expect(() =>
    planRoute(catalogue.models, health, {}, { promptTokens: 5000, maxTokens: 100, named: byId('cheap') }, 'balanced'),
  ).toThrow(/context window of cheap/);
  // No vendor configured at all: the offline model answers, even for a named vendor model.
  const bare = setup([]);
  expect(
    ids(planRoute(catalogue.models, bare.health, {}, { ...req, named: byId('dear') }, 'balanced').candidates),
  ).toEqual(['extractive']);
});

test('a 429 cools down at once for Retry-After; other failures after allowed_fails; a success clears the count', async () => {
  const { health, tick } = setup(['openai', 'anthropic']);
  await health.probeDue();
  health.recordFailure(byId('cheap'), new ProviderError('rate_limited', 'openai', 429, 7));
  expect(health.view(byId('cheap'))).toMatchObject({ status: 'cooling_down', cooldownSeconds: 7 });
  tick(7_001);
  expect(health.view(byId('cheap')).status).toBe('available');
  health.recordFailure(byId('dear'), new ProviderError('overloaded', 'anthropic'));
  expect(health.view(byId('dear')).status).toBe('available');
  health.recordSuccess(byId('dear'), 100);
  health.recordFailure(byId('dear'), new ProviderError('overloaded', 'anthropic'));
  expect(health.view(byId('dear')).status).toBe('available');
  health.recordFailure(byId('dear'), new ProviderError('timeout', 'anthropic'));
  expect(health.view(byId('dear')).status).toBe('cooling_down');
  expect(ids(planRoute(catalogue.models, health, {}, req, 'balanced').candidates)).toEqual(['cheap']);
});

test('a failing provider is probed with exponential backoff, and is available again once it answers', async () => {
  const { health, probes, tick } = setup(['openai']);
  probes.openai = 'fail';
  await health.probeDue();
  expect(health.view(byId('cheap')).status).toBe('unavailable');
  probes.openai = 'ok';
  tick(1_500);
  await health.probeDue();
  expect(health.view(byId('cheap')).status).toBe('unavailable'); // backoff: 2 s after the first failure
  tick(600);
  await health.probeDue();
  expect(health.view(byId('cheap')).status).toBe('available');
});
