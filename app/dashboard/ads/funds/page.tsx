import type { Metadata } from 'next';
import Link from 'next/link';
import { redirect } from 'next/navigation';
import { advertiserAccount } from '@/lib/ads/advertisers/account';
import { minimumTopUp } from '@/lib/money/funds';
import { microToUsd, sumMicro } from '@/lib/platform/kit/micro';
import { services } from '@/lib/services';
import { AddFunds, CheckoutNotice, TopUpHistory } from '../../funds';
import { ConsoleHeader, ConsoleNav } from '../../nav';
import { requirePublisher as requireSignedIn } from '../../publisher';
import { Totals } from '../../tables';
import { checkoutAction, topUpAction } from '../actions';
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
      <CheckoutNotice checkout={checkout} />
      <AddFunds
        invoice={topUpAction}
        card={s.stripe ? checkoutAction : null}
        minimumUsd={microToUsd(minimum)}
        guide={<Link href="/docs/advertisers">How funds work</Link>}
      />
      <TopUpHistory topUps={account.top_ups} base="/dashboard/ads/funds" />
    </div>
  );
}
