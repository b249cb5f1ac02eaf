import type { ReactNode } from 'react';
import type { z } from 'zod';
import { clickThroughRate, formatCount, formatDay, formatMoment, formatPercent, formatUsd } from '@/lib/console/format';
import type { apiKey, payout, placement } from '@/lib/schemas/account';

type Placement = z.infer<typeof placement>;
type ApiKey = z.infer<typeof apiKey>;
type Payout = z.infer<typeof payout>;

/** A table that scrolls sideways on a narrow screen, reachable by keyboard. */
export function ScrollTable({ label, head, children }: { label: string; head: string[]; children: ReactNode }) {
  return (
    <div className="table-scroll" tabIndex={0} role="region" aria-label={label}>
      <table>
        <thead>
          <tr>
            {head.map((h) => (
              <th key={h} scope="col" className={NUMERIC.has(h) ? 'num' : undefined}>
                {h}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}

const NUMERIC = new Set(['Impressions', 'Clicks', 'CTR', 'Revenue', 'Fill rate', 'RPM', 'Invalid', 'Amount']);

/** Placements with their figures; `actions` adds a last column (the app page's buttons). */
export function PlacementTable({ label, placements, actions }: { label: string; placements: Placement[]; actions?: (p: Placement) => ReactNode }) {
  const head = ['Name', 'Format', 'Status', 'Impressions', 'Clicks', 'CTR', 'Revenue', 'Fill rate', 'RPM', 'Invalid', ...(actions ? ['Actions'] : [])];
  return (
    <ScrollTable label={label} head={head}>
      {placements.map((p) => (
        <tr key={p.id}>
          <th scope="row">{p.name}</th>
          <td>{p.format}</td>
          <td>{p.status}</td>
          <td className="num">{formatCount(p.impressions)}</td>
          <td className="num">{formatCount(p.clicks)}</td>
          <td className="num">{formatPercent(clickThroughRate(p.clicks, p.impressions))}</td>
          <td className="num">{formatUsd(p.revenue_usd)}</td>
          <td className="num">{formatPercent(p.fill_rate)}</td>
          <td className="num">{formatUsd(p.rpm_usd)}</td>
          <td className="num" title="Impressions and clicks refused as invalid traffic, never billed">
            {formatPercent(p.invalid_share)}
          </td>
          {actions && <td>{actions(p)}</td>}
        </tr>
      ))}
    </ScrollTable>
  );
}

/** Keys, masked, with their last use; `actions` adds a last column. */
export function KeyTable({ label, keys, actions }: { label: string; keys: ApiKey[]; actions?: (k: ApiKey) => ReactNode }) {
  const head = ['Name', 'Key', 'Environment', 'Status', 'Created', 'Last used', ...(actions ? ['Actions'] : [])];
  return (
    <ScrollTable label={label} head={head}>
      {keys.map((k) => (
        <tr key={k.id}>
          <th scope="row">{k.name}</th>
          <td>
            <code>{k.masked_key}</code>
          </td>
          <td>{k.environment}</td>
          <td>{k.status}</td>
          <td>{formatDay(k.created_at)}</td>
          <td>{formatMoment(k.last_used_at)}</td>
          {actions && <td>{actions(k)}</td>}
        </tr>
      ))}
    </ScrollTable>
  );
}

/** The payouts section of a console page. */
export function PayoutsSection({ payouts }: { payouts: Payout[] }) {
  return (
    <section aria-labelledby="payouts">
      <h2 id="payouts">Payouts</h2>
      <PayoutTable payouts={payouts} />
    </section>
  );
}

/** Payouts, the most recent first, with their statuses (and, for one that failed, why); `actions` adds a last column. */
export function PayoutTable({ payouts, actions }: { payouts: (Payout & { id?: string })[]; actions?: (p: Payout & { id?: string }) => ReactNode }) {
  if (payouts.length === 0) return <p>No payouts yet.</p>;
  return (
    <ScrollTable label="Payouts" head={['Period', 'Amount', 'Status', 'Requested', 'Paid', ...(actions ? [''] : [])]}>
      {payouts.map((p, i) => (
        <tr key={p.id ?? `${p.requested_at}-${i}`}>
          <th scope="row">{p.period}</th>
          <td className="num">{formatUsd(p.amount_usd)}</td>
          <td>
            {p.status}
            {p.failure_reason ? <span className="hint"> — {p.failure_reason}</span> : null}
          </td>
          <td>{formatDay(p.requested_at)}</td>
          <td>{p.paid_at ? formatDay(p.paid_at) : '—'}</td>
          {actions ? <td>{actions(p)}</td> : null}
        </tr>
      ))}
    </ScrollTable>
  );
}

/** Headline figures, each with its label. */
export function Totals({ items }: { items: { label: string; value: string; testId?: string }[] }) {
  return (
    <dl className="totals">
      {items.map((item) => (
        <div key={item.label}>
          <dt>{item.label}</dt>
          <dd data-testid={item.testId}>{item.value}</dd>
        </div>
      ))}
    </dl>
  );
}
