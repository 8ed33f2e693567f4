// ESLint (flat config): typescript-eslint's recommended rules over the whole tree. Formatting is
// Prettier's job (npm run format:check), so no stylistic rules here.
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'generated/**',
      'node_modules/**',
      'coverage/**',
      '.data/**',
      'console/dist/**',
      '**/*.generated.ts',
      'console/src/gql/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      // `_name` marks a parameter kept for its position (a handler's signature).
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
      '@typescript-eslint/no-explicit-any': 'error',
    },
  },
  {
    files: ['**/*.cjs', 'scripts/**/*.js', 'test/support/*.js'],
    languageOptions: { sourceType: 'commonjs', globals: { ...globals.node } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // The GraphiQL page's script runs in the browser, over the React and GraphiQL bundles it loads.
    files: ['router/ide/static/**/*.js'],
    languageOptions: {
      sourceType: 'script',
      globals: { ...globals.browser, React: 'readonly', ReactDOM: 'readonly', GraphiQL: 'readonly' },
    },
  },
  {
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    languageOptions: { globals: { ...globals.node, ...globals.jest } },
    // Tests reach into untyped wire answers; `any` there is a reading aid, not an API.
    rules: { '@typescript-eslint/no-explicit-any': 'off', '@typescript-eslint/no-non-null-assertion': 'off' },
  },
);
