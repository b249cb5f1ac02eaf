import { z } from 'zod';
import { allowAction, tooManyActions, type ActionLimiters } from '../../platform/kit/action-limit';
import type { FormState } from '../../platform/kit/forms';
import { signedInUser } from '../../identity/auth/session';
import type { Database } from '../../platform/db/roles';
import { json, type Answer } from '../../platform/http/answers';
import { ApiError } from '../../platform/http/errors';
import { isCrossOriginPost } from '../../platform/http/host-origin';
import { readBytes } from '../../platform/http/input';
import type { ObjectStorage } from '../../platform/storage';
import type { OAuthSecrets } from '../../identity/secrets';
import { ROUTES } from '../../schemas/registry';
import { addCreativeForm, updateCreativeForm } from './forms';
import { CREATIVE_UPLOAD_MAX_BYTES, MEDIA_RULES } from './schemas';

/**
 * POST /dashboard/ads/creatives/upload: the advertiser console's creative form, new or edited,
 * with its image and video. It is the one console form whose body may be large (an image of up to
 * 2 MB and a video of up to 10 MB), so it has this route of its own and every server action keeps
 * Next's limit of 1 MB (next.config.ts). It gives itself what a server action gets from Next and
 * from lib/platform/kit/action-limit.ts, in this order, each refusal before anything is read or written:
 *
 * 1. a body no larger than CREATIVE_UPLOAD_MAX_BYTES (12.5 MiB), by its Content-Length first;
 * 2. posted from one of our own pages: `Origin` present and naming the host the request was sent
 *    to, as Next checks a server action (stricter: Next lets a post without `Origin` through, this
 *    route does not; every browser sends one with a form or a fetch that posts);
 * 3. the console's session (the same cookie, and the same user, as the actions');
 * 4. the consoles' budget of forms, per account and address: past it, the answer is the form's
 *    refusal, as a server action's is (lib/platform/kit/action-limit.ts), not the API's 429 (this
 *    route is no API surface, and has no address budget of its own);
 * 5. a multipart form, read up to the limit whatever the Content-Length said;
 *
 * then exactly what the actions did: `addCreativeForm`, or `updateCreativeForm` when the form
 * names a creative (`id`), with the same checks, messages and promise that a refusal stores
 * nothing. The console's form sends it with fetch and asks for JSON: the form's next state
 * (FormState, 200, a refusal of the form or of the budget included), or the API's error envelope
 * for a refusal of the request (400, 403, 413, 415). A browser that sends the form without JavaScript is sent back
 * to the campaign's page (303), which says what became of it (`?creative=`, CREATIVE_OUTCOMES).
 */

type Services = {
  oauthSecrets(): Promise<OAuthSecrets | null>;
  database(): Promise<Database>;
  readonly storage: ObjectStorage;
  readonly actionLimits: ActionLimiters;
};

const MB = 1024 * 1024;

/** Where the console's creative form posts. */
export const CREATIVE_UPLOAD_PATH = ROUTES['/dashboard/ads/creatives/upload'].path;

/** What the campaign's page says after a form sent without JavaScript, by `?creative=`. */
export const CREATIVE_OUTCOMES = {
  added: 'Creative added: it is reviewed before it is shown.',
  saved: 'Creative saved: it goes to review again before it is shown.',
  limited: 'You sent too many forms in a short time, so this one was not saved: wait a minute and send it again.',
  refused:
    'The creative was not saved: check its words against the limits in the labels and its files against the rules under each, then send it again (with JavaScript on, the form says exactly what was refused).',
} as const;
export type CreativeOutcome = keyof typeof CREATIVE_OUTCOMES;

const TOO_LARGE = `The form is larger than ${CREATIVE_UPLOAD_MAX_BYTES / MB} MB, so it was not read: an image takes at most ${MEDIA_RULES.image.maxBytes / MB} MB and a video at most ${MEDIA_RULES.video.maxBytes / MB} MB.`;
const FOREIGN = 'This form was sent from another site, or without saying where from, so it was not accepted. Open the campaign on this site and send it again.';
const SIGNED_OUT = 'You are signed out: sign in again, then send the creative again.';

