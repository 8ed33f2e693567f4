// Runs a TypeScript entry point in a plain Node child process (tests that need a real process
// to kill -9): `node test/support/run-ts.js <file.ts> [args...]`. TypeScript is transpiled on
// require with the project's own compiler (transpile only, like the jest transform); ESM-only
// dependencies load through Node's require(esm).
const fs = require('node:fs');
const path = require('node:path');
const ts = require('typescript');

const compilerOptions = {
  module: ts.ModuleKind.CommonJS,
  target: ts.ScriptTarget.ES2022,
  esModuleInterop: true,
  inlineSourceMap: true,
};

require.extensions['.ts'] = (module, filename) => {
  const source = fs.readFileSync(filename, 'utf8');
  const { outputText } = ts.transpileModule(source, { compilerOptions, fileName: filename });
  module._compile(outputText, filename);
};

const [entry, ...args] = process.argv.slice(2);
if (!entry) {
  console.error('usage: node test/support/run-ts.js <file.ts> [args...]');
  process.exit(2);
}
process.argv = [process.argv[0], path.resolve(entry), ...args];
require(path.resolve(entry));
