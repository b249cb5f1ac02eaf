'use client';

import { useRouter } from 'next/navigation';
import { useActionState, useState, type FormEvent } from 'react';
import { toast } from 'sonner';
import type { FormState } from '@/lib/platform/kit/forms';
import type { TryState } from '@/lib/ads/advertisers/forms';
import { SENSITIVE_CATEGORY_NAMES } from '@/lib/ads/relevance/safety-categories';
import { CREATIVE_RULES, IMAGE_ACCEPT, IMAGE_RULES, MEDIA_RULES, VIDEO_ACCEPT, type CampaignMove } from '@/lib/ads/advertisers/schemas';
import type { PlacementFormat } from '@/lib/schemas/account';
import { formatName } from '@/lib/schemas/format-names';
import { formatUsd } from '@/lib/platform/kit/format';
import { ADVERTISER_CATEGORIES, ADVERTISER_CATEGORY_NAMES, CAMPAIGN_PHRASES } from '@/lib/schemas/advertising';
import { Button } from '../../_components/ui/button';
import { ConfirmDialog } from '../../_components/ui/confirm-dialog';
import { AdPreviews } from '../../_components/ad-preview';
import { RadioGroup, RadioItem } from '../../_components/ui/radio-group';
import { Checkbox } from '../../_components/ui/checkbox';
import { Combobox } from '../../_components/ui/combobox';
import { DatePicker } from '../../_components/ui/date-picker';
import { Select } from '../../_components/ui/select';
import { Field, Input, Textarea } from '../../_components/ui/input';
import { Outcome, useToastOutcome, type Action } from '../forms';

export type ProfileValues = Record<'company' | 'billing_name' | 'billing_email' | 'billing_address' | 'country' | 'tax_id' | 'time_zone', string>;

/** The advertiser's company and billing details: what invoices and receipts carry. */
export function ProfileForm({ action, initial, submit, zones }: { action: Action; initial: ProfileValues; submit: string; zones: string[] }) {
  const [state, formAction, pending] = useActionState(action, {});
  const v = { ...initial, ...state.values };
  return (
    <form action={formAction} className="grid max-w-xl gap-4" key={JSON.stringify(state.values ?? initial)}>
      <Outcome state={state} />
      <Field label="Company" htmlFor="profile-company" hint="Shown on your ads as the advertiser's name." hintId="profile-company-hint">
        <Input id="profile-company" name="company" required maxLength={100} defaultValue={v.company} aria-describedby="profile-company-hint" />
      </Field>
      <Field label="Name on invoices" htmlFor="profile-billing-name">
        <Input id="profile-billing-name" name="billing_name" required maxLength={100} defaultValue={v.billing_name} autoComplete="organization" />
      </Field>
      <Field label="Billing email" htmlFor="profile-billing-email">
        <Input id="profile-billing-email" name="billing_email" type="email" required maxLength={254} defaultValue={v.billing_email} autoComplete="email" />
      </Field>
      <Field label="Billing address" htmlFor="profile-billing-address">
        <Textarea
          id="profile-billing-address"
          name="billing_address"
          required
          maxLength={500}
          rows={3}
          defaultValue={v.billing_address}
          autoComplete="street-address"
        />
      </Field>
      <div className="grid gap-4 sm:grid-cols-2">
        <Field label="Country (two letters)" htmlFor="profile-country">
          <Input id="profile-country" name="country" required maxLength={2} pattern="[A-Za-z]{2}" defaultValue={v.country} autoComplete="country" />
        </Field>
        <Field label="Tax number (optional)" htmlFor="profile-tax-id">
          <Input id="profile-tax-id" name="tax_id" maxLength={40} defaultValue={v.tax_id} />
        </Field>
      </div>
      <Field label="Time zone" htmlFor="profile-time-zone" hint="Your campaigns' dates start and end at midnight here." hintId="profile-time-zone-hint">
        <Combobox
          id="profile-time-zone"
          name="time_zone"
          required
          defaultValue={v.time_zone || 'UTC'}
          aria-describedby="profile-time-zone-hint"
          searchLabel="Search the time zones"
          options={zones.map((z) => ({ value: z, label: z.replaceAll('_', ' ') }))}
        />
      </Field>
      <div>
        <Button type="submit" disabled={pending}>
          {submit}
        </Button>
      </div>
    </form>
  );
}

