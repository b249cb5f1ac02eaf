import type { Metadata } from 'next';
import Link from 'next/link';
import { redirect } from 'next/navigation';
import { formatMoment } from '@/lib/platform/kit/format';
import { microToUsd } from '@/lib/platform/kit/micro';
import { buyerFunds, buyerProfile } from '@/lib/data/buyers/account';
import { usd } from '@/lib/data/buyers/display';
import { minimumTopUp, topUps as buyerTopUps } from '@/lib/money/funds';
import { services } from '@/lib/services';
import { Alert } from '../../../_components/ui/alert';
import { EmptyState } from '../../../_components/ui/empty-state';
import { TopUpForm } from '../../ads/forms';
import { ConsoleHeader, ConsoleNav } from '../../nav';
import { requirePublisher as requireSignedIn } from '../../publisher';
import { ScrollTable, StatusBadge } from '../../tables';
import { buyerCheckoutAction, buyerTopUpAction } from '../actions';
import { FundsTotals } from '../parts';

export const metadata: Metadata = { title: 'Data funds', robots: { index: false, follow: false } };
export const dynamic = 'force-dynamic';

/** /dashboard/data/funds: the data buyer's balance (the ledger's), an invoice for a top-up, and every top-up with its invoice or receipt. */
export default async function DataFundsPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const user = await requireSignedIn('/dashboard/data/funds');
  const checkout = (await searchParams).checkout;
  const s = services();
  const db = await s.database();
  const [profile, funds, topUps, minimum] = await Promise.all([
    buyerProfile(db, user.id),
    buyerFunds(db, user.id),
    buyerTopUps(db, user.id, 'buyer'),
    minimumTopUp(db),
  ]);
  if (!profile) redirect('/dashboard/data');
  const open = topUps.filter((t) => t.status === 'requested');
  return (
    <div>
      <ConsoleHeader title="Data funds" subtitle={`${profile.company}: a prepaid balance your data licenses are paid from.`} />
      <ConsoleNav current="/dashboard/data" />
      <section aria-labelledby="balance" className="mb-10">
        <h2 id="balance" className="mb-3">
          Balance
        </h2>
        <FundsTotals funds={funds} />
        <p className="mt-3 text-sm text-muted-foreground">
          The balance is your ledger account: what your payments put in, less the licenses you bought. Invoices waiting for payment:{' '}
          {usd(open.reduce((sum, t) => sum + t.amount_micro, 0))}. <Link href="/dashboard/data">Back to Data</Link>.
        </p>
      </section>
      {checkout === 'done' && (
        <Alert tone="success" className="mb-6">
          Stripe took your payment. Your balance is credited as soon as Stripe confirms it to us, usually within seconds: reload this page.
        </Alert>
      )}
      {checkout === 'canceled' && (
        <Alert tone="info" className="mb-6">
          The card payment was canceled: nothing was charged.
        </Alert>
      )}
      <section aria-labelledby="top-up" className="mb-10 grid max-w-2xl gap-4">
        <h2 id="top-up">Add funds</h2>
        <p className="text-sm text-muted-foreground">
          You get an invoice to pay by bank transfer, quoting its number. The operator credits your balance when the payment arrives; the invoice then becomes
          your receipt. <Link href="/docs/data-buyers">How buying data works</Link>.
        </p>
        <TopUpForm action={buyerTopUpAction} minimumUsd={microToUsd(minimum)} />
        {s.stripe && (
          <>
            <h3 className="mt-4">Or pay by card</h3>
            <p className="text-sm text-muted-foreground">On Stripe’s payment page; your balance is credited when Stripe confirms the payment to us.</p>
            <TopUpForm action={buyerCheckoutAction} minimumUsd={microToUsd(minimum)} card />
          </>
        )}
      </section>
      <section aria-labelledby="history" className="grid grid-cols-1 gap-4">
        <h2 id="history">Top-ups</h2>
        {topUps.length === 0 ? (
          <EmptyState title="No top-ups yet">Your invoices and receipts appear here.</EmptyState>
        ) : (
          <ScrollTable label="Top-ups" head={['Invoice', 'Amount', 'Status', 'Asked', 'Credited']}>
            {topUps.map((t) => (
              <tr key={t.id}>
                <th scope="row">
                  <Link href={`/dashboard/data/funds/${t.id}`}>{t.invoice_number ?? 'Card payment'}</Link>
                </th>
                <td className="num">{usd(t.amount_micro)}</td>
                <td>
                  <StatusBadge status={t.status} />
                </td>
                <td>{formatMoment(t.requested_at.toISOString())}</td>
                <td>{t.paid_at ? formatMoment(t.paid_at.toISOString()) : '—'}</td>
              </tr>
            ))}
          </ScrollTable>
        )}
      </section>
    </div>
  );
}
