// Dual-package hazard audit of a running process: `node --require ./scripts/module-audit.cjs
// dist/launcher/start-all.js`, exercise it, stop it; on exit it prints (stderr) every package whose
// ES build and CommonJS build are BOTH loaded, i.e. two copies of its classes and state, so an
// object made by one fails the other's instanceof (how GraphQL uploads broke on the built platform:
// docs/decisions.md, "Dual-package hazards"). A bare specifier that the ES loader resolved to
// another file than require() resolves it to is a hazard when that CommonJS file is loaded too,
// unless the ES file is a wrapper importing the CommonJS one (pg, ws). MODULE_AUDIT_OUT=<file>
// also writes the findings as JSON. Observation only: nothing is loaded differently.
const { register, createRequire, isBuiltin } = require('node:module');
const { fileURLToPath, pathToFileURL } = require('node:url');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const trace = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'module-audit-')), 'resolutions.jsonl');
fs.writeFileSync(trace, '');
register(pathToFileURL(path.join(__dirname, 'module-audit.hooks.mjs')), { data: { trace } });

const isBare = (s) => !/^(\.|\/|node:|file:|data:)/.test(s) && !isBuiltin(s);

function findings() {
  const resolutions = fs
    .readFileSync(trace, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
  const loadedCjs = new Set(Object.keys(require.cache));
  const edges = new Set(resolutions.map((r) => `${r.parentURL} -> ${r.url}`));
  const hazards = new Map();
  const esmImports = [];
  for (const r of resolutions) {
    if (!isBare(r.specifier) || !r.url.startsWith('file:')) continue;
    esmImports.push(`${r.specifier} -> ${fileURLToPath(r.url)}`);
    let cjsFile;
    try {
      cjsFile = createRequire(r.parentURL ? fileURLToPath(r.parentURL) : __filename).resolve(r.specifier);
    } catch {
      continue; // no CommonJS entry at all (ESM-only): one build, no hazard
    }
    const esmFile = fileURLToPath(r.url);
    if (esmFile === cjsFile || !loadedCjs.has(cjsFile)) continue;
    if (edges.has(`${r.url} -> ${pathToFileURL(cjsFile).href}`)) continue; // an ES wrapper of the CommonJS build
    hazards.set(`${esmFile} ${cjsFile}`, {
      specifier: r.specifier,
      importedBy: r.parentURL,
      esm: esmFile,
      cjs: cjsFile,
    });
  }
  return { hazards: [...hazards.values()], esmImports: [...new Set(esmImports)].sort() };
}

process.on('exit', () => {
  const result = findings();
  const lines = result.hazards.map(
    (h) => `  ${h.specifier}: ES build ${h.esm} (imported by ${h.importedBy}) AND CommonJS build ${h.cjs}`,
  );
  process.stderr.write(
    `module-audit: ${result.hazards.length} dual-loaded package(s)${lines.length ? `\n${lines.join('\n')}` : ''}\n`,
  );
  if (process.env.MODULE_AUDIT_OUT) fs.writeFileSync(process.env.MODULE_AUDIT_OUT, JSON.stringify(result, null, 2));
  fs.rmSync(path.dirname(trace), { recursive: true, force: true });
});
