import type { Metadata } from 'next';
import Link from 'next/link';
import { countOf, formatMoment } from '@/lib/platform/kit/format';
import { advertisingQueue } from '@/lib/ops/advertising';
import { dataQueue } from '@/lib/ops/data';
import { staffPricing } from '@/lib/ops/pricing';
import { reversalsQueue } from '@/lib/ops/reversals';
import { staffOverview } from '@/lib/money/payouts/staff';
import { services } from '@/lib/services';
import { OpsFrame } from '../frame';
import { usd } from '../money';
import { requireStaff } from '../staff';

export const metadata: Metadata = { title: 'Operator console', robots: { index: false, follow: false } };
export const dynamic = 'force-dynamic';

const sum = (amounts: number[]) => amounts.reduce((a, b) => a + b, 0);

/** What waits for the operator, each kind of work with how much of it there is and a link to its page. */
export default async function OpsOverviewPage() {
  const staff = await requireStaff();
  const db = await services().database();
  const [o, ads, data, pricing, reversals] = await Promise.all([
    staffOverview(db, staff),
    advertisingQueue(db, staff),
    dataQueue(db, staff, 50),
    staffPricing(db, staff),
    reversalsQueue(db, staff),
  ]);
  const open = o.payouts.filter((p) => p.open);
  const reviews = ads.campaigns.length + ads.creatives.length + data.licenses.length;
  const cards = [
    {
      href: '/ops/top-ups',
      title: 'Top-ups to record',
      value: countOf(ads.top_ups.length, 'invoice'),
      detail: ads.top_ups.length ? `${usd(sum(ads.top_ups.map((t) => t.amount_micro)))} to credit when the transfers arrive` : 'Nothing is waiting.',
    },
    {
      href: '/ops/reviews',
      title: 'Reviews',
      value: countOf(reviews, 'waiting', 'waiting'),
      detail: `${countOf(ads.campaigns.length, 'campaign')}, ${countOf(ads.creatives.length, 'creative')} in running campaigns, ${countOf(data.licenses.length, 'exclusive data license')}`,
    },
    {
      href: '/ops/payouts',
      title: 'Payouts to send',
      value: countOf(open.length, 'payout'),
      detail: open.length ? `${usd(sum(open.map((p) => p.amount_micro)))} to publishers` : 'Nothing is waiting.',
    },
    {
      href: '/ops/balances',
      title: 'Accounts on hold',
      value: countOf(reversals.holds.length, 'account'),
      detail: reversals.holds.length ? 'Card money taken back: release once settled.' : 'No account is on hold.',
    },
    {
      href: '/ops/months',
      title: 'Month close',
      value: o.months[0] ? `${o.months[0].month.slice(0, 7)} closed` : 'No month closed yet',
      detail: o.months[0]
        ? `${usd(o.months[0].amount_micro)} made available to ${countOf(o.months[0].publishers, 'publisher')}`
        : 'A month closes on the 5th of the next.',
    },
    {
      href: '/ops/pricing',
      title: 'Pricing',
      value: pricing.current ? 'In force' : 'No pricing',
      detail: pricing.current ? `Since ${formatMoment(pricing.current.updated_at.toISOString())}` : 'The database has no pricing row.',
    },
  ];
  return (
    <OpsFrame staff={staff} current="/ops" title="Operator console" about="What waits for you. Each money action asks first and says what it moves.">
      <ul className="grid grid-cols-1 gap-4 sm:grid-cols-2 lg:grid-cols-3">
        {cards.map((c) => (
          <li key={c.href}>
            <Link href={c.href} className="grid h-full gap-1 rounded-xl border bg-card p-4 text-foreground no-underline hover:bg-accent sm:p-6">
              <span className="text-sm text-muted-foreground">{c.title}</span>
              <span className="text-xl font-semibold tabular-nums">{c.value}</span>
              <span className="text-sm text-muted-foreground">{c.detail}</span>
            </Link>
          </li>
        ))}
      </ul>
    </OpsFrame>
  );
}
