import type { Metadata } from 'next';
import { countOf, formatDay } from '@/lib/platform/kit/format';
import { staffOverview } from '@/lib/money/payouts/staff';
import { monthsDue } from '@/lib/ops/months';
import { services } from '@/lib/services';
import { closeMonthsAction } from '../../actions';
import { CloseMonthsForm } from '../../forms';
import { OpsFrame } from '../../frame';
import { usd } from '../../money';
import { requireStaff } from '../../staff';
import { ScrollTable } from '../../../dashboard/tables';

export const metadata: Metadata = { title: 'Month close · Operator console', robots: { index: false, follow: false } };
export const dynamic = 'force-dynamic';

/** The months closed, and the close of those due now, which states what it would make available before it runs. */
export default async function OpsMonthsPage() {
  const staff = await requireStaff();
  const db = await services().database();
  const [o, due] = await Promise.all([staffOverview(db, staff), monthsDue(db, staff)]);
  return (
    <OpsFrame
      staff={staff}
      current="/ops/months"
      title="Month close"
      about="A month closes on the 5th of the next, by itself: its publishers’ earnings become final and payable. This closes the months due now, without waiting."
    >
      <section aria-labelledby="due" className="grid grid-cols-1 gap-4">
        <h2 id="due">Due now</h2>
        <CloseMonthsForm
          action={closeMonthsAction}
          due={due.map((d) => ({ month: d.month.slice(0, 7), publishers: d.publishers, amount: usd(d.amount_micro) }))}
        />
      </section>
      <section aria-labelledby="closed" className="grid grid-cols-1 gap-4">
        <h2 id="closed">Closed months</h2>
        <ScrollTable label="Closed months" head={['Month', 'Closed', 'Publishers', 'Made available']}>
          {o.months.map((m) => (
            <tr key={m.month}>
              <th scope="row">{m.month.slice(0, 7)}</th>
              <td>{formatDay(m.closed_at.toISOString())}</td>
              <td className="num">{countOf(m.publishers, 'publisher')}</td>
              <td className="num">{usd(m.amount_micro)}</td>
            </tr>
          ))}
        </ScrollTable>
      </section>
    </OpsFrame>
  );
}
