import { createHash } from 'node:crypto';
import type { Engine } from '../../lib/platform/db/engine';
import { rawAsService } from './roles';

/**
 * The data market's sellers in tests (migration 20261213000400_data_market_trust): only an app
 * whose account and self are old enough and which had billable ad impressions on enough days
 * sells its records (public.data_apps_for_sale). These make a test's apps so, as years of use would.
 */

/** Makes `appId` and its publisher's account 60 days old, with billable impressions on 10 days (a placement of its own). */
export async function readyToSell(db: Engine, appId: string): Promise<void> {
  await rawAsService(db, async (q) => {
    await q.query("update public.apps set created_at = least(created_at, now() - interval '60 days') where id = $1", [appId]);
    await q.query(
      "update public.users set created_at = least(created_at, now() - interval '60 days') where id = (select user_id from public.apps where id = $1)",
      [appId],
    );
    // Revenue 0 (nothing for the ledger to post): the rule counts days with billable impressions.
    await q.query(
      `with placement as (
         insert into public.placements (app_id, user_id, name, format, status, created_at)
         select id, user_id, 'Seasoned', 'inline_text', 'active', now() - interval '60 days' from public.apps where id = $1 returning id, user_id
       )
       insert into public.daily_stats (placement_id, user_id, day, impressions)
       select p.id, p.user_id, (now() at time zone 'UTC')::date - d, 100 from placement p, generate_series(2, 11) d`,
      [appId],
    );
  });
}

/**
 * A publisher that has sold for a while: an account and an app of `category` ready to sell,
 * with `records` AI interactions of `records` consenting people, written as the SDK would.
 * Answers the publisher's and the app's ids.
 */
export async function establishedPublisher(db: Engine, tag: string, category: string[], records: number): Promise<{ userId: string; appId: string }> {
  const { userId, appId } = await rawAsService(db, async (q) => {
    const [user] = await q.query<{ id: string }>("insert into public.users (email, name) values ($1, 'Established') returning id", [`${tag}@sellers.test`]);
    const [app] = await q.query<{ id: string }>(
      "insert into public.apps (user_id, name, slug, category) values ($1, 'Established', $2, $3::text[]) returning id",
      [user!.id, tag, category],
    );
    for (let i = 0; i < records; i++) {
      const subject = createHash('sha256').update(`${tag}-${i}`).digest('hex');
      await q.query('insert into public.data_subjects (app_id, subject_hash, proof_hash) values ($1, $2, $2)', [app!.id, subject]);
      await q.query(
        `with consent as (
           insert into public.data_consents (app_id, user_id, subject_hash, purposes, policy_version, consented_at)
           values ($1, $2, $3, '{ai_interactions}', 'v1', now() - interval '20 days') returning id
         )
         insert into public.data_records (app_id, user_id, consent_id, subject_hash, kind, record_id, payload, bytes, received_at)
         select $1, $2, c.id, $3, 'ai_interaction', $4, $5::jsonb, octet_length($5::text), now() - interval '10 days' from consent c`,
        [app!.id, user!.id, subject, `r-${i}`, JSON.stringify({ prompt: 'What is the capital of Peru?', response: 'Lima.' })],
      );
    }
    return { userId: user!.id, appId: app!.id };
  });
  await readyToSell(db, appId);
  return { userId, appId };
}