/** Asks for an invoice of the amount typed (or, `card`, goes to Stripe's payment page for it), no less than the minimum. */
export function TopUpForm({ action, minimumUsd, card = false }: { action: Action; minimumUsd: number; card?: boolean }) {
  const [state, formAction, pending] = useActionState(action, {});
  const id = card ? 'card-amount' : 'top-up-amount';
  return (
    <form action={formAction} className="grid max-w-md gap-4" key={JSON.stringify(state.values ?? {})}>
      <Outcome state={state} />
      <Field
        label={card ? 'Amount to pay by card (US dollars)' : 'Amount (US dollars)'}
        htmlFor={id}
        hint={`At least ${formatUsd(minimumUsd)}.`}
        hintId={`${id}-hint`}
      >
        <Input
          id={id}
          name="amount_usd"
          required
          inputMode="decimal"
          pattern="\$?[0-9][0-9,]*(\.[0-9]{1,2})?"
          defaultValue={state.values?.amount_usd ?? ''}
          aria-describedby={`${id}-hint`}
        />
      </Field>
      <div>
        <Button type="submit" disabled={pending}>
          {card ? 'Pay by card' : 'Get an invoice'}
        </Button>
      </div>
    </form>
  );
}

export type CampaignValues = Record<
  | 'name'
  | 'starts_on'
  | 'ends_on'
  | 'hard_stop'
  | 'lifetime_budget_usd'
  | 'daily_cap_usd'
  | 'keywords'
  | 'include_categories'
  | 'exclude_categories'
  | 'excluded_apps'
  | 'frequency_cap'
  | 'attribution_window_days'
  | 'pricing_model'
  | 'max_cpc_usd'
  | 'context_hints'
  | 'excluded_phrases'
  | 'advertiser_category',
  string
> & { formats: string[] };

/**
 * A campaign's settings. The prices are the pricing in force, per 1,000 impressions of each format;
 * `cpc` is what a campaign paying per click must know: the least bid, and the click rate its
 * estimate starts from (/api/v1/pricing publishes both).
 */
