'use server';

import { revalidatePath } from 'next/cache';
import { headers } from 'next/headers';
import { redirect } from 'next/navigation';
import type { SignedInUser } from '@/lib/identity/auth/users';
import type { FormState } from '@/lib/platform/kit/forms';
import {
  acknowledgeForm,
  buyerProfileForm,
  buyerTopUpForm,
  downloadForm,
  downloadStartedByScript,
  licenseForm,
  noticeReturnPath,
  webhookRemoveForm,
  webhookRotateForm,
  webhookUrlForm,
  type BuyerProfileState,
  type DownloadState,
  type LicenseState,
  type WebhookState,
} from '@/lib/data/buyers/forms';
import { checkoutForm } from '@/lib/ads/advertisers/forms';
import { limitedAction } from '@/lib/platform/kit/action-limit';
import { env } from '@/lib/platform/env';
import { services } from '@/lib/services';
import { requirePublisher as requireSignedIn } from '../publisher';

/**
 * The data buyer console's server actions: each checks the session (Next has checked that the
 * post came from our origin), runs its form as the signed-in user within the account's and
 * address's budget of forms (lib/platform/kit/action-limit.ts), and refreshes the pages.
 */

/** The form `run` of the signed-in user, within the budget; a refusal is a bare error, which every state here can be (their other fields are optional). */
async function limited<S extends FormState>(user: SignedInUser, run: () => Promise<S>): Promise<S> {
  return (await limitedAction(services(), user.id, await headers(), run)) as S;
}

async function asSignedIn<S extends FormState>(back: string, run: (user: SignedInUser) => Promise<S>): Promise<S> {
  const user = await requireSignedIn(back);
  const state = await limited(user, () => run(user));
  // Something was written (a quote writes nothing, and leaves the page as it is).
  if (!state.error && (state.notice || state.id)) revalidatePath('/dashboard/data', 'layout');
  return state;
}

export async function buyerProfileAction(_: BuyerProfileState, form: FormData): Promise<BuyerProfileState> {
  return asSignedIn('/dashboard/data', (user) => buyerProfileForm(form, user, services()));
}

/** A top-up by card (when Stripe is configured): on to Stripe's payment page. */
export async function buyerCheckoutAction(_: FormState, form: FormData): Promise<FormState> {
  const user = await requireSignedIn('/dashboard/data/funds');
  const state: FormState & { url?: string } = await limited(user, () =>
    checkoutForm(form, user, services(), `${env().PUBLIC_BASE_URL}/dashboard/data/funds`, 'buyer'),
  );
  if (state.url) redirect(state.url);
  return state;
}

export async function buyerTopUpAction(_: FormState, form: FormData): Promise<FormState> {
  const state = await asSignedIn('/dashboard/data/funds', (user) => buyerTopUpForm(form, user, services()));
  if (state.id) redirect(`/dashboard/data/funds/${state.id}`);
  return state;
}

/** A quote (step `quote`), or the purchase it confirms (step `buy`), which goes on to the new license. */
export async function licenseAction(_: LicenseState, form: FormData): Promise<LicenseState> {
  const state = await asSignedIn('/dashboard/data', (user) => licenseForm(form, user, services()));
  if (state.id) redirect(`/dashboard/data/licenses/${state.id}`);
  return state;
}

/** A deletion notice acknowledged, and back to the page it was acknowledged from, which says so. */
export async function acknowledgeAction(_: FormState, form: FormData): Promise<FormState> {
  const back = noticeReturnPath(form);
  const state = await asSignedIn(back, (user) => acknowledgeForm(form, user, services()));
  if (!state.error) redirect(`${back}?acknowledged=1`);
  return state;
}

/** The webhook deletion notices are sent to: its URL set or replaced (a new one's secret shown once), its secret rotated, or removed. */
export async function webhookUrlAction(_: WebhookState, form: FormData): Promise<WebhookState> {
  return asSignedIn('/dashboard/data', (user) => webhookUrlForm(form, user, services()));
}

export async function webhookRotateAction(_: WebhookState, form: FormData): Promise<WebhookState> {
  return asSignedIn('/dashboard/data', (user) => webhookRotateForm(form, user, services()));
}

export async function webhookRemoveAction(_: FormState, form: FormData): Promise<FormState> {
  return asSignedIn('/dashboard/data', (user) => webhookRemoveForm(form, user, services()));
}

/**
 * A new download link on each click: back to the page's script, which starts the download and
 * leaves the buttons usable, or, for a form sent without script, on to the link (the browser
 * downloads the file and stays on the page). See downloadStartedByScript.
 */
export async function downloadAction(_: DownloadState, form: FormData): Promise<DownloadState> {
  const user = await requireSignedIn('/dashboard/data');
  const state = await limited(user, () => downloadForm(form, user, services()));
  if (state.url && !downloadStartedByScript(form)) redirect(state.url);
  return state;
}
