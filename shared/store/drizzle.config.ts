// drizzle-kit settings for @sous/store. After changing src/schema/*.ts, from the repository root run
//   node scripts/db/generate-migration.js <what_changed>
// which calls `drizzle-kit generate` with this file and strips the "public". qualifiers drizzle-kit
// writes on foreign keys (the same SQL must work in any schema). Commit shared/store/migrations/.
import { defineConfig } from 'drizzle-kit';

export default defineConfig({
  dialect: 'postgresql',
  schema: './shared/store/src/schema/index.ts',
  out: './shared/store/migrations',
  strict: true,
  verbose: true,
});
