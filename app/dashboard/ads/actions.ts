'use server';

import { revalidatePath } from 'next/cache';
import { headers } from 'next/headers';
import { redirect } from 'next/navigation';
import type { SignedInUser } from '@/lib/identity/auth/users';
import type { FormState } from '@/lib/platform/kit/forms';
import {
  checkoutForm,
  createCampaignForm,
  deleteDraftForm,
  moveCampaignForm,
  moveCreativeForm,
  profileForm,
  topUpForm,
  tryConversationForm,
  updateCampaignForm,
  type TryState,
} from '@/lib/ads/advertisers/forms';
import { createConversionKeyForm, revokeConversionKeyForm } from '@/lib/ads/conversions/forms';
import { limitedAction } from '@/lib/platform/kit/action-limit';
import { env } from '@/lib/platform/env';
import { services } from '@/lib/services';
import { requirePublisher as requireSignedIn } from '../publisher';

/**
 * The advertiser console's server actions: each checks the session (Next has checked that the
 * post came from our origin), runs its form as the signed-in user within the account's and
 * address's budget of forms (lib/platform/kit/action-limit.ts), and refreshes the pages. A creative's
 * form, which sends files, is not one of them: it posts to a route of its own
 * (lib/ads/advertisers/creative-upload.ts), as server actions take at most 1 MB (next.config.ts).
 */

async function asAdvertiser(back: string, run: (user: SignedInUser) => Promise<FormState>): Promise<FormState> {
  const user = await requireSignedIn(back);
  const state = await limitedAction(services(), user.id, await headers(), () => run(user));
  if (!state.error) revalidatePath('/dashboard/ads', 'layout');
  return state;
}

export async function profileAction(_: FormState, form: FormData): Promise<FormState> {
  return asAdvertiser('/dashboard/ads', (user) => profileForm(form, user, services()));
}

export async function topUpAction(_: FormState, form: FormData): Promise<FormState> {
  const state = await asAdvertiser('/dashboard/ads/funds', (user) => topUpForm(form, user, services()));
  if (state.id) redirect(`/dashboard/ads/funds/${state.id}`);
  return state;
}

/** A top-up by card: on to Stripe's payment page (the balance is credited by Stripe's webhook, not by the way back). */
export async function checkoutAction(_: FormState, form: FormData): Promise<FormState> {
  const user = await requireSignedIn('/dashboard/ads/funds');
  const state: FormState & { url?: string } = await limitedAction(services(), user.id, await headers(), () =>
    checkoutForm(form, user, services(), `${env().PUBLIC_BASE_URL}/dashboard/ads/funds`),
  );
  if (state.url) redirect(state.url);
  return state;
}

export async function createCampaignAction(_: FormState, form: FormData): Promise<FormState> {
  const state = await asAdvertiser('/dashboard/ads/campaigns/new', (user) => createCampaignForm(form, user, services()));
  if (state.id) redirect(`/dashboard/ads/campaigns/${state.id}`);
  return state;
}

export async function updateCampaignAction(campaignId: string, _: FormState, form: FormData): Promise<FormState> {
  return asAdvertiser(`/dashboard/ads/campaigns/${campaignId}`, (user) => updateCampaignForm(campaignId, form, user, services()));
}

export async function moveCampaignAction(_: FormState, form: FormData): Promise<FormState> {
  return asAdvertiser('/dashboard/ads', (user) => moveCampaignForm(form, user, services()));
}

export async function deleteDraftAction(_: FormState, form: FormData): Promise<FormState> {
  const state = await asAdvertiser('/dashboard/ads', (user) => deleteDraftForm(form, user, services()));
  if (!state.error) redirect('/dashboard/ads');
  return state;
}

export async function moveCreativeAction(_: FormState, form: FormData): Promise<FormState> {
  return asAdvertiser('/dashboard/ads', (user) => moveCreativeForm(form, user, services()));
}

/** The "try a conversation" box: scores the advertiser's campaigns against what they typed, keeping nothing. */
export async function tryConversationAction(_: TryState, form: FormData): Promise<TryState> {
  const user = await requireSignedIn('/dashboard/ads');
  return limitedAction(services(), user.id, await headers(), () => tryConversationForm(form, user, services()));
}

export async function createConversionKeyAction(_: FormState, form: FormData): Promise<FormState> {
  return asAdvertiser('/dashboard/ads/conversions', (user) => createConversionKeyForm(form, user, services()));
}

export async function revokeConversionKeyAction(_: FormState, form: FormData): Promise<FormState> {
  return asAdvertiser('/dashboard/ads/conversions', (user) => revokeConversionKeyForm(form, user, services()));
}
