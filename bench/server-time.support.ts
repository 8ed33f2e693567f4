// Time each request spends inside one HTTP server, and the part of it spent waiting on outgoing
// HTTP calls made for it (the vendor call), from Node's built-in diagnostics channels: the broker's
// own time per request at a given concurrency, without touching the broker's code. An outgoing
// request (node:http, or undici's fetch, which the vendor SDKs use) is tied to the incoming one
// through the async context it was made in. The AI broker's vendor wire with tracing off (an
// undici Pool: subgraphs/ai-broker/providers/vendor-http.ts) publishes on undici's channels too.
import { AsyncLocalStorage } from 'node:async_hooks';
import diagnostics from 'node:diagnostics_channel';
import type http from 'node:http';
import { performance } from 'node:perf_hooks';

interface Timing {
  start: number;
  outgoingMs: number;
}

export interface ServerTimes {
  /** Per finished request: [time in the server, of which waiting on outgoing calls] (ms). */
  samples: [number, number][];
  stop(): void;
}

export function measureServerTime(server: http.Server): ServerTimes {
  const context = new AsyncLocalStorage<Timing>();
  const incoming = new WeakMap<object, Timing>();
  const outgoing = new WeakMap<object, { timing: Timing; start: number }>();
  const samples: [number, number][] = [];
  const onStart = (m: unknown) => {
    const { request, server: s } = m as { request: object; server: http.Server };
    if (s !== server) return;
    const timing = { start: performance.now(), outgoingMs: 0 };
    incoming.set(request, timing);
    // Requests on one connection are sequential, so the connection's context may carry this one's.
    context.enterWith(timing);
  };
  const onFinish = (m: unknown) => {
    const { request, server: s } = m as { request: object; server: http.Server };
    const timing = s === server ? incoming.get(request) : undefined;
    if (timing) samples.push([performance.now() - timing.start, timing.outgoingMs]);
  };
  const onClientStart = (m: unknown) => {
    const timing = context.getStore();
    if (timing) outgoing.set((m as { request: object }).request, { timing, start: performance.now() });
  };
  const onClientFinish = (m: unknown) => {
    const o = outgoing.get((m as { request: object }).request);
    if (o) o.timing.outgoingMs += performance.now() - o.start;
  };
  const channels: [string, (m: unknown) => void][] = [
    ['http.server.request.start', onStart],
    ['http.server.response.finish', onFinish],
    ['http.client.request.start', onClientStart],
    ['http.client.response.finish', onClientFinish],
    ['undici:request:create', onClientStart],
    ['undici:request:headers', onClientFinish],
  ];
  for (const [name, fn] of channels) diagnostics.subscribe(name, fn);
  return {
    samples,
    stop: () => {
      for (const [name, fn] of channels) diagnostics.unsubscribe(name, fn);
    },
  };
}
