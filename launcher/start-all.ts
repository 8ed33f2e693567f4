// `npm start`: every service in one process, each on its documented port, on the embedded
// database unless DATABASE_URL is set.
// First: the tracing SDK must patch libraries before anything requires them.
import '../platform/telemetry/register';
import { runServices } from './run-services';
import { startOutboxTask } from './outbox-task';
import { registryOf, SERVICES } from './registry';

async function main(): Promise<void> {
  const running = await runServices(SERVICES, {
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
  const lines = [
    '',
    `Platform running on ${running.db.description}`,
    ...running.services.map(
      (s) =>
        `  ${s.definition.name.padEnd(18)} ${s.url}${s.definition.name === 'gateway' ? '  (GraphQL: /graphql, REST: /api/v1)' : ''}`,
    ),
    '',
    'Development users (tenant "default"): see README.md; stop with Ctrl+C.',
    '',
  ];
  process.stdout.write(lines.join('\n') + '\n');
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
