import { deliveryReport, type Delivery } from '@/lib/ads/advertisers/delivery';
import type { Campaign } from '@/lib/ads/advertisers/account';
import { countOf, formatCount, formatPercent } from '@/lib/platform/kit/format';
import type { Micro } from '@/lib/platform/kit/micro';
import type { PlacementFormat } from '@/lib/schemas/account';
import { Alert } from '../../_components/ui/alert';
import { usd } from './display';

/** The market's rounded figures: "under 10" where rounding leaves nothing, "about 1,200" otherwise. */
const about = (n: number) => (n === 0 ? 'under 10' : `about ${formatCount(n)}`);

/**
 * A campaign's delivery: today's requests on what it targets and how many it won, where the rest
 * went, what keeps it from the draw now, the share of the draw its budget buys, and what a day is
 * likely to bring (lib/ads/advertisers/delivery.ts). The market's figures are rounded.
 */
export function DeliveryPanel(props: {
  campaign: Pick<Campaign, 'status' | 'formats' | 'starts_at' | 'frequency_cap' | 'context_hints'>;
  delivery: Delivery;
  balance: Micro;
  cpmMicro: Record<PlacementFormat, number>;
}) {
  const { campaign: c, delivery: d } = props;
  const r = deliveryReport(c, d, props.balance, props.cpmMicro);
  const running = c.status === 'active';
  return (
    <section aria-labelledby="delivery" className="mb-10 grid grid-cols-1 gap-4" data-testid="delivery">
      <h2 id="delivery">Delivery</h2>
      {r.blockers.length > 0 ? (
        <Alert tone={running ? 'warning' : 'info'}>
          {running ? 'Not serving now: ' : 'It does not serve yet: '}
          {r.blockers.join(' ')}
        </Alert>
      ) : (
        <p className="text-sm">It takes part in the draw for every request it targets.</p>
      )}
      <dl className="grid grid-cols-2 gap-3 sm:grid-cols-4">
        {[
          { label: 'Requests it could win today', value: about(d.requests), testId: 'delivery-requests' },
          { label: 'Won today', value: formatCount(d.won), testId: 'delivery-won' },
          { label: 'Spent today', value: `${usd(d.spent_micro)} of ${usd(d.daily_budget_micro)}` },
          { label: 'Its share of the draw', value: formatPercent(r.share) },
        ].map((f) => (
          <div key={f.label} className="rounded-xl border bg-card p-4">
            <dt className="text-sm text-muted-foreground">{f.label}</dt>
            <dd className="text-xl font-semibold tabular-nums" data-testid={f.testId}>
              {f.value}
            </dd>
          </div>
        ))}
      </dl>
      <div className="grid gap-2 text-sm">
        <h3 className="text-base">Where today’s requests went</h3>
        <ul className="grid list-disc gap-1 pl-5">
          <li>
            Won by this campaign: {countOf(d.won, 'request')}; won by other campaigns: {about(r.wonByOthers)}. The draw picks among the campaigns that may show
            by daily budget (tripled where a keyword of the request is one of theirs): yours, {usd(d.daily_budget_micro)} a day, beside{' '}
            {usd(d.competing_budget_micro)} a day of other running campaigns buying its formats.
          </li>
          <li>
            Given to no campaign: {about(r.unfilled)} (a sensitive conversation: {about(d.unfilled.sensitive)}; a conversation no campaign fits:{' '}
            {about(d.unfilled.below_relevance)}; blocked by the app: {about(d.unfilled.blocked)}; no campaign eligible: {about(d.unfilled.no_eligible_campaign)}
            ).
          </li>
          <li>
            Where the app sends the conversation, a campaign is drawn only if it fits it
            {c.context_hints.length ? `: its hints are ${c.context_hints.map((h) => `“${h}”`).join(', ')}` : ', and this one has no context hints yet'}.
          </li>
          <li>Frequency cap: at most {countOf(c.frequency_cap, 'ad')} of it a day to one viewer’s network; requests beyond it go to others.</li>
          <li>Apps outside its categories, formats it does not buy, and apps that block it are not counted above.</li>
        </ul>
      </div>
      <p className="text-sm" data-testid="delivery-estimate">
        <span className="font-medium">Reach estimate:</span> the placements it targets had {about(r.estimate.requestsPerDay)} requests a day over the last week.
        At its share, expect about {countOf(r.estimate.winsPerDay, 'ad')} a day, costing about {usd(r.estimate.costPerDayMicro)} (at most its{' '}
        {usd(d.daily_budget_micro)} a day). An estimate from the last week: relevance, caps and other campaigns change it.
      </p>
      <p className="text-xs text-muted-foreground">
        Today is {d.day} (UTC), the day budgets run by; figures are counted within seconds. Other apps’ traffic and other campaigns’ budgets are rounded.
      </p>
    </section>
  );
}
