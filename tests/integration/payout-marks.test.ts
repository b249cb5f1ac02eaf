import { describe, expect, it } from 'vitest';
import { PAYOUT_MARKS, sendWithStripe, staffOverview } from '../../lib/money/payouts/staff';
import type { StripeRail } from '../../lib/money/stripe/rail';
import { markPayoutForm } from '../../lib/ops/forms';
import type { Queryable } from '../../lib/platform/db/engine';
import { PAYOUT_STATUSES } from '../../lib/schemas/account';
import { suiteDatabase, testEngines } from '../helpers/db';
import { giveFinalEarnings } from '../helpers/payouts';
import { rawAsService, rawAsUser } from '../helpers/roles';

/**
 * A payout's moves have one home (migration 20261214000300_payout_marks): public.payout_next_statuses
 * lists them, public.payout_transition refuses any other, and the operator console asks: its form
 * holds no rule of its own (a `paid` needs a reference, a `failed` a reason: the database says so,
 * in the same words), sending with Stripe lets the database say whether the payout can still be
 * sent, and the console offers the statuses the overview answers with each payout. On every
 * engine, with the statuses the console can mark the same on both sides.
 */

async function one<T>(q: Queryable, sql: string, params: unknown[] = []): Promise<T> {
  const [row] = await q.query<{ v: T }>(sql, params);
  return row!.v;
}

let made = 0;

for (const engine of testEngines()) {
  describe(`payout marks on ${engine.name}`, () => {
    const suite = suiteDatabase(engine, { unlimited: true });

    const operator = async () => {
      const id = await one<string>(suite.db, "select id as v from public.users where email = 'operator@example.com'");
      return { id, email: 'operator@example.com', name: null };
    };
    const services = () => ({ database: async () => suite.db, dataKey: async () => Buffer.alloc(32) });
    const form = (fields: Record<string, string>) => {
      const f = new FormData();
      for (const [k, v] of Object.entries(fields)) f.set(k, v);
      return f;
    };
    const statusOf = (payout: string) => one<string>(suite.db, 'select status as v from public.payouts where id = $1', [payout]);

    /** A pending payout of a new publisher's $60, on the manual rail or on Stripe. */
    const pendingPayout = (rail: 'manual' | 'stripe' = 'manual') =>
      rawAsService(suite.db, async (q) => {
        const n = ++made;
        const user = await one<string>(q, 'insert into public.users (email) values ($1) returning id as v', [`marks-${n}-${process.pid}@marks.test`]);
        expect(await giveFinalEarnings(q, user, 60_000_000)).toBe(1);
        await q.query(
          rail === 'manual'
            ? "insert into public.payout_methods (user_id, rail, details_ciphertext, masked, ready) values ($1, 'manual', 'v1.sealed', 'Test · •••• 1234', true)"
            : "insert into public.payout_methods (user_id, rail, stripe_account_id, masked, ready) values ($1, 'stripe', $2, 'Stripe account', true)",
          rail === 'manual' ? [user] : [user, `acct_marks${n}x${process.pid}`],
        );
        return one<string>(q, "select public.payout_request($1::uuid) ->> 'payout_id' as v", [user]);
      });

    it('can mark a payout with the statuses some status may move to, and those only', async () => {
      const reachable = new Set<string>();
      for (const status of PAYOUT_STATUSES) {
        const next = await rawAsService(suite.db, (q) => one<string[]>(q, 'select public.payout_next_statuses($1) as v', [status]));
        for (const s of next) {
          expect(PAYOUT_STATUSES).toContain(s);
          reachable.add(s);
        }
      }
      expect([...reachable].sort()).toEqual([...PAYOUT_MARKS].sort());
    });

    it('offers each payout the statuses the database would accept next, and counts it open while there are any', async () => {
      const pending = await pendingPayout();
      const sent = await pendingPayout();
      const staff = await operator();
      expect(await markPayoutForm(form({ id: sent, status: 'processing' }), staff, services())).toEqual({ notice: 'Payout processing.' });
      const overview = await staffOverview(suite.db, staff);
      const byId = new Map(overview.payouts.map((p) => [p.id, p]));
      expect(byId.get(pending)).toMatchObject({ status: 'pending', open: true, next: ['processing', 'paid', 'failed', 'canceled'] });
      expect(byId.get(sent)).toMatchObject({ status: 'processing', open: true, next: ['paid', 'failed'] });
      for (const p of overview.payouts) {
        const next = await rawAsService(suite.db, (q) => one<string[]>(q, 'select public.payout_next_statuses($1) as v', [p.status]));
        expect(p.next, p.status).toEqual(next);
        expect(p.open, p.status).toBe(next.length > 0);
      }
    });

    it('says the database’s answer to each mark, in the words the form used to say itself', async () => {
      const staff = await operator();
      const payout = await pendingPayout();
      const mark = (fields: Record<string, string>) => markPayoutForm(form({ id: payout, ...fields }), staff, services());
      expect(await mark({ status: 'paid', reference: ' ' })).toEqual({
        error: 'Give the reference of the transfer that paid it.',
        values: { id: payout, status: 'paid', reference: ' ' },
      });
      expect(await mark({ status: 'failed' })).toMatchObject({ error: 'Give the reason the publisher will read.' });
      expect(await statusOf(payout)).toBe('pending');
      // The refusals are the database's: each is in the audit log, with its answer.
      const refusals = await rawAsService(suite.db, (q) =>
        one<string[]>(
          q,
          "select array_agg(details -> 'answer' ->> 'error' order by id) as v from public.staff_audit_log where subject = $1 and action like 'payout.%'",
          [payout],
        ),
      );
      expect(refusals).toEqual(['reference_required', 'reason_required']);
      expect(await mark({ status: 'paid', reference: 'BANK-1' })).toEqual({ notice: 'Payout paid.' });
      expect(await mark({ status: 'canceled' })).toMatchObject({ error: 'That payout cannot move to this status from where it is.' });
      expect(await markPayoutForm(form({ id: '00000000-0000-4000-8000-000000000000', status: 'processing' }), staff, services())).toMatchObject({
        error: 'That payout does not exist.',
      });
      expect(await mark({ status: 'pending' })).toMatchObject({ error: 'Choose what happened to the payout.' });
    });

    it('lets the database refuse to send a payout with Stripe that can no longer be sent, before Stripe is asked', async () => {
      const staff = await operator();
      const payout = await pendingPayout('stripe');
      const untouchable = new Proxy({} as StripeRail, {
        get() {
          throw new Error('Stripe was asked');
        },
      });
      await rawAsUser(suite.db, { sub: staff.id, aal: 'aal2' }, (q) =>
        q.query("select public.staff_payout_mark($1::uuid, 'canceled', null, null, 'test')", [payout]),
      );
      expect(await sendWithStripe(suite.db, staff, untouchable, payout)).toEqual({
        ok: false,
        error: 'That payout cannot move to this status from where it is.',
      });
      expect(await statusOf(payout)).toBe('canceled');
    });
  });
}
