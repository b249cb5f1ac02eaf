import { createHmac, randomBytes } from 'node:crypto';
import https from 'node:https';
import { z } from 'zod';
import { seal, unseal } from '../../platform/crypto';
import { asService, type Database } from '../../platform/db/roles';
import { sql } from '../../platform/db/sql';
import { checkedLookup, publicAddressesOnly, refusedLiteral, type AddressCheck } from '../../platform/http/private-address';
import { describeError, log } from '../../platform/log';

/**
 * Deletion notices delivered by webhook (migration 20261211000000_deletion_webhooks; for buyers,
 * content/docs/data-buyers.md, "Deletion notices by webhook").
 *
 * A withdrawal writes one deletion notice per buyer that licensed the erased records, and, in the
 * same transaction, one pending delivery per notice whose buyer set a webhook (an outbox,
 * `data_deletion_deliveries`). This worker sends them: it claims due deliveries with a lease
 * (`for update skip locked`, then `leased_until`), so several servers share the work and two never
 * send one at once; POSTs the notice as JSON signed per the Standard Webhooks scheme; and records
 * the outcome, guarded by the attempt it claimed (a worker whose lease ran out and was taken over
 * cannot overwrite the newer attempt). 2xx is delivered; anything else is retried later
 * (RETRY_DELAYS_S), until MAX_ATTEMPTS, then `failed`.
 *
 * The URL is the buyer's: a request to an address a stranger chose. So, as for client metadata
 * documents (lib/identity/oauth/client-metadata.ts): https only; public addresses only, checked on the
 * address the socket connects to (lib/platform/http/private-address.ts); no redirects followed;
 * 5 seconds for the whole exchange; at most 1 KB of the answer read, and nothing of it kept.
 * Which addresses are allowed is an argument of the worker (`network`), which only a test passes
 * (to reach its receiver on 127.0.0.1); no setting of the environment changes it.
 *
 * The signing secret is made here (`whsec_` and 24 random bytes, base64), sealed with the data
 * encryption key for the database, shown to the buyer once, and unsealed only to sign.
 */

/** What the sealed secret is for: bound into it, so it opens as nothing else. */
export const WEBHOOK_SECRET_PURPOSE = 'data-webhook-secret';
/** The Standard Webhooks prefix of a signing secret; the rest is the key's bytes, base64. */
export const WEBHOOK_SECRET_PREFIX = 'whsec_';
/** The payload's `type`. */
export const DELETION_NOTICE_EVENT = 'data.deletion_notice';

/** The whole exchange of one attempt, connection to answer. */
export const DELIVERY_TIMEOUT_MS = 5_000;
/** Seconds before the next attempt after each failed one: 1 min, 5 min, 30 min, 2 h, 6 h, 12 h, 24 h. */
export const RETRY_DELAYS_S = [60, 300, 1_800, 7_200, 21_600, 43_200, 86_400] as const;
/** Attempts before a delivery is left `failed`: about 45 hours after the first. */
export const MAX_ATTEMPTS = RETRY_DELAYS_S.length + 1;
/** How much of an answer is read before the connection is dropped. */
export const MAX_ANSWER_BYTES = 1_024;
/** How long a claimed delivery is its worker's: far longer than an attempt can take. */
const LEASE_SECONDS = 60;
/** Deliveries claimed (and sent at once) per round, and rounds per run. */
const BATCH = 10;
const ROUNDS = 5;

// ── The secret ─────────────────────────────────────────────────────────────────────────────

/** A new signing secret: `whsec_` and 24 random bytes in base64 (the Standard Webhooks form). */
export function newWebhookSecret(): string {
  return WEBHOOK_SECRET_PREFIX + randomBytes(24).toString('base64');
}

/** What the console shows of a secret once it has been shown: its prefix and last four characters. */
export function secretHint(secret: string): string {
  return `${WEBHOOK_SECRET_PREFIX}…${secret.slice(-4)}`;
}

/** The secret sealed for the database, and its hint. */
export function sealWebhookSecret(key: Buffer, secret: string): { ciphertext: string; hint: string } {
  return { ciphertext: seal(key, secret, WEBHOOK_SECRET_PURPOSE), hint: secretHint(secret) };
}

