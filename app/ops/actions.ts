'use server';

import { revalidatePath } from 'next/cache';
import { cookies, headers } from 'next/headers';
import { redirect } from 'next/navigation';
import { opsCookieName, staffSignOut } from '@/lib/identity/auth/staff';
import { limitedAction } from '@/lib/platform/kit/action-limit';
import type { FormState } from '@/lib/platform/kit/forms';
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
 * The operator console's server actions: each needs the staff session (both factors), runs
 * within the staff member's and address's budget of forms (lib/platform/kit/action-limit.ts: the same
 * as every console's, so a stolen session cannot script the payouts' reveal or the ledger at
 * machine speed), and each write is checked again, and audited, by the database
 * (public.is_staff). The sign-in has its own throttle (lib/identity/auth/throttle.ts); the sign-out is
 * never refused.
 */

async function asStaffMember(run: (staff: Awaited<ReturnType<typeof requireStaff>>) => Promise<FormState>): Promise<FormState> {
  const staff = await requireStaff();
  const state = await limitedAction(services(), staff.id, await headers(), () => run(staff));
  if (!state.error) revalidatePath('/ops', 'layout');
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
  const staff = await requireStaff();
  return limitedAction(services(), staff.id, await headers(), () => payoutDetailsForm(form, staff, services()));
}

export async function signOutAction(): Promise<void> {
  // Closed on the server first: a copy of the cookie kept elsewhere must not outlive the sign-out.
  await staffSignOut(await headers(), services());
  (await cookies()).delete(opsCookieName());
  redirect('/ops/signin?error=signed_out');
}
