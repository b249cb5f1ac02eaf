import type { Metadata } from 'next';
import { microToUsd, sumMicro, wholeCents } from '@/lib/platform/kit/micro';
import { formatDay, formatUsd } from '@/lib/platform/kit/format';
import { consoleAccount } from '@/lib/publisher/session';
import { payoutPreview } from '@/lib/money/payouts/publisher';
import { DEFAULT_PRICING } from '@/lib/money/pricing/defaults';
import { services } from '@/lib/services';
import { cancelPayoutAction, payoutMethodAction, requestPayoutAction, stripeOnboardingAction } from '../actions';
import { ConsoleHeader, ConsoleNav } from '../nav';
import { Alert } from '../../_components/ui/alert';
import { Card, CardHeader, CardTitle } from '../../_components/ui/card';
import { requirePublisher, rolesOfUser } from '../publisher';
import { RoleMissing } from '../role-missing';
import { PayoutTable, Totals } from '../tables';
import { CancelPayoutForm, PayoutMethodForm, RequestPayoutForm, StripeOnboardingForm } from './forms';

export const metadata: Metadata = { title: 'Payouts', robots: { index: false, follow: false } };
export const dynamic = 'force-dynamic';

type Search = Promise<Record<string, string | string[] | undefined>>;

export default async function PayoutsPage({ searchParams }: { searchParams: Search }) {
  const back = (await searchParams).stripe;
  const user = await requirePublisher('/dashboard/payouts');
  if (!(await rolesOfUser(user.id)).publisher) return <RoleMissing role="publisher" title="Payouts" current="/dashboard/payouts" />;
  const s = services();
  const [row, pricing, preview] = await Promise.all([
    consoleAccount(user, s.database).read('earnings'),
    s.pricing.values(),
    // Whether "Request payout" would be refused, and why: the database's answer, as the request's.
    s.database().then((db) => payoutPreview(db, user.id)),
  ]);
  const minimum = (pricing ?? DEFAULT_PRICING).min_payout_usd;
  const { payouts, method } = row;
  const inFlight = sumMicro(payouts.filter((p) => p.status === 'pending' || p.status === 'processing').map((p) => p.amount_micro));
  const paid = sumMicro(payouts.filter((p) => p.status === 'paid').map((p) => p.amount_micro));
  const blocker = preview.ok ? null : preview.error;
  // What a payout would take: the whole cents of the balance, shown as such in both places.
  const payable = microToUsd(wholeCents(row.available_micro));

  return (
    <div>
      <ConsoleHeader title="Payouts" />
      <ConsoleNav current="/dashboard/payouts" />

      <section aria-labelledby="balances" className="mb-10 grid grid-cols-1 gap-4">
        <h2 id="balances">Your money</h2>
        <Totals
          items={[
            { label: 'Available to pay out', value: formatUsd(payable), testId: 'balance-available' },
            { label: 'Not final yet', value: formatUsd(microToUsd(row.pending_micro)), testId: 'balance-pending' },
            { label: 'On its way', value: formatUsd(microToUsd(inFlight)), testId: 'payouts-pending' },
            { label: 'Paid out', value: formatUsd(microToUsd(paid)), testId: 'payouts-paid' },
          ]}
        />
        <p className="max-w-3xl text-sm text-muted-foreground">
          A month’s earnings become final, and available to pay out, on the 5th of the next month, after that month’s invalid traffic is taken out. What you
          earned is in exactly one of these four places. Amounts are kept to the millionth of a dollar and rounded to the cent once, when shown; a payout is in
          whole cents, and what is under a cent stays in your balance. The minimum payout is {formatUsd(minimum)}.
        </p>
        <RequestPayoutForm action={requestPayoutAction} label={`Request payout of ${formatUsd(payable)}`} blocker={blocker} />
      </section>

      <Card aria-labelledby="method" className="mb-10">
        <CardHeader>
          <CardTitle id="method">Where the money goes</CardTitle>
        </CardHeader>
        {method ? (
          <p data-testid="payout-method" className="text-sm">
            {method.rail === 'manual' ? 'Bank transfer, sent by our team, to ' : 'Stripe, to '}
            <strong>{method.masked}</strong>
            {method.ready ? '.' : ` (not ready yet${method.status_note ? `: ${method.status_note}` : ''}).`} Changed{' '}
            {formatDay(method.updated_at.toISOString())}.
          </p>
        ) : (
          <p data-testid="payout-method" className="text-sm">
            No payout method yet: give the bank account payouts should go to.
          </p>
        )}
        {back === 'return' && method?.rail === 'stripe' && !method.ready && (
          <Alert tone="success" className="mt-3">
            Back from Stripe. Your method is ready as soon as Stripe confirms the account, usually within a few minutes; reload this page to see it.
          </Alert>
        )}
        <details open={!method} className="mt-4">
          <summary className="cursor-pointer text-sm font-medium">
            {method?.rail === 'manual' ? 'Change to another bank account' : 'Use a bank account'}
          </summary>
          <PayoutMethodForm action={payoutMethodAction} submit="Save payout method" />
        </details>
        {s.stripe && (
          <StripeOnboardingForm
            action={stripeOnboardingAction}
            label={
              method?.rail === 'stripe' ? (method.ready ? 'Open Stripe onboarding again' : 'Continue Stripe onboarding') : 'Get paid through Stripe instead'
            }
          />
        )}
      </Card>

      <section aria-labelledby="payouts" className="grid grid-cols-1 gap-4">
        <h2 id="payouts">Payouts</h2>
        <PayoutTable
          payouts={payouts.map((p) => ({
            id: p.id,
            period: p.period,
            amount_usd: microToUsd(p.amount_micro),
            status: p.status,
            paid_at: p.paid_at?.toISOString() ?? null,
            requested_at: p.requested_at.toISOString(),
            failure_reason: p.failure_reason,
          }))}
          actions={(p) => (p.status === 'pending' && p.id ? <CancelPayoutForm action={cancelPayoutAction} payoutId={p.id} period={p.period} /> : null)}
        />
        <p className="text-sm text-muted-foreground">
          pending: requested; processing: being sent; paid: sent, with the date; failed: not sent, with the reason, and its amount back in your available
          balance; canceled: canceled before it was sent.
        </p>
      </section>
    </div>
  );
}
