import type { Metadata } from 'next';
import { notFound, redirect } from 'next/navigation';
import { buyerProfile } from '@/lib/data/buyers/account';
import { bankDetails, topUpOf } from '@/lib/money/funds';
import { env } from '@/lib/platform/env';
import { services } from '@/lib/services';
import { TopUpDocument } from '../../../funds';
import { requirePublisher as requireSignedIn } from '../../../publisher';

export const metadata: Metadata = { title: 'Invoice', robots: { index: false, follow: false } };
export const dynamic = 'force-dynamic';

/** One top-up of the data buyer's balance: an invoice to pay while it waits, a receipt once it is credited (print it from the browser). */
export default async function DataTopUpPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  const user = await requireSignedIn(`/dashboard/data/funds/${id}`);
  const db = await services().database();
  const [profile, topUp] = await Promise.all([buyerProfile(db, user.id), topUpOf(db, user.id, 'buyer', id)]);
  if (!profile) redirect('/dashboard/data');
  if (!topUp) notFound();
  return (
    <TopUpDocument
      topUp={topUp}
      payee={bankDetails(env())}
      product="prepaid data license funds"
      back="/dashboard/data/funds"
      billedTo={
        <>
          {profile.company}
          <br />
          {profile.country}
          <br />
          {profile.billing_email}
        </>
      }
      purpose={<>Prepaid funds for data licenses, for {profile.company}</>}
    />
  );
}
