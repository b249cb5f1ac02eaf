import { asConsoleUser } from '../identity/console';
import type { SignedInUser } from '../identity/auth/users';
import { withdrawApproval } from '../identity/oauth/approvals';
import {
  apiKeyInput,
  apiKeyRevocation,
  appArchival,
  appInput,
  approvalWithdrawal,
  consentWithdrawal,
  placementAction,
  payoutCancellation,
  placementInput,
} from '../schemas/console';
import { manualDetails } from '../money/payouts/details';
import { cancelPayout, requestPayout, setManualMethod } from '../money/payouts/publisher';
import { startOnboarding, type StripeRail } from '../money/stripe/rail';
import { describeError, log } from '../platform/log';
import { withdrawConsentForPublisher } from '../data/records';
import { subjectIdOf } from '../data/subjects';
import { sql } from '../platform/db/sql';
import type { Database } from '../platform/db/roles';
import type { SdkDirectory } from '../identity/keys/directory';

/** What the console's forms need: the database, and this instance's SDK lookups to forget after a change. */
type Services = {
  database(): Promise<Database>;
  readonly sdkDirectory: SdkDirectory;
  sdkSecret(): Promise<Buffer>;
  dataKey(): Promise<Buffer>;
  readonly stripe?: StripeRail | null;
  now(): number;
};
import { archiveApp, changePlacement, createApiKey, createApp, createPlacement, revokeApiKey, setMinRelevance, updateAdRules, updateApp } from './writes';
import { adRulesInput, minRelevanceInput } from './ad-rules';
import { fields, firstIssue, parse, type FormState } from '../platform/kit/forms';
import type { Result } from '../platform/kit/result';
import { microToUsd } from '../platform/kit/micro';
import { formatUsd } from '../platform/kit/format';

/**
 * The console's forms, from submitted fields to the state the form shows next: a message for
 * bad input or a refused write, with what the publisher typed (never a secret) so that nothing
 * is lost, or what succeeded. The server actions in app/dashboard call these with the
 * signed-in publisher; the schemas are the ones the rest of the service validates with.
 */

/** The form's next state after a write: what `done` says of its value, or the refusal with the fields as typed. */
function settle<T>(result: Result<T>, form: FormData, done: (value: T) => FormState): FormState {
  return result.ok ? done(result.value) : { error: result.error, values: fields(form) };
}

export async function createAppForm(form: FormData, user: SignedInUser, services: Services): Promise<FormState> {
  const input = parse(appInput, form);
  if (!input.ok) return input.state;
  return settle(await createApp(await services.database(), user.id, input.data), form, ({ id }) => ({ notice: `Created ${input.data.name}.`, id }));
}

export async function updateAppForm(appId: unknown, form: FormData, user: SignedInUser, services: Services): Promise<FormState> {
  const input = parse(appInput, form);
  if (!input.ok) return input.state;
  const target = appArchival.safeParse({ id: appId });
  if (!target.success) return { error: firstIssue(target.error), values: fields(form) };
  const result = forgetSdkLookups(await updateApp(await services.database(), user.id, target.data.id, input.data), services);
  return settle(result, form, () => ({ notice: 'Saved. Allowed origins apply on every server within 5 seconds.' }));
}

export async function archiveAppForm(form: FormData, user: SignedInUser, services: Services): Promise<FormState> {
  const input = parse(appArchival, form);
  if (!input.ok) return input.state;
  const result = forgetSdkLookups(await archiveApp(await services.database(), user.id, input.data.id), services);
  return settle(result, form, () => ({ notice: 'The app is archived and its keys are revoked: every server refuses them within 5 seconds.' }));
}

export async function createPlacementForm(form: FormData, user: SignedInUser, services: Services): Promise<FormState> {
  const input = parse(placementInput, form);
  if (!input.ok) return input.state;
  return settle(await createPlacement(await services.database(), user.id, input.data), form, ({ id }) => ({
    notice: `Created the placement ${input.data.name}.`,
    id,
  }));
}

export async function adRulesForm(form: FormData, user: SignedInUser, services: Services): Promise<FormState> {
  if (!(form instanceof FormData)) return { error: 'Send the form.' };
  // The categories are checkboxes: several values under one name, shown again joined by commas.
  const ticked = form.getAll('blocked_categories').filter((v) => typeof v === 'string');
  const values = { ...fields(form), blocked_categories: ticked.join(',') };
  const input = adRulesInput.safeParse({ ...fields(form), blocked_categories: ticked });
  if (!input.success) return { error: firstIssue(input.error), values };
  const result = await updateAdRules(await services.database(), user.id, input.data);
  return result.ok ? { notice: 'Saved. The next ad request of this app follows them.' } : { error: result.error, values };
}

export async function minRelevanceForm(form: FormData, user: SignedInUser, services: Services): Promise<FormState> {
  const input = parse(minRelevanceInput, form);
  if (!input.ok) return input.state;
  return settle(await setMinRelevance(await services.database(), user.id, input.data), form, () => ({
    notice: `Saved: ads on this placement need a relevance of ${input.data.min_relevance} or more.`,
  }));
}

export async function changePlacementForm(form: FormData, user: SignedInUser, services: Services): Promise<FormState> {
  const input = parse(placementAction, form);
  if (!input.ok) return input.state;
  const done = { pause: 'Paused.', resume: 'Resumed.', archive: 'Archived.' }[input.data.action];
  return settle(await changePlacement(await services.database(), user.id, input.data.id, input.data.action), form, () => ({ notice: done }));
}

