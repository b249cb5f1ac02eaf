import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOnboarding, type StripeRail } from '../../lib/money/stripe/rail';
import { sendWithStripe } from '../../lib/money/payouts/staff';
import { checkMoney } from '../../lib/money/ledger-check';
import { stripeWebhookRoute } from '../../lib/routes/webhooks';
import type { Queryable } from '../../lib/platform/db/engine';
import { bound, makeServices } from '../helpers/services';
import { suiteDatabase, testEngines } from '../helpers/db';
import { giveFinalEarnings } from '../helpers/payouts';
import { rawAsService, rawAsUser } from '../helpers/roles';
import { startStripeStandIn, type StripeStandIn } from '../helpers/stripe-stand-in';

/**
 * The Stripe Connect payout rail (lib/money/stripe/rail.ts) against a local stand-in of the Stripe
 * endpoints it calls (tests/helpers/stripe-stand-in.ts), with webhook signatures made by the
 * `stripe` package's own test helper. Real Stripe is never called. On every engine: onboarding
 * makes one account per publisher; `account.updated` makes the method ready, once however often
 * it is delivered, and nothing without a valid signature; a payout is one Transfer whatever the
 * retries (its id is the Idempotency-Key), paid with the transfer's id, or failed with Stripe's
 * reason and the amount back in the balance.
 */

const WEBHOOK_SECRET = 'whsec_standintest';

async function one<T>(q: Queryable, sql: string, params: unknown[] = []): Promise<T> {
  const [row] = await q.query<{ v: T }>(sql, params);
  return row!.v;
}

