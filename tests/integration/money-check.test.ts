import { describe, expect, it } from 'vitest';
import { checkMoney, moneyReport } from '../../lib/money/ledger-check';
import { testEngines } from '../helpers/db';
import { runAs, sdkClaims } from '../helpers/roles';

/**
 * `npm run money:check` (lib/money/ledger-check.ts) on every engine: it passes on a fresh install,
 * and fails, naming what broke, on a ledger entry tampered with behind its trigger's back, on a
 * trigger turned off, on a day's earnings left out of the ledger, and on payouts changed behind
 * the ledger's back.
 */

const failed = (results: Awaited<ReturnType<typeof checkMoney>>) => results.filter((r) => r.count > 0).map((r) => r.name);

for (const engine of testEngines()) {
  describe(`the money check on ${engine.name}`, () => {
    it('passes on a fresh install', async () => {
      const db = await engine.open();
      try {
        const results = await checkMoney(db);
        expect(failed(results)).toEqual([]);
        expect(moneyReport(results)).toContain('The money adds up.');
      } finally {
        await db.close();
      }
    });

    it('fails on a posting tampered with, a trigger turned off, and a day left out', async () => {
      const db = await engine.open();
      try {
        // One cent more for the first publisher posting: only the table's owner can, and only with its trigger off.
        await db.exec(`alter table public.ledger_postings disable trigger ledger_postings_append_only;
          update public.ledger_postings set amount_micro = amount_micro + 10000
          where id = (select min(p.id) from public.ledger_postings p join public.ledger_accounts a on a.id = p.account_id where a.kind = 'publisher');`);
        const tampered = await checkMoney(db);
        expect(failed(tampered)).toEqual([
          'Every ledger transaction balances to zero, with at least two postings',
          'The ledger and the staff audit log refuse updates and deletes (their triggers are in place)',
          "Each app's day of ad revenue in the ledger equals its daily stats (what publishers earned, what the ads cost)",
        ]);
        const report = moneyReport(tampered);
        expect(report).toMatch(/FAIL Every ledger transaction balances to zero, with at least two postings: 1\n {7}transaction .* 2 postings summing to 10000/);
        expect(report).toContain('3 of 18 checks failed.');

        // Earnings of a day long over that the ledger never got.
        await db.exec(`alter table public.ledger_postings enable trigger ledger_postings_append_only;
          insert into public.daily_stats (placement_id, user_id, day, impressions, revenue_micro, cost_micro)
          select p.id, p.user_id, date '2020-01-01', 10, 28000, 40000 from public.placements p order by p.created_at limit 1;`);
        expect(failed(await checkMoney(db))).toEqual([
          'Every ledger transaction balances to zero, with at least two postings',
          "Each app's day of ad revenue in the ledger equals its daily stats (what publishers earned, what the ads cost)",
          'Every day over is in the ledger: no earning day before yesterday left unposted',
        ]);
      } finally {
        await db.close();
      }
    });

    it('fails on a data license whose price the ledger does not hold, and on a data sale paid to someone else', async () => {
      const db = await engine.open();
      try {
        // The demo buyer's license, raised behind the ledger.
        await db.exec(`update public.data_licenses set price_micro = price_micro + 1 where status = 'active'`);
        expect(failed(await checkMoney(db))).toEqual(['Each granted data license is in the ledger once, for its price, and nothing else is']);
        await db.exec(`update public.data_licenses set price_micro = price_micro - 1 where status = 'active';
          alter table public.ledger_postings disable trigger ledger_postings_append_only;
          update public.ledger_postings p set account_id = (select id from public.ledger_accounts where kind = 'payouts' and user_id is null)
          where p.id = (select min(x.id) from public.ledger_postings x join public.ledger_transactions t on t.id = x.transaction_id
                        join public.ledger_accounts a on a.id = x.account_id where t.kind = 'data_sale' and a.kind = 'publisher');`);
        expect(failed(await checkMoney(db))).toContain(
          "What buyers paid is what publishers earned plus the platform's share: every data sale moves money only from one buyer to publishers and the platform, the publishers' part their share of the price",
        );
      } finally {
        await db.close();
      }
    });

    it('passes after a withdrawal claws back a data sale, and fails on a claw-back tampered with or paid to someone else', async () => {
      const db = await engine.open();
      try {
        // A person whose UX sessions the demo buyer's license holds withdraws (within 30 days of the sale).
        const [held] = await db.query<{ app_id: string; user_id: string; subject_hash: string }>(
          `select r.app_id, r.user_id, r.subject_hash from public.data_records r join public.data_license_records lr on lr.record_id = r.id
           order by r.id limit 1`,
        );
        await runAs(db, 'sdk', sdkClaims({ appId: held!.app_id, userId: held!.user_id }), (q) =>
          q.query("select public.data_records_erase($1, null, 'consent_withdrawn')", [held!.subject_hash]),
        );
        const [clawbacks] = await db.query<{ n: number }>("select count(*)::int as n from public.ledger_transactions where kind = 'data_clawback'");
        expect(clawbacks!.n).toBe(1);
        expect(failed(await checkMoney(db))).toEqual([]);

        // The license's own window moved behind its back, to end before the withdrawal: the claw-back
        // no longer follows it (migration 20261213001200_clawback_window_per_license); and a charged
        // license without a window.
        const WINDOW = "A license's records are clawed back exactly when withdrawn within its own claw-back window, fixed when it was charged";
        await db.exec(`create temporary table windows as select id, clawback_until from public.data_licenses;
          update public.data_licenses l set clawback_until = (select min(lr.withdrawn_at) from public.data_license_records lr where lr.license_id = l.id)
          where exists (select 1 from public.data_license_records lr where lr.license_id = l.id and lr.clawed_back);`);
        expect(failed(await checkMoney(db))).toEqual([WINDOW]);
        await db.exec(`alter table public.data_licenses drop constraint data_licenses_clawback_window_when_charged;
          update public.data_licenses l set clawback_until = null where l.status = 'active';`);
        expect((await checkMoney(db)).find((r) => r.name === WINDOW)!.found).toEqual(
          expect.arrayContaining([expect.stringMatching(/^license .* \(active\): charged .*, claw-back window until none$/)]),
        );
        await db.exec(`update public.data_licenses l set clawback_until = w.clawback_until from windows w where w.id = l.id;
          alter table public.data_licenses add constraint data_licenses_clawback_window_when_charged check ((transaction_id is null) = (clawback_until is null));`);
        expect(failed(await checkMoney(db))).toEqual([]);

        // One micro-dollar more to the buyer, less from the platform: balanced, but not the withdrawn share.
        await db.exec(`alter table public.ledger_postings disable trigger ledger_postings_append_only;
          update public.ledger_postings p set amount_micro = amount_micro + case a.kind when 'buyer' then 1 else -1 end
          from public.ledger_accounts a, public.ledger_transactions t
          where a.id = p.account_id and t.id = p.transaction_id and t.kind = 'data_clawback' and a.kind in ('buyer', 'platform_fees');
          alter table public.ledger_postings enable trigger ledger_postings_append_only;`);
        expect(failed(await checkMoney(db))).toEqual([
          "Each license's claw-backs refund the price of its records withdrawn within the window, pro rata, and take from no app more than its sale paid it",
        ]);
        // The refund sent to the payouts account instead of the buyer.
        await db.exec(`alter table public.ledger_postings disable trigger ledger_postings_append_only;
          update public.ledger_postings p set amount_micro = amount_micro + case a.kind when 'buyer' then -1 else 1 end
            from public.ledger_accounts a, public.ledger_transactions t
            where a.id = p.account_id and t.id = p.transaction_id and t.kind = 'data_clawback' and a.kind in ('buyer', 'platform_fees');
          update public.ledger_postings p set account_id = (select id from public.ledger_accounts where kind = 'payouts' and user_id is null)
          from public.ledger_accounts a, public.ledger_transactions t
          where a.id = p.account_id and t.id = p.transaction_id and t.kind = 'data_clawback' and a.kind = 'buyer';
          alter table public.ledger_postings enable trigger ledger_postings_append_only;`);
        expect(failed(await checkMoney(db))).toEqual([
          "Every data claw-back refunds its license's buyer, taken back only from publishers and the platform, no publisher more than the refund",
          "Each license's claw-backs refund the price of its records withdrawn within the window, pro rata, and take from no app more than its sale paid it",
        ]);
      } finally {
        await db.close();
      }
    });

    it('passes after a card top-up is refunded, and fails on a reversal tampered with, forged, or taking back more than was paid', async () => {
      const REVERSAL =
        'Each top-up reversal takes back, once, from the account a credited top-up funded into payments_in, as recorded, never more than the top-up brought in';
      const db = await engine.open();
      try {
        // A card top-up of $80 of the demo advertiser, credited, then $30 of it refunded (public.top_up_reverse, as the webhook calls it).
        const [card] = await db.query<{ id: string }>(
          `insert into public.top_ups (user_id, amount_micro, rail, checkout_session_id)
           select user_id, 80000000, 'stripe', 'cs_test_money_check' from public.advertiser_profiles order by created_at limit 1 returning id`,
        );
        await db.query("select public.top_up_credit($1, 'stripe:pi_money_check', null)", [card!.id]);
        await db.query("select public.top_up_reverse('refund', 'stripe:pi_money_check', null, null, 30000000, 'evt_money_check')");
        expect(failed(await checkMoney(db))).toEqual([]);

        // One dollar more taken back than the reversal records (balanced: payments_in gets it).
        await db.exec(`alter table public.ledger_postings disable trigger ledger_postings_append_only;
          update public.ledger_postings p set amount_micro = amount_micro + case a.kind when 'payments_in' then 1000000 else -1000000 end
          from public.ledger_accounts a, public.ledger_transactions t
          where a.id = p.account_id and t.id = p.transaction_id and t.kind = 'top_up_reversal';
          alter table public.ledger_postings enable trigger ledger_postings_append_only;`);
        const tampered = await checkMoney(db);
        expect(failed(tampered)).toEqual([REVERSAL]);
        expect(moneyReport(tampered)).toMatch(/top_up_reversal .*:refund:30000000: 31000000 micro-dollars, 1 debits, 0 others, recorded as 30000000/);
        await db.exec(`alter table public.ledger_postings disable trigger ledger_postings_append_only;
          update public.ledger_postings p set amount_micro = amount_micro + case a.kind when 'payments_in' then -1000000 else 1000000 end
          from public.ledger_accounts a, public.ledger_transactions t
          where a.id = p.account_id and t.id = p.transaction_id and t.kind = 'top_up_reversal';
          alter table public.ledger_postings enable trigger ledger_postings_append_only;`);
        expect(failed(await checkMoney(db))).toEqual([]);

        // A reversal written behind public.top_up_reverse's back, for the whole top-up again: not recorded, and more than was paid.
        await db.query(
          `select public.ledger_post('top_up_reversal', $1::text || ':dispute:forged', now(), null,
             jsonb_build_array(jsonb_build_object('account_id', public.ledger_account('advertiser', u.user_id), 'amount_micro', -80000000),
                               jsonb_build_object('account_id', public.ledger_account('payments_in', null), 'amount_micro', 80000000)))
           from public.top_ups u where u.id = $1::uuid`,
          [card!.id],
        );
        const forged = moneyReport(await checkMoney(db));
        expect(forged).toMatch(/:dispute:forged: 80000000 micro-dollars, 1 debits, 0 others, recorded by no reversal/);
        expect(forged).toMatch(/top-up .*: 110000000 micro-dollars taken back of the 80000000 it brought in/);
        expect(failed(await checkMoney(db))).toEqual([REVERSAL]);
      } finally {
        await db.close();
      }
    });

    it('fails on a payout raised behind the ledger, and on one paid that the ledger gave back', async () => {
      const db = await engine.open();
      try {
        await db.exec(`update public.payouts set amount_micro = amount_micro + 1000000000
                       where id = (select id from public.payouts where status = 'paid' order by requested_at, id limit 1);`);
        expect(failed(await checkMoney(db))).toEqual([
          'Each payout is in the ledger once, for its amount, and given back once exactly when it failed or was canceled',
          'No publisher is paid more than their final earnings: payouts paid, pending and processing within what month closes made available',
        ]);
        await db.exec(`update public.payouts set amount_micro = amount_micro - 1000000000
                         where id = (select id from public.payouts where status = 'paid' order by requested_at, id limit 1);
                       update public.payouts set status = 'paid', failure_reason = null, paid_at = now(), reference = 'x'
                         where id = (select id from public.payouts where status = 'failed' limit 1);`);
        expect(failed(await checkMoney(db))).toEqual([
          'Each payout is in the ledger once, for its amount, and given back once exactly when it failed or was canceled',
          'No publisher is paid more than their final earnings: payouts paid, pending and processing within what month closes made available',
        ]);
      } finally {
        await db.close();
      }
    });
  });
}
