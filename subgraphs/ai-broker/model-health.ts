// What the broker knows of each provider and model right now, so routing and GET /api/ai/models
// tell the truth. Providers are probed in the background (a model list, no tokens spent): every
// `probeIntervalMs` while they answer, with exponential backoff while they do not. Calls feed it
// too, LiteLLM-style: a 429 cools the model down at once (for the vendor's Retry-After when it
// gives one), other failures cool it down after `allowedFails` within a minute; a success clears
// the count and adds the call's latency to a moving window. State is per process: it is
// observation, and a second copy observes for itself.
import type { ProviderAdapter, ProviderError, ProviderName } from './providers/provider';
import type { ModelEntry } from './model-catalogue';

export type ModelStatus = 'available' | 'unconfigured' | 'checking' | 'unavailable' | 'cooling_down';

export interface HealthSettings {
  probeIntervalMs: number;
  probeTimeoutMs: number;
  maxBackoffMs: number;
  allowedFails: number;
  cooldownMs: number;
  latencyWindow: number;
}

interface ProviderState {
  /** undefined until the first probe or call says. */
  answering?: boolean;
  failures: number;
  nextProbeAt: number;
  lastError?: string;
  /** Epoch ms; written as ISO text only when shown (every answered call sets it). */
  lastCheckedAt?: number;
  probing?: Promise<void>;
}

interface ModelState {
  failTimes: number[];
  cooldownUntil: number;
  latencies: number[];
  /** The latencies' median, kept until the next call changes them: routing reads it per candidate and comparison. */
  median?: number;
  lastError?: string;
}

export interface ModelHealthView {
  status: ModelStatus;
  latencyMs: number | null;
  cooldownSeconds: number;
  lastError: string | null;
  lastCheckedAt: string | null;
}

const FAIL_WINDOW_MS = 60_000;

