import Link from 'next/link';
import type { ReactNode } from 'react';
import type { TopUp } from '@/lib/money/funds';
import { formatMoment } from '@/lib/platform/kit/format';
import { Alert } from '../_components/ui/alert';
import { EmptyState } from '../_components/ui/empty-state';
import { TopUpForm } from './ads/forms';
import { usd } from './ads/display';
import { ScrollTable, StatusBadge } from './tables';

/**
 * The parts of a prepaid balance's pages that every side that pays in advance shares (the
 * advertiser's funds at /dashboard/ads/funds, the data buyer's at /dashboard/data/funds): the
 * word back from Stripe's page, the ways to add funds, the top-ups, and one top-up as an invoice
 * or a receipt. The pages say what the balance pays for; these are the same for both.
 */

type FormAction = Parameters<typeof TopUpForm>[0]['action'];

/** What Stripe's payment page sent the browser back with (`?checkout=done|canceled`). */
export function CheckoutNotice({ checkout }: { checkout: string | string[] | undefined }) {
  if (checkout === 'done')
    return (
      <Alert tone="success" className="mb-6">
        Stripe took your payment. Your balance is credited as soon as Stripe confirms it to us, usually within seconds: reload this page.
      </Alert>
    );
  if (checkout === 'canceled')
    return (
      <Alert tone="info" className="mb-6">
        The card payment was canceled: nothing was charged.
      </Alert>
    );
  return null;
}

/** An invoice to pay by bank transfer, and a card payment when this server has Stripe. */
export function AddFunds({
  invoice,
  card,
  minimumUsd,
  guide,
}: {
  invoice: FormAction;
  /** The card payment's action, or null when Stripe is not configured. */
  card: FormAction | null;
  minimumUsd: number;
  /** The docs page that explains this balance. */
  guide: ReactNode;
}) {
  return (
    <section aria-labelledby="top-up" className="mb-10 grid max-w-2xl gap-4">
      <h2 id="top-up">Add funds</h2>
      <p className="text-sm text-muted-foreground">
        You get an invoice to pay by bank transfer, quoting its number. The operator credits your balance when the payment arrives; the invoice then becomes
        your receipt. {guide}.
      </p>
      <TopUpForm action={invoice} minimumUsd={minimumUsd} />
      {card && (
        <>
          <h3 className="mt-4">Or pay by card</h3>
          <p className="text-sm text-muted-foreground">On Stripe’s payment page; your balance is credited when Stripe confirms the payment to us.</p>
          <TopUpForm action={card} minimumUsd={minimumUsd} card />
        </>
      )}
    </section>
  );
}

/** Every top-up of the balance, newest first, each linking to its invoice or receipt under `base`. */
export function TopUpHistory({ topUps, base }: { topUps: TopUp[]; base: string }) {
  return (
    <section aria-labelledby="history" className="grid grid-cols-1 gap-4">
      <h2 id="history">Top-ups</h2>
      {topUps.length === 0 ? (
        <EmptyState title="No top-ups yet">Your invoices and receipts appear here.</EmptyState>
      ) : (
        <ScrollTable label="Top-ups" head={['Invoice', 'Amount', 'Status', 'Asked', 'Credited']}>
          {topUps.map((t) => (
            <tr key={t.id}>
              <th scope="row">
                <Link href={`${base}/${t.id}`}>{t.invoice_number ?? 'Card payment'}</Link>
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
  );
}

/** One top-up: an invoice to pay while it waits, a receipt once it is credited (print it from the browser). */
export function TopUpDocument({
  topUp,
  payee,
  product,
  back,
  billedTo,
  purpose,
}: {
  topUp: TopUp;
  /** Where an invoice is paid (lib/money/funds.ts, bankDetails), or null. */
  payee: string | null;
  /** What is sold, under the title: "prepaid advertising funds". */
  product: string;
  back: string;
  billedTo: ReactNode;
  purpose: ReactNode;
}) {
  const paid = topUp.status === 'paid';
  return (
    <article className="mx-auto grid max-w-2xl gap-6 rounded-xl border bg-card p-6 sm:p-10" aria-labelledby="document">
      <header className="flex flex-wrap items-start justify-between gap-4">
        <div className="min-w-0">
          <h1 id="document" className="text-2xl break-words">
            {paid ? 'Receipt' : topUp.status === 'canceled' ? 'Canceled invoice' : 'Invoice'} {topUp.invoice_number ?? ''}
          </h1>
          <p className="text-sm text-muted-foreground">Monetize · {product}</p>
        </div>
        <Link href={back} className="text-sm print:hidden">
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
        <dd className="break-words">{billedTo}</dd>
        <dt className="text-muted-foreground">For</dt>
        <dd>{purpose}</dd>
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
