// `scalar JSON` as every subgraph declares it: any JSON value, passed through unchanged (input
// values are checked by the domain, which knows what shape it expects).
import { GraphQLScalarType, Kind, valueFromASTUntyped } from 'graphql';

export const JSONScalar = new GraphQLScalarType({
  name: 'JSON',
  description: 'Any JSON value',
  serialize: (v) => v,
  parseValue: (v) => v,
  parseLiteral: (ast, variables) => (ast.kind === Kind.NULL ? null : valueFromASTUntyped(ast, variables)),
});