export async function createApiKeyForm(form: FormData, user: SignedInUser, services: Services): Promise<FormState> {
  const input = parse(apiKeyInput, form);
  if (!input.ok) return input.state;
  return settle(await createApiKey(await services.database(), user.id, input.data), form, ({ key, masked_key }) => ({
    notice: `Created the key ${input.data.name}.`,
    createdKey: { name: input.data.name, key, masked_key },
  }));
}

export async function revokeApiKeyForm(form: FormData, user: SignedInUser, services: Services): Promise<FormState> {
  const input = parse(apiKeyRevocation, form);
  if (!input.ok) return input.state;
  const result = forgetSdkLookups(await revokeApiKey(await services.database(), user.id, input.data.id), services);
  return settle(result, form, () => ({ notice: 'Revoked. Every server refuses the key within 5 seconds.' }));
}

/**
 * A change to a key or an app holds on this instance at once: it forgets the keys and apps it
 * looked up. Other instances look again within the directory's few seconds (lib/identity/keys/directory.ts).
 */
function forgetSdkLookups<T>(result: Result<T>, services: Services): Result<T> {
  if (result.ok) services.sdkDirectory.clear();
  return result;
}

/**
 * A user's consent withdrawn by the app's publisher (content/docs/data-and-consent.md): for a user
 * who lost their consent proof, or asked the publisher rather than the app. The app must be the
 * signed-in publisher's own; its unsold records of the user are deleted at once.
 */
export async function withdrawConsentForm(form: FormData, user: SignedInUser, services: Services): Promise<FormState> {
  const input = parse(consentWithdrawal, form);
  if (!input.ok) return input.state;
  const db = await services.database();
  const own = await asConsoleUser(db, user.id).query(sql`select id from public.apps where id = ${input.data.app_id}::uuid and archived_at is null`);
  if (own.length === 0) return { error: 'That app does not exist, or is not yours.' };
  const done = await withdrawConsentForPublisher({ appId: input.data.app_id, userId: user.id }, subjectIdOf(input.data.user), services);
  if (!done.withdrawn) return { error: 'This user has no current consent with this app: nothing was withdrawn.', values: { user: input.data.user } };
  const records = done.deleted_records === 1 ? '1 unsold record' : `${done.deleted_records} unsold records`;
  return { notice: `Withdrawn. ${records} of this user deleted; what buyers licensed stays with them.` };
}

export async function withdrawApprovalForm(form: FormData, user: SignedInUser, services: Services): Promise<FormState> {
  const input = parse(approvalWithdrawal, form);
  if (!input.ok) return input.state;
  const withdrawn = await withdrawApproval(await services.database(), user.id, input.data.client_id);
  return withdrawn ? { notice: 'Withdrawn. The app must ask you again.' } : { error: 'That approval does not exist.' };
}

/** The manual rail with the details typed (stored encrypted; the form never shows them again). */
export async function payoutMethodForm(form: FormData, user: SignedInUser, services: Services): Promise<FormState> {
  const input = parse(manualDetails, form);
  // The account number is not sent back into the form: what was typed stays only in the browser.
  if (!input.ok) return { error: input.state.error, values: { account_holder: input.state.values?.account_holder ?? '' } };
  let key: Buffer;
  try {
    key = await services.dataKey();
  } catch (err) {
    log.error('payout details not stored: no encryption key', describeError(err));
    return { error: 'Payout details cannot be stored on this server yet: it has no encryption key. Try again later.' };
  }
  const result = await setManualMethod(await services.database(), key, user.id, input.data);
  return settle(result, form, ({ masked }) => ({ notice: `Payouts will go to ${masked}.` }));
}

export async function requestPayoutForm(form: FormData, user: SignedInUser, services: Services): Promise<FormState> {
  if (!(form instanceof FormData)) return { error: 'Send the form.' };
  const result = await requestPayout(await services.database(), user.id);
  return result.ok
    ? { notice: `Payout of ${formatUsd(microToUsd(result.value.amount))} requested. It is sent within five business days.`, id: result.value.id }
    : { error: result.error };
}

export async function cancelPayoutForm(form: FormData, user: SignedInUser, services: Services): Promise<FormState> {
  const input = parse(payoutCancellation, form);
  if (!input.ok) return input.state;
  return settle(await cancelPayout(await services.database(), user.id, input.data.id), form, () => ({
    notice: 'Payout canceled: its amount is back in your available balance.',
  }));
}

/**
 * Stripe Connect as the payout method: the publisher's Express account (made once) and a fresh
 * onboarding link, which the action sends the browser to (`id` holds it).
 */
export async function stripeOnboardingForm(form: FormData, user: SignedInUser, services: Services, back: string): Promise<FormState> {
  if (!(form instanceof FormData)) return { error: 'Send the form.' };
  if (!services.stripe) return { error: 'Stripe payouts are not available on this server: give a bank account instead.' };
  try {
    const { url } = await startOnboarding(services.stripe, await services.database(), user, { back });
    return { id: url };
  } catch (err) {
    log.error('stripe onboarding failed', describeError(err));
    return { error: 'Stripe could not be reached. Try again in a minute.' };
  }
}
