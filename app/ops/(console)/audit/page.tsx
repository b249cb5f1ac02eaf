import type { Metadata } from 'next';
import { formatMoment } from '@/lib/platform/kit/format';
import { staffOverview } from '@/lib/money/payouts/staff';
import { services } from '@/lib/services';
import { OpsFrame } from '../../frame';
import { requireStaff } from '../../staff';
import { ScrollTable } from '../../../dashboard/tables';

export const metadata: Metadata = { title: 'Audit log · Operator console', robots: { index: false, follow: false } };
export const dynamic = 'force-dynamic';

/** What staff did, newest first: the database writes each entry with the act it records. */
export default async function OpsAuditPage() {
  const staff = await requireStaff();
  const o = await staffOverview(await services().database(), staff);
  return (
    <OpsFrame
      staff={staff}
      current="/ops/audit"
      title="Audit log"
      about="Every act of staff, written by the database in the same transaction as the act: the latest 100."
    >
      <section aria-labelledby="audit" className="grid grid-cols-1 gap-4">
        <h2 id="audit" className="sr-only">
          Audit log
        </h2>
        <ScrollTable label="Audit log" head={['When', 'Who', 'What', 'Of', 'Why']}>
          {o.audit.map((a) => (
            <tr key={a.id}>
              <td>{formatMoment(a.at.toISOString())}</td>
              <td>{a.staff ?? '—'}</td>
              <td>{a.action}</td>
              <td>{a.subject ?? '—'}</td>
              <td>{a.reason ?? '—'}</td>
            </tr>
          ))}
        </ScrollTable>
      </section>
    </OpsFrame>
  );
}
