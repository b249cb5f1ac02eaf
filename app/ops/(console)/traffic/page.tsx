import type { Metadata } from 'next';
import { formatCount, formatPercent, wordOf } from '@/lib/platform/kit/format';
import { invalidShare } from '@/lib/money/figures';
import { trafficQuality } from '@/lib/ops/traffic';
import { services } from '@/lib/services';
import { OpsFrame } from '../../frame';
import { requireStaff } from '../../staff';
import { ScrollTable } from '../../../dashboard/tables';
import { EmptyState } from '../../../_components/ui/empty-state';

export const metadata: Metadata = { title: 'Traffic quality · Operator console', robots: { index: false, follow: false } };
export const dynamic = 'force-dynamic';

const DAYS = 30;

/** What was refused, of all received: a dash when nothing was. */
const share = (valid: number, invalid: number) => (valid + invalid > 0 ? formatPercent(invalidShare(invalid, valid)) : '—');

/** The reasons, most first: "repeat_click 3, before_impression 1". */
const reasons = (counts: Record<string, number>) =>
  Object.entries(counts)
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .map(([reason, n]) => `${wordOf(reason)} ${formatCount(n)}`)
    .join(', ') || '—';

/** Each campaign's share of refused clicks and of invalid conversions: what looks bought is looked into here. */
export default async function OpsTrafficPage() {
  const staff = await requireStaff();
  const rows = await trafficQuality(await services().database(), staff, DAYS);
  return (
    <OpsFrame
      staff={staff}
      current="/ops/traffic"
      title="Traffic quality"
      about={`The last ${DAYS} days of each campaign: clicks counted and refused (each ad's refusal once per reason), conversions counted and kept as invalid, with why. A high share is worth a look at the apps and the advertiser behind it.`}
    >
      {rows.length === 0 ? (
        <EmptyState title="No clicks or conversions">{`No campaign had a click or a conversion in the last ${DAYS} days.`}</EmptyState>
      ) : (
        <ScrollTable
          label="Traffic quality per campaign"
          head={[
            'Campaign',
            'Advertiser',
            'Clicks',
            'Refused clicks',
            'Refused share',
            'Why refused',
            'Conversions',
            'Invalid conversions',
            'Invalid share',
            'Why invalid',
          ]}
        >
          {rows.map((r) => (
            <tr key={r.id}>
              <th scope="row">{r.name}</th>
              <td>{r.advertiser}</td>
              <td className="num">{formatCount(r.clicks)}</td>
              <td className="num">{formatCount(r.invalid_clicks)}</td>
              <td className="num" data-testid="invalid-click-share">
                {share(r.clicks, r.invalid_clicks)}
              </td>
              <td>{reasons(r.click_reasons)}</td>
              <td className="num">{formatCount(r.conversions)}</td>
              <td className="num">{formatCount(r.invalid_conversions)}</td>
              <td className="num" data-testid="invalid-conversion-share">
                {share(r.conversions, r.invalid_conversions)}
              </td>
              <td>{reasons(r.conversion_reasons)}</td>
            </tr>
          ))}
        </ScrollTable>
      )}
    </OpsFrame>
  );
}
