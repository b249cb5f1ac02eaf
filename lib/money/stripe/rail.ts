import Stripe from 'stripe';
import { z } from 'zod';
import { asService, type Database } from '../../platform/db/roles';
import { sql } from '../../platform/db/sql';
import { env } from '../../platform/env';
import { log } from '../../platform/log';
import type { Micro } from '../../platform/kit/micro';
import { creditCheckout, reverseCheckout, REVERSING_EVENTS } from './checkout';

/**
 * Stripe Connect as a payout rail (content/docs/payouts.md, Payout methods), with the official
 * `stripe` package: an Express account per publisher and its onboarding link; whether the
 * account can receive payouts, from the `account.updated` webhook (verified, and handled once
 * per event); and each payout sent as a Transfer to the account, with the payout's id as the
 * Idempotency-Key, so a send retried after a crash or a timeout transfers once.
 *
 * Stripe cannot be reached from where this was built: the adapter is tested against a local
 * stand-in of the endpoints it calls (tests/helpers/stripe-stand-in.ts), and its webhooks with
 * signatures made by the package's own test helper. Nothing here has run against Stripe itself.
 *
 * Writes the service makes, not the publisher (eslint.config.mjs, SERVICE_ROLE_ALLOWLIST): a
 * method's Stripe account and its readiness (public.payout_method_set_stripe), and the webhook
 * events handled.
 */

export interface StripeRail {
  readonly client: Stripe;
  readonly webhookSecret: string;
}

/** The rail when Stripe is configured (STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET), else null. `connection` is for tests: a local stand-in. */
export function stripeRail(connection?: { host: string; port: number; protocol: 'http' | 'https' }): StripeRail | null {
  const { STRIPE_SECRET_KEY, STRIPE_WEBHOOK_SECRET } = env();
  if (!STRIPE_SECRET_KEY || !STRIPE_WEBHOOK_SECRET) return null;
  // Retries of our own are the idempotent sends below; the package's, of network errors, use the same keys.
  const client = new Stripe(STRIPE_SECRET_KEY, { maxNetworkRetries: 2, timeout: 20_000, ...connection });
  return { client, webhookSecret: STRIPE_WEBHOOK_SECRET };
}

/** How the console shows a Stripe account. */
export function maskStripeAccount(accountId: string): string {
  return `Stripe account •••• ${accountId.slice(-4)}`;
}

/**
 * The publisher's Express account (made once: the same request again, within Stripe's day of
 * idempotency, answers the same account; after that, the one their payout method names), their
 * payout method pointed at it (not ready until Stripe says so), and a fresh onboarding link.
 */
export async function startOnboarding(
  rail: StripeRail,
  db: Database,
  user: { id: string; email: string },
  urls: { back: string },
): Promise<{ accountId: string; url: string }> {
  const [method] = await asService(db).query(
    sql`select stripe_account_id from public.payout_methods where user_id = ${user.id}::uuid and rail = 'stripe'`,
    // No account yet while the method waits for its first onboarding.
    z.object({ stripe_account_id: z.string().nullable() }),
  );
  let accountId = method?.stripe_account_id ?? null;
  if (!accountId) {
    const account = await rail.client.accounts.create(
      { type: 'express', email: user.email, capabilities: { transfers: { requested: true } }, metadata: { user_id: user.id } },
      { idempotencyKey: `account:${user.id}` },
    );
    accountId = account.id;
    await asService(db).query(
      sql`select public.payout_method_set_stripe(${user.id}::uuid, ${accountId}, ${maskStripeAccount(accountId)}, false, ${'Finish Stripe’s onboarding.'})`,
    );
  }
  const link = await rail.client.accountLinks.create({
    account: accountId,
    type: 'account_onboarding',
    refresh_url: `${urls.back}?stripe=refresh`,
    return_url: `${urls.back}?stripe=return`,
  });
  return { accountId, url: link.url };
}

export type WebhookOutcome =
  | {
      status: 200;
      handled:
        | 'account.updated'
        | 'checkout.session.completed'
        | 'checkout.session.async_payment_succeeded'
        | (typeof REVERSING_EVENTS)[number]
        | 'ignored'
        | 'repeated';
    }
  | { status: 400; error: string };

