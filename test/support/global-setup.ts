// jest's globalSetup: builds the migrated template database once, before any worker starts, so
// the workers only copy it (test/support/database-template.ts). A template already built for
// the same migrations is reused, so a run that needs no database pays one hash of the migrations.
import { pgliteTemplate, postgresTemplate } from './database-template';

export default async function globalSetup(): Promise<void> {
  if (process.env.DATABASE_URL) await postgresTemplate(process.env.DATABASE_URL);
  else await pgliteTemplate();
}