/**
 * The form was posted by one of our own pages: `Origin` present (Next lets a post without one
 * through; this route does not) and not a cross-origin post by the rule proxy.ts applies to every
 * form (`isCrossOriginPost`: the opaque `null`, or another host than the one the request was sent
 * to). A Request made in process without a `Host` is judged by its URL's host.
 */
function fromOurPage(request: Request): boolean {
  if (request.headers.get('origin') === null) return false;
  const headers = new Headers(request.headers);
  if (!headers.has('host') && !headers.has('x-forwarded-host')) headers.set('host', new URL(request.url).host);
  return !isCrossOriginPost('POST', headers);
}

/** The campaign whose page `referer` is, when it is one of ours (of `origin`). */
function campaignPageOf(referer: string | null, origin: string | null): string | undefined {
  try {
    const from = new URL(referer ?? '');
    const page = /^\/dashboard\/ads\/campaigns\/([^/]+)$/.exec(from.pathname);
    return from.origin === origin ? z.string().uuid().safeParse(page?.[1]).data : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Where a form sent without JavaScript goes back to: its campaign's page (named by the form, or,
 * when the form was not read, by the page it was sent from), saying what became of it.
 */
function backTo(request: Request, form: FormData | null, outcome: CreativeOutcome): Response {
  let campaign = z.string().uuid().safeParse(form?.get('campaign_id')).data;
  if (!form) campaign = campaignPageOf(request.headers.get('referer'), request.headers.get('origin'));
  const location = campaign ? `/dashboard/ads/campaigns/${campaign}?creative=${outcome}#creatives` : '/dashboard/ads';
  return new Response(null, { status: 303, headers: { location } });
}

/** The creative form of the request, run as its signed-in user; the answer as the caller asked (JSON for the console's fetch, else a redirect). */
export async function creativeUploadResponse(request: Request, clientIp: string, services: Services): Promise<Answer> {
  const wantsJson = (request.headers.get('accept') ?? '').includes('application/json');
  if (Number(request.headers.get('content-length') ?? '0') > CREATIVE_UPLOAD_MAX_BYTES) throw new ApiError('payload_too_large', TOO_LARGE);
  if (!fromOurPage(request)) throw new ApiError('forbidden', FOREIGN);
  const user = await signedInUser(request.headers, services);
  if (!user) {
    if (wantsJson) throw new ApiError('forbidden', SIGNED_OUT);
    // To sign in, and back to the campaign's page the form was sent from.
    const page = campaignPageOf(request.headers.get('referer'), request.headers.get('origin'));
    const back = page ? `/dashboard/ads/campaigns/${page}` : '/dashboard/ads';
    return new Response(null, { status: 303, headers: { location: `/signin?${new URLSearchParams({ callbackUrl: back })}` } });
  }
  const verdict = await allowAction(services.actionLimits, user.id, clientIp);
  if (!verdict.allowed) return wantsJson ? json({ error: tooManyActions(verdict.retryAfterS) } satisfies FormState) : backTo(request, null, 'limited');
  const type = request.headers.get('content-type') ?? '';
  if (!/^multipart\/form-data\s*;/i.test(type)) throw new ApiError('unsupported_media_type', 'Send the creative form as multipart/form-data.');
  const bytes = await readBytes(request, CREATIVE_UPLOAD_MAX_BYTES, TOO_LARGE);
  let form: FormData;
  try {
    form = await new Response(bytes, { headers: { 'content-type': type } }).formData();
  } catch {
    throw new ApiError('invalid_request', 'The form could not be read: send it again from the campaign page.');
  }
  const editing = form.has('id');
  const state: FormState = editing ? await updateCreativeForm(form, user, services) : await addCreativeForm(form, user, services);
  if (wantsJson) return json(state);
  return backTo(request, form, state.error ? 'refused' : editing ? 'saved' : 'added');
}
