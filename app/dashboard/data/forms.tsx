'use client';

import Link from 'next/link';
import { useActionState, useEffect, useId, useState, useSyncExternalStore, type ReactNode } from 'react';
import { useFormStatus } from 'react-dom';
import type { BuyerProfileState, DownloadState, LicenseState, ProfileField, WebhookState } from '@/lib/data/buyers/forms';
import { Alert } from '../../_components/ui/alert';
import { Button } from '../../_components/ui/button';
import { ConfirmDialog } from '../../_components/ui/confirm-dialog';
import { Checkbox } from '../../_components/ui/checkbox';
import { CopyButton } from '../../_components/ui/copy-button';
import { Field, Input, Label, Textarea } from '../../_components/ui/input';
import { Outcome, type Action } from '../forms';

export type BuyerProfileValues = Record<'company' | 'intended_use' | 'billing_email' | 'country', string>;

/** A field of the profile form: its label, control, hint, and its own error, which the control points to. */
function ProfileRow({
  id,
  label,
  hint,
  error,
  children,
}: {
  id: string;
  label: string;
  hint?: string;
  error?: string;
  children: (describedBy: string | undefined) => ReactNode;
}) {
  const describedBy = [hint ? `${id}-hint` : null, error ? `${id}-error` : null].filter(Boolean).join(' ') || undefined;
  return (
    <div className="grid gap-1.5">
      <Label htmlFor={id}>{label}</Label>
      {children(describedBy)}
      {hint && (
        <p id={`${id}-hint`} className="text-sm text-muted-foreground">
          {hint}
        </p>
      )}
      {error && (
        <p id={`${id}-error`} className="text-sm font-medium text-destructive">
          {error}
        </p>
      )}
    </div>
  );
}

/**
 * Becoming a data buyer, or keeping the profile: the company, what the data is for, where invoices
 * go, the country, and the data license terms in force, accepted. Each field says its own error.
 */
export function BuyerProfileForm({
  action,
  initial,
  submit,
  termsVersion,
}: {
  action: Action<BuyerProfileState>;
  initial: BuyerProfileValues;
  submit: string;
  termsVersion: string;
}) {
  const [state, formAction, pending] = useActionState(action, {});
  const v = { ...initial, ...state.values };
  const error = (name: ProfileField) => state.fieldErrors?.[name];
  const invalid = (name: ProfileField) => (error(name) ? true : undefined);
  return (
    <form action={formAction} className="grid max-w-xl gap-4" key={JSON.stringify(state.values ?? initial)}>
      <Outcome state={state} />
      <ProfileRow id="buyer-company" label="Company" error={error('company')}>
        {(d) => (
          <Input
            id="buyer-company"
            name="company"
            required
            maxLength={100}
            defaultValue={v.company}
            autoComplete="organization"
            aria-describedby={d}
            aria-invalid={invalid('company')}
          />
        )}
      </ProfileRow>
      <ProfileRow
        id="buyer-intended-use"
        label="What you will use the data for"
        hint="A sentence or two (at least 10 characters): the operator reads it when reviewing an exclusive license."
        error={error('intended_use')}
      >
        {(d) => (
          <Textarea
            id="buyer-intended-use"
            name="intended_use"
            required
            minLength={10}
            maxLength={1000}
            rows={3}
            defaultValue={v.intended_use}
            aria-describedby={d}
            aria-invalid={invalid('intended_use')}
          />
        )}
      </ProfileRow>
      <div className="grid gap-4 sm:grid-cols-[1fr_12rem]">
        <ProfileRow id="buyer-billing-email" label="Billing email" hint="Where invoices go." error={error('billing_email')}>
          {(d) => (
            <Input
              id="buyer-billing-email"
              name="billing_email"
              type="email"
              required
              maxLength={254}
              defaultValue={v.billing_email}
              autoComplete="email"
              aria-describedby={d}
              aria-invalid={invalid('billing_email')}
            />
          )}
        </ProfileRow>
        <ProfileRow id="buyer-country" label="Country (two letters)" hint="Such as US or DE." error={error('country')}>
          {(d) => (
            <Input
              id="buyer-country"
              name="country"
              required
              maxLength={2}
              pattern="[A-Za-z]{2}"
              defaultValue={v.country}
              autoComplete="country"
              aria-describedby={d}
              aria-invalid={invalid('country')}
            />
          )}
        </ProfileRow>
      </div>
      <div className="grid gap-1.5">
        <label className="flex items-start gap-2 text-sm">
          <Checkbox
            name="accept_terms"
            required
            defaultChecked={state.values?.accept_terms === 'on'}
            aria-describedby={error('accept_terms') ? 'buyer-accept-terms-error' : 'buyer-terms-version'}
            aria-invalid={invalid('accept_terms')}
          />
          <span>
            I accept the <Link href="/docs/data-buyers#terms">data license terms</Link>.{' '}
            <span id="buyer-terms-version" className="text-muted-foreground">
              Version {termsVersion}: each license keeps the version in force when it is bought.
            </span>
          </span>
        </label>
        {error('accept_terms') && (
          <p id="buyer-accept-terms-error" className="text-sm font-medium text-destructive">
            {error('accept_terms')}
          </p>
        )}
      </div>
      <div>
        <Button type="submit" disabled={pending}>
          {submit}
        </Button>
      </div>
    </form>
  );
}

