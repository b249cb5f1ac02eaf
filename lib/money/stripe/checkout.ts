import { randomUUID } from 'node:crypto';
import type Stripe from 'stripe';
import { asService, type Database, type Statements } from '../../platform/db/roles';
import { z } from 'zod';
import { answerOf, call, NOTHING, type Refusals } from '../../platform/kit/call';
import { sql } from '../../platform/db/sql';
import { log } from '../../platform/log';
import { micro, type Micro } from '../../platform/kit/micro';
import { OPEN_CARD_TOP_UPS, outOfRange, type FundedAccount } from '../funds';

/**
 * Top-ups by Stripe Checkout, when Stripe is configured (lib/money/stripe/rail.ts, STRIPE_SECRET_KEY
 * and STRIPE_WEBHOOK_SECRET), with the official `stripe` package, for an advertiser's balance or a
 * data buyer's (the session's metadata names which): the payer is sent to a
 * Checkout session for the amount (in cents, USD), and the balance is credited once, when the
 * verified `checkout.session.completed` webhook says the session is paid (public.top_up_credit:
 * a delivery repeated, or two at once, credits nothing more). The console never credits on the
 * browser's return: only the webhook does.
 *
 * Card money can be taken back: a refund, a dispute, or an asynchronous payment (a bank debit)
 * that failed after the session completed. Their verified webhooks reverse what the top-up
 * brought in, once (public.top_up_reverse: a `top_up_reversal` in the ledger, the balance may go
 * below zero) and put the account on hold until the operator releases it: its campaigns pause, it
 * buys no data and downloads nothing (content/docs/advertisers.md, data-buyers.md).
 *
 * Stripe cannot be reached from where this was built: it is tested against a local stand-in of
 * the endpoint it calls (tests/helpers/stripe-stand-in.ts), and its webhooks with signatures made
 * by the package's own test helper. Nothing here has run against Stripe itself.
 *
 * Writes the service makes, not the advertiser (eslint.config.mjs, SERVICE_ROLE_ALLOWLIST): the
 * top-up of a session (public.top_up_open_checkout) and its credit.
 */

export type CheckoutResult = { ok: true; url: string; topUpId: string } | { ok: false; error: string };

/** The balance a top-up funds: an advertiser's, or a data buyer's (migration 20261209000000_data_buyers). */
const PRODUCT: Record<FundedAccount, string> = { advertiser: 'Prepaid advertising funds (Monetize)', buyer: 'Prepaid data funds (Monetize)' };

/** public.top_up_refusal's codes: the one rule for every rail (a profile, the amount). */
type TopUpRefusal = 'not_an_advertiser' | 'not_a_buyer' | 'amount_out_of_range';
const minimum = z.object({ minimum_micro: z.coerce.number().nullish() });

/** public.top_up_checkout_refusal, asked before anything is asked of Stripe. */
const CHECKOUT_REFUSALS: Refusals<TopUpRefusal | 'too_many_open_checkouts', z.infer<typeof minimum>> = {
  not_an_advertiser: 'Set up your advertiser profile first.',
  not_a_buyer: 'Set up your data buyer profile first.',
  amount_out_of_range: outOfRange,
  too_many_open_checkouts: `You opened ${OPEN_CARD_TOP_UPS} card payments in the last 24 hours that were not paid: pay one of them (its Stripe page is still open), or wait a day, before opening another. An invoice can still be asked for.`,
};

/** public.top_up_open_checkout: the same rule again, when the session is recorded (the console's, or the webhook's if that was lost). */
const OPEN_REFUSALS: Refusals<TopUpRefusal> = {
  not_an_advertiser: 'Set up your advertiser profile first.',
  not_a_buyer: 'Set up your data buyer profile first.',
  amount_out_of_range: 'That amount is outside what a top-up may be.',
};

