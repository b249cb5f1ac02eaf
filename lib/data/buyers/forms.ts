import { z } from 'zod';
import type { SignedInUser } from '../../identity/auth/users';
import { fields, parse, type FormState } from '../../platform/kit/forms';
import type { Database } from '../../platform/db/roles';
import { acceptedCurrentTerms, acknowledgeNotice, buyerFunds, buyerLicense, buyerProfile, saveBuyerProfile } from './account';
import { buyLicense, quoteLicense, type Quote } from './catalog';
import { usd, priceBreakdown } from './display';
import { accountOnHold, downloadLink, EXPORT_FORMATS, licenseExport, ON_HOLD } from './downloads';
import { buyerProfileInput, catalogFilter, LISTING_IDS, quantityInput, type BuyerProfileInput, type CatalogFilter, type ListingId } from './schemas';
import { removeWebhook, rotateWebhookSecret, saveWebhookUrl, webhookUrlInput } from './webhook-settings';
import { requestTopUp, topUpInput } from '../../money/funds';

/**
 * The data buyer console's forms, from submitted fields to the state the form shows next: what is
 * wrong (with what was typed, so nothing is lost), a refusal in words, or what was done. The
 * server actions in app/dashboard/data call these with the signed-in user.
 */

type Services = { database(): Promise<Database> };

const uuid = (what: string) => z.string().uuid(`Unknown ${what}.`);

// ── Becoming a buyer ───────────────────────────────────────────────────────────────────────

export type ProfileField = keyof BuyerProfileInput;

/** The profile form's state: besides the first problem, each field's own. */
export type BuyerProfileState = FormState & { fieldErrors?: Partial<Record<ProfileField, string>> };

/** The profile form's fields, the terms checkbox as the schema takes it (ticked: true). */
function profileFields(form: FormData): Record<string, unknown> {
  const accepted = form.get('accept_terms');
  return { ...fields(form), accept_terms: accepted === 'on' || accepted === 'true' };
}

export async function buyerProfileForm(form: FormData, user: SignedInUser, services: Services): Promise<BuyerProfileState> {
  if (!(form instanceof FormData)) return { error: 'Send the form.' };
  const result = buyerProfileInput.safeParse(profileFields(form));
  if (!result.success) {
    const fieldErrors: Partial<Record<ProfileField, string>> = {};
    for (const issue of result.error.issues) {
      const name = issue.path[0] as ProfileField | undefined;
      if (name && !fieldErrors[name]) fieldErrors[name] = issue.message;
    }
    const count = Object.keys(fieldErrors).length;
    return {
      error: count > 1 ? `Check the ${count} fields marked below.` : (result.error.issues[0]?.message ?? 'Check the form and try again.'),
      fieldErrors,
      values: fields(form),
    };
  }
  const saved = await saveBuyerProfile(await services.database(), user.id, result.data);
  return saved.ok ? { notice: 'Data buyer profile saved, and the data license terms accepted.' } : { error: saved.error, values: fields(form) };
}

// ── Funds ──────────────────────────────────────────────────────────────────────────────────

/** An invoice for a top-up of the buyer's balance, paid by bank transfer (`id`: the top-up, for its page). */
export async function buyerTopUpForm(form: FormData, user: SignedInUser, services: Services): Promise<FormState> {
  const input = parse(topUpInput, form);
  if (!input.ok) return input.state;
  const result = await requestTopUp(await services.database(), user.id, input.data.amount_usd, 'buyer');
  if (!result.ok) return { error: result.error, values: fields(form) };
  return {
    notice: `Invoice ${result.value.invoice_number} is ready: pay it by bank transfer, quoting its number, and the funds are yours once the payment arrives.`,
    id: result.value.id,
  };
}

// ── Quoting and buying a license ───────────────────────────────────────────────────────────

export interface LicenseRequest {
  step: 'quote' | 'buy';
  listing: ListingId;
  filter: CatalogFilter;
  quantity: number;
  /** The quantity as typed, cleaned ("1000", "2.5"), for the confirm form to send again. */
  quantityText: string;
  exclusive: boolean;
  /** The price the buyer saw (buying only). */
  maxPriceMicro: number | null;
}

const step = z.enum(['quote', 'buy'], 'Ask for a quote first.');
const listing = z.enum(LISTING_IDS, 'There is no such listing.');
const maxPrice = z
  .string()
  .regex(/^\d{1,15}$/, 'Ask for a quote first.')
  .transform(Number);

/** The quote form's fields as it shows them again: the quantity as typed, and whether exclusive was ticked. */
const quoteValues = (form: FormData) => ({ quantity: String(form.get('quantity') ?? ''), exclusive: form.get('exclusive') === 'on' ? 'on' : '' });

/**
 * What the quote and confirm forms send: the listing, its filter (the page's, as hidden fields;
 * categories and models may repeat), the quantity, whether exclusive, and, to buy, the price quoted.
 */
