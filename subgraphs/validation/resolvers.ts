// The validation subgraph's resolvers: thin adapters over validation.service (the same function as
// REST's POST /validate). Input problems come back as BAD_USER_INPUT with extensions.field in
// GraphQL names (rulePackId, rulePack.rules.0.operator, payload...), since the domain names its
// fields the way ValidateInput does.
import { JSONScalar } from '../../platform/graphql/json-scalar';
import { lower } from '../../platform/graphql/resolver-args';
import type { ValidationRun } from './validation.types';
import type { Resolvers } from './resolvers.generated';

/** An engine entry (snake_case) in GraphQL names. */
function issue(entry: Record<string, unknown>) {
  return {
    ruleId: entry.rule_id,
    severity: entry.severity,
    field: entry.field ?? null,
    message: entry.message,
    row: entry.row ?? null,
  };
}

function run(r: ValidationRun) {
  const result = r.result as unknown as Record<string, unknown> & {
    errors: Record<string, unknown>[];
    warnings: Record<string, unknown>[];
  };
  return {
    result: {
      valid: result.valid,
      errors: result.errors.map(issue),
      warnings: result.warnings.map(issue),
      ruleResults: result.rule_results,
      metadata: result.metadata,
    },
    correlationId: r.correlationId,
    executionTimeMs: r.executionTimeMs,
    rulePackId: r.rulePackId,
    rulePackVersion: r.rulePackVersion,
    packSource: r.packSource === 'registry' ? 'REGISTRY' : 'INLINE',
    packSha256: r.packSha256,
    inputSha256: r.inputSha256,
    rulePack:
      r.registryVersion === null ? null : { __typename: 'RulePack', id: r.rulePackId, version: r.registryVersion },
  };
}

/** What a ValidationRun resolves from (the generated types' mapper): the engine's result in GraphQL names. */
export type ValidationRunNode = ReturnType<typeof run>;

export const resolvers = {
  JSON: JSONScalar,
  Mutation: {
    validate: async (_, { input }, ctx) =>
      run(
        await ctx.service.validate(
          ctx.caller,
          {
            rulePackId: input.rulePackId,
            rulePackVersion: input.rulePackVersion,
            rulePack: input.rulePack,
            payload: input.payload,
            payloadFormat: input.payloadFormat ? lower(input.payloadFormat) : undefined,
            validationType: input.validationType,
            strictMode: input.strictMode,
            metadata: input.metadata,
          },
          ctx.forward,
        ),
      ),
  },
} satisfies Resolvers;