/** public.top_up_credit's refusals, for the log: the webhook answers Stripe the same whatever they are. */
const CREDIT_REFUSALS: Refusals<'not_found' | 'not_open' | 'reversed'> = {
  not_found: 'not_found',
  not_open: 'not_open',
  // Stripe said this payment was refunded or disputed before it was credited.
  reversed: 'reversed',
};

const opened = z.object({ top_up_id: z.string() });

function openTopUp(db: Pick<Statements, 'query'>, user: string, amountMicro: Micro, session: string, account: FundedAccount) {
  return call(db, sql`select public.top_up_open_checkout(${user}::uuid, ${amountMicro}::bigint, ${session}, ${account}) as answer`, opened, OPEN_REFUSALS);
}

/**
 * A Checkout session for `amountMicro` (whole cents, checked against the published minimum by
 * the database before Stripe is called), and its top-up, waiting for the webhook. Answers the
 * session's URL to send the browser to.
 */
export async function startCheckout(
  rail: { readonly client: Stripe },
  db: Database,
  user: { id: string; email: string },
  amountMicro: Micro,
  urls: { back: string },
  account: FundedAccount = 'advertiser',
): Promise<CheckoutResult> {
  // The database's one rule for every rail (public.top_up_refusal), and at most a few card
  // top-ups waiting for payment (public.top_up_checkout_refusal, which answers null when neither
  // refuses), before anything is asked of Stripe.
  const check = await call(
    asService(db),
    sql`select coalesce(public.top_up_checkout_refusal(${user.id}::uuid, ${amountMicro}::bigint, ${account}), json_build_object('ok', true)) as answer`,
    NOTHING,
    CHECKOUT_REFUSALS,
    { facts: minimum },
  );
  if (!check.ok) return check;
  const request = randomUUID();
  const session = await rail.client.checkout.sessions.create(
    {
      mode: 'payment',
      customer_email: user.email,
      client_reference_id: user.id,
      line_items: [
        {
          quantity: 1,
          price_data: { currency: 'usd', unit_amount: amountMicro / 10_000, product_data: { name: PRODUCT[account] } },
        },
      ],
      metadata: { user_id: user.id, amount_micro: String(amountMicro), account_kind: account },
      success_url: `${urls.back}?checkout=done`,
      cancel_url: `${urls.back}?checkout=canceled`,
    },
    { idempotencyKey: `checkout:${request}` },
  );
  const topUp = await openTopUp(asService(db), user.id, amountMicro, session.id, account);
  if (!topUp.ok) return topUp;
  if (!session.url) return { ok: false, error: 'Stripe did not give a payment page.' };
  return { ok: true, url: session.url, topUpId: topUp.value.top_up_id };
}

/**
 * `checkout.session.completed`, verified and seen for the first time (lib/money/stripe/rail.ts,
 * handleWebhook, in its transaction): the session's top-up credited, once, when the session is
 * paid, in US dollars, for the amount its top-up was opened for. A session this service did not
 * open (no user in its metadata) is ignored; one paid for another amount is logged and not
 * credited (an operator looks).
 */
export async function creditCheckout(tx: Pick<Statements, 'query'>, session: Stripe.Checkout.Session): Promise<'credited' | 'ignored'> {
  if (session.payment_status !== 'paid') return 'ignored';
  const user = session.metadata?.user_id;
  const amountMicro = Number(session.metadata?.amount_micro);
  // Sessions opened before buyers could pay by card name no account: they funded an advertiser's.
  const account = session.metadata?.account_kind ?? 'advertiser';
  if (!user || !Number.isSafeInteger(amountMicro) || (account !== 'advertiser' && account !== 'buyer')) return 'ignored';
  if (session.currency !== 'usd' || session.amount_total === null || session.amount_total * 10_000 !== amountMicro) {
    log.warn('stripe checkout paid for another amount than its top-up; not credited', { session: session.id });
    return 'ignored';
  }
  // The console records the session's top-up as it sends the browser to Stripe; if that was lost, this makes it.
  const topUp = await openTopUp(tx, user, micro(amountMicro), session.id, account);
  if (!topUp.ok) {
    log.warn('stripe checkout paid for no top-up it could open; not credited', { session: session.id, error: topUp.error });
    return 'ignored';
  }
  const payment = typeof session.payment_intent === 'string' ? session.payment_intent : (session.payment_intent?.id ?? session.id);
  const credit = await call(
    tx,
    sql`select public.top_up_credit(${topUp.value.top_up_id}::uuid, ${`stripe:${payment}`}, null) as answer`,
    NOTHING,
    CREDIT_REFUSALS,
  );
  if (!credit.ok) {
    log.warn('stripe checkout paid for a top-up that could not be credited', { session: session.id, error: credit.error });
    return 'ignored';
  }
  return 'credited';
}

