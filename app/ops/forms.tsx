'use client';

import { useActionState, useId } from 'react';
import type { DetailsState } from '@/lib/ops/forms';
import { DATA_MARKET_FIELDS, PRICE_FIELDS, PRICING_FIELDS, type PricingColumns } from '@/lib/ops/pricing-fields';
import { Outcome, toastingSuccess, type Action } from '../dashboard/forms';
import { formatUsd } from '@/lib/platform/kit/format';
import { Button } from '../_components/ui/button';
import { ConfirmDialog } from '../_components/ui/confirm-dialog';
import { Combobox } from '../_components/ui/combobox';
import { DatePicker } from '../_components/ui/date-picker';
import { RadioGroup, RadioItem } from '../_components/ui/radio-group';
import { Field, Input, Label } from '../_components/ui/input';

/** A form's text field as typed, for a confirmation to quote. */
const typed = (form: FormData, name: string) => String(form.get(name) ?? '').trim();

/**
 * What staff can do with one open payout: the statuses the database says it may take next
 * (`next`, public.payout_next_statuses): processing, paid with its reference, failed with a
 * reason, canceled. Each asks first, saying where the amount goes.
 */
export function PayoutActions(props: { action: Action; payoutId: string; next: readonly string[]; label: string; amount: string; who: string }) {
  const { action, payoutId, next, label, amount, who } = props;
  const [state, formAction, pending] = useActionState(action, {});
  const id = useId();
  return (
    <div className="grid grid-cols-1 gap-3">
      <Outcome state={state} />
      {(next.includes('processing') || next.includes('canceled')) && (
        <form id={`${id}-status`} action={formAction} className="flex flex-wrap items-center gap-2">
          <input type="hidden" name="id" value={payoutId} />
          {next.includes('processing') && (
            <ConfirmDialog
              trigger="Mark processing"
              triggerProps={{ disabled: pending, variant: 'default', 'aria-label': `Mark ${label} processing` }}
              title={`Mark the payout of ${amount} to ${who} processing?`}
              description="It says the transfer is under way. No money moves until it is marked paid or failed."
              confirmLabel="Mark processing"
              form={`${id}-status`}
              name="status"
              value="processing"
            />
          )}
          {next.includes('canceled') && (
            <ConfirmDialog
              trigger="Cancel payout"
              triggerProps={{ disabled: pending, variant: 'destructive', 'aria-label': `Cancel ${label}` }}
              title={`Cancel the payout of ${amount} to ${who}?`}
              description={`Nothing is sent, and ${amount} goes back to their available balance.`}
              confirmLabel={`Cancel the payout of ${amount}`}
              form={`${id}-status`}
              name="status"
              value="canceled"
              destructive
            />
          )}
        </form>
      )}
      {next.includes('paid') && (
        <form id={`${id}-paid`} action={formAction} className="flex flex-wrap items-center gap-2">
          <input type="hidden" name="id" value={payoutId} />
          <input type="hidden" name="status" value="paid" />
          <Label htmlFor={`ref-${payoutId}`}>Transfer reference</Label>
          <Input className="sm:w-64" id={`ref-${payoutId}`} name="reference" required maxLength={200} />
          <ConfirmDialog
            trigger="Mark paid"
            triggerProps={{ disabled: pending, variant: 'default', 'aria-label': `Mark ${label} paid` }}
            title={`Mark ${amount} to ${who} paid?`}
            description={(f) => `Say it was sent, by the transfer “${typed(f, 'reference')}”. The publisher sees it paid, with this reference.`}
            confirmLabel={`Mark ${amount} paid`}
            form={`${id}-paid`}
          />
        </form>
      )}
      {next.includes('failed') && (
        <form id={`${id}-failed`} action={formAction} className="flex flex-wrap items-center gap-2">
          <input type="hidden" name="id" value={payoutId} />
          <input type="hidden" name="status" value="failed" />
          <Label htmlFor={`why-${payoutId}`}>Why it failed (the publisher reads this)</Label>
          <Input className="sm:w-64" id={`why-${payoutId}`} name="reason" required maxLength={500} />
          <ConfirmDialog
            trigger="Mark failed"
            triggerProps={{ disabled: pending, variant: 'destructive', 'aria-label': `Mark ${label} failed` }}
            title={`Mark the payout of ${amount} to ${who} failed?`}
            description={(f) => `${amount} goes back to their available balance, and they read: “${typed(f, 'reason')}”.`}
            confirmLabel={`Mark ${amount} failed`}
            form={`${id}-failed`}
            destructive
          />
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

/** An adjustment of one publisher's earnings, with its reason; `reference` makes a double submission post once. Asks first, with the amount and its direction. */
export function AdjustmentForm({ action, publishers, reference }: { action: Action; publishers: { id: string; email: string }[]; reference: string }) {
  const [state, formAction, pending] = useActionState(action, {});
  const v = state.values ?? {};
  const id = useId();
  const emailOf = (userId: string) => publishers.find((p) => p.id === userId)?.email ?? 'the publisher';
  return (
    <form id={id} action={formAction} className="grid max-w-xl gap-3" key={state.id ?? 'adjustment'}>
      <Outcome state={state} />
      <input type="hidden" name="reference" value={state.id ? crypto.randomUUID() : reference} />
      <Label htmlFor="adj-user">Publisher</Label>
      <Combobox
        id="adj-user"
        name="user_id"
        required
        defaultValue={v.user_id}
        searchLabel="Search the publishers"
        options={publishers.map((p) => ({ value: p.id, label: p.email }))}
      />
      <Label htmlFor="adj-amount">Amount (USD; negative takes earnings away)</Label>
      <Input id="adj-amount" name="amount_usd" required inputMode="decimal" defaultValue={v.amount_usd ?? ''} />
      <Label htmlFor="adj-day">The day it corrects</Label>
      <DatePicker id="adj-day" name="day" required defaultValue={v.day} />
      <Label htmlFor="adj-reason">Reason (the publisher reads it)</Label>
      <Input id="adj-reason" name="reason" required minLength={3} maxLength={500} defaultValue={v.reason ?? ''} />
      <ConfirmDialog
        trigger="Post adjustment"
        triggerProps={{ disabled: pending, variant: 'default', className: 'justify-self-start' }}
        title={(f) => adjustmentQuestion(typed(f, 'amount_usd'), emailOf(typed(f, 'user_id')))}
        description={(f) =>
          `A new ledger entry for ${typed(f, 'day')}, never an edit; it reaches their available balance when that day's month closes. They read: “${typed(f, 'reason')}”.`
        }
        confirmLabel="Post the adjustment"
        form={id}
      />
    </form>
  );
}

/** "Add $12.50 to a@b's earnings?" or "Take $12.50 from …", from the amount as typed. */
function adjustmentQuestion(amount: string, who: string): string {
  const n = Number(amount.replace(/[$,\s]/g, ''));
  if (!Number.isFinite(n) || n === 0) return `Post an adjustment of ${amount || 'nothing'} to ${who}’s earnings?`;
  const usd = formatUsd(Math.abs(n));
  return n > 0 ? `Add ${usd} to ${who}’s earnings?` : `Take ${usd} from ${who}’s earnings?`;
}

/**
 * Closes the months that are due now, asking first with what closing them makes available
 * (`due`: what a close run now would move, lib/ops/months.ts). Nothing due: said, and no button.
 */
export function CloseMonthsForm({ action, due }: { action: Action; due: { month: string; publishers: number; amount: string }[] }) {
  const [state, formAction, pending] = useActionState(action, {});
  const id = useId();
  return (
    <form id={id} action={formAction} className="flex flex-wrap items-center gap-2">
      <Outcome state={state} />
      {due.length === 0 ? (
        <p className="text-sm text-muted-foreground">No month is due now: the roll-up closed every month whose 5th has come.</p>
      ) : (
        <>
          <Label htmlFor="close-why">Note (optional)</Label>
          <Input className="sm:w-64" id="close-why" name="why" maxLength={500} />
          <ConfirmDialog
            trigger={`Close ${due.length === 1 ? 'the month' : `the ${due.length} months`} that ${due.length === 1 ? 'is' : 'are'} due`}
            triggerProps={{ disabled: pending, variant: 'default' }}
            title={`Close ${due.map((d) => d.month).join(', ')}?`}
            description={`${due
              .map((d) => `${d.month}: ${d.amount} becomes available to ${d.publishers} publisher${d.publishers === 1 ? '' : 's'}`)
              .join('; ')}. Their earnings become final and can be paid out; a correction afterwards is a new adjustment.`}
            confirmLabel="Close and make it available"
            form={id}
          />
        </>
      )}
    </form>
  );
}

/** Sends a Stripe payout: a Transfer whose Idempotency-Key is the payout's id, so a second click sends nothing more. Asks first, with the amount. */
export function SendWithStripeForm({ action, payoutId, label, amount, who }: { action: Action; payoutId: string; label: string; amount: string; who: string }) {
  const [state, formAction, pending] = useActionState(action, {});
  const id = useId();
  return (
    <form id={id} action={formAction} className="flex flex-wrap items-center gap-2">
      <input type="hidden" name="id" value={payoutId} />
      <ConfirmDialog
        trigger="Send with Stripe"
        triggerProps={{ disabled: pending, variant: 'default', 'aria-label': `Send ${label} with Stripe` }}
        title={`Send ${amount} to ${who} with Stripe?`}
        description="A transfer to their connected Stripe account, sent once however often this is clicked."
        confirmLabel={`Send ${amount}`}
        form={id}
      />
      <Outcome state={state} />
    </form>
  );
}

/**
 * A manual top-up: the payment arrived (with the bank's reference), crediting the amount once; or
 * the invoice is canceled (with why). Both ask first, saying what they do to whose balance.
 */
export function TopUpRecordForm(props: { action: Action; topUpId: string; label: string; invoice: string; amount: string; who: string; balance: string }) {
  const { action, topUpId, label, invoice, amount, who, balance } = props;
  const [state, formAction, pending] = useActionState(toastingSuccess(action), {});
  const id = useId();
  return (
    <form id={id} action={formAction} className="grid gap-2">
      <Outcome state={state} />
      <input type="hidden" name="id" value={topUpId} />
      <div className="flex flex-wrap items-center gap-2">
        <Label htmlFor={`topup-ref-${topUpId}`}>Bank reference, or why it is canceled</Label>
        <Input className="sm:w-64" id={`topup-ref-${topUpId}`} name="reference" required maxLength={200} />
        <ConfirmDialog
          trigger="Payment received"
          triggerProps={{ disabled: pending, variant: 'default', 'aria-label': `Record the payment of ${label}` }}
          title={`Credit ${amount} to ${who}?`}
          description={(f) =>
            `Invoice ${invoice} is recorded as paid by the transfer “${typed(f, 'reference')}”, and ${amount} is credited to their ${balance}, once. A mistake is corrected by a new entry, never undone.`
          }
          confirmLabel={`Credit ${amount}`}
          form={id}
          name="outcome"
          value="paid"
        />
        <ConfirmDialog
          trigger="Cancel invoice"
          triggerProps={{ disabled: pending, variant: 'destructive', 'aria-label': `Cancel ${label}` }}
          title={`Cancel invoice ${invoice} of ${amount}?`}
          description={(f) => `Nothing is credited. ${who} sees the invoice canceled, because “${typed(f, 'reference')}”.`}
          confirmLabel="Cancel the invoice"
          form={id}
          name="outcome"
          value="canceled"
          destructive
        />
      </div>
    </form>
  );
}

/** Release an account held for money taken back, with what settled it (audited). Asks first. */
export function ReleaseForm({ action, userId, label }: { action: Action; userId: string; label: string }) {
  const [state, formAction, pending] = useActionState(toastingSuccess(action), {});
  const id = useId();
  return (
    <form id={id} action={formAction} className="grid gap-2">
      <Outcome state={state} />
      <input type="hidden" name="id" value={userId} />
      <div className="flex flex-wrap items-center gap-2">
        <Label htmlFor={`release-${userId}`}>What settled it</Label>
        <Input className="sm:w-64" id={`release-${userId}`} name="reason" required minLength={3} maxLength={1000} />
        <ConfirmDialog
          trigger="Release the account"
          triggerProps={{ disabled: pending, variant: 'default', 'aria-label': `Release ${label}` }}
          title={`Release ${label}?`}
          description={(f) => `Their campaigns may run again and they may buy and download. The audit log keeps “${typed(f, 'reason')}”.`}
          confirmLabel="Release"
          form={id}
        />
      </div>
    </form>
  );
}

/**
 * Approve, or reject with the reason the advertiser reads: one campaign, or one creative. The
 * buttons say which (`kind`): a campaign's row and each of its creatives' rows never look alike.
 */
export function ReviewForm({ action, id, kind, label }: { action: Action; id: string; kind: 'campaign' | 'creative'; label: string }) {
  const [state, formAction, pending] = useActionState(toastingSuccess(action), {});
  return (
    <form action={formAction} className="grid gap-2">
      <Outcome state={state} />
      <input type="hidden" name="id" value={id} />
      <input type="hidden" name="kind" value={kind} />
      <div className="flex flex-wrap items-center gap-2">
        <Button type="submit" size="sm" name="decision" value="approve" disabled={pending} aria-label={`Approve ${label}`}>
          Approve {kind}
        </Button>
        <Label htmlFor={`reason-${id}`} className="sm:ml-2">
          Or reject the {kind}, because
        </Label>
        <Input className="sm:w-72" id={`reason-${id}`} name="reason" maxLength={500} />
        <Button type="submit" size="sm" variant="destructive" name="decision" value="reject" disabled={pending} aria-label={`Reject ${label}`}>
          Reject {kind}
        </Button>
      </div>
    </form>
  );
}

/** Approve an exclusive data license (charging the buyer), or reject it with the reason the buyer reads (releasing the reservation). Both ask first, with the price. */
export function DataLicenseReviewForm(props: { action: Action; id: string; label: string; price: string; who: string }) {
  const { action, id, label, price, who } = props;
  const [state, formAction, pending] = useActionState(toastingSuccess(action), {});
  const formId = useId();
  return (
    <form id={formId} action={formAction} className="grid gap-2" key={JSON.stringify(state.values ?? {})}>
      <Outcome state={state} />
      <input type="hidden" name="id" value={id} />
      <div className="flex flex-wrap items-center gap-2">
        <ConfirmDialog
          trigger="Approve license"
          triggerProps={{ disabled: pending, variant: 'default', 'aria-label': `Approve ${label}` }}
          title={`Charge ${who} ${price} for this exclusive license?`}
          description={`The ${price} reserved from their balance is charged and shared among the publishers whose records it holds; the files are written at once.`}
          confirmLabel={`Approve and charge ${price}`}
          form={formId}
          name="decision"
          value="approve"
        />
        <Label htmlFor={`data-reason-${id}`} className="sm:ml-2">
          Or reject, because (the buyer reads it)
        </Label>
        <Input className="sm:w-72" id={`data-reason-${id}`} name="reason" maxLength={500} defaultValue={state.values?.reason ?? ''} />
        <ConfirmDialog
          trigger="Reject license"
          triggerProps={{ disabled: pending, variant: 'destructive', 'aria-label': `Reject ${label}` }}
          title={`Reject ${who}’s exclusive license?`}
          description={(f) =>
            `The ${price} reserved from their balance is released and the records offered to others again. They read: “${typed(f, 'reason')}”.`
          }
          confirmLabel="Reject and release"
          form={formId}
          name="decision"
          value="reject"
          destructive
        />
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
  const id = useId();
  return (
    <form id={id} action={formAction} className="grid max-w-3xl gap-3" key={state.notice ?? 'pricing'}>
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
        <RadioGroup name="when" defaultValue={v.when === 'later' ? 'later' : 'now'} aria-label="Takes effect">
          <label className="flex items-center gap-2 text-sm">
            <RadioItem value="now" /> Now
          </label>
          <span className="flex flex-wrap items-center gap-2 text-sm">
            <label className="flex items-center gap-2">
              <RadioItem value="later" /> From
            </label>
            <DatePicker id="pricing-from-day" name="effective_day" className="sm:w-64" defaultValue={v.effective_day} placeholder="Choose a day" />
            <Input
              className="w-28"
              name="effective_time"
              aria-label="At (UTC, hours and minutes)"
              placeholder="00:00"
              pattern="([01][0-9]|2[0-3]):[0-5][0-9]"
              inputMode="numeric"
              defaultValue={v.effective_time ?? ''}
            />{' '}
            UTC
          </span>
        </RadioGroup>
      </fieldset>
      <Label htmlFor="pricing-reason">Reason (the audit log keeps it)</Label>
      <Input id="pricing-reason" name="reason" required minLength={3} maxLength={1000} defaultValue={v.reason ?? ''} />
      <ConfirmDialog
        trigger="Schedule the new prices"
        triggerProps={{ disabled: pending, variant: 'default', className: 'justify-self-start' }}
        title={(f) =>
          typed(f, 'when') === 'later' ? `Change the prices from ${typed(f, 'effective_day')} ${typed(f, 'effective_time')} UTC?` : 'Change the prices now?'
        }
        description={(f) => pricingChanges(f, current)}
        confirmLabel="Schedule the new prices"
        form={id}
      />
    </form>
  );
}

/** What a pricing form would change, field by field ("Publisher ad revenue share (0 to 1): 0.7 → 0.72"), for its confirmation. */
function pricingChanges(form: FormData, current: PricingColumns): string {
  const changed = PRICING_FIELDS.filter((f) => Number(typed(form, f.name)) !== Number(current[f.name]));
  if (changed.length === 0) return 'Every value stays as it is; the change is recorded with its reason.';
  return `${changed.map((f) => `${f.label}: ${current[f.name]} → ${typed(form, f.name)}`).join('; ')}. What was billed before keeps its price.`;
}
