// Jest transform: TypeScript and ESM-only dependencies (jose) go through ts-jest (transpile only).
// PGlite's CommonJS build loads Node built-ins with `await import("fs")`, which jest's VM cannot
// run without --experimental-vm-modules; those calls are rewritten to the module's own require.
// ES-module dependencies that locate files with `import.meta.url` get the CommonJS equivalent.
const { TsJestTransformer } = require('ts-jest');

const ts = new TsJestTransformer({
  diagnostics: false,
  tsconfig: {
    isolatedModules: true,
    allowJs: true,
    module: 'commonjs',
    moduleResolution: 'node10',
    target: 'es2022',
    esModuleInterop: true,
    sourceMap: true,
  },
});

const BUILTIN_IMPORT = /\bimport\("((?:node:)?[a-z_/]+)"\)/g;
const asNamespace = '((m)=>Object.assign({default:m},m))';

module.exports = {
  process(source, path, options) {
    if (path.includes('/node_modules/@electric-sql/') && path.endsWith('.cjs')) {
      return {
        code: source.replace(
          BUILTIN_IMPORT,
          (_, name) => `Promise.resolve(${asNamespace}(module.require(${JSON.stringify(name)})))`,
        ),
      };
    }
    if (path.includes('/node_modules/') && source.includes('import.meta.url')) {
      source = source.replace(/import\.meta\.url/g, "require('node:url').pathToFileURL(__filename).href");
    }
    return ts.process(source, path, options);
  },
  getCacheKey(source, path, options) {
    return 'esm-shims-v2:' + ts.getCacheKey(source, path, options);
  },
};
