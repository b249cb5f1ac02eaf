import type { Metadata } from 'next';
import { formatMoment } from '@/lib/platform/kit/format';
import { advertisingQueue } from '@/lib/ops/advertising';
import { services } from '@/lib/services';
import { topUpRecordAction } from '../../actions';
import { TopUpRecordForm } from '../../forms';
import { OpsFrame } from '../../frame';
import { usd } from '../../money';
import { requireStaff } from '../../staff';
import { Badge } from '../../../_components/ui/badge';
import { EmptyState } from '../../../_components/ui/empty-state';

export const metadata: Metadata = { title: 'Top-ups · Operator console', robots: { index: false, follow: false } };
export const dynamic = 'force-dynamic';

/** Invoices advertisers and data buyers asked for: record the transfer that pays one, or cancel it. */
export default async function OpsTopUpsPage() {
  const staff = await requireStaff();
  const ads = await advertisingQueue(await services().database(), staff);
  return (
    <OpsFrame
      staff={staff}
      current="/ops/top-ups"
      title="Top-ups to record"
      about="Invoices advertisers and data buyers asked for: when a transfer quoting one arrives, record it, and the balance it funds is credited once."
    >
      <section aria-label="Top-ups to record" className="grid grid-cols-1 gap-4">
        {ads.top_ups.length === 0 ? (
          <EmptyState title="No invoice is waiting for payment." />
        ) : (
          ads.top_ups.map((t) => {
            const invoice = t.invoice_number ?? t.id;
            const who = t.company ?? t.email;
            return (
              <article key={t.id} className="grid gap-3 rounded-xl border bg-card p-4 sm:p-6" aria-label={`Invoice ${invoice}`} data-testid="open-top-up">
                <h2 className="flex flex-wrap items-center gap-2 text-base">
                  <span className="break-words">
                    {usd(t.amount_micro)} · {invoice} · {who}
                  </span>
                  {t.account_kind === 'buyer' && <Badge tone="info">Data buyer</Badge>}
                </h2>
                <p className="text-sm text-muted-foreground">
                  Asked {formatMoment(t.requested_at.toISOString())} by {t.email}.
                </p>
                <TopUpRecordForm
                  action={topUpRecordAction}
                  topUpId={t.id}
                  label={`invoice ${invoice} of ${usd(t.amount_micro)} from ${who}`}
                  invoice={invoice}
                  amount={usd(t.amount_micro)}
                  who={who}
                  balance={t.account_kind === 'buyer' ? 'data balance' : 'advertising balance'}
                />
              </article>
            );
          })
        )}
      </section>
    </OpsFrame>
  );
}