export function licenseRequest(form: FormData): { ok: true; request: LicenseRequest } | { ok: false; error: string } {
  if (!(form instanceof FormData)) return { ok: false, error: 'Send the form.' };
  const strings = (name: string) => form.getAll(name).filter((v): v is string => typeof v === 'string');
  const text = (name: string) => {
    const v = form.get(name);
    return typeof v === 'string' ? v : '';
  };
  const s = step.safeParse(text('step') || 'quote');
  if (!s.success) return { ok: false, error: s.error.issues[0]!.message };
  const l = listing.safeParse(text('listing'));
  if (!l.success) return { ok: false, error: l.error.issues[0]!.message };
  const filter = catalogFilter.safeParse({
    categories: strings('categories'),
    from: text('from'),
    to: text('to'),
    models: strings('models'),
    min_app_age_days: text('min_app_age_days'),
  });
  if (!filter.success) return { ok: false, error: filter.error.issues[0]?.message ?? 'Check the filter.' };
  const quantity = quantityInput(l.data).safeParse(text('quantity'));
  if (!quantity.success) return { ok: false, error: quantity.error.issues[0]?.message ?? 'Give the quantity.' };
  let maxPriceMicro: number | null = null;
  if (s.data === 'buy') {
    const m = maxPrice.safeParse(text('max_price_micro'));
    if (!m.success) return { ok: false, error: m.error.issues[0]!.message };
    maxPriceMicro = m.data;
  }
  const exclusive = text('exclusive') === 'on' || text('exclusive') === 'true';
  return {
    ok: true,
    request: { step: s.data, listing: l.data, filter: filter.data, quantity: quantity.data, quantityText: String(quantity.data), exclusive, maxPriceMicro },
  };
}

/** A quote as the confirm form shows it, its sentences written on the server. */
export interface QuoteView extends Quote {
  /** What the confirm form sends again. */
  quantity: string;
  exclusive: boolean;
  /** The buyer's available balance when quoted, and after paying this. */
  available_micro: number;
  balance_after_micro: number;
  /** "1,000 rows × $0.002 = $2.00" */
  breakdown: string;
  price: string;
  available: string;
  balance_after: string;
}

export type LicenseState = FormState & {
  quote?: QuoteView;
  /** The refusal is for want of funds: the form links to the top-up. */
  needsFunds?: boolean;
};

type LicenseServices = Services & { readonly exports: { kick(): void } };

async function quoteView(db: Database, userId: string, r: LicenseRequest): Promise<{ ok: true; view: QuoteView } | { ok: false; error: string }> {
  const [quote, funds] = await Promise.all([
    quoteLicense(db, userId, { listing: r.listing, filter: r.filter, quantity: r.quantity, exclusive: r.exclusive }),
    buyerFunds(db, userId),
  ]);
  if (!quote.ok) return quote;
  const after = funds.available_micro - quote.value.price_micro;
  return {
    ok: true,
    view: {
      ...quote.value,
      quantity: r.quantityText,
      exclusive: r.exclusive,
      available_micro: funds.available_micro,
      balance_after_micro: after,
      breakdown: priceBreakdown(r.listing, quote.value),
      price: usd(quote.value.price_micro),
      available: usd(funds.available_micro),
      balance_after: usd(after),
    },
  };
}

/**
 * The quote form (step `quote`): the price of what was asked and the balance after it; and its
 * confirmation (step `buy`): the license bought for no more than the price quoted, the export
 * started at once (`id`: the license). A refused purchase says why, with the price as it is now
 * when it can still be quoted.
 */
export async function licenseForm(form: FormData, user: SignedInUser, services: LicenseServices): Promise<LicenseState> {
  const parsed = licenseRequest(form);
  if (!parsed.ok) return { error: parsed.error, values: form instanceof FormData ? quoteValues(form) : undefined };
  const r = parsed.request;
  const values = { quantity: r.quantityText, exclusive: r.exclusive ? 'on' : '' };
  const db = await services.database();
  if (!acceptedCurrentTerms(await buyerProfile(db, user.id))) {
    return { error: 'Accept the current data license terms on the Data page before buying.', values };
  }
  if (r.step === 'quote') {
    const quoted = await quoteView(db, user.id, r);
    return quoted.ok ? { quote: quoted.view, values } : { error: quoted.error, values };
  }
  const bought = await buyLicense(db, user.id, {
    listing: r.listing,
    filter: r.filter,
    quantity: r.quantity,
    exclusive: r.exclusive,
    maxPriceMicro: r.maxPriceMicro!,
  });
  if (bought.ok) {
    services.exports.kick();
    return {
      id: bought.value.license_id,
      notice: bought.value.status === 'active' ? 'License granted: its files are being written.' : 'License requested: the operator reviews it.',
    };
  }
  // Refused: say why, with the quote as it stands now (a changed price, a balance short of it).
  const again = await quoteView(db, user.id, r);
  const quote = again.ok ? again.view : undefined;
  const needsFunds = quote ? quote.balance_after_micro < 0 : false;
  return { error: bought.error, values, quote, needsFunds };
}

