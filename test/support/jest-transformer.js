// Jest transform: TypeScript and ESM-only dependencies (jose) go through ts-jest (transpile only).
// PGlite's CommonJS build loads Node built-ins with `await import("fs")`, which jest's VM cannot
// run without --experimental-vm-modules; those calls are rewritten to the module's own require.
const { TsJestTransformer } = require('ts-jest');

const ts = new TsJestTransformer({
  diagnostics: false,
  tsconfig: { isolatedModules: true, allowJs: true, module: 'commonjs', moduleResolution: 'node10', target: 'es2022', esModuleInterop: true, sourceMap: true },
});

const BUILTIN_IMPORT = /\bimport\("((?:node:)?[a-z_/]+)"\)/g;
const asNamespace = "((m)=>Object.assign({default:m},m))";

module.exports = {
  process(source, path, options) {
    if (path.includes('/node_modules/@electric-sql/') && path.endsWith('.cjs')) {
      return { code: source.replace(BUILTIN_IMPORT, (_, name) => `Promise.resolve(${asNamespace}(module.require(${JSON.stringify(name)})))`) };
    }
    return ts.process(source, path, options);
  },
  getCacheKey(source, path, options) {
    return 'pglite-builtins-v1:' + ts.getCacheKey(source, path, options);
  },
};