export function CampaignForm({
  action,
  initial,
  submit,
  cpms,
  cpc,
  zone,
}: {
  action: Action;
  initial: CampaignValues;
  submit: string;
  cpms: Record<PlacementFormat, number>;
  cpc: { floorUsd: number; priorClickRate: number };
  zone: string;
}) {
  const [state, formAction, pending] = useActionState(action, {});
  const typed = state.values;
  const v = { ...initial, ...typed };
  // The formats come back from a refused form joined by commas (lib/ads/advertisers/forms.ts).
  const formats = new Set(typed?.formats !== undefined ? typed.formats.split(',').filter(Boolean) : initial.formats);
  return (
    <form action={formAction} className="grid max-w-2xl gap-5" key={JSON.stringify(typed ?? initial)}>
      <Outcome state={state} />
      <Field label="Campaign name" htmlFor="campaign-name">
        <Input id="campaign-name" name="name" required maxLength={100} defaultValue={v.name} />
      </Field>
      <fieldset className="grid gap-3">
        <legend className="mb-1 text-sm font-medium">Formats it buys, at the CPM in force</legend>
        {(Object.keys(cpms) as PlacementFormat[]).map((format) => (
          <label key={format} className="flex items-start gap-2 text-sm">
            <Checkbox name="formats" value={format} defaultChecked={formats.has(format)} className="mt-0.5" />
            <span>
              <span className="font-medium">{formatName(format)}</span> · ${cpms[format].toFixed(2)} per 1,000 impressions
              <span className="block text-muted-foreground">{CREATIVE_RULES[format].says}</span>
            </span>
          </label>
        ))}
      </fieldset>
      <fieldset className="grid gap-3">
        <legend className="mb-1 text-sm font-medium">How it pays</legend>
        <RadioGroup name="pricing_model" defaultValue={v.pricing_model === 'cpc' ? 'cpc' : 'cpm'} aria-label="How it pays">
          <label className="flex items-start gap-2 text-sm">
            <RadioItem value="cpm" className="mt-0.5" />
            <span>
              <span className="font-medium">Per 1,000 impressions (CPM)</span>, at the prices above.
            </span>
          </label>
          <label className="flex items-start gap-2 text-sm">
            <RadioItem value="cpc" className="mt-0.5" />
            <span>
              <span className="font-medium">Per click (CPC)</span>, at your bid; impressions cost nothing.{' '}
              <span className="text-muted-foreground">
                It shows where your bid times its expected click rate reaches the format&rsquo;s price per impression, so the apps earn at least what a CPM ad
                pays them. Until it has clicks of its own the rate is {(cpc.priorClickRate * 100).toFixed(0)}%: to start, a bid of $
                {(Math.min(...Object.values(cpms)) / 1000 / cpc.priorClickRate).toFixed(2)} reaches the cheapest format.
              </span>
            </span>
          </label>
        </RadioGroup>
        <Field
          label="Bid per click, for a campaign paying per click (US dollars)"
          htmlFor="campaign-cpc"
          hint={`At least $${cpc.floorUsd.toFixed(2)}. Each counted click costs this, within your budget and daily cap.`}
          hintId="campaign-cpc-hint"
          className="max-w-xs"
        >
          <Input id="campaign-cpc" name="max_cpc_usd" inputMode="decimal" defaultValue={v.max_cpc_usd} aria-describedby="campaign-cpc-hint" />
        </Field>
      </fieldset>
      <div className="grid gap-4 sm:grid-cols-2">
        <Field label={`Starts on (${zone})`} htmlFor="campaign-starts">
          <DatePicker id="campaign-starts" name="starts_on" required defaultValue={v.starts_on} />
        </Field>
        <Field label={`Ends on (${zone}, optional)`} htmlFor="campaign-ends">
          <DatePicker id="campaign-ends" name="ends_on" defaultValue={v.ends_on} placeholder="No end date" />
        </Field>
      </div>
      <label className="flex items-start gap-2 text-sm">
        <Checkbox name="hard_stop" defaultChecked={v.hard_stop === 'on'} className="mt-0.5" />
        <span>
          <span className="font-medium">Hard stop at the end date.</span>{' '}
          <span className="text-muted-foreground">Without it, a campaign past its end date keeps serving until its budget is spent.</span>
        </span>
      </label>
      <div className="grid gap-4 sm:grid-cols-3">
        <Field label="Budget (US dollars)" htmlFor="campaign-budget">
          <Input id="campaign-budget" name="lifetime_budget_usd" required inputMode="decimal" defaultValue={v.lifetime_budget_usd} />
        </Field>
        <Field label="Daily cap (optional)" htmlFor="campaign-cap">
          <Input id="campaign-cap" name="daily_cap_usd" inputMode="decimal" defaultValue={v.daily_cap_usd} />
        </Field>
        <Field label="Views per person a day" htmlFor="campaign-frequency">
          <Input id="campaign-frequency" name="frequency_cap" type="number" min={1} max={100} required defaultValue={v.frequency_cap} />
        </Field>
      </div>
      <Field
        label="Conversion window (days)"
        htmlFor="campaign-attribution"
        hint="How long after a click a conversion you report counts for this campaign: 1 to 30 days."
        hintId="campaign-attribution-hint"
        className="max-w-xs"
      >
        <Input
          id="campaign-attribution"
          name="attribution_window_days"
          type="number"
          min={1}
          max={30}
          required
          defaultValue={v.attribution_window_days}
          aria-describedby="campaign-attribution-hint"
        />
      </Field>
      <Field
        label="Keywords"
        htmlFor="campaign-keywords"
        hint="Separated by commas. When an app asks for an ad with keywords (what its page is about) and one is yours, your ads are three times as likely there."
        hintId="campaign-keywords-hint"
      >
        <Input id="campaign-keywords" name="keywords" defaultValue={v.keywords} aria-describedby="campaign-keywords-hint" />
      </Field>
      <Field
        label="What kind of advertiser"
        htmlFor="campaign-category"
        hint="Apps may choose not to show ads of some kinds, such as gambling or dating."
        hintId="campaign-category-hint"
      >
        <Select
          id="campaign-category"
          name="advertiser_category"
          required
          defaultValue={v.advertiser_category || 'other'}
          aria-describedby="campaign-category-hint"
          options={ADVERTISER_CATEGORIES.map((c) => ({ value: c, label: ADVERTISER_CATEGORY_NAMES[c] }))}
        />
      </Field>
      <div className="grid gap-4 sm:grid-cols-2">
        <Field
          label="Context hints"
          htmlFor="campaign-hints"
          hint={`Up to ${CAMPAIGN_PHRASES.max} short phrases, one per line or separated by commas, for conversations where your ads fit (“meeting notes”, “cheap flights”). They are matched by word stem, so “notes” also finds “note”. Apps that send the conversation with the ad request show a campaign only when its hints fit it; without hints, it is never shown beside a conversation.`}
          hintId="campaign-hints-hint"
        >
          <Textarea id="campaign-hints" name="context_hints" rows={4} defaultValue={v.context_hints} aria-describedby="campaign-hints-hint" />
        </Field>
        <Field
          label="Excluded phrases"
          htmlFor="campaign-excluded-phrases"
          hint={`Up to ${CAMPAIGN_PHRASES.max}, one per line: after a conversation that mentions one, your ads are never shown.`}
          hintId="campaign-excluded-phrases-hint"
        >
          <Textarea
            id="campaign-excluded-phrases"
            name="excluded_phrases"
            rows={4}
            defaultValue={v.excluded_phrases}
            aria-describedby="campaign-excluded-phrases-hint"
          />
        </Field>
      </div>
      <div className="grid gap-4 sm:grid-cols-2">
        <Field
          label="Only apps in these categories"
          htmlFor="campaign-include"
          hint="Separated by commas; empty: every category."
          hintId="campaign-include-hint"
        >
          <Input id="campaign-include" name="include_categories" defaultValue={v.include_categories} aria-describedby="campaign-include-hint" />
        </Field>
        <Field label="Never apps in these categories" htmlFor="campaign-exclude">
          <Input id="campaign-exclude" name="exclude_categories" defaultValue={v.exclude_categories} />
        </Field>
      </div>
      <Field
        label="Apps to leave out"
        htmlFor="campaign-excluded-apps"
        hint="App ids, one per line (your reports name the apps your ads ran on)."
        hintId="campaign-excluded-apps-hint"
      >
        <Textarea id="campaign-excluded-apps" name="excluded_apps" rows={2} defaultValue={v.excluded_apps} aria-describedby="campaign-excluded-apps-hint" />
      </Field>
      <div>
        <Button type="submit" disabled={pending}>
          {submit}
        </Button>
      </div>
    </form>
  );
}

