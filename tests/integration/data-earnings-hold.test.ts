import { describe, expect, it } from 'vitest';
import { saveBuyerProfile } from '@/lib/data/buyers/account';
import { buyLicense } from '@/lib/data/buyers/catalog';
import { catalogFilter } from '@/lib/data/buyers/schemas';
import { checkMoney } from '@/lib/money/ledger-check';
import { PRICING_FIELDS, schedulePricing, staffPricing, type PricingColumns } from '@/lib/ops/pricing';
import type { Engine, Queryable } from '@/lib/platform/db/engine';
import { establishedPublisher } from '../helpers/data-market';
import { suiteDatabase, testEngines, type TestEngine } from '../helpers/db';
import { rawAsService, runAs, sdkClaims } from '../helpers/roles';

/**
 * A data sale's publisher earnings stay held until the month close after the claw-back window
 * (migration 20261213000400_data_market_trust; content/docs/data-buyers.md, What you can rely
 * on), on every engine: a withdrawal within `data_clawback_days` of the sale takes the earnings
 * back, so the month close (public.ledger_close_months) makes them final, and payable, only at
 * the close of the month in which the window ends, not at the close of the sale's month.
 *
 * The window is the one in force when the license was sold (migration
 * 20261213001200_clawback_window_per_license): the operator may change `data_clawback_days` in
 * /ops, and the change holds for sales made after it, never for earlier ones. Lengthened, it
 * does not claw back from earnings a month close already made final; shortened, it does not
 * release earnings before the sale's own window ends, nor spare a withdrawal within it.
 */

async function one<T>(q: Queryable, text: string, params: unknown[] = []): Promise<T> {
  const [row] = await q.query<{ v: T }>(text, params);
  return row!.v;
}

/**
 * A publisher of 20 records, a buyer with $10, and a standard license of 10 of the records sold
 * to the buyer for $0.02 (the publisher's 80%: 16,000 micro-dollars, earned, not final).
 */
async function sale(db: Engine, tag: string) {
  const seller = await establishedPublisher(db, tag, [`${tag}-notes`], 20);
  const buyer = await rawAsService(db, (q) =>
    one<string>(q, "insert into public.users (email, name) values ($1, 'Holder') returning id as v", [`${tag}@buyers.test`]),
  );
  expect(
    (
      await saveBuyerProfile(db, buyer, {
        company: 'Holder Co',
        intended_use: 'Training a support assistant.',
        billing_email: 'billing@buyers.test',
        country: 'DE',
        accept_terms: true,
      })
    ).ok,
  ).toBe(true);
  await db.query(
    `with t as (insert into public.top_ups (user_id, amount_micro, rail, invoice_number, account_kind)
                values ($1, 10000000, 'manual', $2, 'buyer') returning id)
     select public.top_up_credit(t.id, 'test', null) from t`,
    [buyer, `INV-${tag}`],
  );
  const bought = await buyLicense(db, buyer, {
    listing: 'ai_interactions',
    filter: catalogFilter.parse({ categories: [`${tag}-notes`] }),
    quantity: 10,
    exclusive: false,
    maxPriceMicro: 1_000_000,
  });
  if (!bought.ok) throw new Error(bought.error);
  expect(bought.value).toMatchObject({ status: 'active', records: 10, price_micro: 20_000 });
  const license = bought.value.license_id;
  return {
    seller,
    buyer,
    license,
    /** The publisher's earnings: held (`earned`) and final (`payable`), and the buyer's balance, in micro-dollars. */
    balances: () =>
      rawAsService(db, async (q) => ({
        earned: await one<string>(q, "select public.ledger_balance_micro('publisher', $1)::text as v", [seller.userId]),
        payable: await one<string>(q, "select public.ledger_balance_micro('publisher_available', $1)::text as v", [seller.userId]),
        buyer: await one<string>(q, "select public.ledger_balance_micro('buyer', $1)::text as v", [buyer]),
      })),
    /** The month the sale was made in, and the month `days` after the sale falls in (first days, as text). */
    months: (days: number) =>
      rawAsService(db, (q) =>
        one<{ sale: string; after: string; before: string }>(
          q,
          `select json_build_object(
             'sale', date_trunc('month', t.occurred_at at time zone 'UTC')::date::text,
             'after', date_trunc('month', (t.occurred_at + make_interval(days => $2)) at time zone 'UTC')::date::text,
             'before', (date_trunc('month', (t.occurred_at + make_interval(days => $2)) at time zone 'UTC') - interval '1 month')::date::text) as v
           from public.ledger_transactions t where t.kind = 'data_sale' and t.reference = $1`,
          [license, days],
        ),
      ),
    /** A person whose record the license holds withdraws their consent, as the app's SDK sends it. */
    withdrawOne: async () => {
      const subject = await rawAsService(db, (q) =>
        one<string>(
          q,
          'select r.subject_hash as v from public.data_license_records lr join public.data_records r on r.id = lr.record_id where lr.license_id = $1 order by lr.position limit 1',
          [license],
        ),
      );
      await runAs(db, 'sdk', sdkClaims({ appId: seller.appId, userId: seller.userId }), (q) =>
        q.query("select public.data_records_erase($1, null, 'consent_withdrawn')", [subject]),
      );
    },
    clawbacks: () =>
      rawAsService(db, (q) =>
        one<number>(q, "select count(*)::int as v from public.ledger_transactions where kind = 'data_clawback' and split_part(reference, ':', 1) = $1", [
          license,
        ]),
      ),
  };
}

