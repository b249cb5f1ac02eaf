import type { ReactNode } from 'react';
import type { z } from 'zod';
import { clickThroughRate, formatCount, formatDay, formatMoment, formatPercent, formatUsd, wordOf } from '@/lib/platform/kit/format';
import type { apiKey, payout, placement } from '@/lib/schemas/account';
import { formatName } from '@/lib/schemas/format-names';
import type { Unfilled } from '@/lib/publisher/ad-rules';
import { NO_FILL_REASONS, type NoFillReason } from '@/lib/schemas/sdk';
import { Badge } from '../_components/ui/badge';
import { Table } from '../_components/ui/table';

type Placement = z.infer<typeof placement>;
type ApiKey = z.infer<typeof apiKey>;
type Payout = z.infer<typeof payout>;

/** A table with its header row; it scrolls inside itself on a narrow screen, its actions column pinned. */
export function ScrollTable({ label, head, children, stickyActions }: { label: string; head: string[]; children: ReactNode; stickyActions?: boolean }) {
  return (
    <Table label={label} stickyActions={stickyActions}>
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
    </Table>
  );
}

/** The unfilled requests' columns, by the reason the `No-Fill-Reason` header gives. */
const UNFILLED_HEADS: Record<NoFillReason, string> = {
  sensitive: 'Sensitive',
  below_relevance: 'Below relevance',
  blocked: 'Blocked',
  no_eligible_campaign: 'No campaign could fill',
  placement_inactive: 'Paused or archived',
};

const NUMERIC = new Set([
  'Impressions',
  'Clicks',
  'CTR',
  'Revenue',
  'Fill rate',
  'RPM',
  'Invalid',
  'Amount',
  'Spend',
  'eCPM',
  'Budget',
  'Budget left',
  'Fills',
  'Records',
  'Price',
  'Size',
  'Sales',
  'Earned',
  'Requests',
  'Filled',
  ...Object.values(UNFILLED_HEADS),
  'Hidden by users',
]);

/** Placements with their figures; `actions` adds a last column (the app page's buttons). */
export function PlacementTable({ label, placements, actions }: { label: string; placements: Placement[]; actions?: (p: Placement) => ReactNode }) {
  const head = [
    'Name',
    'Format',
    'Status',
    'Impressions',
    'Clicks',
    'CTR',
    'Revenue',
    'Of it from clicks',
    'Fill rate',
    'RPM',
    'Invalid',
    ...(actions ? ['Actions'] : []),
  ];
  return (
    <ScrollTable label={label} head={head} stickyActions={Boolean(actions)}>
      {placements.map((p) => (
        <tr key={p.id}>
          <th scope="row">{p.name}</th>
          <td>{formatName(p.format)}</td>
          <td>
            <StatusBadge status={p.status} />
          </td>
          <td className="num">{formatCount(p.impressions)}</td>
          <td className="num">{formatCount(p.clicks)}</td>
          <td className="num">{formatPercent(clickThroughRate(p.clicks, p.impressions))}</td>
          <td className="num">{formatUsd(p.revenue_usd)}</td>
          <td className="num" title="What clicks on ads paid per click earned; the rest of the revenue is impressions'">
            {formatUsd(p.click_revenue_usd)}
          </td>
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

/** Each placement's least relevance (a form) and its requests of the last days, filled or by why not (lib/publisher/ad-rules.ts). */
export function UnfilledTable({
  label,
  placements,
  unfilled,
  relevance,
}: {
  label: string;
  placements: Placement[];
  unfilled: ReadonlyMap<string, Unfilled>;
  relevance: (p: Placement) => ReactNode;
}) {
  const head = ['Placement', 'Least relevance', 'Requests', 'Filled', ...NO_FILL_REASONS.map((r) => UNFILLED_HEADS[r]), 'Hidden by users'];
  return (
    <ScrollTable label={label} head={head}>
      {placements.map((p) => {
        const u = unfilled.get(p.id);
        return (
          <tr key={p.id}>
            <th scope="row">{p.name}</th>
            <td>{relevance(p)}</td>
            {(['requests', 'fills', ...NO_FILL_REASONS, 'hides'] as const).map((k) => (
              <td key={k} className="num">
                {formatCount(u?.[k] ?? 0)}
              </td>
            ))}
          </tr>
        );
      })}
    </ScrollTable>
  );
}

/** Keys, masked, with their last use; `actions` adds a last column. */
export function KeyTable({ label, keys, actions }: { label: string; keys: ApiKey[]; actions?: (k: ApiKey) => ReactNode }) {
  const head = ['Name', 'Key', 'Kind', 'Environment', 'Status', 'Created', 'Last used', ...(actions ? ['Actions'] : [])];
  return (
    <ScrollTable label={label} head={head} stickyActions={Boolean(actions)}>
      {keys.map((k) => (
        <tr key={k.id}>
          <th scope="row">{k.name}</th>
          <td>
            <code>{k.masked_key}</code>
          </td>
          <td>{k.kind === 'server' ? 'Server' : 'Publishable'}</td>
          <td>{k.environment}</td>
          <td>
            <StatusBadge status={k.status} />
          </td>
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
  if (payouts.length === 0) return <p className="text-sm text-muted-foreground">No payouts yet.</p>;
  return (
    <ScrollTable label="Payouts" head={['Period', 'Amount', 'Status', 'Requested', 'Paid', ...(actions ? ['Actions'] : [])]} stickyActions={Boolean(actions)}>
      {payouts.map((p, i) => (
        <tr key={p.id ?? `${p.requested_at}-${i}`}>
          <th scope="row">{p.period}</th>
          <td className="num">{formatUsd(p.amount_usd)}</td>
          <td>
            <StatusBadge status={p.status} />
            {p.failure_reason ? <span className="ml-2 text-xs text-muted-foreground">{p.failure_reason}</span> : null}
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
/**
 * Figures in boxes. An amount shown rounded may carry its exact value (`exact`, micro-dollars) in a
 * `<data>` element, for whoever reads the page by machine (a figure smaller than a cent shows there).
 */
export function Totals({ items }: { items: { label: string; value: string; testId?: string; exact?: number }[] }) {
  return (
    <dl className="grid grid-cols-2 gap-3 md:grid-cols-3 xl:grid-cols-5">
      {items.map((item) => (
        <div key={item.label} className="flex min-w-0 flex-col gap-1 rounded-xl border bg-card p-4">
          <dt className="text-sm text-muted-foreground">{item.label}</dt>
          <dd data-testid={item.testId} className="truncate text-xl font-semibold tabular-nums sm:text-2xl">
            {item.exact === undefined ? item.value : <data value={item.exact}>{item.value}</data>}
          </dd>
        </div>
      ))}
    </dl>
  );
}

const TONE: Record<string, 'success' | 'warning' | 'danger' | 'info' | 'neutral'> = {
  active: 'success',
  paid: 'success',
  paused: 'warning',
  pending: 'info',
  processing: 'info',
  failed: 'danger',
  revoked: 'danger',
  canceled: 'neutral',
  archived: 'neutral',
  draft: 'neutral',
  in_review: 'info',
  scheduled: 'info',
  requested: 'info',
  completed: 'neutral',
  rejected: 'danger',
};

/** A status as a coloured badge (the word is always there: colour is never the only sign). */
export function StatusBadge({ status }: { status: string }) {
  return <Badge tone={TONE[status] ?? 'neutral'}>{wordOf(status)}</Badge>;
}
