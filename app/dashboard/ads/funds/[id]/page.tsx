import type { Metadata } from 'next';
import { notFound, redirect } from 'next/navigation';
import { advertiserAccount } from '@/lib/ads/advertisers/account';
import { bankDetails } from '@/lib/money/funds';
import { env } from '@/lib/platform/env';
import { services } from '@/lib/services';
import { TopUpDocument } from '../../../funds';
import { requirePublisher as requireSignedIn } from '../../../publisher';

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
  return (
    <TopUpDocument
      topUp={topUp}
      payee={bankDetails(env())}
      product="prepaid advertising funds"
      back="/dashboard/ads/funds"
      billedTo={
        <>
          {p.billing_name}
          <br />
          <span className="whitespace-pre-line">{p.billing_address}</span>
          <br />
          {p.country}
          {p.tax_id ? ` · tax number ${p.tax_id}` : ''}
          <br />
          {p.billing_email}
        </>
      }
      purpose={<>Prepaid advertising funds for {p.company}</>}
    />
  );
}