/** The page's filter, sent again with the quote and the purchase as hidden fields. */
export interface FilterFields {
  categories: string[];
  from: string | null;
  to: string | null;
  models: string[];
  min_app_age_days: number | null;
}

function RequestFields({ listing, filter }: { listing: string; filter: FilterFields }) {
  return (
    <>
      <input type="hidden" name="listing" value={listing} />
      {filter.categories.map((c) => (
        <input key={`c-${c}`} type="hidden" name="categories" value={c} />
      ))}
      <input type="hidden" name="from" value={filter.from ?? ''} />
      <input type="hidden" name="to" value={filter.to ?? ''} />
      {filter.models.map((m) => (
        <input key={`m-${m}`} type="hidden" name="models" value={m} />
      ))}
      <input type="hidden" name="min_app_age_days" value={filter.min_app_age_days ?? ''} />
    </>
  );
}

/**
 * A license of a listing, in two steps that both work without JavaScript: the quote (the quantity,
 * standard or exclusive: the price and the balance after it), then "Buy for $X", which sends the
 * price quoted so that nothing is bought at another. The filter is the page's.
 */
export function LicenseForm({
  action,
  listing,
  filter,
  quantityLabel,
  quantityHint,
  multiplier,
  bundle,
}: {
  action: Action<LicenseState>;
  listing: string;
  filter: FilterFields;
  quantityLabel: string;
  quantityHint: string;
  /** The exclusive multiplier in force, in words ("3"). */
  multiplier: string;
  /** A GB bundle: charged for the bytes it takes, so the quote is the most it costs. */
  bundle: boolean;
}) {
  const [state, formAction, pending] = useActionState(action, {});
  const q = state.quote;
  const values = state.values ?? {};
  return (
    <div className="grid gap-6">
      <form action={formAction} className="grid max-w-xl gap-4" key={JSON.stringify(values)}>
        <RequestFields listing={listing} filter={filter} />
        <div className="grid gap-1.5">
          <Label htmlFor="license-quantity">{quantityLabel}</Label>
          <Input
            id="license-quantity"
            name="quantity"
            required
            inputMode="decimal"
            autoComplete="off"
            defaultValue={values.quantity ?? ''}
            aria-describedby="license-quantity-hint"
            className="sm:w-56"
          />
          <p id="license-quantity-hint" className="text-sm text-muted-foreground">
            {quantityHint}
          </p>
        </div>
        <label className="flex items-start gap-2 text-sm">
          <Checkbox name="exclusive" defaultChecked={values.exclusive === 'on'} />
          <span>
            <span className="font-medium">Exclusive license</span>{' '}
            <span className="text-muted-foreground">
              (× {multiplier} the price). The operator reviews it before it is granted: meanwhile its price is reserved from your balance and its records are
              withheld from other buyers. Once granted, no one else can license them during its term; if it is rejected, nothing is charged.
            </span>
          </span>
        </label>
        <div>
          <Button type="submit" name="step" value="quote" disabled={pending} variant={q ? 'outline' : 'default'}>
            {q ? 'Quote again' : 'Get a quote'}
          </Button>
        </div>
      </form>
      {state.error && (
        <Alert tone="error">
          {state.error}
          {state.needsFunds && (
            <>
              {' '}
              <Link href="/dashboard/data/funds">Top up your balance</Link>.
            </>
          )}
        </Alert>
      )}
      {q && (
        <section aria-labelledby="quote-title" className="grid max-w-xl gap-3 rounded-xl border bg-card p-4 sm:p-6">
          <h3 id="quote-title" className="text-base">
            {q.exclusive ? 'Exclusive license' : 'Standard license'}: {q.price}
          </h3>
          <p className="text-sm break-words" data-testid="quote-breakdown">
            {q.breakdown}
          </p>
          <p className="text-sm text-muted-foreground">
            Available in your balance: {q.available}; after this purchase: {q.balance_after}.
            {q.exclusive ? ' An exclusive license reserves its price now and is charged when the operator approves it.' : ''}
            {bundle ? ' A bundle takes the newest records up to this size and is charged for the bytes it takes: this is the most it costs.' : ''}
          </p>
          {q.balance_after_micro < 0 ? (
            <Alert tone="warning">
              Your available balance does not cover this price. <Link href="/dashboard/data/funds">Top up your balance</Link>, then ask for the quote again.
            </Alert>
          ) : (
            <form action={formAction}>
              <RequestFields listing={listing} filter={filter} />
              <input type="hidden" name="quantity" value={q.quantity} />
              {q.exclusive && <input type="hidden" name="exclusive" value="on" />}
              <input type="hidden" name="max_price_micro" value={String(q.price_micro)} />
              <Button type="submit" name="step" value="buy" disabled={pending}>
                Buy for {q.price}
              </Button>
            </form>
          )}
        </section>
      )}
    </div>
  );
}

