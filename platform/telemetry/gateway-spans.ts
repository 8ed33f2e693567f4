// Which of Apollo gateway's own spans a router query makes (issue 31: tracing costs <= 10%).
//
// @apollo/gateway traces itself through @opentelemetry/api once a provider is registered: five
// spans for every query (`gateway.request`, `.validate`, `.execute`, `.fetch` per subgraph call,
// `.postprocessing`), each with its own context entered, for a router whose work per query is a
// cached plan and one subgraph call. Kept: `gateway.plan` (made only when a plan is not cached,
// and then the expensive step). Not made: `gateway.request` and `gateway.execute` repeat the
// server span's time (the operation's name and type go on the server span instead,
// router/graphql/graphql.route.ts), `gateway.validate` and `gateway.postprocessing` are CPU-only
// leaves, and `gateway.fetch` is started before the router's response cache or a shared in-flight
// call (router/http/*.fetcher.ts) answers, so it was a span for every query even when no subgraph
// was called; the subgraph call itself is the HTTP client span below it (instrumentation-http:
// `url.full` names the subgraph, its server span `platform.service`), made only when the router
// really calls. A dropped span's callback runs in the caller's context with a span that records
// nothing, so a span below it is the child of the server span and the tree has no holes.
// Outside a sampled request (a trace the sampler dropped, a health check) not even the kept span
// is started: it would ask the sampler and enter a context only to record nothing.
import {
  context as contexts,
  trace,
  INVALID_SPAN_CONTEXT,
  type Context,
  type Span,
  type SpanOptions,
  type Tracer,
} from '@opentelemetry/api';

/** The instrumentation scope @apollo/gateway gets its tracer under. */
export const GATEWAY_SCOPE = 'apollo/gateway-js';

const KEPT = new Set(['gateway.plan']);

/** Shared: a span that records nothing holds no state (every method is a no-op). */
const UNRECORDED: Span = trace.wrapSpanContext(INVALID_SPAN_CONTEXT);

/** A kept span, under a span that records (the request's, when it is sampled). */
const made = (name: string, parent: Context = contexts.active()) =>
  KEPT.has(name) && trace.getSpan(parent)?.isRecording() === true;

/** The gateway's tracer, making only the spans in KEPT; the others cost a function call. */
export function gatewayTracer(tracer: Tracer): Tracer {
  return {
    startSpan: (name: string, options?: SpanOptions, context?: Context) =>
      made(name, context) ? tracer.startSpan(name, options, context) : UNRECORDED,
    startActiveSpan: ((name: string, ...rest: unknown[]) => {
      // startActiveSpan(name, [options, [context,]] fn): a context is the third of four.
      if (made(name, rest.length === 3 ? (rest[1] as Context) : undefined))
        return (tracer.startActiveSpan as (...args: unknown[]) => unknown)(name, ...rest);
      const fn = rest[rest.length - 1] as (span: Span) => unknown;
      return fn(UNRECORDED);
    }) as Tracer['startActiveSpan'],
  };
}
