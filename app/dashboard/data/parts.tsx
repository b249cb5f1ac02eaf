import Link from 'next/link';
import { formatMoment } from '@/lib/platform/kit/format';
import type { BuyerFunds, DeletionNotice, LicenseStatus } from '@/lib/data/buyers/account';
import { DELIVERY_STATUS, EXPORT_STATUS, LICENSE_STATUS, NOTICE_REASON, records, usd } from '@/lib/data/buyers/display';
import type { ExportStatus } from '@/lib/data/buyers/downloads';
import { deliveryLine, type WebhookDelivery } from '@/lib/data/buyers/webhook-settings';
import { Alert } from '../../_components/ui/alert';
import { Badge } from '../../_components/ui/badge';
import { ScrollTable, Totals } from '../tables';
import { acknowledgeAction } from './actions';
import { AcknowledgeForm } from './forms';

/** A license's status as a badge (the word is always there: colour is never the only sign). */
export function LicenseBadge({ status }: { status: LicenseStatus }) {
  const s = LICENSE_STATUS[status];
  return <Badge tone={s.tone}>{s.label}</Badge>;
}

export function ExportBadge({ status }: { status: ExportStatus['status'] }) {
  const s = EXPORT_STATUS[status];
  return <Badge tone={s.tone}>{s.label}</Badge>;
}

/** The buyer's balance, what exclusive licenses in review reserve of it, and what is left to spend. */
export function FundsTotals({ funds }: { funds: BuyerFunds }) {
  return (
    <Totals
      items={[
        { label: 'Balance', value: usd(funds.balance_micro), testId: 'buyer-balance', exact: funds.balance_micro },
        { label: 'Reserved for licenses in review', value: usd(funds.reserved_micro), testId: 'buyer-reserved', exact: funds.reserved_micro },
        { label: 'Available', value: usd(funds.available_micro), testId: 'buyer-available', exact: funds.available_micro },
      ]}
    />
  );
}

/**
 * One deletion notice: why the records went, the licenses that held them, every record id (in a
 * box that scrolls), and, until it is acknowledged, the button that says the buyer deleted them.
 */
export function NoticeCard({
  notice,
  licenseLabel,
  back,
  delivery,
}: {
  notice: DeletionNotice;
  licenseLabel: (id: string) => string;
  back: string;
  /** Its delivery to the buyer's webhook, when it has one. */
  delivery?: WebhookDelivery;
}) {
  const when = formatMoment(notice.created_at.toISOString());
  const title = `Deletion notice of ${when}`;
  const headingId = `notice-${notice.id}`;
  return (
    <article aria-labelledby={headingId} className="grid min-w-0 gap-3 rounded-xl border bg-card p-4 sm:p-6" data-testid="deletion-notice">
      <h3 id={headingId} className="text-base">
        {title}: {records(notice.record_ids.length)}
      </h3>
      <p className="text-sm">
        {NOTICE_REASON[notice.reason]} We deleted them from the platform, and your licenses’ files are written again without them. The{' '}
        <Link href="/docs/data-buyers#terms">license terms</Link> ask you to delete them too, with every copy you keep, within 30 days, and to acknowledge this
        notice once you have.
      </p>
      <p className="text-sm">
        {notice.license_ids.length === 1 ? 'License' : 'Licenses'}:{' '}
        {notice.license_ids.map((id, i) => (
          <span key={id}>
            {i > 0 && ', '}
            <Link href={`/dashboard/data/licenses/${id}`}>{licenseLabel(id)}</Link>
          </span>
        ))}
      </p>
      <div className="grid gap-1.5">
        <p className="text-sm font-medium" id={`${headingId}-ids`}>
          The records’ ids (<code>record_id</code> in your files)
        </p>
        <div
          role="region"
          tabIndex={0}
          aria-labelledby={`${headingId}-ids`}
          className="max-h-40 min-w-0 overflow-auto rounded-lg border bg-muted p-2 font-mono text-xs"
        >
          <ul className="grid gap-0.5">
            {notice.record_ids.map((id) => (
              <li key={id} className="break-all">
                {id}
              </li>
            ))}
          </ul>
        </div>
      </div>
      {delivery && (
        <p className="text-sm" data-testid="notice-delivery">
          <DeliveryBadge status={delivery.status} /> {deliveryLine(delivery)}
        </p>
      )}
      {notice.acknowledged_at ? (
        <p className="text-sm text-muted-foreground">You acknowledged it on {formatMoment(notice.acknowledged_at.toISOString())}.</p>
      ) : (
        <AcknowledgeForm action={acknowledgeAction} noticeId={notice.id} label={title} back={back} />
      )}
    </article>
  );
}

/** What a page says after a deletion notice was acknowledged from it (`?acknowledged=1`). */
export function AcknowledgedAlert({ shown }: { shown: boolean }) {
  if (!shown) return null;
  return (
    <Alert tone="success" className="mb-6">
      Acknowledged: you confirmed that you deleted the records the notice named.
    </Alert>
  );
}

export function DeliveryBadge({ status }: { status: WebhookDelivery['status'] }) {
  const s = DELIVERY_STATUS[status];
  return <Badge tone={s.tone}>{s.label}</Badge>;
}

/** The latest deliveries of deletion notices to the buyer's webhook: when the notice came, how it went, in words. */
export function WebhookDeliveries({ deliveries }: { deliveries: WebhookDelivery[] }) {
  return (
    <ScrollTable label="Deliveries to your webhook" head={['Notice of', 'Status', 'Details']}>
      {deliveries.map((d) => (
        <tr key={d.id}>
          <th scope="row">{formatMoment(d.created_at.toISOString())}</th>
          <td>
            <DeliveryBadge status={d.status} />
          </td>
          <td className="min-w-64 whitespace-normal break-words">{deliveryLine(d)}</td>
        </tr>
      ))}
    </ScrollTable>
  );
}
