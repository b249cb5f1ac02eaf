import type Stripe from 'stripe';
import { z } from 'zod';
import type { SignedInUser } from '../../identity/auth/users';
import { fields, parse, type FormState } from '../../platform/kit/forms';
import type { Database } from '../../platform/db/roles';
import {
  addCreative,
  campaignTakesCreative,
  createCampaign,
  creativeMedia,
  deleteCreative,
  deleteDraft,
  moveCampaign,
  saveProfile,
  setCreativePaused,
  updateCampaign,
  updateCreative,
  type CreativeMedia,
} from './account';
import { startCheckout } from '../../money/stripe/checkout';
import { requestTopUp, topUpInput, type FundedAccount } from '../../money/funds';
import type { Result } from '../../platform/kit/result';
import { forgetFiles, reserveFiles, sweepCreativeFiles } from './files';
import { checkImage, checkVideo, mediaPath, type CheckedImage, type CheckedVideo } from './media';
import { CAMPAIGN_MOVES, campaignInput, CREATIVE_RULES, creativeInput, MEDIA_RULES, profileInput, type ImageRole } from './schemas';
import { newObjectKey, type ObjectStorage } from '../../platform/storage';
import { tryConversation, tryInput, type Tried } from './try-conversation';
import { describeError, log } from '../../platform/log';
import type { PlacementFormat } from '../../schemas/account';

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
  return done(await requestTopUp(await services.database(), user.id, input.data.amount_usd, 'advertiser'), form, (v) => ({
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

export async function deleteDraftForm(form: FormData, user: SignedInUser, services: Services & { readonly storage?: ObjectStorage }): Promise<FormState> {
  const input = parse(z.object({ id: uuid('campaign') }), form);
  if (!input.ok) return input.state;
  const db = await services.database();
  const result = await deleteDraft(db, user.id, input.data.id);
  if (result.ok) await sweepAfter(db, user.id, services.storage);
  return done(result, form, () => ({ notice: 'Draft deleted.' }));
}

const creativeFields = z.object({ campaign_id: uuid('campaign') });

/** What the creative forms need besides the database: where uploaded files are kept. */
type MediaServices = Services & { readonly storage: ObjectStorage };

/** Which image a format's file is, for its rules (IMAGE_RULES). */
const IMAGE_ROLE: Record<PlacementFormat, ImageRole> = {
  sponsored_card: 'card',
  tooltip: 'tooltip',
  floating_video: 'poster',
  inline_text: 'card',
  sponsored_follow_up: 'card',
};

type Upload<T> = { checked: T; bytes: Uint8Array } | null;

/**
 * A file field of the form: null when no file was chosen (a browser sends an empty, unnamed file),
 * or its bytes once `check` (lib/ads/advertisers/media.ts) accepted them; a refusal says why. A file
 * over `limit` is refused by its size before it is read.
 */
async function upload<T>(
  form: FormData,
  name: 'image' | 'video',
  limit: number,
  check: (bytes: Uint8Array) => { ok: true; media: T } | { ok: false; error: string },
): Promise<{ ok: true; upload: Upload<T> } | { ok: false; error: string }> {
  const value = form.get(name);
  if (value === null || value === '') return { ok: true, upload: null };
  if (typeof value === 'string') return { ok: false, error: `Send the ${name} as a file.` };
  if (value.size === 0 && value.name === '') return { ok: true, upload: null };
  if (value.size > limit)
    return {
      ok: false,
      error: `The ${name} is ${(value.size / 1024 / 1024).toFixed(1)} MB: ${name === 'image' ? 'an image' : 'a video'} takes at most ${limit / 1024 / 1024} MB.`,
    };
  const bytes = new Uint8Array(await value.arrayBuffer());
  const verdict = check(bytes);
  return verdict.ok ? { ok: true, upload: { checked: verdict.media, bytes } } : verdict;
}

/** The files of a creative form, checked against its format's rules: which it may have, and each file's own. */
async function creativeUploads(
  form: FormData,
  format: PlacementFormat,
): Promise<{ ok: true; image: Upload<CheckedImage>; video: Upload<CheckedVideo> } | { ok: false; error: string }> {
  const rules = CREATIVE_RULES[format];
  const image = await upload(form, 'image', MEDIA_RULES.image.maxBytes, (b) => checkImage(b, IMAGE_ROLE[format]));
  if (!image.ok) return image;
  const video = await upload(form, 'video', MEDIA_RULES.video.maxBytes, checkVideo);
  if (!video.ok) return video;
  if (image.upload && rules.image === 'none') return { ok: false, error: 'This format shows no image: send it without one.' };
  if (video.upload && !rules.video) return { ok: false, error: 'This format shows no video: send it without one.' };
  return { ok: true, image: image.upload, video: video.upload };
}

/**
 * Stores the checked files under new keys, each with its row first (lib/ads/advertisers/files.ts,
 * which refuses past the advertiser's storage limit): their URLs, or why not (anything stored is
 * deleted again when the store fails).
 */
async function store(
  db: Database,
  userId: string,
  storage: ObjectStorage,
  files: { image: Upload<CheckedImage>; video: Upload<CheckedVideo> },
): Promise<{ ok: true; image?: string; video?: string; keys: string[] } | { ok: false; error: string }> {
  const chosen = (
    [
      ['image', files.image],
      ['video', files.video],
    ] as const
  ).flatMap(([name, file]) => (file ? [{ name, file, key: newObjectKey(file.checked.extension) }] : []));
  const room = await reserveFiles(
    db,
    userId,
    chosen.map((c) => ({ key: c.key, bytes: c.file.bytes.byteLength })),
  );
  if (!room.ok) return room;
  const keys = chosen.map((c) => c.key);
  const urls: { image?: string; video?: string } = {};
  try {
    for (const { name, file, key } of chosen) {
      await storage.put(key, file.bytes, file.checked.contentType);
      urls[name] = mediaPath(key);
    }
    return { ok: true, ...urls, keys };
  } catch (err) {
    log.error('creative media not stored', describeError(err));
    await forgetFiles(db, storage, keys);
    return { ok: false, error: NOT_STORED };
  }
}

const NOT_STORED = 'The file could not be stored just now: try again in a moment.';

/** Runs `write` with the stored files; when it is refused or fails, deletes them again (and their rows), so nothing is left stored. */
async function withStored<T>(db: Database, storage: ObjectStorage, keys: string[], write: () => Promise<Result<T>>): Promise<Result<T>> {
  let result: Result<T>;
  try {
    result = await write();
  } catch (err) {
    await forgetFiles(db, storage, keys);
    throw err;
  }
  if (!result.ok) await forgetFiles(db, storage, keys);
  return result;
}

/** Deletes at once the advertiser's files no creative names and no decision can (a replaced or deleted creative's); a failure is logged, and the periodic sweep tries again. */
async function sweepAfter(db: Database, userId: string, storage: ObjectStorage | undefined): Promise<void> {
  if (!storage) return;
  await sweepCreativeFiles(db, storage, { advertiser: userId }).catch((err: unknown) => log.error('creative files not swept', describeError(err)));
}

/**
 * A new creative: its words checked, then its files (the format's rules, then each file's own),
 * then the campaign (the advertiser's own, buying this format, not completed); only then are the
 * files stored, and the creative written pointing at them. A refusal at any step stores nothing;
 * a write refused or failing after the files were stored deletes them again.
 */
export async function addCreativeForm(form: FormData, user: SignedInUser, services: MediaServices): Promise<FormState> {
  const target = parse(creativeFields, form);
  if (!target.ok) return target.state;
  const input = parse(creativeInput, form);
  if (!input.ok) return input.state;
  const values = fields(form);
  const { format } = input.data;
  const files = await creativeUploads(form, format);
  if (!files.ok) return { error: files.error, values };
  const rules = CREATIVE_RULES[format];
  if (rules.video && !files.video) return { error: 'This format needs a video: choose an MP4 (H.264) or WebM file.', values };
  if (rules.image === 'required' && !files.image) return { error: 'This format needs an image: choose a PNG, JPEG, WebP or GIF file.', values };
  const db = await services.database();
  if (!(await campaignTakesCreative(db, user.id, target.data.campaign_id, format)))
    return { error: 'That campaign does not exist, is completed, or does not buy this format.', values };
  const stored = await store(db, user.id, services.storage, files);
  if (!stored.ok) return { error: stored.error, values };
  const media = mediaOf(stored, files, null);
  return done(await withStored(db, services.storage, stored.keys, () => addCreative(db, user.id, target.data.campaign_id, input.data, media)), form, (v) => ({
    notice: 'Creative added: it is reviewed before it is shown.',
    id: v.id,
  }));
}

/**
 * The media columns after a write: new files replace the old, a removed optional image goes, the
 * rest stay. The dimensions are the video's when there is one (its duration too), else the image's.
 */
function mediaOf(
  stored: { image?: string; video?: string },
  files: { image: Upload<CheckedImage>; video: Upload<CheckedVideo> },
  current: CreativeMedia | null,
  removeImage = false,
): CreativeMedia {
  const image_url = stored.image ?? (removeImage ? null : (current?.image_url ?? null));
  const video_url = stored.video ?? current?.video_url ?? null;
  if (files.video)
    return { image_url, video_url, width: files.video.checked.width, height: files.video.checked.height, duration_ms: files.video.checked.durationMs };
  if (video_url) return { image_url, video_url, width: current?.width ?? null, height: current?.height ?? null, duration_ms: current?.duration_ms ?? null };
  if (files.image) return { image_url, video_url, width: files.image.checked.width, height: files.image.checked.height, duration_ms: null };
  if (image_url) return { image_url, video_url, width: current?.width ?? null, height: current?.height ?? null, duration_ms: null };
  return { image_url, video_url, width: null, height: null, duration_ms: null };
}

/**
 * A creative's new words, and new files if any (an optional image may also be removed): the same
 * checks and order as a new one, and the same promise that a refusal leaves nothing stored. Any
 * change sends it to review again (the database does: public.creatives_guard). A file it no longer
 * uses is deleted at once when no ad can have shown it, else once no decision of the last 24 hours
 * can name it (lib/ads/advertisers/files.ts): an ad already on a page may still show it.
 */
export async function updateCreativeForm(form: FormData, user: SignedInUser, services: MediaServices): Promise<FormState> {
  const target = parse(z.object({ id: uuid('creative') }), form);
  if (!target.ok) return target.state;
  const input = parse(creativeInput, form);
  if (!input.ok) return input.state;
  const values = fields(form);
  const files = await creativeUploads(form, input.data.format);
  if (!files.ok) return { error: files.error, values };
  const removeImage = form.get('remove_image') === 'on' && !files.image;
  const db = await services.database();
  const saved = () => ({ notice: 'Creative saved: it goes to review again before it is shown.' });
  if (!files.image && !files.video && !removeImage) return done(await updateCreative(db, user.id, target.data.id, input.data), form, saved);
  const current = await creativeMedia(db, user.id, target.data.id);
  if (!current || current.format !== input.data.format) return { error: 'That creative does not exist, or its campaign is completed.', values };
  if (removeImage && CREATIVE_RULES[input.data.format].image === 'required')
    return { error: 'This format needs an image: choose another one instead of removing it.', values };
  const stored = await store(db, user.id, services.storage, files);
  if (!stored.ok) return { error: stored.error, values };
  const media = mediaOf(stored, files, current, removeImage);
  const result = await withStored(db, services.storage, stored.keys, () => updateCreative(db, user.id, target.data.id, input.data, media));
  if (result.ok) await sweepAfter(db, user.id, services.storage);
  return done(result, form, saved);
}

const creativeMove = z.object({ id: uuid('creative'), move: z.enum(['pause', 'resume', 'delete'], 'Unknown move.') });

export async function moveCreativeForm(form: FormData, user: SignedInUser, services: Services & { readonly storage?: ObjectStorage }): Promise<FormState> {
  const input = parse(creativeMove, form);
  if (!input.ok) return input.state;
  const db = await services.database();
  const { id, move } = input.data;
  const result = move === 'delete' ? await deleteCreative(db, user.id, id) : await setCreativePaused(db, user.id, id, move === 'pause');
  if (result.ok && move === 'delete') await sweepAfter(db, user.id, services.storage);
  return result.ok
    ? { notice: move === 'delete' ? 'Creative deleted.' : move === 'pause' ? 'Creative paused.' : 'Creative resumed.' }
    : { error: result.error };
}

/** A top-up by card, of an advertiser's balance or a data buyer's: the Checkout session's page to send the browser to, or why not. */
export async function checkoutForm(
  form: FormData,
  user: SignedInUser,
  services: Services & { readonly stripe?: { readonly client: Stripe } | null },
  back: string,
  account: FundedAccount = 'advertiser',
): Promise<FormState & { url?: string }> {
  const input = parse(topUpInput, form);
  if (!input.ok) return input.state;
  if (!services.stripe) return { error: 'Card payments are not configured on this server: ask for an invoice instead.' };
  try {
    const started = await startCheckout(services.stripe, await services.database(), user, input.data.amount_usd, { back }, account);
    return started.ok ? { url: started.url } : { error: started.error, values: fields(form) };
  } catch {
    return { error: 'Stripe did not answer: try again in a moment, or ask for an invoice.', values: fields(form) };
  }
}

/** The "try a conversation" box's state: what the conversation would give each campaign (./try-conversation.ts). */
export interface TryState extends FormState {
  tried?: Tried;
}

/**
 * Scores the advertiser's campaigns against a conversation typed into the box. Nothing of the
 * text is kept: it is not written or logged, and the scores carry only figures and the
 * advertiser's own hints (the form's values give back what was typed, to the advertiser's own browser).
 */
export async function tryConversationForm(form: FormData, user: SignedInUser, services: Services): Promise<TryState> {
  const parsed = parse(tryInput, form);
  if (!parsed.ok) return parsed.state;
  return { tried: await tryConversation(await services.database(), user.id, parsed.data), values: fields(form) };
}
