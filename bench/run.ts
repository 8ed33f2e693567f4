// `npm run bench -- <name> [args]`: runs bench/<name>.ts, which exports `run(args)` and prints
// its numbers. Benchmarks measure; they never pass or fail on time.
import fs from 'node:fs';
import path from 'node:path';

async function main(): Promise<void> {
  const [name, ...args] = process.argv.slice(2);
  const available = fs
    .readdirSync(__dirname)
    .filter((f) => /\.js$/.test(f) && !f.startsWith('run.') && !f.includes('.support.'))
    .map((f) => f.replace(/\.js$/, ''));
  if (!name || !available.includes(name)) {
    console.error(`usage: npm run bench -- <${available.join('|')}> [args]`);
    process.exit(2);
  }
  const mod = (await import(path.join(__dirname, `${name}.js`))) as { run(args: string[]): Promise<void> };
  await mod.run(args);
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
