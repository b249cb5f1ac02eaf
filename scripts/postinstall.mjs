#!/usr/bin/env node
// After `npm install`: the site's stylesheet (scripts/styles.ts), and the migrated template a new embedded database starts from
// (scripts/db-template.ts), so that the first `npm run dev` does not migrate from nothing. Never
// fails the install: without a template the database is made as before, only slower. Skipped on
// Vercel and wherever the embedded database is not used (DATABASE_URL set), and when the install
// left out the development tools it runs with (`npm install --omit=dev`).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

// Never fails the install either: Next builds the stylesheet when it loads its configuration.
if (existsSync('node_modules/tsx') && existsSync('node_modules/@tailwindcss/node')) {
  const styles = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/styles.ts'], { stdio: 'inherit', timeout: 60_000 });
  if (styles.status !== 0) console.log('styles: not built; the first `npm run dev` builds it instead.');
}

if (process.env.VERCEL || process.env.DATABASE_URL || process.env.MONETIZE_SKIP_DB_TEMPLATE) process.exit(0);
if (!existsSync('node_modules/tsx') || !existsSync('node_modules/@electric-sql/pglite')) process.exit(0);
const run = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/db-template.ts'], { stdio: 'inherit', timeout: 120_000 });
if (run.status !== 0) console.log('db:template: not written; the first `npm run dev` migrates its database from nothing instead.');
