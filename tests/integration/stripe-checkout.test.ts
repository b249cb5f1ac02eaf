import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCheckout } from '../../lib/money/stripe/checkout';
import { buyerFunds, saveBuyerProfile } from '../../lib/data/buyers/account';
import { checkMoney } from '../../lib/money/ledger-check';
import { releaseAccount, reversalsQueue } from '../../lib/ops/reversals';
import type { StripeRail } from '../../lib/money/stripe/rail';
import type { Queryable } from '../../lib/platform/db/engine';
import { stripeWebhookRoute } from '../../lib/routes/webhooks';
import { suiteDatabase, testEngines } from '../helpers/db';
import { rawAsService, rawAsUser, runAs } from '../helpers/roles';
import { bound, makeServices } from '../helpers/services';
import { startStripeStandIn, type StripeStandIn } from '../helpers/stripe-stand-in';
import { micro } from '@/lib/platform/kit/micro';

/**
 * Top-ups by Stripe Checkout (lib/money/stripe/checkout.ts) against a local stand-in of Stripe
 * (tests/helpers/stripe-stand-in.ts), with webhook signatures made by the `stripe` package's own
 * test helper; real Stripe is never called. On every engine: a session is made for the amount
 * (in cents) only above the published minimum and for an advertiser; the balance is credited only
 * by the verified `checkout.session.completed` webhook of a paid session, once however often it is
 * delivered (and when two deliveries race); a bad signature, an unpaid session and a session paid
 * for another amount credit nothing.
 */

const WEBHOOK_SECRET = 'whsec_checkouttest';

async function one<T>(q: Queryable, sql: string, params: unknown[] = []): Promise<T> {
  const [row] = await q.query<{ v: T }>(sql, params);
  return row!.v;
}