/** The events that take a top-up's money back (lib/money/stripe/rail.ts, handleWebhook). */
export const REVERSING_EVENTS = ['charge.refunded', 'charge.dispute.created', 'checkout.session.async_payment_failed'] as const;
type ReversingEvent = Stripe.ChargeRefundedEvent | Stripe.ChargeDisputeCreatedEvent | Stripe.CheckoutSessionAsyncPaymentFailedEvent;

function paymentOf(intent: string | { id: string } | null | undefined): string | null {
  const id = typeof intent === 'string' ? intent : (intent?.id ?? null);
  return id ? `stripe:${id}` : null;
}

/**
 * A reversing event, verified and seen for the first time (in handleWebhook's transaction):
 * `charge.refunded` (the charge's refunded total so far, `amount_refunded`, so a second partial
 * refund takes only what is new), `charge.dispute.created` (the disputed `amount`) or
 * `checkout.session.async_payment_failed` (the whole top-up), each for the top-up its payment
 * intent (or session) credited. Amounts in US cents; another currency is no payment of ours.
 * Answers what the database did: `reversed` money, `recorded` a reversal that moved none (nothing
 * was credited, or no top-up knows the payment: the operator sees it), `repeated`, or `ignored`.
 */
export async function reverseCheckout(tx: Pick<Statements, 'query'>, event: ReversingEvent): Promise<'reversed' | 'recorded' | 'repeated' | 'ignored'> {
  let args: { cause: string; payment: string | null; session: string | null; key: string | null; amountMicro: number | null };
  if (event.type === 'checkout.session.async_payment_failed') {
    const session = event.data.object;
    args = { cause: 'payment_failed', payment: paymentOf(session.payment_intent), session: session.id, key: null, amountMicro: null };
  } else {
    const money = event.data.object;
    if (money.currency !== 'usd') {
      log.warn('stripe reversal in another currency than ours; not reversed', { event: event.id });
      return 'ignored';
    }
    args =
      event.type === 'charge.refunded'
        ? {
            cause: 'refund',
            payment: paymentOf(event.data.object.payment_intent),
            session: null,
            key: null,
            amountMicro: event.data.object.amount_refunded * 10_000,
          }
        : {
            cause: 'dispute',
            payment: paymentOf(event.data.object.payment_intent),
            session: null,
            key: event.data.object.id,
            amountMicro: event.data.object.amount * 10_000,
          };
  }
  if (!args.payment && !args.session) {
    log.warn('stripe reversal names no payment; not reversed', { event: event.id });
    return 'ignored';
  }
  const { outcome } = await answerOf(
    tx,
    sql`select public.top_up_reverse(${args.cause}, ${args.payment}, ${args.session}, ${args.key}, ${args.amountMicro}::bigint, ${event.id}) as answer`,
    z.object({ outcome: z.enum(['reversed', 'repeated', 'unmatched', 'nothing_to_reverse']) }),
  );
  if (outcome === 'reversed') {
    log.warn('stripe took a top-up back; the account is on hold for the operator', { event: event.id, cause: args.cause });
    return 'reversed';
  }
  return outcome === 'repeated' ? 'repeated' : 'recorded';
}
