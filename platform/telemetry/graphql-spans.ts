// The GraphQL instrumentation, but only inside a request whose span records (issue 31).
//
// @opentelemetry/instrumentation-graphql wraps every `execute`: an operation span, the document's
// source, its own record on the context value, and then every resolver call checks that record,
// computes its path and, for a root field, starts a span and enters its context. For a request the
// sampler dropped all of that records nothing (at a 10% ratio, nine requests in ten). Here
// `execute` runs unwrapped unless the active span records, so an unsampled request pays one
// check; resolvers already wrapped see no record on its context value and call straight through.
// An execute outside a traced request (a subscription's events, pushed over a WebSocket long after
// its upgrade request ended) is not traced either, as before when it had no parent to join.
import { trace } from '@opentelemetry/api';
import { GraphQLInstrumentation } from '@opentelemetry/instrumentation-graphql';

type Execute = (this: unknown, ...args: unknown[]) => unknown;
type ExecutePatch = (original: Execute) => Execute;
/** The instrumentation's own wrapping of `graphql.execute` (a private method of its class). */
type Patching = { _patchExecute(this: GraphQLInstrumentation, defaultFieldResolver: unknown): ExecutePatch };

const traced = (GraphQLInstrumentation.prototype as unknown as Patching)._patchExecute;

export class SampledGraphQLInstrumentation extends GraphQLInstrumentation {}

(SampledGraphQLInstrumentation.prototype as unknown as Patching)._patchExecute = function (defaultFieldResolver) {
  const patch = traced.call(this, defaultFieldResolver);
  return (original) => {
    const wrapped = patch(original);
    return function execute(this: unknown, ...args: unknown[]) {
      return trace.getActiveSpan()?.isRecording() ? wrapped.apply(this, args) : original.apply(this, args);
    };
  };
};