/** Records that the buyer deleted what a deletion notice names; the page it goes back to says it was done. */
export function AcknowledgeForm({ action, noticeId, label, back }: { action: Action; noticeId: string; label: string; back: string }) {
  // Acknowledged, the action goes back to `back`, which says so (the notice may leave the list it was in).
  const [state, formAction, pending] = useActionState(action, {});
  return (
    <form action={formAction} className="grid gap-2">
      <Outcome state={state} />
      <input type="hidden" name="id" value={noticeId} />
      <input type="hidden" name="back" value={back} />
      <div>
        <Button type="submit" size="sm" disabled={pending} aria-label={`Acknowledge: we deleted these records (${label})`}>
          Acknowledge: we deleted these records
        </Button>
      </div>
    </form>
  );
}

/** One file's button: disabled while its own link is being asked for, and only then. */
function DownloadButton({ format, variant, children }: { format: 'parquet' | 'jsonl'; variant?: 'outline'; children: ReactNode }) {
  const { pending, data } = useFormStatus();
  const asking = pending && data?.get('format') === format;
  return (
    <Button type="submit" name="format" value={format} variant={variant} disabled={asking} aria-busy={asking || undefined}>
      {children}
    </Button>
  );
}

const subscribeToNothing = () => () => {};

/**
 * The license's two files: each click asks for a new link, good for five minutes, and the
 * download starts from it while the page stays, its buttons usable for the next one. Once the
 * page's script runs, the form says so (`via=script`) and the action answers with the link, which
 * the page follows; without script, the action redirects the browser to it. (A redirect answered
 * to the script never finished: it was a navigation to a file, not a page, and left both buttons
 * disabled until a reload.)
 */
export function DownloadButtons({ action, licenseId }: { action: Action<DownloadState>; licenseId: string }) {
  const [state, formAction] = useActionState(action, {});
  // False in the server's HTML and while hydrating, true once the page's script runs.
  const scripted = useSyncExternalStore(
    subscribeToNothing,
    () => true,
    () => false,
  );
  // Each answer is a new state: a link is followed once, when it comes.
  useEffect(() => {
    if (state.url) window.location.assign(state.url);
  }, [state]);
  return (
    <form action={formAction} className="grid gap-3">
      <Outcome state={state} />
      <input type="hidden" name="license" value={licenseId} />
      {scripted && <input type="hidden" name="via" value="script" />}
      <div className="flex flex-wrap gap-2">
        <DownloadButton format="parquet">Download Parquet</DownloadButton>
        <DownloadButton format="jsonl" variant="outline">
          Download JSONL
        </DownloadButton>
      </div>
    </form>
  );
}

/** The buyer's webhook as the card shows it: its URL, the masked secret and when it was made. */
export interface WebhookView {
  url: string;
  secretHint: string;
  secretMade: string;
}

