// Prisma CLI configuration. The platform applies migrations itself (platform/db/migrator.ts),
// so the CLI is only used for `prisma generate`; the URL is needed by `migrate status` where a
// native schema engine exists.
import { defineConfig } from 'prisma/config';

export default defineConfig({
  schema: 'prisma/schema',
  migrations: { path: 'prisma/migrations' },
  datasource: { url: process.env.DATABASE_URL ?? 'postgresql://localhost:5432/platform' },
});
