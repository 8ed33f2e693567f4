// Before a process starts from dist/ (npm run service, npm run deploy:local, the container's
// entrypoint): fail fast, with a clear message, when dist/ is missing or older than the sources,
// instead of every process rebuilding it at start (five processes, five builds racing). Cheap: one
// walk of the source folders comparing modification times. Where the sources are not shipped (a
// slim image holding only dist/), only the presence of dist/ is checked.
const { existsSync, readdirSync, statSync } = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
/** The folders tsconfig.build.json compiles. */
const SOURCE_DIRS = ['platform', 'subgraphs', 'router', 'rest-compat', 'services', 'launcher', 'generated', 'bench'];
/** Written last by the build: its age is the build's. */
const BUILD_MARK = path.join('dist', 'launcher', 'start-one.js');

function newestSource(dir) {
  let newest = { file: undefined, mtimeMs: 0 };
  if (!existsSync(dir)) return newest;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name === 'node_modules') continue;
      const inner = newestSource(full);
      if (inner.mtimeMs > newest.mtimeMs) newest = inner;
    } else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) {
      const { mtimeMs } = statSync(full);
      if (mtimeMs > newest.mtimeMs) newest = { file: full, mtimeMs };
    }
  }
  return newest;
}

/** Undefined when dist/ may be used, else the reason it may not. */
function distProblem(base = root) {
  const mark = path.join(base, BUILD_MARK);
  if (!existsSync(mark))
    return `${BUILD_MARK} is missing: run \`npm run build\` once before starting services from dist/`;
  const built = statSync(mark).mtimeMs;
  let newest = { file: undefined, mtimeMs: 0 };
  for (const dir of SOURCE_DIRS) {
    const n = newestSource(path.join(base, dir));
    if (n.mtimeMs > newest.mtimeMs) newest = n;
  }
  if (newest.mtimeMs > built) {
    return `dist/ is older than the sources (${path.relative(base, newest.file)} changed after the last build): run \`npm run build\``;
  }
  return undefined;
}

module.exports = { SOURCE_DIRS, BUILD_MARK, distProblem };

if (require.main === module) {
  const problem = distProblem();
  if (problem) {
    console.error(problem);
    process.exit(78); // EX_CONFIG, as the launcher's other configuration errors
  }
}
