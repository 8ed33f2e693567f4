// Three suites: unit (no database), integration (real database: PGlite, or PostgreSQL when
// DATABASE_URL is set) and e2e (the whole platform over real clients). TypeScript and the few
// ESM-only dependencies (jose) are compiled by swc, so jest runs without Node flags.
const transform = {
  '^.+\\.(t|j|mj|cj)s$': ['@swc/jest', {
    jsc: { parser: { syntax: 'typescript' }, target: 'es2022' },
    module: { type: 'commonjs' },
  }],
};
const common = {
  transform,
  transformIgnorePatterns: ['/node_modules/(?!(jose|@electric-sql)/)'],
  testEnvironment: 'node',
  moduleFileExtensions: ['ts', 'js', 'mjs', 'cjs', 'json'],
};
module.exports = {
  projects: [
    { ...common, displayName: 'unit', testMatch: ['<rootDir>/test/unit/**/*.test.ts'] },
    { ...common, displayName: 'integration', testMatch: ['<rootDir>/test/integration/**/*.test.ts'] },
    { ...common, displayName: 'e2e', testMatch: ['<rootDir>/test/e2e/**/*.test.ts'] },
  ],
};
