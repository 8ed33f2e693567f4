// The vendors' SDK errors (both SDKs share one design: APIError with status and headers,
// APIConnectionError, APIConnectionTimeoutError, APIUserAbortError) as ProviderErrors. The SDK's
// message is dropped on purpose: a vendor's error text may quote the request.
import { ProviderError, type ProviderName } from './provider';

function retryAfter(headers: unknown): number | undefined {
  const get = (headers as { get?: (name: string) => string | null } | undefined)?.get;
  const raw = typeof get === 'function' ? get.call(headers, 'retry-after') : undefined;
  if (!raw) return undefined;
  const seconds = Number(raw);
  if (Number.isFinite(seconds) && seconds >= 0) return Math.min(seconds, 3600);
  const at = Date.parse(raw);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.min(3600, Math.ceil((at - Date.now()) / 1000)));
}

function bodyMentionsContext(err: unknown): boolean {
  const body = JSON.stringify((err as { error?: unknown }).error ?? '');
  return /context[_ ]length|context window|too many tokens|maximum context|prompt is too long/i.test(body);
}

export function providerErrorOf(provider: ProviderName, err: unknown, signal?: AbortSignal): ProviderError {
  if (err instanceof ProviderError) return err;
  const name = (err as { constructor?: { name?: string } })?.constructor?.name ?? '';
  if (
    name === 'APIConnectionTimeoutError' ||
    (signal?.aborted && (signal.reason as Error | undefined)?.name === 'TimeoutError')
  )
    return new ProviderError('timeout', provider);
  if (name === 'APIUserAbortError' || (err as Error)?.name === 'AbortError')
    return new ProviderError(signal?.aborted ? 'timeout' : 'unavailable', provider);
  const status = (err as { status?: unknown }).status;
  if (typeof status !== 'number') return new ProviderError('unavailable', provider);
  const wait = retryAfter((err as { headers?: unknown }).headers);
  if (status === 429) return new ProviderError('rate_limited', provider, status, wait);
  if (status === 529 || status === 503) return new ProviderError('overloaded', provider, status, wait);
  if (status === 401 || status === 403) return new ProviderError('auth', provider, status);
  if (status === 408 || status === 504) return new ProviderError('timeout', provider, status);
  if (status === 400 || status === 413 || status === 422)
    return new ProviderError(
      bodyMentionsContext(err) || status === 413 ? 'context_length' : 'bad_request',
      provider,
      status,
    );
  return new ProviderError('unavailable', provider, status, wait);
}
