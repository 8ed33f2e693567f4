// Five suites: unit (no database), integration (real database: PGlite, or PostgreSQL when
// DATABASE_URL is set), e2e (the whole platform over real clients), browser (the console in a real
// browser over the whole platform) and dist (the built platform,
// `npm run build` then `node dist/launcher/start-all.js` as a child process under Node's own
// module loader, which this transformer would otherwise hide). TypeScript and the few
// ESM-only dependencies are compiled to CommonJS (test/support/jest-transformer.js), so jest runs
// without Node flags. jest 30 and @swc/jest are avoided: their platform-specific optional
// packages are not all on this registry, which breaks `npm ci`.
const transform = { '^.+\\.(t|j|mj|cj)s$': '<rootDir>/test/support/jest-transformer.js' };
const common = {
  transform,
  transformIgnorePatterns: [
    '/node_modules/(?!(jose|@electric-sql|@seriousme|auto-bind|oidc-provider|openid-client|oauth4webapi|koa|@koa|chokidar|readdirp|@marcbachmann|hyparquet|hyparquet-compressors|hyparquet-writer|hysnappy)/)',
  ],
  testEnvironment: 'node',
  moduleFileExtensions: ['ts', 'js', 'mjs', 'cjs', 'json'],
};
module.exports = {
  // Migrates the template database once; every test file's database is a copy of it
  // (test/support/database-template.ts).
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  // Every core: jest's default leaves one idle for itself, but its parent process only schedules,
  // and on CI's two cores that halved the run. JEST_WORKERS overrides (e.g. 1 on a busy machine).
  maxWorkers: process.env.JEST_WORKERS ?? '100%',
  // A worker runs suite after suite and keeps what each leaves behind (module registries, PGlite
  // instances): on 2026-11-28 one reached V8's 4 GB heap limit at suite 259 of 265 and died mid-suite.
  // A worker over 1.5 GB after a suite is replaced (its transform cache is on disk).
  workerIdleMemoryLimit: '1536MB',
  // Generous: PGlite starts in a few seconds on a loaded 2-core machine. Not a speed assertion.
  testTimeout: 60_000,
  projects: [
    { ...common, displayName: 'unit', testMatch: ['<rootDir>/test/unit/**/*.test.ts'] },
    { ...common, displayName: 'integration', testMatch: ['<rootDir>/test/integration/**/*.test.ts'] },
    { ...common, displayName: 'e2e', testMatch: ['<rootDir>/test/e2e/**/*.test.ts'] },
    { ...common, displayName: 'dist', testMatch: ['<rootDir>/test/dist/**/*.test.ts'] },
    // The reviewer console in Debian's Chromium driven by playwright-core (test/browser/browser.support.ts).
    { ...common, displayName: 'browser', testMatch: ['<rootDir>/test/browser/**/*.test.ts'] },
  ],
};