export type CreativeValues = Record<'headline' | 'body' | 'cta' | 'landing_url', string>;

/** A creative's media as stored, shown beside the fields that replace them. */
export type CreativeMediaNow = { image_url: string | null; video_url: string | null; width: number | null; height: number | null; duration_ms: number | null };

const MB = 1024 * 1024;

/** What a format's image must be, in words (IMAGE_RULES, MEDIA_RULES: the server checks the same). */
function imageHint(format: PlacementFormat): string {
  const role = format === 'floating_video' ? 'poster' : format === 'tooltip' ? 'tooltip' : 'card';
  const r = IMAGE_RULES[role];
  const shown = role === 'poster' ? 'Shown until the video plays, cropped to 16:9. ' : role === 'card' ? 'The card draws it 96 px wide. ' : '';
  return `${shown}PNG, JPEG, WebP or GIF, up to ${MEDIA_RULES.image.maxBytes / MB} MB, at least ${r.minWidth} px wide, ${r.shape}. SVG is not accepted.`;
}

const VIDEO_HINT = `MP4 (H.264) or WebM (VP8 or VP9), 16:9, ${MEDIA_RULES.video.minDurationMs / 1000} to ${MEDIA_RULES.video.maxDurationMs / 1000} seconds, at least ${MEDIA_RULES.video.minWidth} px wide, up to ${MEDIA_RULES.video.maxBytes / MB} MB. It plays muted, in a loop.`;

