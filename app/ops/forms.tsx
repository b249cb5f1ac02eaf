'use client';

import { useActionState } from 'react';
import type { DetailsState } from '@/lib/ops/forms';
import { DATA_MARKET_FIELDS, PRICE_FIELDS, type PricingColumns } from '@/lib/ops/pricing-fields';
import { Outcome, toastingSuccess, type Action } from '../dashboard/forms';
import { Button } from '../_components/ui/button';
import { Field, Input, Label, NativeSelect } from '../_components/ui/input';

/**
 * What staff can do with one open payout: the statuses the database says it may take next
 * (`next`, public.payout_next_statuses): processing, paid with its reference, failed with a
 * reason, canceled.
 */
export function PayoutActions({ action, payoutId, next, label }: { action: Action; payoutId: string; next: readonly string[]; label: string }) {
  const [state, formAction, pending] = useActionState(action, {});
  return (
    <div className="grid grid-cols-1 gap-3">
      <Outcome state={state} />
      {(next.includes('processing') || next.includes('canceled')) && (
        <form action={formAction} className="flex flex-wrap items-center gap-2">
          <input type="hidden" name="id" value={payoutId} />
          {next.includes('processing') && (
            <Button type="submit" size="sm" name="status" value="processing" disabled={pending} aria-label={`Mark ${label} processing`}>
              Mark processing
            </Button>
          )}
          {next.includes('canceled') && (
            <Button type="submit" size="sm" name="status" value="canceled" disabled={pending} aria-label={`Cancel ${label}`}>
              Cancel
            </Button>
          )}
        </form>
      )}
      {next.includes('paid') && (
        <form action={formAction} className="flex flex-wrap items-center gap-2">
          <input type="hidden" name="id" value={payoutId} />
          <input type="hidden" name="status" value="paid" />
          <Label htmlFor={`ref-${payoutId}`}>Transfer reference</Label>
          <Input className="sm:w-64" id={`ref-${payoutId}`} name="reference" required maxLength={200} />
          <Button type="submit" size="sm" disabled={pending} aria-label={`Mark ${label} paid`}>
            Mark paid
          </Button>
        </form>
      )}
      {next.includes('failed') && (
        <form action={formAction} className="flex flex-wrap items-center gap-2">
          <input type="hidden" name="id" value={payoutId} />
          <input type="hidden" name="status" value="failed" />
          <Label htmlFor={`why-${payoutId}`}>Why it failed (the publisher reads this)</Label>
          <Input className="sm:w-64" id={`why-${payoutId}`} name="reason" required maxLength={500} />
          <Button type="submit" size="sm" disabled={pending} aria-label={`Mark ${label} failed`}>
            Mark failed
          </Button>
        </form>
      )}
    </div>
  );
}

/** The bank details of a payout, shown once to the staff member who asked, with why (audited). */
export function DetailsForm({ action, payoutId, label }: { action: Action<DetailsState>; payoutId: string; label: string }) {
  const [state, formAction, pending] = useActionState(action, {});
  return (
    <form action={formAction} className="flex flex-wrap items-center gap-2">
      <input type="hidden" name="id" value={payoutId} />
      <Label htmlFor={`look-${payoutId}`}>Why you look (audited)</Label>
      <Input className="sm:w-64" id={`look-${payoutId}`} name="why" required minLength={3} maxLength={500} defaultValue="To send the payout" />
      <Button type="submit" size="sm" disabled={pending} aria-label={`Show the bank details of ${label}`}>
        Show bank details
      </Button>
      <Outcome state={state} />
      {state.details?.details && (
        <dl className="grid w-full grid-cols-[auto_1fr] gap-x-4 gap-y-1 rounded-lg border bg-muted p-3 text-sm" data-testid="payout-details">
          <dt>Account holder</dt>
          <dd>{state.details.details.account_holder}</dd>
          <dt>Account</dt>
          <dd>{state.details.details.account}</dd>
          {state.details.details.routing && (
            <>
              <dt>Routing</dt>
              <dd>{state.details.details.routing}</dd>
            </>
          )}
        </dl>
      )}
    </form>
  );
}