for (const engine of testEngines()) {
  describe(`the Stripe payout rail on ${engine.name}`, () => {
    const suite = suiteDatabase(engine, { unlimited: true });
    let standIn: StripeStandIn;
    let rail: StripeRail;
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
    const accountUpdated = (eventId: string, account: string, ready: boolean) =>
      JSON.stringify({
        id: eventId,
        object: 'event',
        type: 'account.updated',
        account,
        data: {
          object: {
            id: account,
            object: 'account',
            payouts_enabled: ready,
            capabilities: { transfers: ready ? 'active' : 'inactive' },
            requirements: { currently_due: ready ? [] : ['external_account'] },
          },
        },
      });
    const signed = (payload: string) => rail.client.webhooks.generateTestHeaderString({ payload, secret: WEBHOOK_SECRET });
    const method = (user: string) =>
      rawAsService(suite.db, (q) =>
        one<{ rail: string; stripe_account_id: string; ready: boolean; status_note: string | null; masked: string } | null>(
          q,
          'select row_to_json(m) as v from (select rail, stripe_account_id, ready, status_note, masked from public.payout_methods where user_id = $1) m',
          [user],
        ),
      );

    /** A publisher on the Stripe rail with `availableMicro` final earnings, and their account id. */
    const stripePublisher = async (name: string, availableMicro: number) => {
      const user = await rawAsService(suite.db, (q) =>
        one<string>(q, 'insert into public.users (email) values ($1) returning id as v', [`${name}@stripe.test`]),
      );
      const { accountId } = await startOnboarding(rail, suite.db, { id: user, email: `${name}@stripe.test` }, { back: 'http://localhost/dashboard/payouts' });
      const payload = accountUpdated(`evt_ready_${name}`, accountId, true);
      expect((await webhook(payload, signed(payload))).status).toBe(200);
      expect(await rawAsService(suite.db, (q) => giveFinalEarnings(q, user, availableMicro))).toBe(1);
      const [payout] = await rawAsUser(suite.db, { sub: user }, (q) => q.query<{ v: { payout_id: string } }>('select public.request_payout() as v'));
      return { user, accountId, payoutId: payout!.v.payout_id };
    };
    const operator = async () => {
      const id = await one<string>(suite.db, "select id as v from public.users where email = 'operator@example.com'");
      return { id, email: 'operator@example.com', name: null };
    };

    it('onboards a publisher onto one Express account, however often they start, and the method waits for Stripe', async () => {
      const user = await rawAsService(suite.db, (q) => one<string>(q, "insert into public.users (email) values ('onboard@stripe.test') returning id as v"));
      const first = await startOnboarding(rail, suite.db, { id: user, email: 'onboard@stripe.test' }, { back: 'http://localhost/dashboard/payouts' });
      const again = await startOnboarding(rail, suite.db, { id: user, email: 'onboard@stripe.test' }, { back: 'http://localhost/dashboard/payouts' });
      expect(again.accountId).toBe(first.accountId);
      expect(first.url).toMatch(/^https:\/\/connect\.stripe\.com\/setup\/e\/acct_/);
      expect(standIn.requests.filter((r) => r.path === '/v1/accounts' && r.form.email === 'onboard@stripe.test')).toMatchObject([
        { idempotencyKey: `account:${user}`, authorization: 'Bearer sk_test_standin', form: { type: 'express', 'capabilities[transfers][requested]': 'true' } },
      ]);
      const link = standIn.requests.filter((r) => r.path === '/v1/account_links').at(-1)!;
      expect(link.form).toMatchObject({ account: first.accountId, type: 'account_onboarding', return_url: 'http://localhost/dashboard/payouts?stripe=return' });
      expect(await method(user)).toMatchObject({
        rail: 'stripe',
        stripe_account_id: first.accountId,
        ready: false,
        masked: `Stripe account •••• ${first.accountId.slice(-4)}`,
      });
      // Not ready: a payout cannot be requested yet.
      const [refused] = await rawAsUser(suite.db, { sub: user }, (q) => q.query<{ v: { reason: string } }>('select public.request_payout() as v'));
      expect(refused!.v.reason).toBe('method_not_ready');
    });

    it('makes the method ready from a signed account.updated, once however often it is delivered, and never from an unsigned one', async () => {
      const user = await rawAsService(suite.db, (q) => one<string>(q, "insert into public.users (email) values ('hooked@stripe.test') returning id as v"));
      const { accountId } = await startOnboarding(rail, suite.db, { id: user, email: 'hooked@stripe.test' }, { back: 'http://localhost/dashboard/payouts' });

      const ready = accountUpdated('evt_hooked_1', accountId, true);
      // Forged, tampered, unsigned or signed with another secret: 400, nothing changes.
      const forged = rail.client.webhooks.generateTestHeaderString({ payload: ready, secret: 'whsec_someoneelse' });
      const stale = rail.client.webhooks.generateTestHeaderString({ payload: ready, secret: WEBHOOK_SECRET, timestamp: Math.floor(Date.now() / 1000) - 3600 });
      for (const [payload, signature] of [
        [ready, forged],
        [ready, stale],
        [ready, null],
        [ready.replace('"payouts_enabled":true', '"payouts_enabled":true '), signed(ready)],
      ] as const) {
        const res = await webhook(payload, signature);
        expect(res.status).toBe(400);
        expect(await res.json()).toMatchObject({ error: { code: 'invalid_request' } });
      }
      expect(await method(user)).toMatchObject({ ready: false });

      const res = await webhook(ready, signed(ready));
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ received: true, handled: 'account.updated' });
      expect(await method(user)).toMatchObject({ ready: true, status_note: null });
      // Delivered again (Stripe delivers at least once): answered, and nothing more happens.
      const again = await webhook(ready, signed(ready));
      expect(await again.json()).toEqual({ received: true, handled: 'repeated' });
      const events = await rawAsService(suite.db, (q) =>
        one<number>(q, "select count(*)::int as v from public.webhook_events where event_id = 'evt_hooked_1'"),
      );
      expect(events).toBe(1);

      // Later, Stripe needs more: not ready again, with a note the publisher reads.
      const restricted = accountUpdated('evt_hooked_2', accountId, false);
      await webhook(restricted, signed(restricted));
      expect(await method(user)).toMatchObject({ ready: false, status_note: 'Stripe needs 1 more detail: continue the onboarding.' });
      // Another event type, or an account nobody has: answered 200, nothing changes.
      const other = JSON.stringify({ id: 'evt_other', object: 'event', type: 'payout.paid', data: { object: { id: 'po_1' } } });
      expect(await (await webhook(other, signed(other))).json()).toEqual({ received: true, handled: 'ignored' });
      const stranger = accountUpdated('evt_stranger', 'acct_nobodyhasthis', true);
      expect((await webhook(stranger, signed(stranger))).status).toBe(200);
    });

    it('sends a payout as one Transfer, its id the Idempotency-Key, however often it is sent, and marks it paid with the transfer', async () => {
      const { accountId, payoutId } = await stripePublisher('paid', 87_650_000);
      const staff = await operator();
      const sent = await sendWithStripe(suite.db, staff, rail, payoutId);
      expect(sent).toEqual({ ok: true, value: { status: 'paid' } });
      const transfers = standIn.requests.filter((r) => r.path === '/v1/transfers' && r.idempotencyKey === payoutId);
      expect(transfers).toHaveLength(1);
      expect(transfers[0]!.form).toMatchObject({ amount: '8765', currency: 'usd', destination: accountId, 'metadata[payout_id]': payoutId });
      const row = await rawAsService(suite.db, (q) =>
        one<{ status: string; reference: string }>(q, 'select row_to_json(o) as v from (select status, reference from public.payouts where id = $1) o', [
          payoutId,
        ]),
      );
      expect(row.status).toBe('paid');
      expect(standIn.transfers.has(row.reference)).toBe(true);
      // Sent again (a second click, a retry): refused by the payout's status, and no second transfer.
      expect(await sendWithStripe(suite.db, staff, rail, payoutId)).toMatchObject({ ok: false });
      expect([...standIn.transfers.values()].filter((t) => t.metadata.payout_id === payoutId)).toHaveLength(1);

      // A send whose answer was lost: the payout stays processing; sent again, Stripe answers the transfer it made.
      const lost = await stripePublisher('lost', 66_000_000);
      await rawAsUser(suite.db, { sub: staff.id, aal: 'aal2' }, (q) =>
        q.query("select public.staff_payout_mark($1::uuid, 'processing', null, null, 'test')", [lost.payoutId]),
      );
      await rail.client.transfers.create({ amount: 6600, currency: 'usd', destination: lost.accountId }, { idempotencyKey: lost.payoutId });
      expect(await sendWithStripe(suite.db, staff, rail, lost.payoutId)).toEqual({ ok: true, value: { status: 'paid' } });
      expect([...standIn.transfers.values()].filter((t) => t.destination === lost.accountId)).toHaveLength(1);
      expect((await checkMoney(suite.db)).filter((r) => r.count > 0)).toEqual([]);
    });

    it('marks the payout failed with Stripe’s reason when Stripe refuses the transfer, and gives the money back', async () => {
      const { user, accountId, payoutId } = await stripePublisher('refused', 55_000_000);
      standIn.refuseTransfersTo.add(accountId);
      const staff = await operator();
      expect(await sendWithStripe(suite.db, staff, rail, payoutId)).toEqual({ ok: true, value: { status: 'failed' } });
      const row = await rawAsService(suite.db, (q) =>
        one<{ status: string; failure_reason: string }>(
          q,
          'select row_to_json(o) as v from (select status, failure_reason from public.payouts where id = $1) o',
          [payoutId],
        ),
      );
      expect(row).toEqual({ status: 'failed', failure_reason: 'Stripe refused the transfer: You have insufficient available funds in your Stripe account.' });
      const available = await rawAsUser(suite.db, { sub: user }, (q) => one<{ available_micro: number }>(q, 'select public.account_earnings() as v'));
      expect(Number(available.available_micro)).toBe(55_000_000);
      expect((await checkMoney(suite.db)).filter((r) => r.count > 0)).toEqual([]);
    });

    it('answers 404 when Stripe is not configured', async () => {
      const route = bound(stripeWebhookRoute, makeServices({ database: suite.db, stripe: null }));
      const res = await route.POST(new Request('http://localhost/api/webhooks/stripe', { method: 'POST', body: '{}' }));
      expect(res.status).toBe(404);
    });
  });
}
