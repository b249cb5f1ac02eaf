import { describe, expect, it } from 'vitest';
import { saveBuyerProfile } from '@/lib/data-buyers/account';
import { buyLicense } from '@/lib/data-buyers/catalog';
import { catalogFilter } from '@/lib/data-buyers/schemas';
import { checkMoney } from '@/lib/ledger/check';
import type { Queryable } from '@/lib/platform/db/engine';
import { establishedPublisher } from '../helpers/data-market';
import { suiteDatabase, testEngines } from '../helpers/db';
import { rawAsService } from '../helpers/roles';

/**
 * A data sale's publisher earnings stay held until the month close after the claw-back window
 * (migration 20261213000400_data_market_trust; content/docs/data-buyers.md, What you can rely
 * on), on every engine: a withdrawal within `data_clawback_days` of the sale takes the earnings
 * back, so the month close (public.ledger_close_months) makes them final, and payable, only at
 * the close of the month in which the window ends, not at the close of the sale's month.
 */

async function one<T>(q: Queryable, text: string, params: unknown[] = []): Promise<T> {
  const [row] = await q.query<{ v: T }>(text, params);
  return row!.v;
}

for (const engine of testEngines()) {
  describe(`data earnings held through the claw-back window on ${engine.name}`, () => {
    const suite = suiteDatabase(engine, { unlimited: true });
    const tag = `dh${Math.random().toString(36).slice(2, 8)}`;

    it('the sale month’s close leaves them earned, not final; the close of the month the window ends in makes them payable', async () => {
      const seller = await establishedPublisher(suite.db, tag, [`${tag}-notes`], 20);
      const buyer = await rawAsService(suite.db, (q) =>
        one<string>(q, "insert into public.users (email, name) values ($1, 'Holder') returning id as v", [`${tag}@buyers.test`]),
      );
      expect(
        (
          await saveBuyerProfile(suite.db, buyer, {
            company: 'Holder Co',
            intended_use: 'Training a support assistant.',
            billing_email: 'billing@buyers.test',
            country: 'DE',
            accept_terms: true,
          })
        ).ok,
      ).toBe(true);
      await suite.db.query(
        `with t as (insert into public.top_ups (user_id, amount_micro, rail, invoice_number, account_kind)
                    values ($1, 10000000, 'manual', $2, 'buyer') returning id)
         select public.top_up_credit(t.id, 'test', null) from t`,
        [buyer, `INV-${tag}`],
      );
      const bought = await buyLicense(suite.db, buyer, {
        listing: 'ai_interactions',
        filter: catalogFilter.parse({ categories: [`${tag}-notes`] }),
        quantity: 10,
        exclusive: false,
        maxPriceMicro: 1_000_000,
      });
      if (!bought.ok) throw new Error(bought.error);
      expect(bought.value).toMatchObject({ status: 'active', records: 10, price_micro: 20_000 });

      const balances = () =>
        rawAsService(suite.db, async (q) => ({
          earned: await one<string>(q, "select public.ledger_balance_micro('publisher', $1)::text as v", [seller.userId]),
          payable: await one<string>(q, "select public.ledger_balance_micro('publisher_available', $1)::text as v", [seller.userId]),
        }));
      // 80% of the price, credited at once, but earned, not final.
      expect(await balances()).toEqual({ earned: '16000', payable: '0' });

      // The month the claw-back window ends in, and the month before it (the sale's, or a later one).
      const { saleMonth, releaseMonth, before } = await rawAsService(suite.db, (q) =>
        one<{ saleMonth: string; releaseMonth: string; before: string }>(
          q,
          `select json_build_object(
             'saleMonth', date_trunc('month', t.occurred_at at time zone 'UTC')::date::text,
             'releaseMonth', date_trunc('month', (t.occurred_at + make_interval(days => s.data_clawback_days)) at time zone 'UTC')::date::text,
             'before', (date_trunc('month', (t.occurred_at + make_interval(days => s.data_clawback_days)) at time zone 'UTC') - interval '1 month')::date::text) as v
           from public.ledger_transactions t, public.pricing_settings s where t.kind = 'data_sale' and t.reference = $1`,
          [bought.value.license_id],
        ),
      );
      expect(releaseMonth >= saleMonth).toBe(true);
      /** Closes every month up to `month` (its days posted first, as the roll-up would). */
      const closeThrough = (month: string) =>
        rawAsService(suite.db, async (q) => {
          await q.query("select public.ledger_post_ad_revenue(100000, public.ledger_month_final_at($1::date) + interval '1 day')", [month]);
          await q.query('select public.ledger_close_months(public.ledger_month_final_at($1::date))', [month]);
          return one<string | null>(q, 'select max(month)::text as v from public.ledger_month_closes');
        });

      // Every month before the window's end closed (the sale's among them, unless the window ends
      // in it): the sale's earnings are still held.
      const closed = await closeThrough(before);
      if (releaseMonth > saleMonth) expect(closed).toBe(before);
      expect(await balances()).toEqual({ earned: '16000', payable: '0' });

      // The close of the month the window ends in makes them final.
      expect(await closeThrough(releaseMonth)).toBe(releaseMonth);
      expect(await balances()).toEqual({ earned: '0', payable: '16000' });
      expect((await checkMoney(suite.db)).filter((r) => r.count > 0)).toEqual([]);
    });
  });
}