/**
 * A file field. A file over the size limit is refused in the browser before anything is sent
 * (the server checks every file's bytes again, whatever the browser did).
 */
function FileField({
  id,
  name,
  label,
  hint,
  accept,
  maxBytes,
  required,
}: {
  id: string;
  name: 'image' | 'video';
  label: string;
  hint: string;
  accept: string;
  maxBytes: number;
  required: boolean;
}) {
  return (
    <Field label={label} htmlFor={id} hint={hint} hintId={`${id}-hint`}>
      <Input
        id={id}
        name={name}
        type="file"
        accept={accept}
        required={required}
        aria-describedby={`${id}-hint`}
        onChange={(event) => {
          const input = event.currentTarget;
          const chosen = input.files?.[0];
          const tooBig = chosen && chosen.size > maxBytes;
          input.setCustomValidity(tooBig ? `This file is ${(chosen.size / MB).toFixed(1)} MB: the ${name} takes at most ${maxBytes / MB} MB.` : '');
          if (tooBig) input.reportValidity();
        }}
      />
    </Field>
  );
}

/** What the creative form says when its answer is not one the route gives, or never comes. */
const NOT_SENT = 'The creative could not be sent just now: check your connection and try again.';

/**
 * Sends the creative form to its route (lib/ads/advertisers/creative-upload.ts) and reads its answer
 * as the form's next state: the form's own outcome, or the route's refusal of the request (too
 * large, too many forms, signed out), in the API's error envelope.
 */
async function sendCreative(endpoint: string, body: FormData): Promise<FormState> {
  try {
    const response = await fetch(endpoint, { method: 'POST', body, headers: { accept: 'application/json' }, credentials: 'same-origin' });
    const answer: unknown = await response.json().catch(() => null);
    if (typeof answer !== 'object' || answer === null) return { error: NOT_SENT };
    if (response.ok) return answer as FormState;
    const refusal = (answer as { error?: { message?: unknown } }).error?.message;
    return { error: typeof refusal === 'string' ? refusal : NOT_SENT };
  } catch {
    return { error: NOT_SENT };
  }
}

/**
 * A creative's words, landing page and media, for one format; its limits are the format's (what
 * the SDK shows whole): an image for a card (required) or a tooltip (optional), a video for a
 * floating video (required) with an optional image shown until it plays. Editing, a file chosen
 * replaces the current one, and no file keeps it.
 *
 * Not a server action: the form posts to its own route, `endpoint`, the one console form that may
 * send more than 1 MB (next.config.ts). With JavaScript it sends the form with fetch and shows the
 * answer as the actions' forms do (an error beside the form, with what was typed; success in a
 * toast, the form emptied, and the page refreshed); without, or before the page's script has
 * loaded, the browser posts it and the route sends it back to the campaign's page, which says what
 * became of it.
 */
