import { describe, expect, it } from 'vitest';
import { checkMoney } from '../../lib/money/ledger-check';
import type { Queryable } from '../../lib/platform/db/engine';
import { suiteDatabase, testEngines } from '../helpers/db';
import { giveFinalEarnings } from '../helpers/payouts';
import { rawAsService, rawAsUser, runAs } from '../helpers/roles';

/**
 * Payouts on the ledger (migration 20261206000000_payouts), on every engine: the month close
 * (final on the 5th, once, after the month's days are posted), payout requests (refused with the
 * reason, the whole available balance in cents, two at once pay once), a payout's moves (a failed
 * or canceled one gives its amount back), and who may do what: a publisher reads and cancels only
 * their own, and never calls a staff function; staff act only signed in with their second factor,
 * and every act is in the audit log, which nobody can change.
 */

async function one<T>(q: Queryable, sql: string, params: unknown[] = []): Promise<T> {
  const [row] = await q.query<{ v: T }>(sql, params);
  return row!.v;
}

interface Answer {
  ok: boolean;
  reason?: string;
  error?: string;
  status?: string | null;
  payout_id?: string;
  amount_micro?: number;
  available_micro?: number;
  minimum_micro?: number;
}

const failedChecks = async (db: Parameters<typeof checkMoney>[0]) =>
  (await checkMoney(db)).filter((r) => r.count > 0).map((r) => `${r.name}: ${r.found.join('; ')}`);