export class ModelHealth {
  private readonly providers = new Map<ProviderName, ProviderState>();
  private readonly models = new Map<string, ModelState>();
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly adapters: Record<ProviderName, ProviderAdapter>,
    private readonly settings: HealthSettings,
    private readonly now: () => number = Date.now,
  ) {}

  private provider(name: ProviderName): ProviderState {
    let s = this.providers.get(name);
    if (!s) this.providers.set(name, (s = { failures: 0, nextProbeAt: 0 }));
    return s;
  }

  private model(id: string): ModelState {
    let s = this.models.get(id);
    if (!s) this.models.set(id, (s = { failTimes: [], cooldownUntil: 0, latencies: [] }));
    return s;
  }

  /** Probes every configured provider that is due, then keeps doing so in the background. */
  start(): void {
    const tick = () => void this.probeDue();
    tick();
    this.timer = setInterval(tick, Math.min(this.settings.probeIntervalMs, 5_000));
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }

  async probeDue(): Promise<void> {
    const due = (Object.keys(this.adapters) as ProviderName[]).filter(
      (p) => this.adapters[p].configured() && this.provider(p).nextProbeAt <= this.now(),
    );
    await Promise.all(due.map((p) => this.probe(p)));
  }

  /** Probes one provider now (a second caller waits for the probe in flight). */
  probe(name: ProviderName): Promise<void> {
    const s = this.provider(name);
    s.probing ??= (async () => {
      try {
        await this.adapters[name].probe(AbortSignal.timeout(this.settings.probeTimeoutMs));
        this.providerAnswered(name);
      } catch (err) {
        this.providerFailed(name, (err as ProviderError).kind ?? 'unavailable');
      } finally {
        s.probing = undefined;
      }
    })();
    return s.probing;
  }

  private providerAnswered(name: ProviderName): void {
    const s = this.provider(name);
    s.answering = true;
    s.failures = 0;
    s.lastError = undefined;
    s.lastCheckedAt = this.now();
    s.nextProbeAt = this.now() + this.settings.probeIntervalMs;
  }

  private providerFailed(name: ProviderName, kind: string): void {
    const s = this.provider(name);
    s.answering = false;
    s.failures += 1;
    s.lastError = kind;
    s.lastCheckedAt = this.now();
    s.nextProbeAt = this.now() + Math.min(this.settings.maxBackoffMs, 1_000 * 2 ** Math.min(s.failures, 20));
  }

  recordSuccess(model: ModelEntry, latencyMs: number): void {
    const m = this.model(model.id);
    m.failTimes = [];
    m.lastError = undefined;
    m.latencies.push(latencyMs);
    if (m.latencies.length > this.settings.latencyWindow) m.latencies.shift();
    m.median = undefined;
    this.providerAnswered(model.provider);
  }

  recordFailure(model: ModelEntry, error: ProviderError): void {
    const m = this.model(model.id);
    const now = this.now();
    m.lastError = error.kind;
    if (error.kind === 'rate_limited') {
      m.cooldownUntil =
        now + (error.retryAfterSeconds !== undefined ? error.retryAfterSeconds * 1000 : this.settings.cooldownMs);
      return;
    }
    if (error.kind === 'auth' || error.kind === 'unconfigured') {
      // The key is wrong for every model of this provider: stop routing to it until a probe says otherwise.
      this.providerFailed(model.provider, error.kind);
      return;
    }
    if (error.kind === 'bad_request' || error.kind === 'context_length') return; // the request, not the model
    m.failTimes = [...m.failTimes.filter((t) => now - t < FAIL_WINDOW_MS), now];
    if (m.failTimes.length >= this.settings.allowedFails) {
      m.cooldownUntil = now + this.settings.cooldownMs;
      m.failTimes = [];
    }
  }

  /** The median of the recent calls' latencies, or the catalogue's expectation before any call. */
  latencyOf(model: ModelEntry): number {
    const m = this.models.get(model.id);
    if (!m || m.latencies.length === 0) return model.expectedLatencyMs;
    if (m.median === undefined) {
      const sorted = [...m.latencies].sort((a, b) => a - b);
      m.median = sorted[Math.floor(sorted.length / 2)]!;
    }
    return m.median;
  }

  /** The model's status alone. `configured`: the provider's, when the caller has read it already. */
  status(model: ModelEntry, configured = this.adapters[model.provider].configured()): ModelStatus {
    if (!configured) return 'unconfigured';
    if (model.provider === 'extractive') return 'available';
    const p = this.provider(model.provider);
    if (p.answering === undefined) return 'checking';
    if (!p.answering) return 'unavailable';
    const cooldownUntil = this.models.get(model.id)?.cooldownUntil ?? 0;
    return cooldownUntil > this.now() ? 'cooling_down' : 'available';
  }

  /**
   * The statuses of several models, each provider's configuration read once: routing asks for
   * every catalogue model on every call, and a provider's credentials are read from the
   * environment (provider-credentials.ts), a getenv per variable when it is process.env.
   */
  statuses(models: readonly ModelEntry[]): Map<ModelEntry, ModelStatus> {
    const configured = new Map<ProviderName, boolean>();
    const out = new Map<ModelEntry, ModelStatus>();
    for (const m of models) {
      let c = configured.get(m.provider);
      if (c === undefined) configured.set(m.provider, (c = this.adapters[m.provider].configured()));
      out.set(m, this.status(m, c));
    }
    return out;
  }

  view(model: ModelEntry): ModelHealthView {
    const p = this.provider(model.provider);
    const m = this.models.get(model.id);
    const cooldown = Math.max(0, (m?.cooldownUntil ?? 0) - this.now());
    const measured = (m?.latencies.length ?? 0) > 0;
    return {
      status: this.status(model),
      latencyMs: measured ? this.latencyOf(model) : null,
      cooldownSeconds: Math.ceil(cooldown / 1000),
      lastError: m?.lastError ?? p.lastError ?? null,
      lastCheckedAt: p.lastCheckedAt === undefined ? null : new Date(p.lastCheckedAt).toISOString(),
    };
  }
}