export function CreativeForm({
  endpoint,
  format,
  campaignId,
  creativeId,
  initial,
  media,
  submit,
  advertiser,
}: {
  endpoint: string;
  format: PlacementFormat;
  campaignId: string;
  creativeId?: string;
  initial: CreativeValues;
  /** The media stored now (editing). */
  media?: CreativeMediaNow;
  submit: string;
  /** The name the ads carry: with it, a preview follows what is typed. */
  advertiser?: string;
}) {
  const router = useRouter();
  const [state, setState] = useState<FormState>({});
  const [pending, setPending] = useState(false);
  const send = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (pending) return;
    const form = event.currentTarget;
    setPending(true);
    const next = await sendCreative(endpoint, new FormData(form));
    setPending(false);
    if (!next.error) {
      if (next.notice) toast.success(next.notice);
      // As a form action does: the fields emptied (an edit's come back from the refreshed page).
      form.reset();
      router.refresh();
    }
    setState(next);
  };
  const v = { ...initial, ...state.values };
  const rules = CREATIVE_RULES[format];
  // What the preview draws: the fields as typed, an image chosen here read as a data: URL (no upload
  // until the form is sent), a video once it is stored.
  const start = () => ({
    headline: v.headline,
    body: v.body ?? '',
    cta: v.cta || (rules.clickAction ? 'ask' : 'Learn more'),
    landing_url: v.landing_url,
    image_url: media?.image_url ?? null,
    video_url: media?.video_url ?? null,
  });
  const [draft, setDraft] = useState(start);
  const typed = (form: HTMLFormElement) => {
    const f = new FormData(form);
    const text = (name: string, fallback: string) => (f.has(name) ? String(f.get(name)) : fallback);
    setDraft((d) => ({
      ...d,
      headline: text('headline', d.headline),
      body: text('body', d.body),
      cta: text('cta', d.cta),
      landing_url: text('landing_url', d.landing_url),
    }));
  };
  const chosen = (input: EventTarget) => {
    if (!(input instanceof HTMLInputElement) || input.type !== 'file' || input.name !== 'image') return;
    const file = input.files?.[0];
    if (!file || !file.type.startsWith('image/')) return setDraft((d) => ({ ...d, image_url: media?.image_url ?? null }));
    const reader = new FileReader();
    reader.onload = () => typeof reader.result === 'string' && setDraft((d) => ({ ...d, image_url: reader.result as string }));
    reader.readAsDataURL(file);
  };
  const id = (name: string) => `creative-${creativeId ?? `${campaignId}-${format}`}-${name}`;
  const editing = creativeId !== undefined;
  const keep = editing ? ' Choose a file only to replace the current one.' : '';
  return (
    <form
      action={endpoint}
      method="post"
      encType="multipart/form-data"
      onSubmit={(event) => void send(event)}
      onInput={(event) => typed(event.currentTarget)}
      onChange={(event) => chosen(event.target)}
      onReset={() => setDraft(start())}
      className="grid max-w-xl gap-4"
      key={JSON.stringify(state.values ?? initial)}
    >
      <Outcome state={{ error: state.error }} />
      <input type="hidden" name="format" value={format} />
      <input type="hidden" name="campaign_id" value={campaignId} />
      {creativeId && <input type="hidden" name="id" value={creativeId} />}
      <Field label={`${rules.clickAction ? 'Question' : 'Headline'} (at most ${rules.headline} characters)`} htmlFor={id('headline')}>
        <Input id={id('headline')} name="headline" required maxLength={rules.headline} defaultValue={v.headline} />
      </Field>
      {rules.body > 0 && (
        <Field label={`Text (at most ${rules.body} characters)`} htmlFor={id('body')}>
          <Textarea id={id('body')} name="body" maxLength={rules.body} rows={2} defaultValue={v.body} />
        </Field>
      )}
      <div className="grid gap-4 sm:grid-cols-[12rem_1fr]">
        {rules.clickAction ? (
          <Field label="A click on the question" htmlFor={id('cta')}>
            <Select
              id={id('cta')}
              name="cta"
              required
              defaultValue={v.cta === 'visit' ? 'visit' : 'ask'}
              onValueChange={(cta) => setDraft((d) => ({ ...d, cta }))}
              options={[
                { value: 'ask', label: 'Asks it in the chat' },
                { value: 'visit', label: 'Opens the landing page' },
              ]}
            />
          </Field>
        ) : (
          <Field label={`Call to action (≤ ${rules.cta})`} htmlFor={id('cta')}>
            <Input id={id('cta')} name="cta" required maxLength={rules.cta} defaultValue={v.cta || 'Learn more'} />
          </Field>
        )}
        <Field label="Landing page (https)" htmlFor={id('landing')}>
          <Input id={id('landing')} name="landing_url" type="url" required pattern="https://.*" placeholder="https://" defaultValue={v.landing_url} />
        </Field>
      </div>
      {rules.video && (
        <FileField
          id={id('video')}
          name="video"
          label={editing ? 'Video (a new one replaces it)' : 'Video'}
          hint={`${VIDEO_HINT}${keep}`}
          accept={VIDEO_ACCEPT}
          maxBytes={MEDIA_RULES.video.maxBytes}
          required={!editing || !media?.video_url}
        />
      )}
      {rules.image !== 'none' && (
        <FileField
          id={id('image')}
          name="image"
          label={format === 'floating_video' ? 'Image shown until the video plays (optional)' : rules.image === 'required' ? 'Image' : 'Image (optional)'}
          hint={`${imageHint(format)}${keep}`}
          accept={IMAGE_ACCEPT}
          maxBytes={MEDIA_RULES.image.maxBytes}
          required={rules.image === 'required' && (!editing || !media?.image_url)}
        />
      )}
      {editing && rules.image === 'optional' && media?.image_url && (
        <label className="flex items-start gap-2 text-sm">
          <Checkbox name="remove_image" className="mt-0.5" />
          <span>Remove the current image (when no new one is chosen).</span>
        </label>
      )}
      {advertiser && (
        <div className="grid gap-2">
          <p className="text-sm font-medium">Preview, as apps will show it</p>
          <AdPreviews format={format} creative={{ id: creativeId ?? 'new', advertiser, ...draft }} landingUrl={draft.landing_url} what="Preview of this form" />
        </div>
      )}
      <div>
        <Button type="submit" disabled={pending}>
          {submit}
        </Button>
      </div>
    </form>
  );
}

