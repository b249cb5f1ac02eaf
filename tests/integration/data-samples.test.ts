import { createHash } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { saveBuyerProfile } from '@/lib/data/buyers/account';
import { listingSample, type SampleAnswer, type SampleRecord } from '@/lib/data/buyers/catalog';
import { catalogFilter } from '@/lib/data/buyers/schemas';
import type { Queryable } from '@/lib/platform/db/engine';
import { MemoryRateLimiter } from '@/lib/platform/http/rate-limit';
import { readyToSell } from '../helpers/data-market';
import { suiteDatabase, testEngines } from '../helpers/db';
import { rawAsService } from '../helpers/roles';

/**
 * Free samples preview, they do not copy the catalog (issue 39, finding 3; migration
 * 20261213000600_data_samples), on every engine. A buyer with $0 read 181 of 183 records in 30
 * page loads, one filter a day, because each filter drew its own newest records. Now: no sample
 * before money is in the balance; a funded buyer reads the same pool all day whatever the
 * filter; the pools of 30 days hold a small, fixed set of records; sample views per buyer are
 * limited; and identifiers in the text are masked.
 */

const filter = (input: Record<string, unknown> = {}) => catalogFilter.parse(input);
/** A record's number, written into its prompt: what a buyer could tell records apart by. */
const numbers = (answer: SampleAnswer) => {
  if (!answer.ok) throw new Error(`no sample: ${answer.error}`);
  return answer.records.map((r: SampleRecord) => Number(/question #(\d+)/.exec(JSON.stringify(r.data))![1]));
};
const unlimited = () => new MemoryRateLimiter({ max: 1_000_000, windowSeconds: 3600 });

for (const engine of testEngines()) {
  describe(`data samples on ${engine.name}`, () => {
    const suite = suiteDatabase(engine, { unlimited: true });
    const tag = `ds${Math.random().toString(36).slice(2, 8)}`;
    const CATEGORIES = [`${tag}-notes`, `${tag}-travel`, `${tag}-health`];
    const CATALOG = 183;
    /** Each record's facts, by number: what the filters choose by. */
    const records = new Map<number, { category: string; model: string; day: string }>();

    const newBuyer = async (fundedMicro: number) => {
      const id = await rawAsService(suite.db, async (q) => {
        const [u] = await q.query<{ id: string }>('insert into public.users (email, name) values ($1, $2) returning id', [
          `${tag}-${Math.random().toString(36).slice(2, 8)}@buyers.test`,
          'Sampler',
        ]);
        return u!.id;
      });
      const saved = await saveBuyerProfile(suite.db, id, {
        company: 'Sampler Co',
        intended_use: 'Looking before buying.',
        billing_email: 'billing@buyers.test',
        country: 'DE',
        accept_terms: true,
      });
      expect(saved.ok).toBe(true);
      if (fundedMicro > 0) {
        await suite.db.query(
          `with t as (insert into public.top_ups (user_id, amount_micro, rail, invoice_number, account_kind)
                      values ($1, $2, 'manual', $3, 'buyer') returning id)
           select public.top_up_credit(t.id, 'test', null) from t`,
          [id, fundedMicro, `INV-${tag}-${Math.random().toString(36).slice(2, 8)}`],
        );
      }
      return id;
    };

    beforeAll(async () => {
      // Three publishers of 61 records each, received 30 to 39 days ago, of two models.
      let n = 0;
      for (const category of CATEGORIES) {
        const app = await rawAsService(suite.db, async (q: Queryable) => {
          const [user] = await q.query<{ id: string }>("insert into public.users (email, name) values ($1, 'Seller') returning id", [
            `${category}@sellers.test`,
          ]);
          const [made] = await q.query<{ id: string }>(
            "insert into public.apps (user_id, name, slug, category) values ($1, 'Seller', $2, $3::text[]) returning id",
            [user!.id, category, [category]],
          );
          for (let i = 0; i < CATALOG / 3; i++) {
            const number = ++n;
            const subject = createHash('sha256').update(`${tag}-${number}`).digest('hex');
            const model = number % 2 ? 'm-odd' : 'm-even';
            const daysAgo = 30 + (number % 10);
            await q.query('insert into public.data_subjects (app_id, subject_hash, proof_hash) values ($1, $2, $2)', [made!.id, subject]);
            const [r] = await q.query<{ day: string }>(
              `with consent as (
                 insert into public.data_consents (app_id, user_id, subject_hash, purposes, policy_version, consented_at)
                 values ($1, $2, $3, '{ai_interactions}', 'v1', now() - interval '50 days') returning id
               )
               insert into public.data_records (app_id, user_id, consent_id, subject_hash, kind, record_id, payload, bytes, received_at)
               select $1, $2, c.id, $3, 'ai_interaction', $4, $5::jsonb, octet_length($5::text), now() - make_interval(days => $6) from consent c
               returning ((received_at at time zone 'UTC')::date)::text as day`,
              [
                made!.id,
                user!.id,
                subject,
                `r-${number}`,
                JSON.stringify({
                  prompt: `question #${number}: write to jane${number} (at) example (dot) com or 2001:db8::${number}, SSN 123-45-6789`,
                  response: 'Noted.',
                  model,
                }),
                daysAgo,
              ],
            );
            records.set(number, { category, model, day: r!.day });
          }
          return made!.id;
        });
        await readyToSell(suite.db, app);
      }
    });

    it('a buyer who has put no money in sees no sample, and it costs them no view', async () => {
      const broke = await newBuyer(0);
      const views = new MemoryRateLimiter({ max: 2, windowSeconds: 3600 });
      for (let i = 0; i < 3; i++)
        expect(await listingSample(suite.db, views, broke, 'ai_interactions', filter(), 100)).toEqual({ ok: false, error: 'not_funded' });
      expect(views.consume(broke, 0).remaining).toBe(2);
    });

    it('a funded buyer reads the same records for every filter all day, and the pools of 30 days hold a small fixed set', async () => {
      const buyer = await newBuyer(5_000_000);
      const views = unlimited();
      const all = numbers(await listingSample(suite.db, views, buyer, 'ai_interactions', filter({ categories: CATEGORIES }), 100));
      expect(all.length).toBeGreaterThan(0);
      expect(all.length).toBeLessThanOrEqual(20);
      // 30 filters, as a buyer trying one a day would: each shows the day's pool narrowed to it, in the pool's order.
      const days = [...new Set([...records.values()].map((r) => r.day))].sort();
      const filters: { f: Record<string, unknown>; keeps: (n: number) => boolean }[] = [];
      for (const c of CATEGORIES) filters.push({ f: { categories: [c] }, keeps: (n) => records.get(n)!.category === c });
      for (const m of ['m-odd', 'm-even']) filters.push({ f: { categories: CATEGORIES, models: [m] }, keeps: (n) => records.get(n)!.model === m });
      for (const d of days) filters.push({ f: { categories: CATEGORIES, from: d, to: d }, keeps: (n) => records.get(n)!.day === d });
      for (const c of CATEGORIES)
        for (const m of ['m-odd', 'm-even'])
          filters.push({ f: { categories: [c], models: [m] }, keeps: (n) => records.get(n)!.category === c && records.get(n)!.model === m });
      expect(filters.length).toBeGreaterThanOrEqual(20);
      const seen = new Set<number>();
      for (const { f, keeps } of filters) {
        const shown = numbers(await listingSample(suite.db, views, buyer, 'ai_interactions', filter(f), 100));
        expect(shown, JSON.stringify(f)).toEqual(all.filter(keeps));
        shown.forEach((n) => seen.add(n));
      }
      expect([...seen].every((n) => all.includes(n))).toBe(true);

      // The pools of the next 30 days: each a fixed draw for its day, all from one small showcase.
      const pools = await suite.db.query<{ day: string; record_id: string }>(
        `select d::date::text as day, p.record_id::text from generate_series((now() at time zone 'UTC')::date, (now() at time zone 'UTC')::date + 29, interval '1 day') d,
                lateral public.data_sample_pool('ai_interactions', d::date) p
         join public.data_records r on r.id = p.record_id join public.apps a on a.id = r.app_id
         where a.category && $1::text[]`,
        [CATEGORIES],
      );
      const distinct = new Set(pools.map((p) => p.record_id));
      expect(new Set(pools.map((p) => p.day)).size).toBe(30);
      expect(distinct.size).toBeLessThanOrEqual(20);
      expect(distinct.size).toBeLessThan(CATALOG / 5);
      // The same day's pool is the same set, asked again.
      const again = await suite.db.query<{ record_id: string }>(
        "select record_id::text from public.data_sample_pool('ai_interactions', (now() at time zone 'UTC')::date + 7)",
      );
      const first = await suite.db.query<{ record_id: string }>(
        "select record_id::text from public.data_sample_pool('ai_interactions', (now() at time zone 'UTC')::date + 7)",
      );
      expect(again).toEqual(first);
    });

    it('records received today wait for a later day’s pool', async () => {
      const [made] = await rawAsService(suite.db, (q) =>
        q.query<{ id: string }>(
          `insert into public.data_records (app_id, user_id, consent_id, subject_hash, kind, record_id, payload, bytes)
           select app_id, user_id, consent_id, subject_hash, kind, 'r-today', '{"prompt": "question #0", "response": "Today."}', 40
           from public.data_records where record_id = 'r-1' and app_id in (select id from public.apps where slug = $1) returning id`,
          [CATEGORIES[0]],
        ),
      );
      const pool = await suite.db.query<{ record_id: string }>(
        "select record_id::text from public.data_sample_pool('ai_interactions', (now() at time zone 'UTC')::date)",
      );
      expect(pool.length).toBeGreaterThan(0);
      expect(pool.map((p) => p.record_id)).not.toContain(made!.id);
    });

    it('a buyer’s sample views are limited per hour, and identifiers in what they show are masked', async () => {
      const buyer = await newBuyer(1_000_000);
      const views = new MemoryRateLimiter({ max: 3, windowSeconds: 3600 });
      let shown: SampleAnswer | undefined;
      for (let i = 0; i < 3; i++) {
        shown = await listingSample(suite.db, views, buyer, 'ai_interactions', filter({ categories: CATEGORIES }), 20);
        expect(shown.ok).toBe(true);
      }
      expect(await listingSample(suite.db, views, buyer, 'ai_interactions', filter({ categories: CATEGORIES }), 20)).toEqual({
        ok: false,
        error: 'rate_limited',
        retryAt: expect.any(Date),
      });
      const text = JSON.stringify(shown);
      expect(text).toContain('[email]');
      expect(text).toContain('[ip address]');
      expect(text).toContain('[id]');
      expect(text).not.toMatch(/example|2001:db8|6789|record_id|subject/);
    });
  });
}
