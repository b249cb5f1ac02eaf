'use client';

import { useActionState } from 'react';
import type { DetailsState } from '@/lib/ops/forms';
import { Outcome, type Action } from '../dashboard/forms';

/** What staff can do with one open payout: processing, paid with its reference, failed with a reason, canceled. */
export function PayoutActions({ action, payoutId, status, label }: { action: Action; payoutId: string; status: string; label: string }) {
  const [state, formAction, pending] = useActionState(action, {});
  return (
    <div className="ops-actions">
      <Outcome state={state} />
      {status === 'pending' && (
        <form action={formAction} className="inline-form">
          <input type="hidden" name="id" value={payoutId} />
          <button type="submit" name="status" value="processing" disabled={pending} aria-label={`Mark ${label} processing`}>
            Mark processing
          </button>
          <button type="submit" name="status" value="canceled" disabled={pending} aria-label={`Cancel ${label}`}>
            Cancel
          </button>
        </form>
      )}
      <form action={formAction} className="inline-form">
        <input type="hidden" name="id" value={payoutId} />
        <input type="hidden" name="status" value="paid" />
        <label htmlFor={`ref-${payoutId}`}>Transfer reference</label>
        <input id={`ref-${payoutId}`} name="reference" required maxLength={200} />
        <button type="submit" disabled={pending} aria-label={`Mark ${label} paid`}>
          Mark paid
        </button>
      </form>
      <form action={formAction} className="inline-form">
        <input type="hidden" name="id" value={payoutId} />
        <input type="hidden" name="status" value="failed" />
        <label htmlFor={`why-${payoutId}`}>Why it failed (the publisher reads this)</label>
        <input id={`why-${payoutId}`} name="reason" required maxLength={500} />
        <button type="submit" disabled={pending} aria-label={`Mark ${label} failed`}>
          Mark failed
        </button>
      </form>
    </div>
  );
}

/** The bank details of a payout, shown once to the staff member who asked, with why (audited). */
export function DetailsForm({ action, payoutId, label }: { action: Action<DetailsState>; payoutId: string; label: string }) {
  const [state, formAction, pending] = useActionState(action, {});
  return (
    <form action={formAction} className="inline-form">
      <input type="hidden" name="id" value={payoutId} />
      <label htmlFor={`look-${payoutId}`}>Why you look (audited)</label>
      <input id={`look-${payoutId}`} name="why" required minLength={3} maxLength={500} defaultValue="To send the payout" />
      <button type="submit" disabled={pending} aria-label={`Show the bank details of ${label}`}>
        Show bank details
      </button>
      <Outcome state={state} />
      {state.details?.details && (
        <dl className="details" data-testid="payout-details">
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
    <form action={formAction} className="console-form" key={state.id ?? 'adjustment'}>
      <Outcome state={state} />
      <input type="hidden" name="reference" value={state.id ? crypto.randomUUID() : reference} />
      <label htmlFor="adj-user">Publisher</label>
      <select id="adj-user" name="user_id" required defaultValue={v.user_id ?? ''}>
        <option value="" disabled>
          Choose a publisher
        </option>
        {publishers.map((p) => (
          <option key={p.id} value={p.id}>
            {p.email}
          </option>
        ))}
      </select>
      <label htmlFor="adj-amount">Amount (USD; negative takes earnings away)</label>
      <input id="adj-amount" name="amount_usd" required inputMode="decimal" defaultValue={v.amount_usd ?? ''} />
      <label htmlFor="adj-day">The day it corrects</label>
      <input id="adj-day" name="day" type="date" required defaultValue={v.day ?? ''} />
      <label htmlFor="adj-reason">Reason (the publisher reads it)</label>
      <input id="adj-reason" name="reason" required minLength={3} maxLength={500} defaultValue={v.reason ?? ''} />
      <button type="submit" disabled={pending}>
        Post adjustment
      </button>
    </form>
  );
}

/** Closes the months that are due now. */
export function CloseMonthsForm({ action }: { action: Action }) {
  const [state, formAction, pending] = useActionState(action, {});
  return (
    <form action={formAction} className="inline-form">
      <label htmlFor="close-why">Note (optional)</label>
      <input id="close-why" name="why" maxLength={500} />
      <button type="submit" disabled={pending}>
        Close the months that are due
      </button>
      <Outcome state={state} />
    </form>
  );
}

/** Sends a Stripe payout: a Transfer whose Idempotency-Key is the payout's id, so a second click sends nothing more. */
export function SendWithStripeForm({ action, payoutId, label }: { action: Action; payoutId: string; label: string }) {
  const [state, formAction, pending] = useActionState(action, {});
  return (
    <form action={formAction} className="inline-form">
      <input type="hidden" name="id" value={payoutId} />
      <button type="submit" disabled={pending} aria-label={`Send ${label} with Stripe`}>
        Send with Stripe
      </button>
      <Outcome state={state} />
    </form>
  );
}