/** Closes every month up to `month` (its days posted first, as the roll-up would); answers the last month closed. */
const closeThrough = (db: Engine, month: string) =>
  rawAsService(db, async (q) => {
    await q.query("select public.ledger_post_ad_revenue(100000, public.ledger_month_final_at($1::date) + interval '1 day')", [month]);
    await q.query('select public.ledger_close_months(public.ledger_month_final_at($1::date))', [month]);
    return one<string | null>(q, 'select max(month)::text as v from public.ledger_month_closes');
  });

/** The operator sets the claw-back window in /ops, effective now (public.staff_pricing_schedule), every other value kept. */
async function setClawbackDays(db: Engine, days: number) {
  const staff = await rawAsService(db, (q) =>
    one<{ id: string; email: string; name: string }>(
      q,
      "select json_build_object('id', id, 'email', email, 'name', name) as v from public.users where email = 'operator@example.com'",
    ),
  );
  const { current } = await staffPricing(db, staff);
  if (!current) throw new Error('no pricing in force');
  const values = Object.fromEntries(PRICING_FIELDS.map((f) => [f.name, current[f.name]])) as PricingColumns;
  expect(
    await schedulePricing(db, staff, { values: { ...values, data_clawback_days: days }, effectiveAt: null, reason: `Claw-back window ${days} days` }),
  ).toMatchObject({ ok: true, applied: true });
  expect(await rawAsService(db, (q) => one<number>(q, 'select data_clawback_days as v from public.pricing_settings'))).toBe(days);
}

const failedChecks = async (db: Engine) => (await checkMoney(db)).filter((r) => r.count > 0).map((r) => `${r.name}: ${r.found.join('; ')}`);

/** Runs `fn` on a database of its own: the tests close months, which every later sale of that database would see. */
async function onOwnDatabase(engine: TestEngine, fn: (db: Engine) => Promise<void>) {
  const db = await engine.open();
  try {
    await fn(db);
  } finally {
    await db.close();
  }
}