/** Each move's button, in the order they are shown. */
const MOVE_BUTTONS: readonly { move: CampaignMove; label: string; variant: 'default' | 'outline' }[] = [
  { move: 'submit', label: 'Send to review', variant: 'default' },
  { move: 'pause', label: 'Pause', variant: 'outline' },
  { move: 'resume', label: 'Resume', variant: 'default' },
];

/**
 * The moves a campaign's advertiser may make now, as the database lists them with the campaign
 * (`moves`, public.campaign_moves_open: the rule the trigger judges by, so a button is never
 * offered for a move it would refuse), and the deletion of a draft (row-level security's rule).
 */
export function CampaignButtons({
  move,
  remove,
  campaignId,
  name,
  status,
  moves,
}: {
  move: Action;
  remove: Action;
  campaignId: string;
  name: string;
  status: string;
  moves: readonly CampaignMove[];
}) {
  const [state, formAction, pending] = useActionState(move, {});
  const [removed, removeAction, removing] = useActionState(remove, {});
  useToastOutcome(state);
  useToastOutcome(removed);
  return (
    <div className="flex flex-wrap gap-2">
      <form action={formAction} className="flex flex-wrap gap-2">
        <input type="hidden" name="id" value={campaignId} />
        {MOVE_BUTTONS.filter((b) => moves.includes(b.move)).map(({ move: value, label, variant }) => (
          <Button key={value} type="submit" name="move" value={value} disabled={pending} variant={variant} size="sm" aria-label={`${label}: ${name}`}>
            {label}
          </Button>
        ))}
      </form>
      {status === 'draft' && (
        <form action={removeAction} id={`delete-${campaignId}`}>
          <input type="hidden" name="id" value={campaignId} />
          <ConfirmDialog
            trigger="Delete draft"
            triggerProps={{ disabled: removing, variant: 'outline', size: 'sm', 'aria-label': `Delete the draft ${name}` }}
            title={`Delete the draft ${name}?`}
            description="The draft and its creatives are deleted. Nothing has been spent on it."
            confirmLabel="Delete"
            form={`delete-${campaignId}`}
            destructive
          />
        </form>
      )}
    </div>
  );
}