/** A signing secret, the one time it is shown. */
function SecretOnce({ secret }: { secret: string }) {
  return (
    <div className="grid gap-3 rounded-xl border-2 border-primary/60 bg-primary/5 p-4" role="status">
      <p className="text-sm">
        <strong>Your signing secret</strong>: copy it now and keep it where your webhook can read it. It is shown only once; afterwards only its last four
        characters are.
      </p>
      <div className="flex min-w-0 flex-wrap items-center gap-2">
        <code data-testid="webhook-secret" className="min-w-0 rounded-md border bg-background px-2 py-1 text-sm break-all">
          {secret}
        </code>
        <CopyButton text={secret} label="Copy secret" what="Secret" />
      </div>
    </div>
  );
}

/**
 * The webhook deletion notices are sent to: its URL set or replaced, its signing secret rotated
 * and the webhook removed (both ask first). A secret just made is shown once, above, whichever
 * form made it, until the next answer or the page is left.
 */
export function WebhookSettings({
  webhook,
  urlAction,
  rotateAction,
  removeAction,
}: {
  webhook: WebhookView | null;
  urlAction: Action<WebhookState>;
  rotateAction: Action<WebhookState>;
  removeAction: Action;
}) {
  // The URL form runs the server action itself, so it works before any script has loaded; a new
  // webhook's secret comes back in its state.
  const [urlState, urlFormAction, urlPending] = useActionState(urlAction, {});
  // Rotating and removing ask first, in a dialog: their answer, with the URL form's state it came after.
  const [later, setLater] = useState<{ state: WebhookState; after: WebhookState } | null>(null);
  const recorded =
    <S extends WebhookState>(action: Action<S>): Action<S> =>
    async (state, form) => {
      const next = await action(state, form);
      setLater({ state: next, after: urlState });
      return next;
    };
  const [, rotateFormAction, rotatePending] = useActionState(recorded(rotateAction), {});
  const [, removeFormAction, removePending] = useActionState(recorded(removeAction), {});
  // What the last of the three forms said, shown once above them (a removal takes two of them
  // away), with the secret it made, if any: shown until the next answer.
  const last = later && later.after === urlState ? later.state : urlState;
  const rotateId = useId();
  const removeId = useId();
  return (
    <div className="grid gap-4">
      <Outcome state={last} />
      {!last.error && last.secret && <SecretOnce secret={last.secret} />}
      <form action={urlFormAction} className="grid max-w-xl gap-3" key={JSON.stringify(urlState.values ?? {}) + (webhook?.url ?? '')}>
        <Field label="Webhook URL" htmlFor="webhook-url" hint="https, on a public host, at most 500 characters." hintId="webhook-url-hint">
          <Input
            id="webhook-url"
            name="url"
            type="url"
            inputMode="url"
            required
            maxLength={500}
            autoComplete="off"
            placeholder="https://example.com/webhooks/deletions"
            defaultValue={urlState.values?.url ?? webhook?.url ?? ''}
            aria-describedby="webhook-url-hint"
          />
        </Field>
        <div>
          <Button type="submit" disabled={urlPending}>
            {webhook ? 'Replace the URL' : 'Set the webhook'}
          </Button>
        </div>
      </form>
      {webhook && (
        <div className="grid gap-3">
          <p className="text-sm">
            Signing secret <code className="break-all">{webhook.secretHint}</code>, made {webhook.secretMade}.
          </p>
          <div className="flex flex-wrap gap-2">
            <form id={rotateId} action={rotateFormAction}>
              <ConfirmDialog
                trigger="Rotate the secret"
                triggerProps={{ disabled: rotatePending }}
                title="Make a new signing secret?"
                description="The current secret stops signing at once: every notice from now on, retries included, is signed with the new one, shown to you once. Give it to your webhook straight away."
                confirmLabel="Make a new secret"
                form={rotateId}
              />
            </form>
            <form id={removeId} action={removeFormAction}>
              <ConfirmDialog
                trigger="Remove the webhook"
                triggerProps={{ disabled: removePending }}
                title="Remove the webhook?"
                description="Deletion notices will be in the console only. Notices still waiting to be delivered are not sent; they stay in the console, where you acknowledge them."
                confirmLabel="Remove the webhook"
                form={removeId}
                destructive
              />
            </form>
          </div>
        </div>
      )}
    </div>
  );
}
