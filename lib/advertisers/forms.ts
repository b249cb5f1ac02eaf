import { z } from 'zod';
import type { SignedInUser } from '../auth/users';
import { fields, parse, type FormState } from '../console/forms';
import type { Database } from '../platform/db/roles';
import {
  addCreative,
  createCampaign,
  deleteCreative,
  deleteDraft,
  moveCampaign,
  requestTopUp,
  saveProfile,
  setCreativePaused,
  updateCampaign,
  updateCreative,
  type Result,
} from './account';
import { CAMPAIGN_MOVES, campaignInput, creativeInput, profileInput, topUpInput } from './schemas';

/**
 * The advertiser console's forms, from submitted fields to the state the form shows next: a
 * message for bad input or a refused write, with what was typed so that nothing is lost, or what
 * succeeded. The server actions in app/dashboard/ads call these with the signed-in user.
 */

type Services = { database(): Promise<Database> };

const uuid = (what: string) => z.string().uuid(`Unknown ${what}.`);

function done<T>(result: Result<T>, form: FormData, notice: (value: T) => FormState): FormState {
  return result.ok ? notice(result.value) : { error: result.error, values: fields(form) };
}

export async function profileForm(form: FormData, user: SignedInUser, services: Services): Promise<FormState> {
  const input = parse(profileInput, form);
  if (!input.ok) return input.state;
  return done(await saveProfile(await services.database(), user.id, input.data), form, () => ({ notice: 'Advertiser profile saved.' }));
}

export async function topUpForm(form: FormData, user: SignedInUser, services: Services): Promise<FormState> {
  const input = parse(topUpInput, form);
  if (!input.ok) return input.state;
  return done(await requestTopUp(await services.database(), user.id, input.data.amount_usd), form, (v) => ({
    notice: `Invoice ${v.invoice_number} is ready: pay it by bank transfer, quoting its number, and the funds are yours once the payment arrives.`,
    id: v.id,
  }));
}

/** A campaign form's fields, with its formats (checkboxes, so possibly several values under one name). */
function campaignFields(form: FormData): Record<string, unknown> {
  return { ...fields(form), formats: form.getAll('formats').filter((v) => typeof v === 'string') };
}

/** A campaign form's fields as the form shows them again: its formats as ticked, joined by commas. */
const campaignFormValues = (form: FormData) => ({ ...fields(form), formats: form.getAll('formats').join(',') });

function parseCampaign(form: FormData) {
  if (!(form instanceof FormData)) return { ok: false as const, state: { error: 'Send the form.' } };
  const result = campaignInput.safeParse(campaignFields(form));
  return result.success
    ? { ok: true as const, data: result.data }
    : {
        ok: false as const,
        // The formats as ticked, joined, so that the form comes back as it was sent.
        state: { error: result.error.issues[0]?.message ?? 'Check the form and try again.', values: campaignFormValues(form) },
      };
}

export async function createCampaignForm(form: FormData, user: SignedInUser, services: Services): Promise<FormState> {
  const input = parseCampaign(form);
  if (!input.ok) return input.state;
  const result = await createCampaign(await services.database(), user.id, input.data);
  return result.ok ? { notice: 'Campaign saved as a draft.', id: result.value.id } : { error: result.error, values: campaignFormValues(form) };
}

export async function updateCampaignForm(campaignId: string, form: FormData, user: SignedInUser, services: Services): Promise<FormState> {
  if (!uuid('campaign').safeParse(campaignId).success) return { error: 'Unknown campaign.' };
  const input = parseCampaign(form);
  if (!input.ok) return input.state;
  const result = await updateCampaign(await services.database(), user.id, campaignId, input.data);
  return result.ok ? { notice: 'Campaign saved.' } : { error: result.error, values: campaignFormValues(form) };
}

const campaignMove = z.object({ id: uuid('campaign'), move: z.enum(CAMPAIGN_MOVES, 'Unknown move.') });
const MOVED: Record<(typeof CAMPAIGN_MOVES)[number], string> = {
  submit: 'Sent to review: the operator approves or rejects it, usually within a working day.',
  pause: 'Campaign paused: it serves nothing until you resume it.',
  resume: 'Campaign resumed.',
};

export async function moveCampaignForm(form: FormData, user: SignedInUser, services: Services): Promise<FormState> {
  const input = parse(campaignMove, form);
  if (!input.ok) return input.state;
  const result = await moveCampaign(await services.database(), user.id, input.data.id, input.data.move);
  if (!result.ok) return { error: result.error };
  // Resumed without funds, it stays paused, and says why.
  if (input.data.move === 'resume' && result.value.status === 'paused')
    return { error: 'Your balance is used up: top up, and the campaign resumes by itself.' };
  return { notice: MOVED[input.data.move] };
}

export async function deleteDraftForm(form: FormData, user: SignedInUser, services: Services): Promise<FormState> {
  const input = parse(z.object({ id: uuid('campaign') }), form);
  if (!input.ok) return input.state;
  return done(await deleteDraft(await services.database(), user.id, input.data.id), form, () => ({ notice: 'Draft deleted.' }));
}

const creativeFields = z.object({ campaign_id: uuid('campaign') });

export async function addCreativeForm(form: FormData, user: SignedInUser, services: Services): Promise<FormState> {
  const target = parse(creativeFields, form);
  if (!target.ok) return target.state;
  const input = parse(creativeInput, form);
  if (!input.ok) return input.state;
  return done(await addCreative(await services.database(), user.id, target.data.campaign_id, input.data), form, (v) => ({
    notice: 'Creative added: it is reviewed before it is shown.',
    id: v.id,
  }));
}

export async function updateCreativeForm(form: FormData, user: SignedInUser, services: Services): Promise<FormState> {
  const target = parse(z.object({ id: uuid('creative') }), form);
  if (!target.ok) return target.state;
  const input = parse(creativeInput, form);
  if (!input.ok) return input.state;
  return done(await updateCreative(await services.database(), user.id, target.data.id, input.data), form, () => ({
    notice: 'Creative saved: it goes to review again before it is shown.',
  }));
}

const creativeMove = z.object({ id: uuid('creative'), move: z.enum(['pause', 'resume', 'delete'], 'Unknown move.') });

export async function moveCreativeForm(form: FormData, user: SignedInUser, services: Services): Promise<FormState> {
  const input = parse(creativeMove, form);
  if (!input.ok) return input.state;
  const db = await services.database();
  const { id, move } = input.data;
  const result = move === 'delete' ? await deleteCreative(db, user.id, id) : await setCreativePaused(db, user.id, id, move === 'pause');
  return result.ok
    ? { notice: move === 'delete' ? 'Creative deleted.' : move === 'pause' ? 'Creative paused.' : 'Creative resumed.' }
    : { error: result.error };
}