/** An adjustment of one publisher's earnings, with its reason; `reference` makes a double submission post once. */
export function AdjustmentForm({ action, publishers, reference }: { action: Action; publishers: { id: string; email: string }[]; reference: string }) {
  const [state, formAction, pending] = useActionState(action, {});
  const v = state.values ?? {};
  return (
    <form action={formAction} className="grid max-w-xl gap-3" key={state.id ?? 'adjustment'}>
      <Outcome state={state} />
      <input type="hidden" name="reference" value={state.id ? crypto.randomUUID() : reference} />
      <Label htmlFor="adj-user">Publisher</Label>
      <NativeSelect id="adj-user" name="user_id" required defaultValue={v.user_id ?? ''}>
        <option value="" disabled>
          Choose a publisher
        </option>
        {publishers.map((p) => (
          <option key={p.id} value={p.id}>
            {p.email}
          </option>
        ))}
      </NativeSelect>
      <Label htmlFor="adj-amount">Amount (USD; negative takes earnings away)</Label>
      <Input id="adj-amount" name="amount_usd" required inputMode="decimal" defaultValue={v.amount_usd ?? ''} />
      <Label htmlFor="adj-day">The day it corrects</Label>
      <Input id="adj-day" name="day" type="date" required defaultValue={v.day ?? ''} />
      <Label htmlFor="adj-reason">Reason (the publisher reads it)</Label>
      <Input id="adj-reason" name="reason" required minLength={3} maxLength={500} defaultValue={v.reason ?? ''} />
      <Button type="submit" size="sm" disabled={pending} className="justify-self-start">
        Post adjustment
      </Button>
    </form>
  );
}

/** Closes the months that are due now. */
export function CloseMonthsForm({ action }: { action: Action }) {
  const [state, formAction, pending] = useActionState(action, {});
  return (
    <form action={formAction} className="flex flex-wrap items-center gap-2">
      <Label htmlFor="close-why">Note (optional)</Label>
      <Input className="sm:w-64" id="close-why" name="why" maxLength={500} />
      <Button type="submit" size="sm" disabled={pending}>
        Close the months that are due
      </Button>
      <Outcome state={state} />
    </form>
  );
}

/** Sends a Stripe payout: a Transfer whose Idempotency-Key is the payout's id, so a second click sends nothing more. */
export function SendWithStripeForm({ action, payoutId, label }: { action: Action; payoutId: string; label: string }) {
  const [state, formAction, pending] = useActionState(action, {});
  return (
    <form action={formAction} className="flex flex-wrap items-center gap-2">
      <input type="hidden" name="id" value={payoutId} />
      <Button type="submit" size="sm" disabled={pending} aria-label={`Send ${label} with Stripe`}>
        Send with Stripe
      </Button>
      <Outcome state={state} />
    </form>
  );
}

/** A manual top-up: the payment arrived (with the bank's reference), or the invoice is canceled (with why). */
export function TopUpRecordForm({ action, topUpId, label }: { action: Action; topUpId: string; label: string }) {
  const [state, formAction, pending] = useActionState(toastingSuccess(action), {});
  return (
    <form action={formAction} className="grid gap-2">
      <Outcome state={state} />
      <input type="hidden" name="id" value={topUpId} />
      <div className="flex flex-wrap items-center gap-2">
        <Label htmlFor={`topup-ref-${topUpId}`}>Bank reference, or why it is canceled</Label>
        <Input className="sm:w-64" id={`topup-ref-${topUpId}`} name="reference" required maxLength={200} />
        <Button type="submit" size="sm" name="outcome" value="paid" disabled={pending} aria-label={`Record the payment of ${label}`}>
          Payment received
        </Button>
        <Button type="submit" size="sm" variant="outline" name="outcome" value="canceled" disabled={pending} aria-label={`Cancel ${label}`}>
          Cancel invoice
        </Button>
      </div>
    </form>
  );
}

/** Release an account held for money taken back, with what settled it (audited). */
export function ReleaseForm({ action, userId, label }: { action: Action; userId: string; label: string }) {
  const [state, formAction, pending] = useActionState(toastingSuccess(action), {});
  return (
    <form action={formAction} className="grid gap-2">
      <Outcome state={state} />
      <input type="hidden" name="id" value={userId} />
      <div className="flex flex-wrap items-center gap-2">
        <Label htmlFor={`release-${userId}`}>What settled it</Label>
        <Input className="sm:w-64" id={`release-${userId}`} name="reason" required minLength={3} maxLength={1000} />
        <Button type="submit" size="sm" disabled={pending} aria-label={`Release ${label}`}>
          Release the account
        </Button>
      </div>
    </form>
  );
}

