/**
 * For `npm run test:instances` (scripts/multi-instance.mjs), on its own database only
 * (DATABASE_URL must name `monetize_instances`), after `scripts/db.ts seed` made it:
 *
 * `tsx scripts/multi/prepare.ts setup <budget>` prints as JSON what the run needs:
 * - for each demo publisher, a new key ("Instances traffic", made by the console's write path, as
 *   scripts/bench-sdk.ts makes its keys) and the active sponsored-card placement it serves;
 * - a third publisher of its own, with an app and three keys: one the run revokes, two whose
 *   shared budget the run spends (a publisher's keys share one budget);
 * - two campaigns of sponsored cards: "capped", whose daily budget the run cuts to `<budget>`
 *   dollars in mid-traffic, and "open", which never runs out; the demo advertisers' campaigns are
 *   paused in this database, so every ad served is one of these two;
 * - what one sponsored-card impression costs at the prices in force.
 *
 * `tsx scripts/multi/prepare.ts revoke <userId> <keyId>` revokes the key as the console does
 * (lib/publisher/writes.ts, as the publisher under row-level security) and prints
 * `{"revokedAt": <Unix ms>}`, read as soon as the commit has been acknowledged.
 */
import { createApiKey, createApp, revokeApiKey } from '../../lib/publisher/writes';
import { openPostgres, type Engine } from '../../lib/platform/db/engine';
import { env } from '../../lib/platform/env';
import { microAsUsd, usdToMicro, type Micro } from '../../lib/platform/kit/micro';

const FORMAT = 'sponsored_card';
/** Budgets the run starts with: large enough that pacing never stops serving before the cut. */
const CAPPED_START_USD = 3000;
const OPEN_USD = 1000;
/** Frequency cap of both campaigns: the most the schema allows, far above what one browser asks for in the run. */
const FREQUENCY_CAP = 100;

async function keyFor(engine: Engine, userId: string, appId: string, name: string): Promise<{ id: string; key: string }> {
  const made = await createApiKey(engine, userId, { app_id: appId, name, environment: 'production' });
  if (!made.ok) throw new Error(`${name}: ${made.error}`);
  return { id: made.value.id, key: made.value.key };
}

async function campaign(engine: Engine, name: string, budgetUsd: number): Promise<{ id: string; creativeId: string }> {
  const [row] = await engine.query<{ id: string }>(
    `insert into public.campaigns (advertiser, name, daily_budget_micro, frequency_cap, starts_at)
     values ('Many instances', $1, $2, $3, now() - interval '1 hour') returning id`,
    [name, usdToMicro(budgetUsd), FREQUENCY_CAP],
  );
  const [creative] = await engine.query<{ id: string }>(
    `insert into public.creatives (campaign_id, format, headline, body, landing_url)
     values ($1, $2, $3, 'One campaign, three instances.', 'https://instances.example/') returning id`,
    [row!.id, FORMAT, `Instances: ${name}`],
  );
  return { id: row!.id, creativeId: creative!.id };
}

async function setup(engine: Engine): Promise<unknown> {
  const traffic = [];
  for (const email of ['demo@example.com', 'demo2@example.com']) {
    const [placement] = await engine.query<{ id: string; app_id: string; user_id: string }>(
      `select p.id, p.app_id, p.user_id from public.placements p join public.users u on u.id = p.user_id
       where u.email = $1 and p.status = 'active' and p.format = $2 order by p.created_at, p.id limit 1`,
      [email, FORMAT],
    );
    if (!placement) throw new Error(`no active ${FORMAT} placement of ${email}: was the database seeded?`);
    const key = await keyFor(engine, placement.user_id, placement.app_id, 'Instances traffic');
    traffic.push({ email, userId: placement.user_id, appId: placement.app_id, placementId: placement.id, key: key.key, keyId: key.id });
  }

  // A publisher nobody else sends for: its keys' budget and its revoked key are the run's alone.
  const [user] = await engine.query<{ id: string }>(
    `insert into public.users (email, name, company, role) values ('instances-limits@example.com', 'Instances limits', 'Many instances', 'Developer') returning id`,
  );
  const app = await createApp(engine, user!.id, { name: 'Limits', slug: 'limits', description: '', category: [], allowed_origins: [] });
  if (!app.ok) throw new Error(app.error);
  const limits = {
    userId: user!.id,
    appId: app.value.id,
    revoked: await keyFor(engine, user!.id, app.value.id, 'Revoked in the run'),
    budget: [await keyFor(engine, user!.id, app.value.id, 'Budget A'), await keyFor(engine, user!.id, app.value.id, 'Budget B')],
  };

  const paused = await engine.query(`update public.campaigns set status = 'paused' where status = 'active' returning id`);
  const capped = await campaign(engine, 'capped', CAPPED_START_USD);
  const open = await campaign(engine, 'open', OPEN_USD);
  const [price] = await engine.query<{ micro: Micro }>(`select public.sdk_cost_per_impression($1, s) as micro from public.pricing_settings s`, [FORMAT]);
  return { traffic, limits, campaigns: { capped, open }, pausedCampaigns: paused.length, impressionUsd: microAsUsd(price!.micro), format: FORMAT };
}

async function main(args: string[]): Promise<void> {
  const { DATABASE_URL } = env();
  // It mints keys, pauses every campaign and prints keys: only ever on the run's own database.
  if (!DATABASE_URL || new URL(DATABASE_URL).pathname !== '/monetize_instances') {
    throw new Error(`refusing to prepare ${DATABASE_URL ?? 'the embedded database'}: not the monetize_instances database`);
  }
  const engine = await openPostgres(DATABASE_URL);
  try {
    if (args[0] === 'setup') {
      process.stdout.write(JSON.stringify(await setup(engine)));
    } else if (args[0] === 'revoke' && args[1] && args[2]) {
      const revoked = await revokeApiKey(engine, args[1], args[2]);
      const revokedAt = Date.now();
      if (!revoked.ok) throw new Error(revoked.error);
      process.stdout.write(JSON.stringify({ revokedAt }));
    } else {
      throw new Error('usage: tsx scripts/multi/prepare.ts setup | revoke <userId> <keyId>');
    }
  } finally {
    await engine.close();
  }
}

main(process.argv.slice(2)).catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