for (const engine of testEngines()) {
  describe(`Stripe Checkout top-ups on ${engine.name}`, () => {
    const suite = suiteDatabase(engine, { unlimited: true });
    let standIn: StripeStandIn;
    let rail: StripeRail;
    let n = 0;
    beforeAll(async () => {
      standIn = await startStripeStandIn();
      rail = { client: new Stripe('sk_test_standin', { ...standIn.connection, maxNetworkRetries: 0 }), webhookSecret: WEBHOOK_SECRET };
    });
    afterAll(() => standIn?.close());

    const webhook = (payload: string, signature: string | null) => {
      const route = bound(stripeWebhookRoute, makeServices({ database: suite.db, stripe: rail }));
      return route.POST(
        new Request('http://localhost/api/webhooks/stripe', {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...(signature === null ? {} : { 'stripe-signature': signature }) },
          body: payload,
        }),
      );
    };
    const signed = (payload: string) => rail.client.webhooks.generateTestHeaderString({ payload, secret: WEBHOOK_SECRET });
    /** The completed event of a session the stand-in made, as paid (or as `overrides` say). */
    const completed = (session: string, overrides: Record<string, unknown> = {}) =>
      JSON.stringify({
        id: `evt_${++n}_${Date.now()}`,
        object: 'event',
        type: 'checkout.session.completed',
        data: { object: { ...standIn.sessions.get(session), payment_status: 'paid', status: 'complete', payment_intent: `pi_${n}`, ...overrides } },
      });

    const advertiser = async (name: string) => {
      const id = await rawAsService(suite.db, (q) =>
        one<string>(q, 'insert into public.users (email, name) values ($1, $2) returning id as v', [
          `${name.toLowerCase().replaceAll(' ', '-')}-${Date.now()}@checkout.test`,
          name,
        ]),
      );
      await rawAsUser(suite.db, { sub: id }, (q) =>
        q.query(
          `insert into public.advertiser_profiles (user_id, company, billing_name, billing_email, billing_address, country)
           values ($1, $2, $2, 'billing@checkout.test', '1 Card Street', 'US')`,
          [id, name],
        ),
      );
      return { id, email: `${name}@checkout.test` };
    };
    const balance = (user: string) =>
      rawAsService(suite.db, (q) => one<string>(q, "select public.ledger_balance_micro('advertiser', $1)::text as v", [user])).then(Number);
    const topUp = (session: string) =>
      rawAsService(suite.db, (q) =>
        one<{ status: string; rail: string; amount_micro: number; payment_reference: string | null } | null>(
          q,
          'select row_to_json(t) as v from (select status, rail, amount_micro, payment_reference from public.top_ups where checkout_session_id = $1) t',
          [session],
        ),
      );
    const start = (user: { id: string; email: string }, amountMicro: number) =>
      startCheckout(rail, suite.db, user, micro(amountMicro), { back: 'http://localhost:3000/dashboard/ads/funds' });

    it('makes a session for the amount in cents, for an advertiser and above the minimum only', async () => {
      const user = await advertiser('Card Co');
      const before = standIn.sessions.size;
      expect(await start(user, 1_000_000)).toEqual({ ok: false, error: expect.stringMatching(/^A top-up is at least \$50\.00/) });
      expect(await start(user, 50_005_000)).toEqual({ ok: false, error: expect.stringMatching(/^A top-up is at least/) });
      const stranger = await rawAsService(suite.db, (q) =>
        one<string>(q, "insert into public.users (email) values ('nobody-card@checkout.test') returning id as v"),
      );
      expect(await start({ id: stranger, email: 'nobody-card@checkout.test' }, 100_000_000)).toEqual({
        ok: false,
        error: 'Set up your advertiser profile first.',
      });
      expect(standIn.sessions.size).toBe(before);

      const made = await start(user, 125_500_000);
      expect(made).toMatchObject({ ok: true, url: expect.stringMatching(/^https:\/\/checkout\.stripe\.com\/c\/pay\/cs_test_/) });
      const session = [...standIn.sessions.values()].at(-1)!;
      expect(session).toMatchObject({ amount_total: 12_550, currency: 'usd', mode: 'payment', metadata: { user_id: user.id, amount_micro: '125500000' } });
      expect(await topUp(session.id as string)).toEqual({ status: 'requested', rail: 'stripe', amount_micro: 125_500_000, payment_reference: null });
      // Nothing is credited on the way back from Stripe: only the webhook does.
      expect(await balance(user.id)).toBe(0);
    });

    it('opens at most 5 card sessions waiting for payment per account in a day, asking nothing of Stripe past them', async () => {
      const user = await advertiser('Many Cards Co');
      for (let i = 0; i < 5; i++) expect(await start(user, 60_000_000)).toMatchObject({ ok: true });
      const before = standIn.sessions.size;
      expect(await start(user, 60_000_000)).toEqual({
        ok: false,
        error: expect.stringMatching(/^You opened 5 card payments in the last 24 hours that were not paid/),
      });
      expect(standIn.sessions.size).toBe(before);
      // One paid (its webhook): room for one more.
      const paid = [...standIn.sessions.values()].at(-1)!;
      const payload = completed(paid.id as string);
      expect((await webhook(payload, signed(payload))).status).toBe(200);
      expect(await start(user, 60_000_000)).toMatchObject({ ok: true });
    });

    it('credits a paid session once, from its verified webhook, however often it is delivered', async () => {
      const user = await advertiser('Once Co');
      const made = await start(user, 80_000_000);
      if (!made.ok) throw new Error(made.error);
      const session = [...standIn.sessions.keys()].at(-1)!;
      const payload = completed(session);

      // A bad signature, or none, is refused and changes nothing.
      expect((await webhook(payload, 't=1,v1=deadbeef')).status).toBe(400);
      expect((await webhook(payload, null)).status).toBe(400);
      expect(await balance(user.id)).toBe(0);

      const first = await webhook(payload, signed(payload));
      expect(first.status).toBe(200);
      expect(await first.json()).toEqual({ received: true, handled: 'checkout.session.completed' });
      expect(await balance(user.id)).toBe(80_000_000);
      // The same delivery again, and a second event for the same session: nothing more.
      expect(await (await webhook(payload, signed(payload))).json()).toEqual({ received: true, handled: 'repeated' });
      const again = completed(session);
      expect((await webhook(again, signed(again))).status).toBe(200);
      expect(await balance(user.id)).toBe(80_000_000);
      expect(await topUp(session)).toMatchObject({ status: 'paid', payment_reference: expect.stringMatching(/^stripe:pi_/) });
      const failed = (await checkMoney(suite.db)).filter((c) => c.count > 0).map((c) => `${c.name}: ${c.found.join('; ')}`);
      expect(failed).toEqual([]);
    });

    it('funds a data buyer’s balance, not an advertising one, when the session is for a buyer', async () => {
      const user = await advertiser('Both Sides Co');
      await saveBuyerProfile(suite.db, user.id, {
        company: 'Both Sides Co',
        intended_use: 'Studying how people ask for help.',
        billing_email: 'data@checkout.test',
        country: 'US',
        accept_terms: true,
      });
      const stranger = await rawAsService(suite.db, (q) =>
        one<string>(q, "insert into public.users (email) values ('nobody-data-card@checkout.test') returning id as v"),
      );
      const asBuyer = (who: { id: string; email: string }, amountMicro: number) =>
        startCheckout(rail, suite.db, who, micro(amountMicro), { back: 'http://localhost:3000/dashboard/data/funds' }, 'buyer');
      expect(await asBuyer({ id: stranger, email: 'nobody-data-card@checkout.test' }, 100_000_000)).toEqual({
        ok: false,
        error: 'Set up your data buyer profile first.',
      });
      const made = await asBuyer(user, 60_000_000);
      if (!made.ok) throw new Error(made.error);
      const session = [...standIn.sessions.values()].at(-1)!;
      expect(session).toMatchObject({ metadata: { user_id: user.id, amount_micro: '60000000', account_kind: 'buyer' } });
      const payload = completed(session.id as string);
      expect((await webhook(payload, signed(payload))).status).toBe(200);
      expect((await webhook(payload, signed(payload))).status).toBe(200);
      expect(await buyerFunds(suite.db, user.id)).toMatchObject({ balance_micro: 60_000_000 });
      expect(await balance(user.id)).toBe(0);
      const failed = (await checkMoney(suite.db)).filter((c) => c.count > 0).map((c) => `${c.name}: ${c.found.join('; ')}`);
      expect(failed).toEqual([]);
    });

    it('credits nothing for an unpaid session, or one paid in another amount or currency', async () => {
      const user = await advertiser('Odd Co');
      const made = await start(user, 60_000_000);
      if (!made.ok) throw new Error(made.error);
      const session = [...standIn.sessions.keys()].at(-1)!;
      for (const overrides of [{ payment_status: 'unpaid' }, { amount_total: 1 }, { currency: 'eur' }]) {
        const payload = completed(session, overrides);
        expect((await webhook(payload, signed(payload))).status).toBe(200);
      }
      expect(await balance(user.id)).toBe(0);
      expect(await topUp(session)).toMatchObject({ status: 'requested' });
    });

    it('credits a paid session whose top-up the console never recorded, from the webhook alone', async () => {
      const user = await advertiser('Lost Co');
      // The session made, the console's write lost (a crash between the two).
      const session = await rail.client.checkout.sessions.create({
        mode: 'payment',
        line_items: [{ quantity: 1, price_data: { currency: 'usd', unit_amount: 7_000, product_data: { name: 'Funds' } } }],
        metadata: { user_id: user.id, amount_micro: '70000000' },
        success_url: 'http://localhost/x',
      });
      const payload = completed(session.id);
      expect((await webhook(payload, signed(payload))).status).toBe(200);
      expect(await balance(user.id)).toBe(70_000_000);
      expect(await topUp(session.id)).toMatchObject({ status: 'paid', rail: 'stripe', amount_micro: 70_000_000 });
    });

    // ── Money taken back (issue 39, finding 5; migration 20261213000500_reversals) ──────────────

    const staff = async () => ({ sub: await one<string>(suite.db, "select id as v from public.users where email = 'operator@example.com'"), aal: 'aal2' });
    const asStaff = async <T>(fn: (q: Queryable) => Promise<T>) => runAs(suite.db, 'authenticated', await staff(), fn);
    const event = (type: string, object: Record<string, unknown>) =>
      JSON.stringify({ id: `evt_${++n}_${Date.now()}`, object: 'event', type, data: { object } });
    /** `charge.refunded`: the charge of payment intent `pi`, `refundedCents` refunded so far (Stripe's `amount_refunded`). */
    const refunded = (pi: string, amountCents: number, refundedCents: number) =>
      event('charge.refunded', {
        id: `ch_${pi}`,
        object: 'charge',
        amount: amountCents,
        amount_refunded: refundedCents,
        currency: 'usd',
        payment_intent: pi,
        refunded: refundedCents === amountCents,
        status: 'succeeded',
      });
    /** `charge.dispute.created`: a dispute of `amountCents` on the charge of payment intent `pi`. */
    const disputed = (pi: string, amountCents: number) =>
      event('charge.dispute.created', {
        id: `dp_${pi}_${n}`,
        object: 'dispute',
        amount: amountCents,
        charge: `ch_${pi}`,
        currency: 'usd',
        payment_intent: pi,
        reason: 'fraudulent',
        status: 'needs_response',
      });
    const deliver = async (payload: string) => {
      const res = await webhook(payload, signed(payload));
      expect(res.status).toBe(200);
      return ((await res.json()) as { handled: string }).handled;
    };
    /** An advertiser paid `usd` by card: the session made, its completed webhook delivered. Answers the payment intent. */
    const paidByCard = async (user: { id: string; email: string }, usd: number) => {
      const made = await start(user, usd * 1_000_000);
      if (!made.ok) throw new Error(made.error);
      const session = [...standIn.sessions.keys()].at(-1)!;
      const payload = completed(session);
      expect(await deliver(payload)).toBe('checkout.session.completed');
      return { session, pi: (JSON.parse(payload) as { data: { object: { payment_intent: string } } }).data.object.payment_intent };
    };
    /** A campaign of `owner`'s, approved by the operator: active when funded. */
    const campaign = async (owner: string) => {
      const id = await rawAsUser(suite.db, { sub: owner }, async (q) => {
        const id = await one<string>(
          q,
          `insert into public.campaigns (advertiser_id, name, lifetime_budget_micro, frequency_cap, formats, starts_at)
           values ($1, 'Reversal test', 1000000000, 100, '{inline_text}', now() - interval '1 minute') returning id as v`,
          [owner],
        );
        await q.query("insert into public.creatives (campaign_id, format, headline, landing_url) values ($1, 'inline_text', 'Hi', 'https://ad.example/')", [
          id,
        ]);
        await q.query("update public.campaigns set status = 'in_review' where id = $1", [id]);
        return id;
      });
      await asStaff((q) => q.query("select public.staff_campaign_review($1, true, 'ok')", [id]));
      return id;
    };
    /**
     * What the roll-up does when it bills `micro` of the campaign's ads (public.ledger_post_ad_spend,
     * after public.roll_up_ad_traffic), in `q`: a transaction the test rolls back, since no ad was
     * served and the money checks read the whole database.
     */
    const spend = async (q: Queryable, campaignId: string, micro: number) => {
      await q.query(
        `insert into public.ad_spend_pending (day, campaign_id, app_id, cost_micro, revenue_micro)
         values (current_date, $1, (select id from public.apps order by created_at limit 1), $2, $3)`,
        [campaignId, micro, Math.floor(micro * 0.7)],
      );
      await q.query('select public.ledger_post_ad_spend()');
    };
    class RolledBack extends Error {}
    const rolledBack = (fn: (q: Queryable) => Promise<void>) =>
      suite.db
        .transaction(async (tx) => {
          await fn({ query: tx.query });
          throw new RolledBack();
        })
        .catch((err: unknown) => {
          if (!(err instanceof RolledBack)) throw err;
        });
    const status = (id: string) =>
      rawAsService(suite.db, (q) => one<string>(q, "select status || coalesce(':' || pause_reason, '') as v from public.campaigns where id = $1", [id]));
    const held = (user: string) => rawAsService(suite.db, (q) => one<boolean>(q, 'select public.account_held($1) as v', [user]));
    const reversals = (user: string) =>
      rawAsService(suite.db, (q) =>
        q.query<{ amount_micro: string }>(
          `select p.amount_micro::text from public.ledger_transactions t join public.ledger_postings p on p.transaction_id = t.id
           join public.ledger_accounts a on a.id = p.account_id where t.kind = 'top_up_reversal' and a.user_id = $1 order by t.created_at`,
          [user],
        ),
      ).then((rows) => rows.map((r) => Number(r.amount_micro)));
    const moneyChecks = async () => (await checkMoney(suite.db)).filter((c) => c.count > 0).map((c) => `${c.name}: ${c.found.join('; ')}`);

    it('a signed refund reverses the credit once, pauses the campaigns, holds the account, and only the operator releases it once it is settled', async () => {
      const user = await advertiser('Refund Co');
      const { pi } = await paidByCard(user, 80);
      const running = await campaign(user.id);
      expect(await status(running)).toBe('active');

      const refund = refunded(pi, 8_000, 8_000);
      expect(await deliver(refund)).toBe('charge.refunded');
      expect(await balance(user.id)).toBe(0);
      expect(await status(running)).toBe('paused:payment_reversed');
      expect(await held(user.id)).toBe(true);
      // The same delivery again, and another event saying the same: nothing more.
      expect(await deliver(refund)).toBe('repeated');
      expect(await deliver(refunded(pi, 8_000, 8_000))).toBe('charge.refunded');
      expect(await reversals(user.id)).toEqual([-80_000_000]);

      // Nothing starts it again while the account is held: not its advertiser, not the clock, not a top-up.
      await rawAsUser(suite.db, { sub: user.id }, (q) =>
        q.query("update public.campaigns set status = 'paused' where id = $1 and status = 'active'", [running]),
      );
      await rawAsService(suite.db, (q) => q.query('select public.campaigns_advance()'));
      const invoice = await rawAsUser(suite.db, { sub: user.id }, (q) => one<{ top_up_id: string }>(q, 'select public.top_up_request($1) as v', [100_000_000]));
      expect(await status(running)).toBe('paused:payment_reversed');

      // In the operator's queue (/ops, lib/ops/reversals.ts), with what was taken back.
      const operator = { id: (await staff()).sub, email: 'operator@example.com', name: null };
      const queue = await reversalsQueue(suite.db, operator);
      expect(queue.holds.find((h) => h.user_id === user.id)).toMatchObject({
        cause: 'refund',
        advertiser_balance_micro: 0,
        paused_campaigns: 1,
        reversals: [expect.objectContaining({ cause: 'refund', account_kind: 'advertiser', reversed_micro: 80_000_000, payment_reference: `stripe:${pi}` })],
      });
      expect(await asStaff((q) => one<{ error?: string }>(q, "select public.staff_account_release($1, '') as v", [user.id]))).toMatchObject({
        error: 'reason_required',
      });
      await asStaff((q) => q.query("select public.staff_top_up_record($1, true, 'BANK-REF-R')", [invoice.top_up_id]));
      expect(await status(running)).toBe('paused:payment_reversed');
      expect(await releaseAccount(suite.db, operator, { userId: user.id, reason: 'Transfer received' })).toEqual({ ok: true });
      expect(await releaseAccount(suite.db, operator, { userId: user.id, reason: 'Again' })).toEqual({
        ok: false,
        error: 'That account is not on hold any more.',
      });
      expect(await held(user.id)).toBe(false);
      expect(await status(running)).toBe('active');
      expect(
        await one<number>(suite.db, "select count(*)::int as v from public.staff_audit_log where action = 'account.released' and subject = $1", [user.id]),
      ).toBe(1);
      expect(await moneyChecks()).toEqual([]);
    });

    it('a partial refund reverses only its amount, and a second one only what is new', async () => {
      const user = await advertiser('Partial Co');
      const { pi } = await paidByCard(user, 100);
      expect(await deliver(refunded(pi, 10_000, 3_000))).toBe('charge.refunded');
      expect(await reversals(user.id)).toEqual([-30_000_000]);
      expect(await balance(user.id)).toBe(70_000_000);
      const second = refunded(pi, 10_000, 8_000);
      const stale = refunded(pi, 10_000, 3_000);
      expect(await deliver(second)).toBe('charge.refunded');
      expect(await deliver(stale)).toBe('charge.refunded');
      expect(await reversals(user.id)).toEqual([-30_000_000, -50_000_000]);
      expect(await balance(user.id)).toBe(20_000_000);
      expect(await held(user.id)).toBe(true);
      expect(await moneyChecks()).toEqual([]);
    });

    it('a signed dispute reverses what is disputed, once, never more than the top-up brought in', async () => {
      const user = await advertiser('Dispute Co');
      const { pi } = await paidByCard(user, 60);
      const running = await campaign(user.id);
      await deliver(refunded(pi, 6_000, 1_000));
      const dispute = disputed(pi, 6_000);
      expect(await deliver(dispute)).toBe('charge.dispute.created');
      expect(await deliver(dispute)).toBe('repeated');
      expect(await reversals(user.id)).toEqual([-10_000_000, -50_000_000]);
      expect(await balance(user.id)).toBe(0);
      expect(await status(running)).toBe('paused:payment_reversed');
      expect(await moneyChecks()).toEqual([]);
    });

    it('a failed asynchronous payment reverses a credited top-up, and cancels one never credited so a late completion credits nothing', async () => {
      const user = await advertiser('Async Co');
      const { session } = await paidByCard(user, 70);
      const failed = event('checkout.session.async_payment_failed', { ...standIn.sessions.get(session), payment_status: 'unpaid', status: 'complete' });
      expect(await deliver(failed)).toBe('checkout.session.async_payment_failed');
      expect(await deliver(failed)).toBe('repeated');
      expect(await reversals(user.id)).toEqual([-70_000_000]);
      expect(await held(user.id)).toBe(true);

      const other = await advertiser('Bank Debit Co');
      const made = await start(other, 90_000_000);
      if (!made.ok) throw new Error(made.error);
      const pending = [...standIn.sessions.keys()].at(-1)!;
      expect(await deliver(completed(pending, { payment_status: 'unpaid' }))).toBe('ignored');
      expect(await deliver(event('checkout.session.async_payment_failed', { ...standIn.sessions.get(pending), payment_status: 'unpaid' }))).toBe(
        'checkout.session.async_payment_failed',
      );
      expect(await topUp(pending)).toMatchObject({ status: 'canceled' });
      expect(await deliver(completed(pending))).toBe('ignored');
      expect(await balance(other.id)).toBe(0);
      expect(await held(other.id)).toBe(false);
      expect(await moneyChecks()).toEqual([]);
    });

    it('a refund of a payment never credited moves no money, is recorded for the operator, and the payment is not credited afterwards', async () => {
      const user = await advertiser('Never Credited Co');
      const made = await start(user, 50_000_000);
      if (!made.ok) throw new Error(made.error);
      const session = [...standIn.sessions.keys()].at(-1)!;
      const pi = `pi_never_${Date.now()}`;
      expect(await deliver(refunded(pi, 5_000, 5_000))).toBe('charge.refunded');
      expect(await balance(user.id)).toBe(0);
      expect(await held(user.id)).toBe(false);
      const queue = await asStaff((q) => one<{ unmoved: { payment_reference: string; cause: string }[] }>(q, 'select public.staff_reversals_queue(50) as v'));
      expect(queue.unmoved).toContainEqual(expect.objectContaining({ payment_reference: `stripe:${pi}`, cause: 'refund' }));
      // The completion of that payment, late: not credited.
      expect(await deliver(completed(session, { payment_intent: pi }))).toBe('ignored');
      expect(await balance(user.id)).toBe(0);
      expect(await topUp(session)).toMatchObject({ status: 'canceled' });
      expect(await moneyChecks()).toEqual([]);
    });

    it('reverses exactly once when deliveries of refund and dispute events race', async () => {
      const user = await advertiser('Race Refund Co');
      const { pi } = await paidByCard(user, 90);
      const payloads = [...Array.from({ length: 4 }, () => refunded(pi, 9_000, 9_000)), disputed(pi, 9_000), disputed(pi, 9_000)];
      const twice = refunded(pi, 9_000, 9_000);
      const answers = await Promise.all([...payloads, twice, twice].map((p) => webhook(p, signed(p))));
      expect(answers.map((a) => a.status)).toEqual(Array(8).fill(200));
      expect(await reversals(user.id)).toEqual([-90_000_000]);
      expect(await balance(user.id)).toBe(0);
      expect(await moneyChecks()).toEqual([]);
    });

    it('caps a first card’s spend at $100 until it is 7 days old', async () => {
      const user = await advertiser('First Card Co');
      await paidByCard(user, 500);
      const running = await campaign(user.id);
      expect(await status(running)).toBe('active');
      await rolledBack(async (q) => {
        const spendable = () => one<string>(q, "select public.account_spendable_micro('advertiser', $1)::text as v", [user.id]).then(Number);
        const state = () => one<string>(q, "select status || coalesce(':' || pause_reason, '') as v from public.campaigns where id = $1", [running]);
        expect(await spendable()).toBe(100_000_000);
        // The roll-up bills $100 of ads: the campaign pauses for want of funds though $400 remain.
        await spend(q, running, 100_000_000);
        expect(await one<string>(q, "select public.ledger_balance_micro('advertiser', $1)::text as v", [user.id])).toBe('400000000');
        expect(await state()).toBe('paused:out_of_funds');
        await q.query('select public.campaigns_advance()');
        expect(await state()).toBe('paused:out_of_funds');
        // A week later the card payment has cleared: it all may be spent, and the campaign resumes.
        await q.query("update public.top_ups set paid_at = paid_at - interval '8 days' where user_id = $1", [user.id]);
        expect(await spendable()).toBe(400_000_000);
        await q.query('select public.campaigns_advance()');
        expect(await state()).toBe('active');
      });
      await rawAsUser(suite.db, { sub: user.id }, (q) => q.query("update public.campaigns set status = 'paused' where id = $1", [running]));
    });

    it('lets the balance go below zero when what is taken back was spent, and releases no account below zero', async () => {
      const user = await advertiser('Spent Card Co');
      const { pi } = await paidByCard(user, 100);
      const running = await campaign(user.id);
      const operator = await staff();
      await rolledBack(async (q) => {
        await spend(q, running, 60_000_000);
        const answer = await one<{ outcome: string; reversed_micro: number }>(
          q,
          "select public.top_up_reverse('refund', $1, null, null, 100000000, 'evt_spent') as v",
          [`stripe:${pi}`],
        );
        expect(answer).toMatchObject({ outcome: 'reversed', reversed_micro: 100_000_000 });
        expect(await one<string>(q, "select public.ledger_balance_micro('advertiser', $1)::text as v", [user.id])).toBe('-60000000');
        await q.query("select set_config('request.jwt.claims', $1, true), set_config('role', 'authenticated', true)", [
          JSON.stringify({ ...operator, role: 'authenticated' }),
        ]);
        expect(await one<{ error?: string }>(q, "select public.staff_account_release($1, 'Looks settled') as v", [user.id])).toMatchObject({
          error: 'balance_negative',
        });
      });
      await rawAsUser(suite.db, { sub: user.id }, (q) => q.query("update public.campaigns set status = 'paused' where id = $1", [running]));
    });

    if (engine.name === 'postgres')
      it('credits once when two deliveries of two events for one session race', async () => {
        const user = await advertiser('Race Card Co');
        const made = await start(user, 90_000_000);
        if (!made.ok) throw new Error(made.error);
        const session = [...standIn.sessions.keys()].at(-1)!;
        const payloads = Array.from({ length: 6 }, () => completed(session));
        const answers = await Promise.all(payloads.map((p) => webhook(p, signed(p))));
        expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200, 200]);
        expect(await balance(user.id)).toBe(90_000_000);
      });
  });
}