for (const engine of testEngines()) {
  describe(`payouts on ${engine.name}`, () => {
    const suite = suiteDatabase(engine, { unlimited: true });

    const operator = () => one<string>(suite.db, "select id as v from public.users where email = 'operator@example.com'");
    const staff = async () => ({ sub: await operator(), aal: 'aal2' });

    /**
     * A new publisher with `availableMicro` of final earnings, made by the rules (giveFinalEarnings:
     * each call closes one more month of this suite's database). Unless `method` says otherwise,
     * with a ready manual payout method.
     */
    const publisher = async (name: string, availableMicro: number, method: 'ready' | 'not ready' | 'none' = 'ready') =>
      rawAsService(suite.db, async (q) => {
        const id = await one<string>(q, 'insert into public.users (email, name) values ($1, $2) returning id as v', [`${name}@payouts.test`, name]);
        if (availableMicro > 0) expect(await giveFinalEarnings(q, id, availableMicro)).toBe(1);
        if (method !== 'none') {
          await q.query(
            `insert into public.payout_methods (user_id, rail, details_ciphertext, masked, ready) values ($1, 'manual', 'v1.sealed', 'Test · •••• 1234', $2)`,
            [id, method === 'ready'],
          );
        }
        return id;
      });

    const request = (user: string) => rawAsUser(suite.db, { sub: user }, (q) => one<Answer>(q, 'select public.request_payout() as v'));
    const available = (user: string) =>
      rawAsUser(suite.db, { sub: user }, async (q) =>
        Number((await one<{ available_micro: number }>(q, 'select public.account_earnings() as v')).available_micro),
      );
    const mark = async (payout: string, status: string, reference: string | null, reason: string | null) =>
      rawAsUser(suite.db, await staff(), (q) =>
        one<Answer>(q, 'select public.staff_payout_mark($1::uuid, $2, $3, $4, $5) as v', [payout, status, reference, reason, 'test']),
      );

    it('makes the demo history by the rules: every payout within final earnings, each in the ledger, and the money check passes', async () => {
      expect(await failedChecks(suite.db)).toEqual([]);
      const statuses = await one<string[]>(suite.db, 'select array_agg(distinct status order by status) as v from public.payouts');
      expect(statuses).toEqual(['canceled', 'failed', 'paid', 'pending', 'processing']);
      // Each demo publisher: what was earned is in exactly one place.
      for (const user of [suite.users.demo, suite.users.demo2]) {
        const e = await rawAsUser(suite.db, { sub: user }, (q) =>
          one<{
            ad_revenue_micro: number;
            data_revenue_micro: number;
            pending_micro: number;
            available_micro: number;
            payouts: { amount_micro: number; status: string }[];
          }>(q, 'select public.account_earnings() as v'),
        );
        const payouts = e.payouts.filter((p) => ['paid', 'pending', 'processing'].includes(p.status)).reduce((t, p) => t + p.amount_micro, 0);
        // (The demo buyer's license paid some of them for data too.)
        expect(Number(e.pending_micro) + Number(e.available_micro) + payouts).toBe(Number(e.ad_revenue_micro) + Number(e.data_revenue_micro));
        expect(Number(e.available_micro)).toBeGreaterThanOrEqual(0);
      }
    });

    it('refuses a request with its reason: no method, a method not ready, under the minimum', async () => {
      const none = await publisher('no-method', 80_000_000, 'none');
      expect(await request(none)).toEqual({ ok: false, reason: 'no_method', available_micro: 80_000_000, minimum_micro: 50_000_000 });
      const waiting = await publisher('not-ready', 80_000_000, 'not ready');
      expect(await request(waiting)).toMatchObject({ ok: false, reason: 'method_not_ready' });
      const small = await publisher('small', 49_999_999);
      expect(await request(small)).toEqual({ ok: false, reason: 'below_minimum', available_micro: 49_999_999, minimum_micro: 50_000_000 });
      const nothing = await publisher('nothing', 0);
      expect(await request(nothing)).toMatchObject({ ok: false, reason: 'below_minimum', available_micro: 0 });
      expect(
        await one<number>(
          suite.db,
          "select count(*)::int as v from public.payouts o join public.users u on u.id = o.user_id where u.email like '%@payouts.test'",
        ),
      ).toBe(0);
    });

    it('takes the whole available balance in whole cents, once: a second request finds what is left', async () => {
      const user = await publisher('whole', 123_456_789);
      const first = await request(user);
      expect(first).toMatchObject({ ok: true, amount_micro: 123_450_000 });
      expect(await available(user)).toBe(6_789);
      expect(await request(user)).toEqual({ ok: false, reason: 'below_minimum', available_micro: 6_789, minimum_micro: 50_000_000 });
      const row = await one<{ period: string; amount_micro: string; status: string; rail: string; destination: string }>(
        suite.db,
        'select row_to_json(o) as v from (select period, amount_micro::text, status, rail, destination from public.payouts where id = $1) o',
        [first.payout_id],
      );
      expect(row).toMatchObject({ amount_micro: '123450000', status: 'pending', rail: 'manual', destination: 'Test · •••• 1234' });
      // The one month closed for them.
      expect(row.period).toMatch(/^[0-9]{4}-[0-9]{2}$/);
      expect(await failedChecks(suite.db)).toEqual([]);
    });

    it('gives a failed payout back to the available balance, with the reason the publisher reads, and lets them request again', async () => {
      const user = await publisher('fails', 75_000_000);
      const { payout_id } = await request(user);
      expect(await available(user)).toBe(0);
      expect(await mark(payout_id!, 'processing', null, null)).toEqual({ ok: true, status: 'processing' });
      expect(await mark(payout_id!, 'failed', null, ' ')).toEqual({ ok: false, error: 'reason_required', status: 'processing' });
      expect(await mark(payout_id!, 'failed', null, 'Account closed')).toEqual({ ok: true, status: 'failed' });
      // Again (a retry): nothing more is given back.
      expect(await mark(payout_id!, 'failed', null, 'Account closed')).toEqual({ ok: true, status: 'failed' });
      expect(await available(user)).toBe(75_000_000);
      const seen = await rawAsUser(suite.db, { sub: user }, (q) =>
        one<{ payouts: { status: string; failure_reason: string }[] }>(q, 'select public.account_earnings() as v'),
      );
      expect(seen.payouts).toMatchObject([{ status: 'failed', failure_reason: 'Account closed' }]);
      expect(await mark(payout_id!, 'paid', 'REF-1', null)).toEqual({ ok: false, error: 'invalid_transition', status: 'failed' });
      const again = await request(user);
      expect(again).toMatchObject({ ok: true, amount_micro: 75_000_000 });
      expect(await mark(again.payout_id!, 'paid', ' ', null)).toEqual({ ok: false, error: 'reference_required', status: 'pending' });
      expect(await mark(again.payout_id!, 'paid', 'REF-2', null)).toEqual({ ok: true, status: 'paid' });
      expect(await mark(again.payout_id!, 'canceled', null, null)).toEqual({ ok: false, error: 'invalid_transition', status: 'paid' });
      expect(await available(user)).toBe(0);
      expect(await failedChecks(suite.db)).toEqual([]);
    });

    it('lets a publisher cancel their own payout while it is pending, and no one else’s', async () => {
      const user = await publisher('cancels', 60_000_000);
      const other = await publisher('other', 60_000_000);
      const { payout_id } = await request(user);
      const cancel = (who: string, id: string) => rawAsUser(suite.db, { sub: who }, (q) => one<Answer>(q, 'select public.cancel_payout($1::uuid) as v', [id]));
      expect(await cancel(other, payout_id!)).toEqual({ ok: false, error: 'not_found', status: null });
      expect(await cancel(user, payout_id!)).toEqual({ ok: true, status: 'canceled' });
      expect(await available(user)).toBe(60_000_000);
      const sent = await request(user);
      await mark(sent.payout_id!, 'processing', null, null);
      expect(await cancel(user, sent.payout_id!)).toEqual({ ok: false, error: 'invalid_transition', status: 'processing' });
    });

    it('shows a publisher only their own payouts, payout method and ledger, never the method’s details', async () => {
      const user = await publisher('reader', 55_000_000);
      await request(user);
      const seen = await rawAsUser(suite.db, { sub: suite.users.demo2 }, async (q) => ({
        payouts: await one<number>(q, 'select count(*)::int as v from public.payouts where user_id = $1', [user]),
        methods: await one<number>(q, 'select count(*)::int as v from public.payout_methods where user_id = $1', [user]),
        postings: await one<number>(
          q,
          'select count(*)::int as v from public.ledger_postings p join public.ledger_accounts a on a.id = p.account_id where a.user_id = $1',
          [user],
        ),
        closes: await one<number>(q, 'select count(*)::int as v from public.ledger_month_closes'),
      }));
      const closes = await one<number>(suite.db, 'select count(*)::int as v from public.ledger_month_closes');
      expect(seen).toEqual({ payouts: 0, methods: 0, postings: 0, closes });
      await expect(rawAsUser(suite.db, { sub: user }, (q) => q.query('select details_ciphertext from public.payout_methods'))).rejects.toThrow(
        /permission denied/,
      );
      await expect(
        rawAsUser(suite.db, { sub: user }, (q) =>
          q.query("update public.payouts set status = 'paid', reference = 'x', paid_at = now() where user_id = $1", [user]),
        ),
      ).rejects.toThrow(/permission denied/);
      await expect(rawAsUser(suite.db, { sub: user }, (q) => q.query('select public.payout_request($1::uuid, now())', [user]))).rejects.toThrow(
        /permission denied/,
      );
    });

    it('refuses every staff function to a publisher, and to staff without their second factor', async () => {
      const payout = await one<string>(suite.db, "select id::text as v from public.payouts where status = 'pending' limit 1");
      const calls = [
        ['select public.staff_payout_mark($1::uuid, $2, $3, $4, $5)', [payout, 'paid', 'REF', null, 'x']],
        ['select public.staff_post_adjustment($1::uuid, $2, $3, null, now(), $4)', [suite.users.demo, -1_000_000, 'bots', 'adj-1']],
        ['select public.staff_close_months($1)', ['x']],
        ['select public.staff_overview()', []],
        ['select public.staff_payout_details($1::uuid, $2)', [payout, 'x']],
      ] as const;
      const operatorId = await operator();
      for (const claims of [{ sub: suite.users.demo, aal: 'aal2' }, { sub: suite.users.demo }, { sub: operatorId }, { sub: operatorId, aal: 'aal1' }]) {
        for (const [statement, params] of calls) {
          await expect(
            rawAsUser(suite.db, claims, (q) => q.query(statement, [...params])),
            `${JSON.stringify(claims)} ${statement}`,
          ).rejects.toThrow(/staff only/);
        }
      }
      expect(await one<string>(suite.db, 'select status as v from public.payouts where id = $1', [payout])).toBe('pending');
      for (const role of ['anon', 'sdk'] as const) {
        await expect(
          runAs(suite.db, role, role === 'sdk' ? { app_id: operatorId } : undefined, (q) => q.query('select public.staff_overview()')),
        ).rejects.toThrow(/permission denied/);
      }
    });

    it('lets staff signed in with their second factor act, each act in the audit log, which no role can change', async () => {
      const user = await publisher('audited', 90_000_000);
      const { payout_id } = await request(user);
      const claims = await staff();
      expect(await mark(payout_id!, 'paid', 'BANK-77', null)).toEqual({ ok: true, status: 'paid' });
      const adjusted = await rawAsUser(suite.db, claims, (q) =>
        one<Answer & { transaction_id: string }>(q, 'select public.staff_post_adjustment($1::uuid, $2, $3, null, now(), $4) as v', [
          user,
          -2_500_000,
          'Invalid traffic found: a click farm',
          'adj-audited',
        ]),
      );
      expect(adjusted.ok).toBe(true);
      // The same reference again (a retry): the same transaction, nothing more.
      const again = await rawAsUser(suite.db, claims, (q) =>
        one<Answer & { transaction_id: string }>(q, 'select public.staff_post_adjustment($1::uuid, $2, $3, null, now(), $4) as v', [
          user,
          -2_500_000,
          'Invalid traffic found: a click farm',
          'adj-audited',
        ]),
      );
      expect(again.transaction_id).toBe(adjusted.transaction_id);
      const overview = await rawAsUser(suite.db, claims, (q) =>
        one<{ audit: { action: string; subject: string; reason: string | null; staff: string }[]; publishers: { email: string; pending_micro: number }[] }>(
          q,
          'select public.staff_overview() as v',
        ),
      );
      expect(overview.audit.slice(0, 2)).toMatchObject([
        { action: 'ledger.adjustment', subject: user, reason: 'Invalid traffic found: a click farm', staff: 'operator@example.com' },
        { action: 'payout.paid', subject: payout_id, staff: 'operator@example.com' },
      ]);
      expect(overview.publishers.find((p) => p.email === 'audited@payouts.test')?.pending_micro).toBe(-2_500_000);
      // Reading a payout's details to send it is audited too.
      const details = await rawAsUser(suite.db, claims, (q) =>
        one<{ email: string; rail: string; details_ciphertext: string }>(q, 'select public.staff_payout_details($1::uuid, $2) as v', [payout_id, 'to send it']),
      );
      expect(details).toMatchObject({ email: 'audited@payouts.test', rail: 'manual', details_ciphertext: 'v1.sealed' });
      const last = await rawAsUser(suite.db, claims, (q) => one<{ audit: { action: string; reason: string }[] }>(q, 'select public.staff_overview() as v'));
      expect(last.audit[0]).toMatchObject({ action: 'payout.details_viewed', reason: 'to send it' });
      for (const role of ['authenticated', 'service_role'] as const) {
        await expect(
          runAs(suite.db, role, role === 'authenticated' ? claims : undefined, (q) => q.query("update public.staff_audit_log set reason = 'changed'")),
        ).rejects.toThrow(/permission denied/);
      }
      // Its owner too.
      await expect(suite.db.query('delete from public.staff_audit_log')).rejects.toThrow(/append-only/);
      expect(await failedChecks(suite.db)).toEqual([]);
    });

    if (engine.name === 'postgres')
      it('pays once when two requests of one publisher arrive at once, and never takes the balance below zero', async () => {
        const users: string[] = [];
        for (const i of [0, 1, 2, 3]) users.push(await publisher(`racing-${i}`, 70_000_000));
        const answers = await Promise.all(users.flatMap((u) => [request(u), request(u), request(u)]));
        expect(answers.filter((a) => a.ok)).toHaveLength(4);
        expect(answers.filter((a) => !a.ok).map((a) => [a.reason, a.available_micro])).toEqual(Array(8).fill(['below_minimum', 0]));
        for (const u of users) expect(await available(u)).toBe(0);
        expect(await failedChecks(suite.db)).toEqual([]);
      });
  });

  describe(`the month close on ${engine.name}`, () => {
    const suite = suiteDatabase(engine, { unlimited: true });
    const close = (at: string) => rawAsService(suite.db, (q) => one<number>(q, 'select public.ledger_close_months($1::timestamptz) as v', [at]));
    const closes = () =>
      suite.db.query<{ month: string; publishers: number; amount_micro: string }>(
        "select to_char(month, 'YYYY-MM') as month, publishers, amount_micro::text from public.ledger_month_closes order by month",
      );
    const balances = (user: string) =>
      rawAsUser(suite.db, { sub: user }, async (q) => {
        const e = await one<{ pending_micro: number; available_micro: number }>(q, 'select public.account_earnings() as v');
        return { pending: Number(e.pending_micro), available: Number(e.available_micro) };
      });

    it('closes a month on the 5th of the next, once however often it runs, and moves exactly the month’s earnings', async () => {
      const before = await closes();
      const last = before.at(-1)!.month;
      const next = new Date(`${last}-01T00:00:00Z`);
      next.setUTCMonth(next.getUTCMonth() + 1);
      const month = next.toISOString().slice(0, 7);
      // The seed's now: the month after the last closed one is this month or the last, not final yet.
      const finalAt = new Date(Date.UTC(next.getUTCFullYear(), next.getUTCMonth() + 1, 5));
      expect(await close(new Date(finalAt.getTime() - 1000).toISOString())).toBe(0);
      expect(await closes()).toEqual(before);
      // The month's last days go into the ledger a day after they end (the roll-up's posting).
      await rawAsService(suite.db, (q) => q.query("select public.ledger_post_ad_revenue(100000, $1::timestamptz + interval '2 days')", [finalAt]));
      // What the month made final: the publisher's postings until its end, a data sale (and its
      // claw-backs) only once its license's claw-back window is over (migration 20261213000400).
      const earned = await rawAsService(suite.db, (q) =>
        one<string>(
          q,
          `select coalesce(sum(p.amount_micro), 0)::text as v from public.ledger_postings p join public.ledger_accounts a on a.id = p.account_id
           join public.ledger_transactions t on t.id = p.transaction_id
           left join public.data_licenses l on t.kind in ('data_sale', 'data_clawback') and l.id = split_part(t.reference, ':', 1)::uuid
           where a.kind = 'publisher' and a.user_id = $1 and coalesce(l.clawback_until, t.occurred_at) < $2`,
          [suite.users.demo, new Date(Date.UTC(next.getUTCFullYear(), next.getUTCMonth() + 1, 1))],
        ),
      );
      const start = await balances(suite.users.demo);
      expect(await close(finalAt.toISOString())).toBe(1);
      expect(await close(finalAt.toISOString())).toBe(0);
      expect(await close(new Date(finalAt.getTime() + 86400_000).toISOString())).toBe(0);
      const after = await closes();
      expect(after.slice(0, -1)).toEqual(before);
      expect(after.at(-1)).toMatchObject({ month, publishers: 2 });
      const end = await balances(suite.users.demo);
      expect(end.available - start.available).toBe(Number(earned));
      expect(end.pending + end.available).toBe(start.pending + start.available);
      expect(await failedChecks(suite.db)).toEqual([]);
    });

    it('waits for days the ledger has not posted, and carries a month that nets below zero', async () => {
      const user = await rawAsService(suite.db, (q) => one<string>(q, "insert into public.users (email) values ('owes@payouts.test') returning id as v"));
      await rawAsService(suite.db, (q) =>
        q.query(
          `select public.ledger_post('adjustment', 'owes', timestamptz '2030-01-10', 'clawback',
             jsonb_build_array(jsonb_build_object('account_id', public.ledger_account('publisher', $1::uuid), 'amount_micro', -5000000),
                               jsonb_build_object('account_id', public.ledger_account('ad_sales', null), 'amount_micro', 5000000)))`,
          [user],
        ),
      );
      // A count of a day before the month's end still waits for the roll-up: nothing closes.
      await rawAsService(suite.db, (q) =>
        q.query(
          `insert into public.ad_traffic_counts (app_id, placement_id, day, impressions)
           select p.app_id, p.id, date '2000-01-01', 1 from public.placements p limit 1`,
        ),
      );
      await rawAsService(suite.db, (q) => q.query("select public.ledger_post_ad_revenue(100000, timestamptz '2030-03-06')"));
      const count = (await closes()).length;
      expect(await close('2030-03-06T00:00:00Z')).toBe(0);
      await suite.db.query("delete from public.ad_traffic_counts where day = date '2000-01-01'");
      expect(await close('2030-03-06T00:00:00Z')).toBeGreaterThan(0);
      expect((await closes()).length).toBeGreaterThan(count);
      expect(await balances(user)).toEqual({ pending: -5_000_000, available: 0 });
    });

    if (engine.name === 'postgres')
      it('closes each month once when runs race', async () => {
        const results = await Promise.all(Array.from({ length: 6 }, () => close('2031-06-06T00:00:00Z')));
        expect(results.filter((n) => n > 0)).toHaveLength(1);
        const dup = await one<number>(
          suite.db,
          "select count(*)::int as v from (select reference from public.ledger_transactions where kind = 'month_close' group by reference having count(*) > 1) x",
        );
        expect(dup).toBe(0);
        expect(await failedChecks(suite.db)).toEqual([]);
      });
  });
}
