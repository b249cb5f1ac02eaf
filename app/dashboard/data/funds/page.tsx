import type { Metadata } from 'next';
import Link from 'next/link';
import { redirect } from 'next/navigation';
import { microToUsd } from '@/lib/platform/kit/micro';
import { buyerFunds, buyerProfile } from '@/lib/data/buyers/account';
import { usd } from '@/lib/data/buyers/display';
import { minimumTopUp, topUps as topUpsOf } from '@/lib/money/funds';
import { services } from '@/lib/services';
import { AddFunds, CheckoutNotice, TopUpHistory } from '../../funds';
import { ConsoleHeader, ConsoleNav } from '../../nav';
import { requirePublisher as requireSignedIn } from '../../publisher';
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
    topUpsOf(db, user.id, 'buyer'),
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
      <CheckoutNotice checkout={checkout} />
      <AddFunds
        invoice={buyerTopUpAction}
        card={s.stripe ? buyerCheckoutAction : null}
        minimumUsd={microToUsd(minimum)}
        guide={<Link href="/docs/data-buyers">How buying data works</Link>}
      />
      <TopUpHistory topUps={topUps} base="/dashboard/data/funds" />
    </div>
  );
}
