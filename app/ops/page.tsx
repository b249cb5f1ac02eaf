import { randomUUID } from 'node:crypto';
import type { Metadata } from 'next';
import { microToUsd } from '@/lib/account/money';
import { formatDay, formatMoment, formatUsd } from '@/lib/console/format';
import { staffOverview } from '@/lib/payouts/staff';
import { services } from '@/lib/services';
import { ScrollTable } from '../dashboard/tables';
import { adjustmentAction, closeMonthsAction, markPayoutAction, payoutDetailsAction, sendWithStripeAction, signOutAction } from './actions';
import { AdjustmentForm, CloseMonthsForm, DetailsForm, PayoutActions, SendWithStripeForm } from './forms';
import { requireStaff } from './staff';
import { Button } from '../_components/ui/button';
import { EmptyState } from '../_components/ui/empty-state';

export const metadata: Metadata = { title: 'Operator console', robots: { index: false, follow: false } };
export const dynamic = 'force-dynamic';

const usd = (micro: number) => formatUsd(microToUsd(micro));

export default async function OpsPage() {
  const staff = await requireStaff();
  const { stripe } = services();
  const o = await staffOverview(await services().database(), staff);
  const open = o.payouts.filter((p) => p.open);
  const rest = o.payouts.filter((p) => !p.open);
  return (
    <div className="grid grid-cols-1 gap-10">
      <div className="flex flex-wrap items-end justify-between gap-3">
        <div>
          <h1 className="text-2xl sm:text-3xl">Operator console</h1>
          <p className="mt-1 text-sm text-muted-foreground">Signed in as {staff.email}, with your second factor, for an hour.</p>
        </div>
        <form action={signOutAction}>
          <Button type="submit" variant="outline" size="sm">
            Sign out
          </Button>
        </form>
      </div>

      <section aria-labelledby="to-send" className="grid grid-cols-1 gap-4">
        <h2 id="to-send">Payouts to send</h2>
        {open.length === 0 ? (
          <EmptyState title="No payout is waiting." />
        ) : (
          open.map((p) => {
            const label = `the payout of ${usd(p.amount_micro)} to ${p.email}`;
            return (
              <article key={p.id} className="grid gap-3 rounded-xl border bg-card p-4 sm:p-6" aria-label={`Payout to ${p.email}`} data-testid="open-payout">
                <h3 className="text-base">
                  {usd(p.amount_micro)} to {p.email} ({p.period}): {p.status}
                </h3>
                <p className="text-sm text-muted-foreground">
                  Requested {formatMoment(p.requested_at.toISOString())}, by {p.rail === 'manual' ? 'bank transfer (you send it)' : 'Stripe'}, to{' '}
                  {p.destination ?? 'no method'}.
                </p>
                {p.rail === 'manual' && <DetailsForm action={payoutDetailsAction} payoutId={p.id} label={label} />}
                {p.rail === 'stripe' && stripe && <SendWithStripeForm action={sendWithStripeAction} payoutId={p.id} label={label} />}
                <PayoutActions action={markPayoutAction} payoutId={p.id} status={p.status} label={label} />
              </article>
            );
          })
        )}
      </section>

      <section aria-labelledby="balances" className="grid grid-cols-1 gap-4">
        <h2 id="balances">The ledger’s balances</h2>
        <ScrollTable label="Platform accounts" head={['Account', 'Balance']}>
          {o.platform.map((a) => (
            <tr key={a.kind}>
              <th scope="row">{a.kind}</th>
              <td className="num">{usd(a.balance_micro)}</td>
            </tr>
          ))}
        </ScrollTable>
        <ScrollTable label="Publishers" head={['Publisher', 'Not final yet', 'Available', 'Pays to']}>
          {o.publishers.map((p) => (
            <tr key={p.user_id}>
              <th scope="row">{p.email}</th>
              <td className="num">{usd(p.pending_micro)}</td>
              <td className="num">{usd(p.available_micro)}</td>
              <td>{p.destination ? `${p.destination}${p.method_ready ? '' : ' (not ready)'}` : '—'}</td>
            </tr>
          ))}
        </ScrollTable>
      </section>

      <section aria-labelledby="adjust" className="grid grid-cols-1 gap-4">
        <h2 id="adjust">Adjust a publisher’s earnings</h2>
        <p className="text-sm text-muted-foreground">
          For invalid traffic found after a day was posted, or a correction in the publisher’s favour: a new ledger entry with its reason, never an edit.
        </p>
        <AdjustmentForm action={adjustmentAction} publishers={o.publishers.map((p) => ({ id: p.user_id, email: p.email }))} reference={randomUUID()} />
      </section>

      <section aria-labelledby="months" className="grid grid-cols-1 gap-4">
        <h2 id="months">Month closes</h2>
        <p className="text-sm text-muted-foreground">A month closes on the 5th of the next, by itself; this closes the months that are due now.</p>
        <CloseMonthsForm action={closeMonthsAction} />
        <ScrollTable label="Closed months" head={['Month', 'Closed', 'Publishers', 'Made available']}>
          {o.months.map((m) => (
            <tr key={m.month}>
              <th scope="row">{m.month.slice(0, 7)}</th>
              <td>{formatDay(m.closed_at.toISOString())}</td>
              <td className="num">{m.publishers}</td>
              <td className="num">{usd(m.amount_micro)}</td>
            </tr>
          ))}
        </ScrollTable>
      </section>

      <section aria-labelledby="history" className="grid grid-cols-1 gap-4">
        <h2 id="history">Payouts sent and stopped</h2>
        <ScrollTable label="Payouts sent and stopped" head={['Publisher', 'Period', 'Amount', 'Status', 'Reference or reason', 'Requested']}>
          {rest.map((p) => (
            <tr key={p.id}>
              <th scope="row">{p.email}</th>
              <td>{p.period}</td>
              <td className="num">{usd(p.amount_micro)}</td>
              <td>{p.status}</td>
              <td>{p.reference ?? p.failure_reason ?? '—'}</td>
              <td>{formatDay(p.requested_at.toISOString())}</td>
            </tr>
          ))}
        </ScrollTable>
      </section>

      <section aria-labelledby="audit" className="grid grid-cols-1 gap-4">
        <h2 id="audit">Audit log</h2>
        <ScrollTable label="Audit log" head={['When', 'Who', 'What', 'Of', 'Why']}>
          {o.audit.map((a) => (
            <tr key={a.id}>
              <td>{formatMoment(a.at.toISOString())}</td>
              <td>{a.staff ?? '—'}</td>
              <td>{a.action}</td>
              <td>{a.subject ?? '—'}</td>
              <td>{a.reason ?? '—'}</td>
            </tr>
          ))}
        </ScrollTable>
      </section>
    </div>
  );
}
