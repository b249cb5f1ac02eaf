'use server';

import { revalidatePath } from 'next/cache';
import { headers } from 'next/headers';
import { redirect } from 'next/navigation';
import type { SignedInUser } from '@/lib/identity/auth/users';
import {
  adRulesForm,
  archiveAppForm,
  cancelPayoutForm,
  changePlacementForm,
  createApiKeyForm,
  createAppForm,
  createPlacementForm,
  minRelevanceForm,
  payoutMethodForm,
  requestPayoutForm,
  revokeApiKeyForm,
  stripeOnboardingForm,
  updateAppForm,
  withdrawApprovalForm,
  withdrawConsentForm,
} from '@/lib/publisher/forms';
import type { FormState } from '@/lib/platform/kit/forms';
import { limitedAction } from '@/lib/platform/kit/action-limit';
import { env } from '@/lib/platform/env';
import { services } from '@/lib/services';
import { requirePublisher } from './publisher';

/**
 * The console's server actions: each checks the session (Next has checked that the post came
 * from our origin), runs its form as the signed-in publisher within the account's and address's
 * budget of forms (lib/platform/kit/action-limit.ts), and refreshes the console.
 */

async function asPublisher(back: string, run: (user: SignedInUser) => Promise<FormState>): Promise<FormState> {
  const user = await requirePublisher(back);
  const state = await limitedAction(services(), user.id, await headers(), () => run(user));
  if (!state.error) revalidatePath('/dashboard', 'layout');
  return state;
}

export async function createAppAction(_: FormState, form: FormData): Promise<FormState> {
  const state = await asPublisher('/dashboard', (user) => createAppForm(form, user, services()));
  if (state.id) redirect(`/dashboard/apps/${state.id}`);
  return state;
}

export async function updateAppAction(appId: string, _: FormState, form: FormData): Promise<FormState> {
  return asPublisher(`/dashboard/apps/${appId}`, (user) => updateAppForm(appId, form, user, services()));
}

export async function archiveAppAction(_: FormState, form: FormData): Promise<FormState> {
  const state = await asPublisher('/dashboard', (user) => archiveAppForm(form, user, services()));
  if (!state.error) redirect('/dashboard');
  return state;
}

export async function createPlacementAction(_: FormState, form: FormData): Promise<FormState> {
  return asPublisher('/dashboard', (user) => createPlacementForm(form, user, services()));
}

export async function adRulesAction(appId: string, _: FormState, form: FormData): Promise<FormState> {
  return asPublisher(`/dashboard/apps/${appId}`, (user) => adRulesForm(form, user, services()));
}

export async function minRelevanceAction(_: FormState, form: FormData): Promise<FormState> {
  return asPublisher('/dashboard', (user) => minRelevanceForm(form, user, services()));
}

export async function changePlacementAction(_: FormState, form: FormData): Promise<FormState> {
  return asPublisher('/dashboard', (user) => changePlacementForm(form, user, services()));
}

export async function createApiKeyAction(_: FormState, form: FormData): Promise<FormState> {
  return asPublisher('/dashboard', (user) => createApiKeyForm(form, user, services()));
}

export async function withdrawConsentAction(appId: string, _: FormState, form: FormData): Promise<FormState> {
  return asPublisher(`/dashboard/apps/${appId}`, (user) => withdrawConsentForm(form, user, services()));
}

export async function revokeApiKeyAction(_: FormState, form: FormData): Promise<FormState> {
  return asPublisher('/dashboard', (user) => revokeApiKeyForm(form, user, services()));
}

export async function withdrawApprovalAction(_: FormState, form: FormData): Promise<FormState> {
  return asPublisher('/dashboard/connected', (user) => withdrawApprovalForm(form, user, services()));
}

export async function payoutMethodAction(_: FormState, form: FormData): Promise<FormState> {
  return asPublisher('/dashboard/payouts', (user) => payoutMethodForm(form, user, services()));
}

export async function requestPayoutAction(_: FormState, form: FormData): Promise<FormState> {
  return asPublisher('/dashboard/payouts', (user) => requestPayoutForm(form, user, services()));
}

export async function cancelPayoutAction(_: FormState, form: FormData): Promise<FormState> {
  return asPublisher('/dashboard/payouts', (user) => cancelPayoutForm(form, user, services()));
}

export async function stripeOnboardingAction(_: FormState, form: FormData): Promise<FormState> {
  const user = await requirePublisher('/dashboard/payouts');
  const state = await limitedAction(services(), user.id, await headers(), () =>
    stripeOnboardingForm(form, user, services(), `${env().PUBLIC_BASE_URL}/dashboard/payouts`),
  );
  // Stripe's onboarding is on Stripe's site; it sends the publisher back here.
  if (state.id) redirect(state.id);
  return state;
}