// ── The message ────────────────────────────────────────────────────────────────────────────

export interface NoticeForWebhook {
  id: string;
  reason: string;
  created_at: Date;
  license_ids: string[];
  record_ids: string[];
}

/** The JSON body of a notice's delivery. */
export function noticePayload(notice: NoticeForWebhook): string {
  return JSON.stringify({
    type: DELETION_NOTICE_EVENT,
    id: notice.id,
    created_at: notice.created_at.toISOString(),
    reason: notice.reason,
    license_ids: notice.license_ids,
    record_ids: notice.record_ids,
  });
}

/**
 * The Standard Webhooks signature: `v1,` and the base64 HMAC-SHA256 of `<id>.<timestamp>.<body>`,
 * keyed by the secret's bytes (the base64 after `whsec_`).
 */
export function webhookSignature(secret: string, id: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.slice(WEBHOOK_SECRET_PREFIX.length), 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

/** The headers of one attempt: `webhook-id` is the delivery's, the same on every retry; the timestamp is the attempt's. */
export function webhookHeaders(secret: string, id: string, timestamp: number, body: string): Record<string, string> {
  return {
    'content-type': 'application/json',
    'user-agent': 'Monetize-Webhooks/1',
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': webhookSignature(secret, id, timestamp, body),
  };
}

/** Seconds to wait after `attempts` failed attempts, or null when they are used up (the delivery fails). */
export function retryDelaySeconds(attempts: number): number | null {
  return attempts >= 1 && attempts < MAX_ATTEMPTS ? RETRY_DELAYS_S[attempts - 1]! : null;
}

// ── One attempt over the network ───────────────────────────────────────────────────────────

/** Where a delivery may connect: production's is public addresses only, with the system's certificate authorities. */
export interface WebhookNetwork {
  /** Whether a delivery may connect to this IP address. */
  allowAddress: AddressCheck;
  /** Certificate authorities to trust instead of the system's (a test's own receiver). */
  ca?: string | Buffer;
}

export const PUBLIC_NETWORK: WebhookNetwork = { allowAddress: publicAddressesOnly };

/** How an attempt ended: the HTTP status when there was an answer, and what went wrong in words (none: delivered). */
export interface AttemptOutcome {
  delivered: boolean;
  status: number | null;
  error: string | null;
}

const PRIVATE_HOST = 'The webhook’s host is a private, loopback or link-local address: nothing was sent.';

function failure(err: NodeJS.ErrnoException, timeoutMs: number): string {
  const code = err.code ?? '';
  if (code === 'EPRIVATE') return PRIVATE_HOST;
  if (code === 'ETIMEDOUT') return `No answer within ${timeoutMs / 1000} seconds.`;
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'The webhook’s host name was not found.';
  if (code === 'ECONNREFUSED') return 'The connection was refused.';
  if (code === 'ECONNRESET') return 'The connection was reset before an answer.';
  if (/CERT|SSL|TLS/.test(code)) return `The TLS connection failed (${code}).`;
  return `The request failed${code ? ` (${code.slice(0, 40)})` : ''}.`;
}

/** POSTs `body` to `url` under the rules above. Never throws. */
export function postWebhook(
  url: string,
  headers: Record<string, string>,
  body: string,
  network: WebhookNetwork,
  timeoutMs = DELIVERY_TIMEOUT_MS,
): Promise<AttemptOutcome> {
  return new Promise((resolve) => {
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      return resolve({ delivered: false, status: null, error: 'The webhook URL is not a valid URL: nothing was sent.' });
    }
    if (target.protocol !== 'https:') return resolve({ delivered: false, status: null, error: 'The webhook URL is not https: nothing was sent.' });
    if (refusedLiteral(target.hostname, network.allowAddress)) return resolve({ delivered: false, status: null, error: PRIVATE_HOST });

    let settled = false;
    let status: number | null = null;
    const finish = (error: string | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.destroy();
      // An answer whose status arrived counts as that status, whatever happened to its body after.
      if (status !== null) {
        const ok = status >= 200 && status < 300;
        const redirect = status >= 300 && status < 400 ? ' (redirects are not followed)' : '';
        resolve({ delivered: ok, status, error: ok ? null : `Answered HTTP ${status}${redirect}.` });
      } else resolve({ delivered: false, status: null, error });
    };
    const data = Buffer.from(body);
    const req = https.request(target, {
      method: 'POST',
      agent: false,
      lookup: checkedLookup(network.allowAddress),
      ...(network.ca ? { ca: network.ca } : {}),
      headers: { ...headers, 'content-length': String(data.length) },
    });
    req.on('response', (res) => {
      status = res.statusCode ?? null;
      let read = 0;
      res.on('data', (chunk: Buffer) => {
        read += chunk.length;
        if (read >= MAX_ANSWER_BYTES) finish(null);
      });
      res.on('end', () => finish(null));
      res.on('error', () => finish(null));
      res.on('close', () => finish(null));
    });
    req.on('error', (err: NodeJS.ErrnoException) => finish(failure(err, timeoutMs)));
    const timer = setTimeout(() => finish(failure(Object.assign(new Error('timeout'), { code: 'ETIMEDOUT' }), timeoutMs)), timeoutMs);
    req.end(data);
  });
}

