import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A local stand-in for the few Stripe endpoints the payout rail calls (lib/money/stripe/rail.ts) and
 * the advertisers' Checkout (lib/money/stripe/checkout.ts), for tests only: `POST /v1/accounts`,
 * `POST /v1/account_links`, `POST /v1/transfers`, `POST /v1/checkout/sessions`, with
 * Stripe's form-encoded requests, its answer and error shapes, and its idempotency (a request
 * with an Idempotency-Key seen before answers what the first answered). It records every request,
 * and transfers to an account named in `refuseTransfersTo` are refused as Stripe refuses them.
 * Real Stripe is never called: where this service was built, it cannot be reached.
 */
export interface StandInRequest {
  method: string;
  path: string;
  idempotencyKey: string | null;
  authorization: string | null;
  form: Record<string, string>;
}

export interface StripeStandIn {
  connection: { host: string; port: number; protocol: 'http' };
  requests: StandInRequest[];
  /** Transfers made, by id (one per idempotency key). */
  transfers: Map<string, { amount: number; currency: string; destination: string; metadata: Record<string, string> }>;
  refuseTransfersTo: Set<string>;
  /** Checkout sessions made, by id, as Stripe answered them (unpaid). */
  sessions: Map<string, Record<string, unknown>>;
  close(): Promise<void>;
}

const id = (prefix: string) => `${prefix}_${randomBytes(12).toString('hex')}`;

async function body(req: IncomingMessage): Promise<Record<string, string>> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString('utf8')));
}

/** Stripe's metadata and nested fields arrive as `metadata[key]=value`. */
function nested(form: Record<string, string>, field: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(form)) {
    const m = new RegExp(`^${field}\\[([^\\]]+)\\]$`).exec(k);
    if (m) out[m[1]!] = v;
  }
  return out;
}

export async function startStripeStandIn(): Promise<StripeStandIn> {
  const requests: StandInRequest[] = [];
  const transfers: StripeStandIn['transfers'] = new Map();
  const refuseTransfersTo = new Set<string>();
  const accounts = new Set<string>();
  const answered = new Map<string, { status: number; json: unknown }>();
  const sessions: StripeStandIn['sessions'] = new Map();

  const handle = (path: string, form: Record<string, string>): { status: number; json: unknown } => {
    const now = Math.floor(Date.now() / 1000);
    if (path === '/v1/accounts') {
      const account = id('acct');
      accounts.add(account);
      return {
        status: 200,
        json: {
          id: account,
          object: 'account',
          type: form.type,
          email: form.email,
          payouts_enabled: false,
          charges_enabled: false,
          capabilities: { transfers: 'inactive' },
          requirements: { currently_due: ['external_account', 'tos_acceptance.date'] },
          metadata: nested(form, 'metadata'),
        },
      };
    }
    if (path === '/v1/account_links') {
      if (!accounts.has(form.account ?? '')) return stripeError(404, 'resource_missing', `No such account: '${form.account}'`);
      return {
        status: 200,
        json: {
          object: 'account_link',
          created: now,
          expires_at: now + 300,
          url: `https://connect.stripe.com/setup/e/${form.account}/${randomBytes(6).toString('hex')}`,
        },
      };
    }
    if (path === '/v1/transfers') {
      const destination = form.destination ?? '';
      if (!accounts.has(destination)) return stripeError(400, 'resource_missing', `No such destination: '${destination}'`);
      if (refuseTransfersTo.has(destination)) {
        return stripeError(400, 'balance_insufficient', 'You have insufficient available funds in your Stripe account.');
      }
      const transfer = id('tr');
      const made = { amount: Number(form.amount), currency: form.currency ?? '', destination, metadata: nested(form, 'metadata') };
      transfers.set(transfer, made);
      return { status: 200, json: { id: transfer, object: 'transfer', created: now, ...made, transfer_group: form.transfer_group ?? null } };
    }
    if (path === '/v1/checkout/sessions') {
      const unit = Number(form['line_items[0][price_data][unit_amount]']);
      const quantity = Number(form['line_items[0][quantity]'] ?? '1');
      if (!Number.isInteger(unit) || unit <= 0) return stripeError(400, 'parameter_invalid_integer', 'Invalid integer: unit_amount');
      const session = id('cs_test');
      const made = {
        id: session,
        object: 'checkout.session',
        mode: form.mode,
        url: `https://checkout.stripe.com/c/pay/${session}`,
        amount_total: unit * quantity,
        currency: form['line_items[0][price_data][currency]'],
        customer_email: form.customer_email ?? null,
        client_reference_id: form.client_reference_id ?? null,
        metadata: nested(form, 'metadata'),
        payment_status: 'unpaid',
        payment_intent: null,
        status: 'open',
        success_url: form.success_url,
        cancel_url: form.cancel_url,
        created: now,
      };
      sessions.set(session, made);
      return { status: 200, json: made };
    }
    return stripeError(404, 'resource_missing', `Unrecognized request URL (POST: ${path}).`);
  };

  const server: Server = createServer(async (req, res) => {
    const form = await body(req);
    const path = new URL(req.url ?? '/', 'http://stand-in').pathname;
    const idempotencyKey = (req.headers['idempotency-key'] as string | undefined) ?? null;
    requests.push({ method: req.method ?? '', path, idempotencyKey, authorization: req.headers.authorization ?? null, form });
    const key = idempotencyKey ? `${path} ${idempotencyKey}` : null;
    const answer = (key && answered.get(key)) || handle(path, form);
    if (key) answered.set(key, answer);
    res.writeHead(answer.status, { 'content-type': 'application/json', 'request-id': id('req') });
    res.end(JSON.stringify(answer.json));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    connection: { host: '127.0.0.1', port, protocol: 'http' },
    requests,
    transfers,
    refuseTransfersTo,
    sessions,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

function stripeError(status: number, code: string, message: string) {
  return { status, json: { error: { type: 'invalid_request_error', code, message } } };
}