/** A creative's buttons: pause or resume an approved one, delete one never shown. */
export function CreativeButtons({ action, creativeId, status, label }: { action: Action; creativeId: string; status: string; label: string }) {
  const [state, formAction, pending] = useActionState(action, {});
  useToastOutcome(state);
  const formId = `creative-moves-${creativeId}`;
  return (
    <form id={formId} action={formAction} className="inline-flex gap-1.5">
      <input type="hidden" name="id" value={creativeId} />
      {status === 'active' && (
        <Button type="submit" name="move" value="pause" disabled={pending} variant="outline" size="xs" aria-label={`Pause ${label}`}>
          Pause
        </Button>
      )}
      {status === 'paused' && (
        <Button type="submit" name="move" value="resume" disabled={pending} variant="outline" size="xs" aria-label={`Resume ${label}`}>
          Resume
        </Button>
      )}
      {(status === 'in_review' || status === 'rejected') && (
        <ConfirmDialog
          trigger="Delete"
          triggerProps={{ disabled: pending, variant: 'outline', size: 'xs', 'aria-label': `Delete ${label}` }}
          title={`Delete ${label}?`}
          description="A creative that has never been shown can be deleted; one that has stays, for your reports."
          confirmLabel="Delete"
          form={formId}
          name="move"
          value="delete"
          destructive
        />
      )}
    </form>
  );
}

/**
 * The "try a conversation" box: what the advertiser's campaigns would score in a conversation they
 * type, and which of their hints matched. What they type is not kept: the answer carries only
 * figures and their own hints.
 */
export function TryConversation({ action }: { action: (state: TryState, form: FormData) => Promise<TryState> }) {
  const [state, formAction, pending] = useActionState(action, {});
  const v = state.values ?? {};
  const tried = state.tried;
  return (
    <div className="grid gap-4">
      <form action={formAction} className="grid max-w-2xl gap-4">
        {state.error && <Outcome state={{ error: state.error }} />}
        <Field
          label="Earlier in the conversation (optional)"
          htmlFor="try-earlier"
          hint="A message the user sent before: it sets the topic, and counts a little less."
          hintId="try-earlier-hint"
        >
          <Textarea id="try-earlier" name="earlier" rows={2} maxLength={4000} defaultValue={v.earlier} aria-describedby="try-earlier-hint" />
        </Field>
        <Field label="What the user says now" htmlFor="try-latest">
          <Textarea id="try-latest" name="latest" rows={3} maxLength={4000} required defaultValue={v.latest} />
        </Field>
        <p className="text-sm text-muted-foreground">What you type here is used for this answer only: it is not saved or logged.</p>
        <div>
          <Button type="submit" disabled={pending}>
            Try it
          </Button>
        </div>
      </form>
      {tried && (
        <div className="grid gap-3" aria-live="polite" data-testid="try-result">
          {tried.sensitive ? (
            <p className="text-sm">This conversation is about {SENSITIVE_CATEGORY_NAMES[tried.sensitive]}: no ad is shown beside it, whatever the hints.</p>
          ) : tried.campaigns.length === 0 ? (
            <p className="text-sm">You have no campaign to try yet.</p>
          ) : (
            <ul className="grid gap-2">
              {tried.campaigns.map((c) => (
                <li key={c.id} className="rounded-lg border p-3 text-sm break-words">
                  <span className="font-medium">{c.name}</span> · relevance {c.relevance.toFixed(2)}
                  {c.reaches ? ' · would be shown' : ` · below ${tried.minRelevance.toFixed(2)}, not shown`}
                  <span className="block text-muted-foreground">
                    {c.excludedBy
                      ? `Kept out by your excluded phrase “${c.excludedBy}”.`
                      : c.matched.length
                        ? `Matched: ${c.matched.join(', ')}.`
                        : 'None of its hints is in the conversation.'}
                  </span>
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
    </div>
  );
}
