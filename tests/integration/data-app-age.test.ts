import { beforeAll, describe, expect, it } from 'vitest';
import { buyerLicense, saveBuyerProfile } from '@/lib/data/buyers/account';
import { buyLicense, listingAvailability, listingSample, quoteLicense } from '@/lib/data/buyers/catalog';
import { catalogFilter } from '@/lib/data/buyers/schemas';
import { checkMoney } from '@/lib/money/ledger-check';
import { MemoryRateLimiter } from '@/lib/platform/http/rate-limit';
import { establishedPublisher } from '../helpers/data-market';
import { suiteDatabase, testEngines } from '../helpers/db';
import { rawAsService } from '../helpers/roles';

/**
 * Buyers may exclude apps younger than N days (issue 39, finding 1; migration
 * 20261213000602_data_min_app_age), on every engine: the catalog's counts, the sample, the quote
 * and the purchase with `min_app_age_days` see only the records of apps at least that old, and
 * the license keeps it in its filter.
 */

for (const engine of testEngines()) {
  describe(`the apps' age in a buyer's filter on ${engine.name}`, () => {
    const suite = suiteDatabase(engine, { unlimited: true });
    const tag = `da${Math.random().toString(36).slice(2, 8)}`;
    const CATEGORY = [`${tag}-notes`];
    let young: string;
    let old: string;
    let buyer: string;

    beforeAll(async () => {
      // Both sell (60 days old, with use); one of them is 200 days old.
      young = (await establishedPublisher(suite.db, `${tag}-young`, CATEGORY, 20)).appId;
      old = (await establishedPublisher(suite.db, `${tag}-old`, CATEGORY, 20)).appId;
      await rawAsService(suite.db, (q) => q.query("update public.apps set created_at = now() - interval '200 days' where id = $1", [old]));
      buyer = await rawAsService(suite.db, async (q) => {
        const [u] = await q.query<{ id: string }>("insert into public.users (email, name) values ($1, 'Careful') returning id", [`${tag}@buyers.test`]);
        return u!.id;
      });
      const saved = await saveBuyerProfile(suite.db, buyer, {
        company: 'Careful Co',
        intended_use: 'Only data of apps with a history.',
        billing_email: 'billing@buyers.test',
        country: 'DE',
        accept_terms: true,
      });
      expect(saved.ok).toBe(true);
      await suite.db.query(
        `with t as (insert into public.top_ups (user_id, amount_micro, rail, invoice_number, account_kind)
                    values ($1, 10000000, 'manual', $2, 'buyer') returning id)
         select public.top_up_credit(t.id, 'test', null) from t`,
        [buyer, `INV-${tag}`],
      );
    });

    it('counts, samples, quotes and sells only the records of apps at least that old, and the license says so', async () => {
      const any = catalogFilter.parse({ categories: CATEGORY });
      const seasoned = catalogFilter.parse({ categories: CATEGORY, min_app_age_days: '100' });
      expect(await listingAvailability(suite.db, buyer, 'ai_interactions', any)).toMatchObject({ records: 40 });
      expect(await listingAvailability(suite.db, buyer, 'ai_interactions', seasoned)).toMatchObject({ records: 20 });
      expect(await listingAvailability(suite.db, buyer, 'ai_interactions', catalogFilter.parse({ categories: CATEGORY, min_app_age_days: 250 }))).toMatchObject(
        {
          records: 0,
        },
      );

      // The sample: of the day's pool (whichever records the draw took today), those of both apps, or of the old one only.
      const shown = async (f: typeof any) => {
        const answer = await listingSample(suite.db, new MemoryRateLimiter({ max: 100, windowSeconds: 3600 }), buyer, 'ai_interactions', f, 100);
        if (!answer.ok) throw new Error(answer.error);
        return answer.records.length;
      };
      const pooled = async (appIds: string[]) =>
        (
          await suite.db.query<{ n: number }>(
            `select count(*)::int as n from public.data_sample_pool('ai_interactions', (now() at time zone 'UTC')::date) p
             join public.data_records r on r.id = p.record_id where r.app_id = any($1::uuid[])`,
            [appIds],
          )
        )[0]!.n;
      expect(await shown(any)).toBe(await pooled([young, old]));
      expect(await shown(seasoned)).toBe(await pooled([old]));

      // A quote past what the old app alone may supply is refused; within it, the license takes the old app's records only.
      expect(await quoteLicense(suite.db, buyer, { listing: 'ai_interactions', filter: seasoned, quantity: 21, exclusive: false })).toMatchObject({
        ok: false,
        error: expect.stringContaining('Only 20 records'),
      });
      const bought = await buyLicense(suite.db, buyer, {
        listing: 'ai_interactions',
        filter: seasoned,
        quantity: 10,
        exclusive: false,
        maxPriceMicro: 1_000_000,
      });
      if (!bought.ok) throw new Error(bought.error);
      const taken = await rawAsService(suite.db, (q) =>
        q.query<{ app_id: string; n: number }>('select app_id, count(*)::int as n from public.data_license_records where license_id = $1 group by app_id', [
          bought.value.license_id,
        ]),
      );
      expect(taken).toEqual([{ app_id: old, n: 10 }]);
      expect((await buyerLicense(suite.db, buyer, bought.value.license_id))!.filter).toEqual({
        categories: CATEGORY,
        from: null,
        to: null,
        models: [],
        min_app_age_days: 100,
      });
      expect((await checkMoney(suite.db)).filter((r) => r.count > 0)).toEqual([]);
    });
  });
}
