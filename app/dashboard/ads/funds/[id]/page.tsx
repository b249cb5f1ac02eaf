import type { Metadata } from 'next';
import Link from 'next/link';
import { notFound, redirect } from 'next/navigation';
import { advertiserAccount } from '@/lib/ads/advertisers/account';
import { bankDetails } from '@/lib/money/funds';
import { env } from '@/lib/platform/env';
import { formatMoment } from '@/lib/platform/kit/format';
import { services } from '@/lib/services';
import { Alert } from '../../../../_components/ui/alert';
import { requirePublisher as requireSignedIn } from '../../../publisher';
import { usd } from '../../display';

export const metadata: Metadata = { title: 'Invoice', robots: { index: false, follow: false } };
export const dynamic = 'force-dynamic';

/** One top-up: an invoice to pay while it waits, a receipt once it is credited (print it from the browser). */
export default async function TopUpPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  const user = await requireSignedIn(`/dashboard/ads/funds/${id}`);
  const account = await advertiserAccount(await services().database(), user.id);
  if (!account.profile) redirect('/dashboard/ads');
  const topUp = account.top_ups.find((t) => t.id === id);
  if (!topUp) notFound();
  const p = account.profile;
  const payee = bankDetails(env());
  const paid = topUp.status === 'paid';
  return (
    <article className="mx-auto grid max-w-2xl gap-6 rounded-xl border bg-card p-6 sm:p-10" aria-labelledby="document">
      <header className="flex flex-wrap items-start justify-between gap-4">
        <div>
          <h1 id="document" className="text-2xl">
            {paid ? 'Receipt' : topUp.status === 'canceled' ? 'Canceled invoice' : 'Invoice'} {topUp.invoice_number ?? ''}
          </h1>
          <p className="text-sm text-muted-foreground">Monetize · prepaid advertising funds</p>
        </div>
        <Link href="/dashboard/ads/funds" className="text-sm print:hidden">
          Back to funds
        </Link>
      </header>
      {topUp.status === 'requested' && (
        <Alert tone="info">
          Pay {usd(topUp.amount_micro)} by bank transfer quoting <strong>{topUp.invoice_number}</strong>{' '}
          {payee ? <>to {payee}.</> : <>to the bank account the operator gives you (this server has none configured).</>} Your balance is credited when the
          payment arrives.
        </Alert>
      )}
      <dl className="grid gap-x-6 gap-y-3 sm:grid-cols-[10rem_1fr]">
        <dt className="text-muted-foreground">Billed to</dt>
        <dd>
          {p.billing_name}
          <br />
          <span className="whitespace-pre-line">{p.billing_address}</span>
          <br />
          {p.country}
          {p.tax_id ? ` · tax number ${p.tax_id}` : ''}
          <br />
          {p.billing_email}
        </dd>
        <dt className="text-muted-foreground">For</dt>
        <dd>Prepaid advertising funds for {p.company}</dd>
        <dt className="text-muted-foreground">Amount</dt>
        <dd className="text-xl font-semibold" data-testid="document-amount">
          {usd(topUp.amount_micro)}
        </dd>
        <dt className="text-muted-foreground">Asked</dt>
        <dd>{formatMoment(topUp.requested_at.toISOString())}</dd>
        <dt className="text-muted-foreground">Status</dt>
        <dd>
          {paid
            ? `Paid, credited ${formatMoment(topUp.paid_at!.toISOString())}${topUp.payment_reference ? ` (payment ${topUp.payment_reference})` : ''}`
            : topUp.status === 'canceled'
              ? `Canceled${topUp.payment_reference ? `: ${topUp.payment_reference}` : ''}`
              : 'Waiting for payment'}
        </dd>
      </dl>
    </article>
  );
}
