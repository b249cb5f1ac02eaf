import type { Metadata } from 'next';
import { formatDay, formatMoment, wordOf } from '@/lib/platform/kit/format';
import { staffOverview } from '@/lib/money/payouts/staff';
import { services } from '@/lib/services';
import { markPayoutAction, payoutDetailsAction, sendWithStripeAction } from '../../actions';
import { DetailsForm, PayoutActions, SendWithStripeForm } from '../../forms';
import { OpsFrame } from '../../frame';
import { usd } from '../../money';
import { requireStaff } from '../../staff';
import { ScrollTable } from '../../../dashboard/tables';
import { EmptyState } from '../../../_components/ui/empty-state';

export const metadata: Metadata = { title: 'Payouts · Operator console', robots: { index: false, follow: false } };
export const dynamic = 'force-dynamic';

/** Payouts publishers asked for, to send and mark; then those sent and stopped. */
export default async function OpsPayoutsPage() {
  const staff = await requireStaff();
  const { stripe } = services();
  const o = await staffOverview(await services().database(), staff);
  const open = o.payouts.filter((p) => p.open);
  const rest = o.payouts.filter((p) => !p.open);
  return (
    <OpsFrame
      staff={staff}
      current="/ops/payouts"
      title="Payouts"
      about="What publishers asked to be paid, from their available balance. A failed or canceled payout goes back to that balance."
    >
      <section aria-labelledby="to-send" className="grid grid-cols-1 gap-4">
        <h2 id="to-send">Payouts to send</h2>
        {open.length === 0 ? (
          <EmptyState title="No payout is waiting." />
        ) : (
          open.map((p) => {
            const amount = usd(p.amount_micro);
            const label = `the payout of ${amount} to ${p.email}`;
            return (
              <article key={p.id} className="grid gap-3 rounded-xl border bg-card p-4 sm:p-6" aria-label={`Payout to ${p.email}`} data-testid="open-payout">
                <h3 className="text-base break-words">
                  {amount} to {p.email} ({p.period}): {wordOf(p.status)}
                </h3>
                <p className="text-sm text-muted-foreground">
                  Requested {formatMoment(p.requested_at.toISOString())}, by {p.rail === 'manual' ? 'bank transfer (you send it)' : 'Stripe'}, to{' '}
                  {p.destination ?? 'no method'}.
                </p>
                {p.rail === 'manual' && <DetailsForm action={payoutDetailsAction} payoutId={p.id} label={label} />}
                {p.rail === 'stripe' && stripe && (
                  <SendWithStripeForm action={sendWithStripeAction} payoutId={p.id} label={label} amount={amount} who={p.email} />
                )}
                <PayoutActions action={markPayoutAction} payoutId={p.id} next={p.next} label={label} amount={amount} who={p.email} />
              </article>
            );
          })
        )}
      </section>

      <section aria-labelledby="history" className="grid grid-cols-1 gap-4">
        <h2 id="history">Payouts sent and stopped</h2>
        <ScrollTable label="Payouts sent and stopped" head={['Publisher', 'Period', 'Amount', 'Status', 'Reference or reason', 'Requested']}>
          {rest.map((p) => (
            <tr key={p.id}>
              <th scope="row">{p.email}</th>
              <td>{p.period}</td>
              <td className="num">{usd(p.amount_micro)}</td>
              <td>{wordOf(p.status)}</td>
              <td>{p.reference ?? p.failure_reason ?? '—'}</td>
              <td>{formatDay(p.requested_at.toISOString())}</td>
            </tr>
          ))}
        </ScrollTable>
      </section>
    </OpsFrame>
  );
}