// ── Deletion notices ───────────────────────────────────────────────────────────────────────

/** The console page an acknowledgement came from (the Data page, or a license's), to go back to; the Data page for anything else. */
export function noticeReturnPath(form: FormData): string {
  const back = form instanceof FormData ? form.get('back') : null;
  return typeof back === 'string' && /^\/dashboard\/data(\/licenses\/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})?$/.test(back)
    ? back
    : '/dashboard/data';
}

export async function acknowledgeForm(form: FormData, user: SignedInUser, services: Services): Promise<FormState> {
  const input = parse(z.object({ id: uuid('notice') }), form);
  if (!input.ok) return input.state;
  const done = await acknowledgeNotice(await services.database(), user.id, input.data.id);
  return done.ok ? { notice: 'Acknowledged: you confirmed that you deleted these records.' } : { error: done.error };
}

// ── Deletion notices by webhook ────────────────────────────────────────────────────────────

/** A webhook form's state: besides what every form says, a signing secret just made, shown this once. */
export type WebhookState = FormState & { secret?: string };

type WebhookServices = Services & { dataKey(): Promise<Buffer> };

/** Sets the webhook's URL, or replaces it; a new webhook's signing secret comes back to be shown once. */
export async function webhookUrlForm(form: FormData, user: SignedInUser, services: WebhookServices): Promise<WebhookState> {
  const input = parse(webhookUrlInput, form);
  if (!input.ok) return input.state;
  const saved = await saveWebhookUrl(await services.database(), user.id, input.data.url, await services.dataKey());
  if (!saved.ok) return { error: saved.error, values: fields(form) };
  return saved.value.secret
    ? { notice: 'Webhook set: copy its signing secret now, it is shown only once.', secret: saved.value.secret }
    : { notice: 'Webhook URL replaced: notices still waiting are sent to it, signed with the same secret.' };
}

/** A new signing secret, shown once; the old one stops signing at once. */
export async function webhookRotateForm(form: FormData, user: SignedInUser, services: WebhookServices): Promise<WebhookState> {
  if (!(form instanceof FormData)) return { error: 'Send the form.' };
  const rotated = await rotateWebhookSecret(await services.database(), user.id, await services.dataKey());
  if (!rotated.ok) return { error: rotated.error };
  return { notice: 'New signing secret made: copy it now, it is shown only once. The old one no longer signs.', secret: rotated.value.secret };
}

export async function webhookRemoveForm(form: FormData, user: SignedInUser, services: Services): Promise<FormState> {
  if (!(form instanceof FormData)) return { error: 'Send the form.' };
  const removed = await removeWebhook(await services.database(), user.id);
  if (!removed.ok) return { error: removed.error };
  const n = removed.value.failed;
  return {
    notice:
      n === 0
        ? 'Webhook removed: deletion notices are in the console only.'
        : `Webhook removed: ${n === 1 ? 'the notice that was waiting for it is' : `the ${n} notices that were waiting for it are`} in the console only.`,
  };
}

// ── Downloads ──────────────────────────────────────────────────────────────────────────────

type DownloadServices = Services & { exportSecret(): Promise<Buffer>; now(): number };

const download = z.object({ license: uuid('license'), format: z.enum(EXPORT_FORMATS, 'Choose Parquet or JSONL.') });

/** The download form's answer: a fresh link to the file (`url`), or why there is none. */
export type DownloadState = FormState & { url?: string };

/**
 * Whether the download form was sent by the page's script (its hidden `via=script`, set once the
 * page is interactive), which then starts the download itself from the link in the answer. A form
 * sent without script is redirected to the file instead: the browser downloads it and stays on
 * the page. A script's form must not be: a server action's redirect is a navigation, and one to a
 * file never arrives anywhere, so the form would stay pending and its buttons disabled.
 */
export function downloadStartedByScript(form: FormData): boolean {
  return form instanceof FormData && form.get('via') === 'script';
}

/**
 * A fresh download link for one of a license's files (`url`), issued on each click so that none
 * goes stale on the page: only for the buyer's own license, in force, with its files written.
 */
export async function downloadForm(form: FormData, user: SignedInUser, services: DownloadServices): Promise<DownloadState> {
  const input = parse(download, form);
  if (!input.ok) return input.state;
  const db = await services.database();
  const [license, current] = await Promise.all([buyerLicense(db, user.id, input.data.license), licenseExport(db, user.id, input.data.license)]);
  if (!license) return { error: 'There is no such license.' };
  const now = services.now();
  if (license.status !== 'active' || !license.expires_at || license.expires_at.getTime() <= now) {
    return { error: 'This license is not in force: its files are not yours to download.' };
  }
  if (current?.status !== 'done') return { error: 'The files are not written yet: wait for them, the page says when they are ready.' };
  if (await accountOnHold(db, user.id)) return { error: ON_HOLD };
  return { url: downloadLink(await services.exportSecret(), { exportId: current.id, format: input.data.format, userId: user.id }, now) };
}
