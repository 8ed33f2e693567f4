// CI's PostgreSQL pass runs the e2e suites test/postgres-pass.txt names (.ci/run). A renamed or
// deleted suite would silently drop out of that pass, so every entry must still name a suite file
// or a folder holding some, under test/e2e/.
import fs from 'node:fs';
import path from 'node:path';

const root = path.join(__dirname, '..', '..', '..');
const entries = fs
  .readFileSync(path.join(root, 'test', 'postgres-pass.txt'), 'utf8')
  .split('\n')
  .map((line) => line.trim())
  .filter((line) => line !== '' && !line.startsWith('#'));

const suitesUnder = (dir: string): string[] =>
  fs
    .readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((d) => d.isFile() && d.name.endsWith('.test.ts'))
    .map((d) => d.name);

it('names some suites', () => {
  expect(entries.length).toBeGreaterThan(10);
});

it.each(entries)('%s is an e2e suite or a folder of them', (entry) => {
  expect(entry.startsWith('test/e2e/')).toBe(true);
  const full = path.join(root, entry);
  expect(fs.existsSync(full)).toBe(true);
  if (entry.endsWith('/')) expect(suitesUnder(full).length).toBeGreaterThan(0);
  else expect(entry.endsWith('.test.ts')).toBe(true);
});
