/**
 * For `npm run bench`: prints an access token for the demo publisher, with every scope, for the
 * REST API, signed with the configured key (OAUTH_SIGNING_KEY) as /oauth/token issues them.
 * `tsx scripts/bench-token.ts fresh` first makes the database fresh: created, migrated and
 * seeded with the demo accounts.
 * Reads the same environment as the server it prepares (DATABASE_URL or PGLITE_DATA_DIR,
 * PUBLIC_BASE_URL, OAUTH_SIGNING_KEY, NEXTAUTH_SECRET), and runs before that server starts:
 * the embedded database allows one process at a time.
 */
import { rmSync } from 'node:fs';
import path from 'node:path';
import { openPglite, openPostgres } from '../lib/platform/db/engine';
import { dropMigratedSchema, migrate } from '../lib/platform/db/migrate';
import { seed } from '../lib/demo/seed';
import { env } from '../lib/platform/env';
import { resourceUri } from '../lib/identity/oauth/resources';
import { SCOPES } from '../lib/identity/oauth/scopes';
import { loadOAuthSecrets } from '../lib/identity/secrets';
import { issueAccessToken } from '../lib/identity/oauth/tokens';

async function main(fresh: boolean): Promise<void> {
  const { DATABASE_URL, PGLITE_DATA_DIR } = env();
  if (fresh && !DATABASE_URL) rmSync(path.resolve(PGLITE_DATA_DIR), { recursive: true, force: true });
  const engine = DATABASE_URL ? await openPostgres(DATABASE_URL) : await openPglite({ dataDir: PGLITE_DATA_DIR });
  try {
    if (fresh) {
      if (DATABASE_URL) await dropMigratedSchema(engine);
      await migrate(engine);
      await seed(engine);
    }
    const [user] = await engine.query<{ id: string }>("select id from public.users where email = 'demo@example.com'");
    const secrets = await loadOAuthSecrets(async () => engine);
    if (!user || !secrets) throw new Error('no demo publisher, or no signing key configured');
    const { token } = await issueAccessToken(
      { sub: user.id, client_id: 'mcl_bench000000000000000', scope: SCOPES.join(' '), aud: [resourceUri('api')] },
      secrets,
    );
    process.stdout.write(token);
  } finally {
    await engine.close();
  }
}

main(process.argv[2] === 'fresh').catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
