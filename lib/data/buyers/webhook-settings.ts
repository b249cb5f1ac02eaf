import { asConsoleUser } from '../../identity/console';
import { isIP } from 'node:net';
import { z } from 'zod';
import { formatMoment } from '../../platform/kit/format';
import type { Database } from '../../platform/db/roles';
import { call, type Refusals } from '../../platform/kit/call';
import { sql } from '../../platform/db/sql';
import { isPrivateAddress } from '../../platform/http/private-address';
import { WEBHOOK_DELIVERY_STATUSES } from '../../schemas/data-buyers';
import type { Result } from '../../platform/kit/result';
import { MAX_ATTEMPTS, newWebhookSecret, sealWebhookSecret } from './webhooks';

/**
 * A data buyer's webhook for deletion notices, as the console sets and shows it (migration
 * 20261211000000_deletion_webhooks; the delivery worker is lib/data/buyers/webhooks.ts). Everything
 * runs as the buyer: they read their own webhook (never its sealed secret) and deliveries under
 * row-level security, and write only through the database's functions, which take the secret
 * already sealed by the server. The secret is in the clear only in the answer of the request that
 * made it, shown once.
 */

export const MAX_WEBHOOK_URL = 500;

/** Host names that never name a public host: this machine, and names of local networks. */
const LOCAL_NAMES = /(^|\.)(localhost|local|localdomain|internal|intranet|lan|home|corp|home\.arpa)$/i;

/**
 * A URL a deletion notice may be sent to, in its normal form: https, no credentials, no fragment,
 * at most MAX_WEBHOOK_URL characters, and a host that can be public (an IP address must be
 * public; a name must have a dot and not be a local one). What the name resolves to is checked
 * on every delivery, on the address connected to.
 */
export function checkWebhookUrl(input: string): { ok: true; url: string } | { ok: false; error: string } {
  const text = input.trim();
  if (!text) return { ok: false, error: 'Give the URL of your webhook.' };
  if (text.length > MAX_WEBHOOK_URL) return { ok: false, error: `A webhook URL is at most ${MAX_WEBHOOK_URL} characters.` };
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { ok: false, error: 'That is not a URL: give one like https://example.com/webhooks/deletions.' };
  }
  if (url.protocol !== 'https:') return { ok: false, error: 'A webhook URL must use https.' };
  if (url.username || url.password) return { ok: false, error: 'A webhook URL must not contain a user name or password: verify our signature instead.' };
  if (url.hash) return { ok: false, error: 'A webhook URL must not contain a fragment (#…).' };
  const host = url.hostname.replace(/^\[|\]$/g, '').replace(/\.$/, '');
  if (isIP(host) ? isPrivateAddress(host) : !host.includes('.') || LOCAL_NAMES.test(host)) {
    return { ok: false, error: 'A webhook URL must name a public host: not a private, loopback or local address.' };
  }
  if (url.href.length > MAX_WEBHOOK_URL) return { ok: false, error: `A webhook URL is at most ${MAX_WEBHOOK_URL} characters.` };
  return { ok: true, url: url.href };
}

/** The form's field, checked as above. */
export const webhookUrlInput = z.object({
  url: z.string('Give the URL of your webhook.').transform((v, ctx) => {
    const checked = checkWebhookUrl(v);
    if (checked.ok) return checked.url;
    ctx.addIssue({ code: 'custom', message: checked.error });
    return z.NEVER;
  }),
});

/** A row of public.data_buyer_webhooks, its sealed secret left out. */
const buyerWebhookRow = z.object({
  id: z.string(),
  url: z.string(),
  /** `whsec_…` and the secret's last four characters. */
  secret_hint: z.string(),
  created_at: z.date(),
  secret_rotated_at: z.date(),
});
export type BuyerWebhook = z.output<typeof buyerWebhookRow>;

/** The buyer's webhook, or null when they set none. */
export async function buyerWebhook(db: Database, userId: string): Promise<BuyerWebhook | null> {
  const [row] = await asConsoleUser(db, userId).query(
    sql`select id, url, secret_hint, created_at, secret_rotated_at from public.data_buyer_webhooks where buyer_id = ${userId}::uuid`,
    buyerWebhookRow,
  );
  return row ?? null;
}

const NO_WEBHOOK = 'You have no webhook: set its URL first.';