// ── The queue ──────────────────────────────────────────────────────────────────────────────

/** A delivery claimed by this worker, with what it sends. `attempts` is the attempt it is: the guard of its outcome. */
export interface ClaimedDelivery {
  id: string;
  attempts: number;
  url: string;
  secret_ciphertext: string;
  notice: NoticeForWebhook;
}

/** A claimed delivery's row: the delivery, its webhook's URL and sealed secret, and its notice's columns. */
const claimedRow = z.object({
  id: z.string(),
  attempts: z.number().int(),
  url: z.string(),
  secret_ciphertext: z.string(),
  notice_id: z.string(),
  reason: z.string(),
  created_at: z.date(),
  license_ids: z.array(z.string()),
  record_ids: z.array(z.string()),
});

/**
 * Claims up to `limit` due deliveries (pending, their time come, no live lease), oldest due
 * first, each counting an attempt and leased for `leaseSeconds`. Rows another worker is claiming
 * are skipped, not waited for.
 */
export async function claimDeliveries(db: Database, limit = BATCH, leaseSeconds = LEASE_SECONDS): Promise<ClaimedDelivery[]> {
  const rows = await asService(db).query(
    sql`with due as (
          select d.id from public.data_deletion_deliveries d
          where d.status = 'pending' and d.next_attempt_at <= now() and (d.leased_until is null or d.leased_until < now())
          order by d.next_attempt_at limit ${limit} for update skip locked)
        update public.data_deletion_deliveries d
        set attempts = d.attempts + 1, leased_until = now() + make_interval(secs => ${leaseSeconds}::float8), last_attempt_at = now()
        from due, public.data_deletion_notices n, public.data_buyer_webhooks w
        where d.id = due.id and n.id = d.notice_id and w.id = d.webhook_id
        returning d.id, d.attempts, w.url, w.secret_ciphertext, n.id as notice_id, n.reason, n.created_at,
                  n.license_ids::text[] as license_ids, n.record_ids::text[] as record_ids`,
    claimedRow,
  );
  return rows.map((r) => ({
    id: r.id,
    attempts: r.attempts,
    url: r.url,
    secret_ciphertext: r.secret_ciphertext,
    notice: { id: r.notice_id, reason: r.reason, created_at: r.created_at, license_ids: r.license_ids, record_ids: r.record_ids },
  }));
}

export type DeliveryStatus = 'delivered' | 'pending' | 'failed';

/**
 * Records how the claimed attempt ended: delivered, pending again after the backoff, or failed
 * when the attempts are used up. Only while the delivery is still this attempt's (pending, with
 * the attempts it claimed): answers the status recorded, or null when it was not this worker's
 * any more (its lease ran out and another took it over, or the webhook was removed).
 */