for (const engine of testEngines()) {
  describe(`data earnings held through the claw-back window on ${engine.name}`, () => {
    const suite = suiteDatabase(engine, { unlimited: true });
    const tag = `dh${Math.random().toString(36).slice(2, 8)}`;

    it('the sale month’s close leaves them earned, not final; the close of the month the window ends in makes them payable', async () => {
      const sold = await sale(suite.db, tag);
      // 80% of the price, credited at once, but earned, not final.
      expect(await sold.balances()).toMatchObject({ earned: '16000', payable: '0' });

      // The month the claw-back window ends in, and the month before it (the sale's, or a later one).
      const window = await rawAsService(suite.db, (q) => one<number>(q, 'select data_clawback_days as v from public.pricing_settings'));
      const { sale: saleMonth, after: releaseMonth, before } = await sold.months(window);
      expect(releaseMonth >= saleMonth).toBe(true);

      // Every month before the window's end closed (the sale's among them, unless the window ends
      // in it): the sale's earnings are still held.
      const closed = await closeThrough(suite.db, before);
      if (releaseMonth > saleMonth) expect(closed).toBe(before);
      expect(await sold.balances()).toMatchObject({ earned: '16000', payable: '0' });

      // The close of the month the window ends in makes them final.
      expect(await closeThrough(suite.db, releaseMonth)).toBe(releaseMonth);
      expect(await sold.balances()).toMatchObject({ earned: '0', payable: '16000' });
      expect(await failedChecks(suite.db)).toEqual([]);
    });
  });

  describe(`the claw-back window of a sale is the one in force when it was sold, on ${engine.name}`, () => {
    it('lengthened after the sale: the close after the sale’s own window makes its earnings final, and a later withdrawal takes nothing back', async () => {
      await onOwnDatabase(engine, async (db) => {
        const tag = `dl${Math.random().toString(36).slice(2, 8)}`;
        // Sold under a window of 0 days: a withdrawal from the next moment on is past it.
        await setClawbackDays(db, 0);
        const sold = await sale(db, tag);
        const { sale: saleMonth } = await sold.months(0);
        // The operator lengthens the window to 60 days: for sales from now on.
        await setClawbackDays(db, 60);

        // The sale's month closes: its window long over, its earnings become final.
        expect(await closeThrough(db, saleMonth)).toBe(saleMonth);
        expect(await sold.balances()).toEqual({ earned: '0', payable: '16000', buyer: String(10_000_000 - 20_000) });

        // A person withdraws: their records are erased, but past the sale's window nothing is clawed
        // back, and the publisher's final earnings stay theirs (the held ones not below zero).
        await sold.withdrawOne();
        expect(await sold.clawbacks()).toBe(0);
        expect(await sold.balances()).toEqual({ earned: '0', payable: '16000', buyer: String(10_000_000 - 20_000) });
        expect(
          await rawAsService(db, (q) =>
            one<{ withdrawn: number; clawed: number }>(
              q,
              "select json_build_object('withdrawn', count(*) filter (where withdrawn_at is not null), 'clawed', count(*) filter (where clawed_back)) as v from public.data_license_records where license_id = $1",
              [sold.license],
            ),
          ),
        ).toEqual({ withdrawn: 1, clawed: 0 });
        expect(await failedChecks(db)).toEqual([]);
      });
    });

    it('lengthened after a close made the earnings final: a withdrawal takes nothing back, and the held earnings never go below zero', async () => {
      await onOwnDatabase(engine, async (db) => {
        const tag = `dc${Math.random().toString(36).slice(2, 8)}`;
        await setClawbackDays(db, 0);
        const sold = await sale(db, tag);
        const { sale: saleMonth } = await sold.months(0);
        expect(await closeThrough(db, saleMonth)).toBe(saleMonth);
        expect(await sold.balances()).toEqual({ earned: '0', payable: '16000', buyer: String(10_000_000 - 20_000) });

        // Final and payable; then the window becomes 60 days, and a person withdraws.
        await setClawbackDays(db, 60);
        await sold.withdrawOne();
        expect(await sold.clawbacks()).toBe(0);
        expect(await sold.balances()).toEqual({ earned: '0', payable: '16000', buyer: String(10_000_000 - 20_000) });
        expect(await failedChecks(db)).toEqual([]);
      });
    });

    it('shortened after the sale: its earnings stay held until the sale’s own window ends, and a withdrawal within it is clawed back', async () => {
      await onOwnDatabase(engine, async (db) => {
        const tag = `ds${Math.random().toString(36).slice(2, 8)}`;
        // Sold under a window of 45 days: it ends in a later month than the sale's, whatever the day.
        await setClawbackDays(db, 45);
        const sold = await sale(db, tag);
        const { sale: saleMonth, after: releaseMonth, before } = await sold.months(45);
        expect(releaseMonth > saleMonth).toBe(true);
        // The operator shortens the window to 0 days: for sales from now on.
        await setClawbackDays(db, 0);

        // Every month before the one the sale's window ends in closes: its earnings stay held.
        expect(await closeThrough(db, before)).toBe(before);
        expect(await sold.balances()).toEqual({ earned: '16000', payable: '0', buyer: String(10_000_000 - 20_000) });

        // A withdrawal now is within the sale's 45 days: the buyer gets that record's price back
        // ($0.002), taken from the publisher's held 80% and the platform's 20%.
        await sold.withdrawOne();
        expect(await sold.clawbacks()).toBe(1);
        expect(await sold.balances()).toEqual({ earned: '14400', payable: '0', buyer: String(10_000_000 - 20_000 + 2_000) });

        // The close of the month the sale's window ends in makes the rest final.
        expect(await closeThrough(db, releaseMonth)).toBe(releaseMonth);
        expect(await sold.balances()).toEqual({ earned: '0', payable: '14400', buyer: String(10_000_000 - 20_000 + 2_000) });
        expect(await failedChecks(db)).toEqual([]);
      });
    });
  });
}