/** public.data_buyer_webhook_set's refusals. */
const SET_REFUSALS: Refusals<'not_a_buyer' | 'no_webhook'> = {
  not_a_buyer: 'Set up your data buyer profile first.',
  no_webhook: NO_WEBHOOK,
};
/** public.data_buyer_webhook_rotate's and public.data_buyer_webhook_remove's refusal. */
const CHANGE_REFUSALS: Refusals<'not_found'> = { not_found: NO_WEBHOOK };

/**
 * Sets the buyer's webhook to `url` (already checked). A new webhook gets a new signing secret,
 * answered (`secret`) so the console shows it once; an existing one keeps its secret (null).
 */
export async function saveWebhookUrl(db: Database, userId: string, url: string, dataKey: Buffer): Promise<Result<{ secret: string | null }>> {
  const existing = await buyerWebhook(db, userId);
  const secret = existing ? null : newWebhookSecret();
  const sealed = secret ? sealWebhookSecret(dataKey, secret) : null;
  return call(
    asConsoleUser(db, userId),
    sql`select public.data_buyer_webhook_set(${url}, ${sealed?.ciphertext ?? null}::text, ${sealed?.hint ?? null}::text) as answer`,
    // Another request made the webhook meanwhile: its secret is the one in force, not this one.
    z.object({ secret_stored: z.boolean().nullish() }).transform((a) => ({ secret: a.secret_stored ? secret : null })),
    SET_REFUSALS,
  );
}

/** A new signing secret for the buyer's webhook, answered once; the old one stops at once. */
export async function rotateWebhookSecret(db: Database, userId: string, dataKey: Buffer): Promise<Result<{ secret: string }>> {
  const secret = newWebhookSecret();
  const sealed = sealWebhookSecret(dataKey, secret);
  return call(
    asConsoleUser(db, userId),
    sql`select public.data_buyer_webhook_rotate(${sealed.ciphertext}, ${sealed.hint}) as answer`,
    z.unknown().transform(() => ({ secret })),
    CHANGE_REFUSALS,
  );
}

/** Removes the buyer's webhook; notices waiting for it end failed (`failed`: how many). */
export function removeWebhook(db: Database, userId: string): Promise<Result<{ failed: number }>> {
  return call(asConsoleUser(db, userId), sql`select public.data_buyer_webhook_remove() as answer`, z.object({ failed: z.number() }), CHANGE_REFUSALS);
}

/** A row of public.data_deletion_deliveries: the last attempt's figures are null until one was made, `delivered_at` until one succeeded. */
const webhookDelivery = z.object({
  id: z.string(),
  notice_id: z.string(),
  status: z.enum(WEBHOOK_DELIVERY_STATUSES),
  attempts: z.number().int(),
  next_attempt_at: z.date(),
  last_attempt_at: z.date().nullable(),
  last_status: z.number().int().nullable(),
  last_error: z.string().nullable(),
  delivered_at: z.date().nullable(),
  created_at: z.date(),
});
export type WebhookDelivery = z.output<typeof webhookDelivery>;

/** The buyer's deliveries, newest first, at most `limit`. */
export async function webhookDeliveries(db: Database, userId: string, limit = 100): Promise<WebhookDelivery[]> {
  return asConsoleUser(db, userId).query(
    sql`select id, notice_id, status, attempts, next_attempt_at, last_attempt_at, last_status, last_error, delivered_at, created_at
        from public.data_deletion_deliveries order by created_at desc, id limit ${limit}`,
    webhookDelivery,
  );
}

const moment = (d: Date | null) => formatMoment(d ? d.toISOString() : null);

/** A delivery's state in a sentence, for the notice it carries. */
export function deliveryLine(d: WebhookDelivery): string {
  const tries = (n: number) => `${n} ${n === 1 ? 'attempt' : 'attempts'}`;
  switch (d.status) {
    case 'delivered':
      return `Delivered to your webhook on ${moment(d.delivered_at)}${d.attempts > 1 ? `, after ${tries(d.attempts)}` : ''}.`;
    case 'failed':
      return `Not delivered to your webhook after ${tries(d.attempts)}: ${d.last_error ?? 'no answer.'} The notice stands here all the same.`;
    default:
      if (d.attempts === 0) return 'Waiting to be sent to your webhook.';
      return `Not delivered yet (attempt ${d.attempts} of ${MAX_ATTEMPTS}): ${d.last_error ?? 'no answer.'} Next attempt ${moment(d.next_attempt_at)}.`;
  }
}