export async function finishDelivery(db: Database, claimed: Pick<ClaimedDelivery, 'id' | 'attempts'>, outcome: AttemptOutcome): Promise<DeliveryStatus | null> {
  const delay = outcome.delivered ? null : retryDelaySeconds(claimed.attempts);
  const status: DeliveryStatus = outcome.delivered ? 'delivered' : delay === null ? 'failed' : 'pending';
  const error = outcome.error === null ? null : outcome.error.slice(0, 500);
  const rows = await asService(db).query(
    sql`update public.data_deletion_deliveries
        set status = ${status}::text,
            delivered_at = case when ${status}::text = 'delivered' then now() end,
            next_attempt_at = case when ${status}::text = 'pending' then now() + make_interval(secs => ${delay ?? 0}::float8) else next_attempt_at end,
            leased_until = null, last_attempt_at = now(), last_status = ${outcome.status}::int, last_error = ${error}::text
        where id = ${claimed.id}::uuid and status = 'pending' and attempts = ${claimed.attempts}::int
        returning 1`,
  );
  return rows.length === 1 ? status : null;
}

export interface DeliveryOptions {
  /** Where deliveries may connect: public addresses only unless a test gives its own. */
  network?: WebhookNetwork;
  /** Milliseconds since the epoch, for `webhook-timestamp`. */
  now?: () => number;
  /** Deliveries claimed per round, and rounds per run. */
  batch?: number;
  rounds?: number;
  /** How long a claim is the worker's, in seconds. */
  leaseSeconds?: number;
  timeoutMs?: number;
}

/** Sends one claimed delivery and records its outcome. */
export async function sendDelivery(db: Database, dataKey: Buffer, claimed: ClaimedDelivery, options: DeliveryOptions = {}): Promise<DeliveryStatus | null> {
  let outcome: AttemptOutcome;
  let secret: string | null = null;
  try {
    secret = unseal(dataKey, claimed.secret_ciphertext, WEBHOOK_SECRET_PURPOSE);
  } catch {
    outcome = { delivered: false, status: null, error: 'The signing secret could not be read: rotate it in the console. Nothing was sent.' };
  }
  if (secret !== null) {
    const body = noticePayload(claimed.notice);
    const timestamp = Math.floor((options.now ?? Date.now)() / 1000);
    outcome = await postWebhook(claimed.url, webhookHeaders(secret, claimed.id, timestamp, body), body, options.network ?? PUBLIC_NETWORK, options.timeoutMs);
  }
  const recorded = await finishDelivery(db, claimed, outcome!);
  if (recorded !== 'delivered') {
    // Neither the URL nor the secret is logged: the buyer's, and the second never.
    log.warn('deletion notice not delivered to its webhook', {
      delivery_id: claimed.id,
      notice_id: claimed.notice.id,
      attempt: claimed.attempts,
      status: outcome!.status,
      error: outcome!.error,
      now: recorded,
    });
  }
  return recorded;
}

/** Whether any delivery is due now: the timer asks first, so an idle run costs one indexed read and needs no key. */
export async function deliveriesDue(db: Database): Promise<boolean> {
  const rows = await asService(db).query(
    sql`select 1 from public.data_deletion_deliveries d
        where d.status = 'pending' and d.next_attempt_at <= now() and (d.leased_until is null or d.leased_until < now()) limit 1`,
  );
  return rows.length > 0;
}

export interface DeliveryRun {
  delivered: number;
  retrying: number;
  failed: number;
}

/**
 * Sends the due deliveries: up to `batch` at once (each bounded by the timeout), round after
 * round while some are due, at most `rounds` rounds. Answers what became of them.
 */
export async function runDeletionWebhooks(db: Database, dataKey: Buffer, options: DeliveryOptions = {}): Promise<DeliveryRun> {
  const run: DeliveryRun = { delivered: 0, retrying: 0, failed: 0 };
  for (let round = 0; round < (options.rounds ?? ROUNDS); round++) {
    const claimed = await claimDeliveries(db, options.batch ?? BATCH, options.leaseSeconds ?? LEASE_SECONDS);
    if (claimed.length === 0) break;
    const ended = await Promise.all(
      claimed.map((c) =>
        sendDelivery(db, dataKey, c, options).catch((err: unknown) => {
          // The database failed while recording: the lease runs out and the delivery is tried again.
          log.error('deletion webhook delivery not recorded', { delivery_id: c.id, ...describeError(err) });
          return null;
        }),
      ),
    );
    for (const s of ended) {
      if (s === 'delivered') run.delivered++;
      else if (s === 'pending') run.retrying++;
      else if (s === 'failed') run.failed++;
    }
  }
  return run;
}
