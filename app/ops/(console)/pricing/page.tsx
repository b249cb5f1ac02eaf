import type { Metadata } from 'next';
import { formatMoment } from '@/lib/platform/kit/format';
import { PRICING_FIELDS, staffPricing, type StaffPricing } from '@/lib/ops/pricing';
import { services } from '@/lib/services';
import { pricingAction } from '../../actions';
import { PricingForm } from '../../forms';
import { OpsFrame } from '../../frame';
import { requireStaff } from '../../staff';
import { ScrollTable } from '../../../dashboard/tables';
import { EmptyState } from '../../../_components/ui/empty-state';

export const metadata: Metadata = { title: 'Pricing · Operator console', robots: { index: false, follow: false } };
export const dynamic = 'force-dynamic';

/** The prices in force, the form that changes them from a stated time, and the changes scheduled and applied. */
export default async function OpsPricingPage() {
  const staff = await requireStaff();
  const pricing = await staffPricing(await services().database(), staff);
  const { current } = pricing;
  return (
    <OpsFrame
      staff={staff}
      current="/ops/pricing"
      title="Pricing"
      about={`What is billed is priced with the values in force when it is billed, and keeps that price: a change takes effect now or from a later time, never earlier, and reaches only what is billed after it. A later change goes into force within seconds of its time (a minute on Vercel).${current ? ` In force since ${formatMoment(current.updated_at.toISOString())}.` : ''}`}
    >
      <section aria-labelledby="pricing" className="grid grid-cols-1 gap-4">
        <h2 id="pricing">Change the prices</h2>
        {current ? <PricingForm action={pricingAction} current={current} /> : <EmptyState title="No pricing is in force: the database has no pricing row." />}
      </section>
      <section aria-labelledby="changes" className="grid grid-cols-1 gap-4">
        <h2 id="changes">Changes</h2>
        <ScrollTable label="Pricing changes" head={['From', 'Applied', 'Changed', 'Why', 'By']}>
          {pricing.changes.map((c, i) => (
            <tr key={c.id}>
              <td>{formatMoment(c.effective_at.toISOString())}</td>
              <td>{c.applied_at ? formatMoment(c.applied_at.toISOString()) : 'waiting'}</td>
              <td>{changedValues(c, pricing.changes[i + 1])}</td>
              <td>{c.reason}</td>
              <td>{c.scheduled_by_email ?? '—'}</td>
            </tr>
          ))}
        </ScrollTable>
      </section>
    </OpsFrame>
  );
}

/** What a change sets that the one scheduled before it did not (all of it for the first), as `label: value` pairs. */
function changedValues(change: StaffPricing['changes'][number], before: StaffPricing['changes'][number] | undefined): string {
  const changed = PRICING_FIELDS.filter((f) => !before || before[f.name] !== change[f.name]);
  return changed.length === 0 ? 'the same values' : changed.map((f) => `${f.label}: ${change[f.name]}`).join('; ');
}
