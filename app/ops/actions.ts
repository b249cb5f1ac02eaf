'use server';

import { revalidatePath } from 'next/cache';
import { cookies, headers } from 'next/headers';
import { redirect } from 'next/navigation';
import { opsCookieName, staffSignOut } from '@/lib/auth/staff';
import type { FormState } from '@/lib/console/forms';
import {
  adjustmentForm,
  closeMonthsForm,
  dataLicenseReviewForm,
  markPayoutForm,
  payoutDetailsForm,
  pricingForm,
  releaseForm,
  reviewForm,
  sendWithStripeForm,
  topUpRecordForm,
  type DetailsState,
} from '@/lib/ops/forms';
import { services } from '@/lib/services';
import { requireStaff } from './staff';

/**
 * The operator console's server actions: each needs the staff session (both factors), and each
 * write is checked again, and audited, by the database (public.is_staff).
 */

async function asStaffMember(run: (staff: Awaited<ReturnType<typeof requireStaff>>) => Promise<FormState>): Promise<FormState> {
  const state = await run(await requireStaff());
  if (!state.error) revalidatePath('/ops');
  return state;
}

export async function markPayoutAction(_: FormState, form: FormData): Promise<FormState> {
  return asStaffMember((staff) => markPayoutForm(form, staff, services()));
}

export async function adjustmentAction(_: FormState, form: FormData): Promise<FormState> {
  return asStaffMember((staff) => adjustmentForm(form, staff, services()));
}

export async function sendWithStripeAction(_: FormState, form: FormData): Promise<FormState> {
  return asStaffMember((staff) => sendWithStripeForm(form, staff, services()));
}

export async function closeMonthsAction(_: FormState, form: FormData): Promise<FormState> {
  return asStaffMember((staff) => closeMonthsForm(form, staff, services()));
}

export async function topUpRecordAction(_: FormState, form: FormData): Promise<FormState> {
  return asStaffMember((staff) => topUpRecordForm(form, staff, services()));
}

export async function releaseAction(_: FormState, form: FormData): Promise<FormState> {
  return asStaffMember((staff) => releaseForm(form, staff, services()));
}

export async function reviewAction(_: FormState, form: FormData): Promise<FormState> {
  return asStaffMember((staff) => reviewForm(form, staff, services()));
}

export async function dataLicenseReviewAction(_: FormState, form: FormData): Promise<FormState> {
  return asStaffMember((staff) => dataLicenseReviewForm(form, staff, services()));
}

export async function pricingAction(_: FormState, form: FormData): Promise<FormState> {
  return asStaffMember((staff) => pricingForm(form, staff, services()));
}

export async function payoutDetailsAction(_: DetailsState, form: FormData): Promise<DetailsState> {
  return payoutDetailsForm(form, await requireStaff(), services());
}

export async function signOutAction(): Promise<void> {
  // Closed on the server first: a copy of the cookie kept elsewhere must not outlive the sign-out.
  await staffSignOut(await headers(), services());
  (await cookies()).delete(opsCookieName());
  redirect('/ops/signin?error=signed_out');
}