/**
 * A delivery of Stripe's webhook: refused unless its signature is right for `payload` (the raw
 * body) and recent (Stripe's default tolerance, 5 minutes); handled once per event id;
 * `checkout.session.completed` (and `checkout.session.async_payment_succeeded`, a bank debit that cleared
 * later) credits an advertiser's or a buyer's top-up (lib/money/stripe/checkout.ts); `charge.refunded`,
 * `charge.dispute.created` and `checkout.session.async_payment_failed` take it back and put the
 * account on hold (reverseCheckout); `account.updated`
 * sets whether the account's payout method is ready (payouts enabled and the transfers
 * capability active). Fast: one or two statements, no call to Stripe.
 */
export async function handleWebhook(rail: StripeRail, db: Database, payload: string, signature: string | null): Promise<WebhookOutcome> {
  let event: Stripe.Event;
  try {
    event = rail.client.webhooks.constructEvent(payload, signature ?? '', rail.webhookSecret);
  } catch (err) {
    return { status: 400, error: err instanceof Error ? err.message : 'invalid signature' };
  }
  return asService(db).transaction(async (tx) => {
    const fresh = await tx.query(
      sql`insert into public.webhook_events (provider, event_id, type) values ('stripe', ${event.id}, ${event.type}) on conflict do nothing returning 1`,
    );
    if (fresh.length === 0) return { status: 200, handled: 'repeated' } as const;
    // An advertiser's top-up paid by Checkout (lib/money/stripe/checkout.ts): credited once.
    if (event.type === 'checkout.session.completed' || event.type === 'checkout.session.async_payment_succeeded') {
      const credited = await creditCheckout(tx, event.data.object);
      return { status: 200, handled: credited === 'credited' ? event.type : 'ignored' } as const;
    }
    // Money taken back by the payer (a refund, a dispute, a bank debit that failed): reversed once, the account held.
    if (event.type === 'charge.refunded' || event.type === 'charge.dispute.created' || event.type === 'checkout.session.async_payment_failed') {
      const reversed = await reverseCheckout(tx, event);
      return { status: 200, handled: reversed === 'ignored' ? 'ignored' : event.type } as const;
    }
    if (event.type !== 'account.updated') return { status: 200, handled: 'ignored' } as const;
    const account = event.data.object;
    const ready = account.payouts_enabled === true && account.capabilities?.transfers === 'active';
    const due = account.requirements?.currently_due?.length ?? 0;
    const note = ready
      ? null
      : due > 0
        ? `Stripe needs ${due} more detail${due === 1 ? '' : 's'}: continue the onboarding.`
        : 'Stripe is reviewing the account.';
    const [row] = await tx.query(
      sql`select public.payout_method_set_stripe(null, ${account.id}, null, ${ready}, ${note}) as changed`,
      z.object({ changed: z.boolean() }),
    );
    if (!row?.changed) log.info('stripe account.updated for an account no payout method names', { account: account.id });
    return { status: 200, handled: 'account.updated' } as const;
  });
}

/**
 * Sends a payout as a Transfer to the connected account, in cents, with the payout's id as the
 * Idempotency-Key: sent again (a retry after a timeout, a crash before the answer was recorded),
 * Stripe answers the transfer it made the first time. Answers the transfer's id, or Stripe's
 * reason for refusing it.
 */
export async function sendTransfer(
  rail: StripeRail,
  payout: { id: string; amountMicro: Micro; accountId: string },
): Promise<{ ok: true; transferId: string } | { ok: false; reason: string }> {
  if (payout.amountMicro % 10_000 !== 0) return { ok: false, reason: 'The amount is not in whole cents.' };
  try {
    const transfer = await rail.client.transfers.create(
      {
        amount: payout.amountMicro / 10_000,
        currency: 'usd',
        destination: payout.accountId,
        transfer_group: `payout:${payout.id}`,
        metadata: { payout_id: payout.id },
      },
      { idempotencyKey: payout.id },
    );
    return { ok: true, transferId: transfer.id };
  } catch (err) {
    if (err instanceof Stripe.errors.StripeError && err.type !== 'StripeConnectionError' && err.type !== 'StripeAPIError') {
      return { ok: false, reason: `Stripe refused the transfer: ${err.message}` };
    }
    // Not an answer from Stripe: the transfer may have been made. Sent again, the key finds it.
    throw err;
  }
}
