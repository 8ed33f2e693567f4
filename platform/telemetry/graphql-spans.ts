// The GraphQL instrumentation, but only inside a request whose span records (issue 31).
//
// @opentelemetry/instrumentation-graphql wraps every `execute`: an operation span, the document's
// source, its own record on the context value, and then every resolver call checks that record,
// computes its path and, for a root field, starts a span and enters its context. For a request the
// sampler dropped all of that records nothing (at a 10% ratio, nine requests in ten). Here
// `execute`, `parse` and `validate` run unwrapped unless the active span records, so an unsampled
// request pays one check; resolvers already wrapped see no record on its context value and call
// straight through. Outside any request (a schema parsed at start, a subscription's events pushed
// over a WebSocket long after its upgrade request ended) they are not traced either: each was a
// trace of its own before.
import { trace } from '@opentelemetry/api';
import { GraphQLInstrumentation } from '@opentelemetry/instrumentation-graphql';

type Fn = (this: unknown, ...args: unknown[]) => unknown;
type Patch = (original: Fn) => Fn;
/** The instrumentation's own wrappers of graphql's functions (private methods of its class). */
type Patching = Record<
  '_patchExecute' | '_patchParse' | '_patchValidate',
  (this: unknown, ...args: unknown[]) => Patch
>;

export class SampledGraphQLInstrumentation extends GraphQLInstrumentation {}

const base = GraphQLInstrumentation.prototype as unknown as Patching;
const sampled = SampledGraphQLInstrumentation.prototype as unknown as Patching;
for (const method of ['_patchExecute', '_patchParse', '_patchValidate'] as const) {
  sampled[method] = function (...args) {
    const patch = base[method].apply(this, args);
    return (original) => {
      const traced = patch(original);
      return function (this: unknown, ...callArgs: unknown[]) {
        return trace.getActiveSpan()?.isRecording() ? traced.apply(this, callArgs) : original.apply(this, callArgs);
      };
    };
  };
}
