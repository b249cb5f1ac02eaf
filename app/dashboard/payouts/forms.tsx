'use client';

import { useActionState, useId } from 'react';
import { Button } from '../../_components/ui/button';
import { ConfirmDialog } from '../../_components/ui/confirm-dialog';
import { Field, Input } from '../../_components/ui/input';
import { Outcome, type Action } from '../forms';

/**
 * The manual rail's details: who holds the account and the account itself. The account number is
 * never shown again (the page shows it masked), so after an error only the holder comes back.
 */
export function PayoutMethodForm({ action, submit }: { action: Action; submit: string }) {
  const [state, formAction, pending] = useActionState(action, {});
  return (
    <form action={formAction} className="mt-4 grid max-w-xl gap-4" key={JSON.stringify(state.values ?? {})}>
      <Outcome state={state} />
      <Field label="Account holder" htmlFor="payout-holder">
        <Input id="payout-holder" name="account_holder" required maxLength={100} autoComplete="name" defaultValue={state.values?.account_holder ?? ''} />
      </Field>
      <Field
        label="IBAN or account number"
        htmlFor="payout-account"
        hint="Stored encrypted; shown from now on as its last four characters only."
        hintId="payout-account-hint"
      >
        <Input id="payout-account" name="account" required maxLength={50} autoComplete="off" spellCheck={false} aria-describedby="payout-account-hint" />
      </Field>
      <Field label="Routing or sort code (if your bank has one)" htmlFor="payout-routing">
        <Input id="payout-routing" name="routing" maxLength={40} autoComplete="off" />
      </Field>
      <div>
        <Button type="submit" disabled={pending}>
          {submit}
        </Button>
      </div>
    </form>
  );
}

/** "Request payout": disabled, with the reason beside it, while a payout cannot be requested. */
export function RequestPayoutForm({ action, label, blocker }: { action: Action; label: string; blocker: string | null }) {
  const [state, formAction, pending] = useActionState(action, {});
  return (
    <form action={formAction} className="grid gap-3">
      <div className="flex flex-wrap items-center gap-3">
        <Button type="submit" disabled={pending || blocker !== null || Boolean(state.notice)} aria-describedby={blocker ? 'payout-blocker' : undefined}>
          {label}
        </Button>
        {blocker && !state.notice ? (
          <p id="payout-blocker" className="text-sm text-muted-foreground" data-testid="payout-blocker">
            {blocker}
          </p>
        ) : null}
      </div>
      <Outcome state={state} />
    </form>
  );
}

/** Cancels one pending payout, after asking. */
export function CancelPayoutForm({ action, payoutId, period }: { action: Action; payoutId: string; period: string }) {
  const [state, formAction, pending] = useActionState(action, {});
  const formId = useId();
  return (
    <form id={formId} action={formAction} className="inline-flex items-center gap-2">
      <input type="hidden" name="id" value={payoutId} />
      <ConfirmDialog
        trigger="Cancel"
        triggerProps={{ disabled: pending, variant: 'outline', size: 'xs', 'aria-label': `Cancel the payout for ${period}` }}
        title={`Cancel the payout for ${period}?`}
        description="Its amount goes back to your available balance, and you can request it again."
        confirmLabel="Cancel payout"
        form={formId}
        destructive
      />
      {state.error && (
        <span role="alert" className="text-xs text-destructive">
          {state.error}
        </span>
      )}
      {state.notice && (
        <span role="status" className="text-xs text-success">
          {state.notice}
        </span>
      )}
    </form>
  );
}

/** Stripe as the payout method: the action sends the browser to Stripe's onboarding. */
export function StripeOnboardingForm({ action, label }: { action: Action; label: string }) {
  const [state, formAction, pending] = useActionState(action, {});
  return (
    <form action={formAction} className="mt-4 grid gap-3">
      <div>
        <Button type="submit" variant="outline" disabled={pending}>
          {label}
        </Button>
      </div>
      <Outcome state={state} />
    </form>
  );
}