/** Approve, or reject with the reason the advertiser reads: a campaign or one creative. */
export function ReviewForm({ action, id, kind, label }: { action: Action; id: string; kind: 'campaign' | 'creative'; label: string }) {
  const [state, formAction, pending] = useActionState(toastingSuccess(action), {});
  return (
    <form action={formAction} className="grid gap-2">
      <Outcome state={state} />
      <input type="hidden" name="id" value={id} />
      <input type="hidden" name="kind" value={kind} />
      <div className="flex flex-wrap items-center gap-2">
        <Button type="submit" size="sm" name="decision" value="approve" disabled={pending} aria-label={`Approve ${label}`}>
          Approve
        </Button>
        <Label htmlFor={`reason-${id}`} className="sm:ml-2">
          Or reject, because
        </Label>
        <Input className="sm:w-72" id={`reason-${id}`} name="reason" maxLength={500} />
        <Button type="submit" size="sm" variant="outline" name="decision" value="reject" disabled={pending} aria-label={`Reject ${label}`}>
          Reject
        </Button>
      </div>
    </form>
  );
}

/** Approve an exclusive data license, or reject it with the reason the buyer reads. */
export function DataLicenseReviewForm({ action, id, label }: { action: Action; id: string; label: string }) {
  const [state, formAction, pending] = useActionState(toastingSuccess(action), {});
  return (
    <form action={formAction} className="grid gap-2" key={JSON.stringify(state.values ?? {})}>
      <Outcome state={state} />
      <input type="hidden" name="id" value={id} />
      <div className="flex flex-wrap items-center gap-2">
        <Button type="submit" size="sm" name="decision" value="approve" disabled={pending} aria-label={`Approve ${label}`}>
          Approve
        </Button>
        <Label htmlFor={`data-reason-${id}`} className="sm:ml-2">
          Or reject, because (the buyer reads it)
        </Label>
        <Input className="sm:w-72" id={`data-reason-${id}`} name="reason" maxLength={500} defaultValue={state.values?.reason ?? ''} />
        <Button type="submit" size="sm" variant="outline" name="decision" value="reject" disabled={pending} aria-label={`Reject ${label}`}>
          Reject
        </Button>
      </div>
    </form>
  );
}

/**
 * New pricing values, every one (filled with those in force), effective now or from a later time
 * in UTC, with the reason the audit log keeps. What was billed keeps its price. The data market's
 * settings follow under their own heading, each with a line saying what it does.
 */
export function PricingForm({ action, current }: { action: Action; current: PricingColumns }) {
  const [state, formAction, pending] = useActionState(action, {});
  const v = state.values ?? {};
  return (
    <form action={formAction} className="grid max-w-3xl gap-3" key={state.notice ?? 'pricing'}>
      <Outcome state={state} />
      <div className="grid gap-3 sm:grid-cols-2">
        {PRICE_FIELDS.map((f) => (
          <div key={f.name} className="grid gap-1">
            <Label htmlFor={`pricing-${f.name}`}>{f.label}</Label>
            <Input id={`pricing-${f.name}`} name={f.name} required inputMode="decimal" defaultValue={v[f.name] ?? String(current[f.name])} />
          </div>
        ))}
      </div>
      <fieldset className="grid min-w-0 gap-3">
        <legend className="mb-1 text-sm font-medium">Data market</legend>
        <div className="grid gap-3 sm:grid-cols-2">
          {DATA_MARKET_FIELDS.map((f) => (
            <Field key={f.name} label={f.label} htmlFor={`pricing-${f.name}`} hint={f.help} hintId={`pricing-${f.name}-hint`}>
              <Input
                id={`pricing-${f.name}`}
                name={f.name}
                required
                inputMode={f.decimals > 0 ? 'decimal' : 'numeric'}
                aria-describedby={`pricing-${f.name}-hint`}
                defaultValue={v[f.name] ?? String(current[f.name])}
              />
            </Field>
          ))}
        </div>
      </fieldset>
      <fieldset className="grid gap-2">
        <legend className="text-sm font-medium">Takes effect</legend>
        <label className="flex items-center gap-2 text-sm">
          <input type="radio" name="when" value="now" defaultChecked={(v.when ?? 'now') === 'now'} /> Now
        </label>
        <label className="flex flex-wrap items-center gap-2 text-sm">
          <input type="radio" name="when" value="later" defaultChecked={v.when === 'later'} /> From
          <Input className="sm:w-56" type="datetime-local" name="effective_at" aria-label="From (UTC)" defaultValue={v.effective_at ?? ''} /> UTC
        </label>
      </fieldset>
      <Label htmlFor="pricing-reason">Reason (the audit log keeps it)</Label>
      <Input id="pricing-reason" name="reason" required minLength={3} maxLength={1000} defaultValue={v.reason ?? ''} />
      <Button type="submit" size="sm" disabled={pending} className="justify-self-start">
        Schedule the new prices
      </Button>
    </form>
  );
}
