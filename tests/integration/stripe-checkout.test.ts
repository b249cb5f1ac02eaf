import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCheckout } from '../../lib/advertisers/checkout';
import { buyerFunds, saveBuyerProfile } from '../../lib/data-buyers/account';
import { checkMoney } from '../../lib/ledger/check';
import type { StripeRail } from '../../lib/payouts/stripe';
import type { Queryable } from '../../lib/platform/db/engine';
import { stripeWebhookRoute } from '../../lib/routes/webhooks';
import { suiteDatabase, testEngines } from '../helpers/db';
import { rawAsService, rawAsUser } from '../helpers/roles';
import { bound, makeServices } from '../helpers/services';
import { startStripeStandIn, type StripeStandIn } from '../helpers/stripe-stand-in';

/**
 * Top-ups by Stripe Checkout (lib/advertisers/checkout.ts) against a local stand-in of Stripe
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
      startCheckout(rail, suite.db, user, amountMicro, { back: 'http://localhost:3000/dashboard/ads/funds' });

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
        startCheckout(rail, suite.db, who, amountMicro, { back: 'http://localhost:3000/dashboard/data/funds' }, 'buyer');
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
