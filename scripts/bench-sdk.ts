/**
 * For `npm run bench`: prepares the SDK endpoints' load on the target's database and prints it
 * as JSON: a new API key of the demo publisher's first app (of `email`'s, when given: the load
 * run spreads its clients over both demo publishers), an active placement of that app and all
 * of its active placements, and `count` decisions for that placement, as if `GET /functions/v1/ads` had served them, so
 * that every event the bench sends is a first impression of its own decision: served a few
 * seconds ago to the bench's client (127.0.0.1 and the user agent `monetize-bench`), of a bench
 * campaign whose budget the bench cannot spend. Their ids are `<now>-7000-8000-<i in 12 hex
 * digits>` (the printed `idPrefix`, the time in milliseconds): time-ordered like the server's
 * (migration 20261125000000), and sent in the order they were made, as real events follow their
 * ads by moments. The bench signs their tokens with the printed key, as the server
 * does (lib/sdk/tokens.ts). No count goes with them: they stand for requests counted long ago.
 * `tsx scripts/bench-sdk.ts <count> [email]`; reads the server's environment (DATABASE_URL), and runs
 * after `bench-token.ts fresh` has made the database fresh.
 */
import { randomBytes } from 'node:crypto';
import { createApiKey } from '../lib/console/writes';
import { clientHash } from '../lib/platform/http/client-ip';
import { openPglite, openPostgres } from '../lib/platform/db/engine';
import { serviceSecret } from '../lib/platform/db/service-secrets';
import { env } from '../lib/platform/env';

/** The bench's one client's browser (scripts/bench/sdk-load.mjs sends it). */
const BENCH_USER_AGENT = 'monetize-bench';

async function main(count: number, email: string): Promise<void> {
  const { DATABASE_URL, PGLITE_DATA_DIR } = env();
  // It prints the token key and writes decisions: only ever on the bench's own database.
  const target = DATABASE_URL ? new URL(DATABASE_URL).pathname : PGLITE_DATA_DIR;
  if (!/bench\/?$/.test(target)) throw new Error(`refusing to prepare SDK load on ${target}: not a bench database`);
  // The embedded database is one process's: this runs before its server starts.
  const engine = DATABASE_URL ? await openPostgres(DATABASE_URL) : await openPglite({ dataDir: PGLITE_DATA_DIR });
  try {
    const [placement] = await engine.query<{ id: string; app_id: string; user_id: string; format: string }>(
      `select p.id, p.app_id, p.user_id, p.format from public.placements p join public.users u on u.id = p.user_id
       where u.email = $1 and p.status = 'active' and p.format = 'tooltip' order by p.created_at limit 1`,
      [email],
    );
    if (!placement) throw new Error(`no active tooltip placement of ${email}`);
    const placements = await engine.query<{ id: string }>(`select id from public.placements where app_id = $1 and status = 'active' order by created_at, id`, [
      placement.app_id,
    ]);
    const key = await createApiKey(engine, placement.user_id, { app_id: placement.app_id, name: 'Bench', environment: 'production' });
    if (!key.ok) throw new Error(key.error);
    const secret = await serviceSecret('sdk_token_key', () => randomBytes(32).toString('base64url'), engine);
    const [campaign] = await engine.query<{ id: string }>(
      `insert into public.campaigns (advertiser, name, daily_budget_usd, frequency_cap) values ('Bench', 'Bench', 1000000000, 100) returning id`,
    );
    const [creative] = await engine.query<{ id: string }>(
      `insert into public.creatives (campaign_id, format, headline, landing_url) values ($1, $2, 'Bench', 'https://bench.example/') returning id`,
      [campaign!.id, placement.format],
    );
    const hex = Date.now().toString(16).padStart(12, '0');
    const idPrefix = `${hex.slice(0, 8)}-${hex.slice(8, 12)}`;
    const client = clientHash(Buffer.from(secret, 'base64url'), '127.0.0.1', BENCH_USER_AGENT);
    await engine.query(
      `insert into public.ad_decisions (id, app_id, placement_id, campaign_id, creative_id, client_hash, created_at)
       select ($5 || '-7000-8000-' || lpad(to_hex(i), 12, '0'))::uuid, $1, $2, $3, $4, $6, now() - interval '3 seconds'
       from generate_series(0, $7 - 1) as i`,
      [placement.app_id, placement.id, campaign!.id, creative!.id, idPrefix, client, count],
    );
    process.stdout.write(
      JSON.stringify({
        key: key.value.key,
        placementId: placement.id,
        placements: placements.map((p) => p.id),
        appId: placement.app_id,
        secret,
        decisions: count,
        idPrefix,
        userAgent: BENCH_USER_AGENT,
      }),
    );
  } finally {
    await engine.close();
  }
}

main(Number(process.argv[2] ?? '0'), process.argv[3] ?? 'demo@example.com').catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
