'use client';

import { useActionState } from 'react';
import { Outcome, type Action } from '../forms';

/**
 * The manual rail's details: who holds the account and the account itself. The account number is
 * never shown again (the page shows it masked), so after an error only the holder comes back.
 */
export function PayoutMethodForm({ action, submit }: { action: Action; submit: string }) {
  const [state, formAction, pending] = useActionState(action, {});
  return (
    <form action={formAction} className="console-form" key={JSON.stringify(state.values ?? {})}>
      <Outcome state={state} />
      <label htmlFor="payout-holder">Account holder</label>
      <input id="payout-holder" name="account_holder" required maxLength={100} autoComplete="name" defaultValue={state.values?.account_holder ?? ''} />
      <label htmlFor="payout-account">IBAN or account number</label>
      <input id="payout-account" name="account" required maxLength={50} autoComplete="off" spellCheck={false} aria-describedby="payout-account-hint" />
      <p id="payout-account-hint" className="hint">
        Stored encrypted; shown from now on as its last four characters only.
      </p>
      <label htmlFor="payout-routing">Routing or sort code (if your bank has one)</label>
      <input id="payout-routing" name="routing" maxLength={40} autoComplete="off" />
      <button type="submit" disabled={pending}>
        {submit}
      </button>
    </form>
  );
}

/** "Request payout": disabled, with the reason beside it, while a payout cannot be requested. */
export function RequestPayoutForm({ action, label, blocker }: { action: Action; label: string; blocker: string | null }) {
  const [state, formAction, pending] = useActionState(action, {});
  return (
    <form action={formAction} className="inline-form">
      <button type="submit" disabled={pending || blocker !== null || Boolean(state.notice)} aria-describedby={blocker ? 'payout-blocker' : undefined}>
        {label}
      </button>
      {blocker && !state.notice ? (
        <p id="payout-blocker" className="hint" data-testid="payout-blocker">
          {blocker}
        </p>
      ) : null}
      <Outcome state={state} />
    </form>
  );
}

/** Cancels one pending payout. */
export function CancelPayoutForm({ action, payoutId, period }: { action: Action; payoutId: string; period: string }) {
  const [state, formAction, pending] = useActionState(action, {});
  return (
    <form action={formAction} className="inline-form">
      <input type="hidden" name="id" value={payoutId} />
      <button type="submit" disabled={pending} aria-label={`Cancel the payout for ${period}`}>
        Cancel
      </button>
      <Outcome state={state} />
    </form>
  );
}

/** Stripe as the payout method: the action sends the browser to Stripe's onboarding. */
export function StripeOnboardingForm({ action, label }: { action: Action; label: string }) {
  const [state, formAction, pending] = useActionState(action, {});
  return (
    <form action={formAction} className="inline-form">
      <button type="submit" disabled={pending}>
        {label}
      </button>
      <Outcome state={state} />
    </form>
  );
}
