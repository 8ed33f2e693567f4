// `npm run service -- <name>`: one service in its own process, on PORT or its documented port.
// Several processes share state through PostgreSQL, so DATABASE_URL is required (PGlite serves
// one process only).
// First: the tracing SDK must patch libraries before anything requires them.
import '../platform/telemetry/register';
import { runServices } from './run-services';
import { startOutboxTask } from './outbox-task';
import { registryOf, SERVICES } from './registry';

async function main(): Promise<void> {
  const name = process.argv[2];
  const definition = SERVICES.find((s) => s.name === name);
  if (!definition) {
    console.error(`usage: npm run service -- <${SERVICES.map((s) => s.name).join('|')}>`);
    process.exit(2);
  }
  if (
    !process.env.DATABASE_URL &&
    !process.env.POSTGRES_URL &&
    definition.usesDatabase !== false &&
    !process.env.PGLITE_DIR
  ) {
    console.error(
      'One service per process shares state through PostgreSQL: set DATABASE_URL (or PGLITE_DIR to give this process its own embedded database).',
    );
    process.exit(78);
  }
  const running = await runServices([definition], {
    alone: true,
    afterStart: async (r, logger) =>
      startOutboxTask({
        running: r.services.map((s) => s.definition),
        registry: registryOf(),
        db: r.db,
        env: process.env,
        logger,
        jwtSecret: r.config.auth.jwtSecret,
      }),
  });
  const [service] = running.services;
  process.stdout.write(
    `${definition.name} ${definition.version} listening on ${service!.url} (${running.db.description})\n`,
  );
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
