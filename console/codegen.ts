// Types for the console's operations, generated from the composed supergraph (the client preset:
// a typed `graphql()` in src/gql). `npm run codegen:console` writes them; the check variant fails
// when an operation or the supergraph changed without a regeneration.
import type { CodegenConfig } from '@graphql-codegen/cli';

const config: CodegenConfig = {
  schema: 'supergraph.graphql',
  documents: ['console/src/**/*.{ts,tsx}', '!console/src/gql/**'],
  ignoreNoDocuments: true,
  generates: {
    'console/src/gql/': {
      preset: 'client',
      presetConfig: { fragmentMasking: false },
      config: { scalars: { JSON: 'unknown' }, enumsAsTypes: true, useTypeImports: true },
    },
  },
};

export default config;
