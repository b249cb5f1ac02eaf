import type { Metadata } from 'next';
import Link from 'next/link';
import { redirect } from 'next/navigation';
import { advertiserAccount } from '@/lib/ads/advertisers/account';
import { minimumTopUp } from '@/lib/money/funds';
import { formatMoment } from '@/lib/platform/kit/format';
import { microToUsd, sumMicro } from '@/lib/platform/kit/micro';
import { services } from '@/lib/services';
import { Alert } from '../../../_components/ui/alert';
import { EmptyState } from '../../../_components/ui/empty-state';
import { ConsoleHeader, ConsoleNav } from '../../nav';
import { requirePublisher as requireSignedIn } from '../../publisher';
import { ScrollTable, StatusBadge, Totals } from '../../tables';
import { checkoutAction, topUpAction } from '../actions';
import { TopUpForm } from '../forms';
import { usd } from '../display';

export const metadata: Metadata = { title: 'Funds', robots: { index: false, follow: false } };
export const dynamic = 'force-dynamic';

/** /dashboard/ads/funds: the balance (the ledger's), an invoice for a top-up, and every top-up with its invoice or receipt. */
type Search = Promise<Record<string, string | string[] | undefined>>;

export default async function FundsPage({ searchParams }: { searchParams: Search }) {
  const user = await requireSignedIn('/dashboard/ads/funds');
  const { checkout } = await searchParams;
  const s = services();
  const db = await s.database();
  const [account, minimum] = await Promise.all([advertiserAccount(db, user.id), minimumTopUp(db)]);
  if (!account.profile) redirect('/dashboard/ads');
  const open = account.top_ups.filter((t) => t.status === 'requested');
  return (
    <div>
      <ConsoleHeader title="Funds" subtitle={`${account.profile.company}: a prepaid balance your campaigns spend from.`} />
      <ConsoleNav current="/dashboard/ads" />
      <section aria-labelledby="balance" className="mb-10">
        <h2 id="balance" className="mb-3">
          Balance
        </h2>
        <Totals
          items={[
            { label: 'Balance', value: usd(account.balance_micro), testId: 'funds-balance', exact: account.balance_micro },
            { label: 'Invoices waiting', value: usd(sumMicro(open.map((t) => t.amount_micro))) },
          ]}
        />
        <p className="mt-3 text-sm text-muted-foreground">
          The balance is your ledger account: what your payments put in, less what your ads cost, updated as the traffic is counted (every few seconds). When it
          is used up, your campaigns pause by themselves, and resume once a payment is credited.
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
          your receipt. <Link href="/docs/advertisers">How funds work</Link>.
        </p>
        <TopUpForm action={topUpAction} minimumUsd={microToUsd(minimum)} />
        {s.stripe && (
          <>
            <h3 className="mt-4">Or pay by card</h3>
            <p className="text-sm text-muted-foreground">On Stripe’s payment page; your balance is credited when Stripe confirms the payment to us.</p>
            <TopUpForm action={checkoutAction} minimumUsd={microToUsd(minimum)} card />
          </>
        )}
      </section>
      <section aria-labelledby="history" className="grid grid-cols-1 gap-4">
        <h2 id="history">Top-ups</h2>
        {account.top_ups.length === 0 ? (
          <EmptyState title="No top-ups yet">Your invoices and receipts appear here.</EmptyState>
        ) : (
          <ScrollTable label="Top-ups" head={['Invoice', 'Amount', 'Status', 'Asked', 'Credited']}>
            {account.top_ups.map((t) => (
              <tr key={t.id}>
                <th scope="row">
                  <Link href={`/dashboard/ads/funds/${t.id}`}>{t.invoice_number ?? 'Card payment'}</Link>
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
