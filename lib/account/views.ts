import type { z } from 'zod';
import {
  appsBody,
  apiKeysBody,
  campaignsBody,
  dailyBody,
  earningsBody,
  licensesBody,
  profileBody,
  type apiKeysQuery,
  type ApiKeyRow,
  type AppRow,
  type appsQuery,
  type BuyerFundsRow,
  type CampaignRow,
  type campaignsQuery,
  type DailyRow,
  type dailyQuery,
  type LicenseRow,
  type licensesQuery,
  type MoneyRow,
  type PayoutRow,
  type PlacementRow,
  type ProfileRow,
} from '../schemas/account';
import { maskApiKey } from '../identity/keys/api-key';
import { clickThroughRate, ecpmUsd, exactSumUsd, fillRate, invalidShare, rpmUsd } from '../money/figures';
import { costPerConversion, costPerConversionUsd, micro, microAsUsd, returnOnSpend, microToUsd, sumMicro, wholeCents, type Micro } from '../platform/kit/micro';

/**
 * The account API's bodies, built from rows (real or sandbox) by one set of pure functions, so
 * REST, MCP and the sandbox can never disagree on a shape or a sum. Every body is parsed by its
 * schema on the way out: a column added to a query cannot leak. The row types are inferred from
 * the row schemas of lib/schemas/account.ts, the filters from the query schemas.
 */

export type PlacementFilter = z.output<typeof appsQuery.shape.placement_status>;
export type EnvironmentFilter = z.output<typeof apiKeysQuery.shape.environment>;
export type CampaignFilter = z.output<typeof campaignsQuery.shape.status>;
export type LicenseFilter = z.output<typeof licensesQuery.shape.status>;

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export function profileView(row: ProfileRow): z.infer<typeof profileBody> {
  return profileBody.parse({
    user_id: row.id,
    email: row.email,
    name: row.name,
    company: row.company,
    role: row.role,
    member_since: iso(row.created_at),
  });
}

export function placementView(row: PlacementRow) {
  return {
    id: row.id,
    app_id: row.app_id,
    name: row.name,
    format: row.format,
    status: row.status,
    impressions: row.impressions,
    clicks: row.clicks,
    revenue_usd: microToUsd(row.revenue_micro),
    revenue_micro: row.revenue_micro,
    click_revenue_usd: microToUsd(row.click_revenue_micro),
    click_revenue_micro: row.click_revenue_micro,
    fill_rate: fillRate(row.fills, row.ad_requests),
    rpm_usd: rpmUsd(row.revenue_micro, row.impressions),
    invalid_share: invalidShare(row.invalid_events, row.impressions + row.clicks),
    min_relevance: row.min_relevance,
    created_at: row.created_at.toISOString(),
  };
}

export function matchesPlacementFilter(status: PlacementRow['status'], filter: PlacementFilter): boolean {
  return filter === 'all' || status === filter;
}

export function appsView(apps: AppRow[], placements: PlacementRow[], filter: PlacementFilter): z.infer<typeof appsBody> {
  return appsBody.parse({
    apps: apps.map((a) => ({ ...a, created_at: a.created_at.toISOString() })),
    placements: placements.filter((p) => matchesPlacementFilter(p.status, filter)).map(placementView),
  });
}

export const EARNINGS_NOTE =
  'ad_revenue_tracked_usd is what all placements earned since they were created (those of archived apps too), adjustments included: the ledger for the days it has posted, and the daily figures for today and the days not posted yet. Every amount is an exact sum in micro-dollars rounded once to the cent (so a total may differ by a cent from the sum of rounded rows, such as the revenue_usd of the placements in /api/v1/me/apps). What was earned is in exactly one place: balance_pending_usd (not final: a month becomes final on the 5th of the next month), balance_available_usd (final, not paid out), payouts_pending_usd (requested, pending or processing) or payouts_paid_usd. A failed or canceled payout returns its amount to balance_available_usd. impressions and clicks cover the same placements.';

/**
 * `placements` are all of the user's placements; `payouts` all payouts, newest first; `money` the
 * user's money, exactly, in micro-dollars (public.account_earnings: the ledger, and the daily
 * stats of the days it has not posted yet). Each figure is rounded once, here.
 */
export function earningsView(placements: PlacementRow[], payouts: PayoutRow[], payoutLimit: number, money: MoneyRow): z.infer<typeof earningsBody> {
  const views = placements.map(placementView);
  const payoutsUsd = (statuses: PayoutRow['status'][]) => exactSumUsd(payouts.filter((p) => statuses.includes(p.status)).map((p) => p.amount_micro));
  return earningsBody.parse({
    currency: 'USD',
    ad_revenue_tracked_usd: microToUsd(money.ad_revenue_micro),
    ad_revenue_tracked_micro: money.ad_revenue_micro,
    impressions: views.reduce((n, p) => n + p.impressions, 0),
    clicks: views.reduce((n, p) => n + p.clicks, 0),
    payouts_paid_usd: payoutsUsd(['paid']),
    payouts_pending_usd: payoutsUsd(['pending', 'processing']),
    // What a payout request would take, as documented: the whole cents (under a cent stays).
    balance_available_usd: microToUsd(wholeCents(money.available_micro)),
    balance_pending_usd: microToUsd(money.pending_micro),
    data_revenue_usd: microToUsd(money.data_revenue_micro),
    data_revenue_micro: money.data_revenue_micro,
    payouts: payouts.slice(0, payoutLimit).map((p) => ({
      period: p.period,
      amount_usd: microToUsd(p.amount_micro),
      status: p.status,
      paid_at: iso(p.paid_at),
      requested_at: p.requested_at.toISOString(),
      failure_reason: p.failure_reason,
    })),
    note: EARNINGS_NOTE,
  });
}

export function apiKeysView(keys: ApiKeyRow[], environment: EnvironmentFilter): z.infer<typeof apiKeysBody> {
  return apiKeysBody.parse({
    api_keys: keys
      .filter((k) => environment === 'all' || k.environment === environment)
      .map((k) => ({
        id: k.id,
        app_id: k.app_id,
        name: k.name,
        kind: k.kind,
        environment: k.environment,
        status: k.status,
        masked_key: maskApiKey(k.key_prefix, k.key_last4),
        created_at: k.created_at.toISOString(),
        last_used_at: iso(k.last_used_at),
      })),
  });
}

export type DailyQuery = z.output<typeof dailyQuery>;

/** The UTC day (YYYY-MM-DD) of a time in milliseconds. */
export function todayUtc(now: number): string {
  return new Date(now).toISOString().slice(0, 10);
}

/** `iso` (YYYY-MM-DD) moved by `days` days. */
export function addDays(iso: string, days: number): string {
  return new Date(Date.parse(`${iso}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
}

/**
 * The daily figures of a period ending `today` (UTC, included): one point per day, oldest
 * first, zeros for days without traffic, for the account or one app or one placement. Each
 * day's revenue is its exact sum rounded to cents once, and so is the period's total (which may
 * differ by a cent or so from the sum of the rounded days).
 */
export function dailyView(rows: readonly DailyRow[], query: DailyQuery, today: string): z.infer<typeof dailyBody> {
  const days = Number(query.days);
  const from = addDays(today, 1 - days);
  // Revenue in micro-dollars, exact, until it is shown.
  const points = new Map<string, { revenue: Micro; impressions: number; clicks: number }>();
  for (let i = 0; i < days; i++) points.set(addDays(from, i), { revenue: micro(0), impressions: 0, clicks: 0 });
  for (const r of rows) {
    if (query.app_id && r.app_id !== query.app_id) continue;
    if (query.placement_id && r.placement_id !== query.placement_id) continue;
    const point = points.get(r.day);
    if (!point) continue;
    point.revenue = sumMicro([point.revenue, r.revenue_micro]);
    point.impressions += r.impressions;
    point.clicks += r.clicks;
  }
  const daily = [...points].map(([date, p]) => ({
    date,
    revenue_usd: microToUsd(p.revenue),
    revenue_micro: p.revenue,
    impressions: p.impressions,
    clicks: p.clicks,
  }));
  const revenueMicro = sumMicro([...points.values()].map((p) => p.revenue));
  return dailyBody.parse({
    currency: 'USD',
    days,
    from,
    to: today,
    app_id: query.app_id ?? null,
    placement_id: query.placement_id ?? null,
    totals: {
      revenue_usd: microToUsd(revenueMicro),
      revenue_micro: revenueMicro,
      impressions: daily.reduce((n, d) => n + d.impressions, 0),
      clicks: daily.reduce((n, d) => n + d.clicks, 0),
    },
    daily,
  });
}

export const CAMPAIGNS_NOTE =
  'Each campaign’s impressions, clicks and spend are its totals since it started, from the daily figures the traffic roll-up keeps per campaign, creative, app and day (seconds behind the ads served). spend_micro is the exact spend in micro-dollars, as the ledger debits it, and balance_micro your exact balance: what your top-ups put in less what your ads cost. Every amount in dollars is an exact amount rounded to the cent once (spend_usd, balance_usd; budget_left_usd is the lifetime budget less the exact spend, never below 0; ecpm_usd the exact spend per 1,000 impressions), so a sum of rounded figures may differ by a cent from the rounded total. ctr is clicks per impression, a fraction from 0 to 1; ctr and ecpm_usd are 0 without impressions. conversions are those you reported for the campaign’s clicks that counted (within its attribution_window_days), conversion_value_micro their exact value, cost_per_conversion_micro the exact spend per conversion to the micro-dollar (null without conversions) and return_on_spend their value per dollar spent (null without spend). The balance covers every campaign, whatever the page or status filter.';

export function matchesCampaignFilter(status: CampaignRow['status'], filter: CampaignFilter): boolean {
  return filter === 'all' || status === filter;
}

/** A return on spend as the API gives it: 4 decimals, rounded once. */
const roundedReturn = (ratio: number | null) => (ratio === null ? null : Math.round(ratio * 10_000) / 10_000);

export function campaignView(row: CampaignRow) {
  return {
    id: row.id,
    name: row.name,
    status: row.status,
    pause_reason: row.pause_reason,
    rejection_reason: row.rejection_reason,
    starts_at: row.starts_at.toISOString(),
    ends_at: iso(row.ends_at),
    hard_stop: row.hard_stop,
    formats: row.formats,
    context_hints: row.context_hints,
    excluded_phrases: row.excluded_phrases,
    advertiser_category: row.advertiser_category,
    lifetime_budget_usd: row.lifetime_budget_micro === null ? null : microToUsd(row.lifetime_budget_micro),
    daily_cap_usd: row.daily_cap_micro === null ? null : microToUsd(row.daily_cap_micro),
    created_at: row.created_at.toISOString(),
    impressions: row.impressions,
    clicks: row.clicks,
    ctr: clickThroughRate(row.clicks, row.impressions),
    hides: row.hides,
    spend_usd: microToUsd(row.spend_micro),
    spend_micro: row.spend_micro,
    budget_left_usd: row.lifetime_budget_micro === null ? null : microToUsd(micro(Math.max(0, row.lifetime_budget_micro - row.spend_micro))),
    ecpm_usd: ecpmUsd(row.spend_micro, row.impressions),
    pricing_model: row.max_cpc_micro === null ? ('cpm' as const) : ('cpc' as const),
    max_cpc_usd: row.max_cpc_micro === null ? null : microAsUsd(row.max_cpc_micro),
    max_cpc_micro: row.max_cpc_micro,
    attribution_window_days: row.attribution_window_days,
    conversions: row.conversions,
    conversion_value_usd: microToUsd(row.conversion_value_micro),
    conversion_value_micro: row.conversion_value_micro,
    cost_per_conversion_usd: costPerConversionUsd(row.spend_micro, row.conversions),
    cost_per_conversion_micro: costPerConversion(row.spend_micro, row.conversions),
    return_on_spend: roundedReturn(returnOnSpend(row.conversion_value_micro, row.spend_micro)),
    creatives: row.creatives.map((c) => ({ id: c.id, format: c.format, status: c.status, rejection_reason: c.rejection_reason, headline: c.headline })),
  };
}

/**
 * One page of an advertiser's campaigns (`page`, already filtered and cut by the operation, with
 * its `pagination`), and their balance, exactly, in micro-dollars (the ledger). Each amount is
 * rounded once, here. A user who is not an advertiser has no campaigns and a balance of 0.
 */
export function campaignsView(
  balanceMicro: Micro,
  page: readonly CampaignRow[],
  pagination: z.input<typeof campaignsBody.shape.pagination>,
): z.infer<typeof campaignsBody> {
  return campaignsBody.parse({
    currency: 'USD',
    balance_usd: microToUsd(balanceMicro),
    balance_micro: balanceMicro,
    campaigns: page.map(campaignView),
    pagination,
    note: CAMPAIGNS_NOTE,
  });
}

export const LICENSES_NOTE =
  'Licenses are listed newest first. price_micro is what a license costs, exactly, in micro-dollars: what the ledger debited from your balance when it was granted (an exclusive license is charged when review approves it, and a rejected one is never charged). Your funds are read from the ledger: balance_micro is what your top-ups put in less what your licenses cost, reserved_micro what your exclusive licenses waiting for review hold of it, and available_micro the difference, what you may spend now. Every amount in dollars is an exact amount rounded to the cent once, so a sum of rounded figures may differ by a cent from the rounded total. unacknowledged_deletion_notices counts your deletion notices naming a license that you have not acknowledged: records it covers that were erased after their subject withdrew or narrowed their consent, which you must delete too. The funds cover every license, whatever the page or status filter.';

export function matchesLicenseFilter(status: LicenseRow['status'], filter: LicenseFilter): boolean {
  return filter === 'all' || status === filter;
}

export function licenseView(row: LicenseRow) {
  return {
    id: row.id,
    listing: row.listing,
    exclusive: row.exclusive,
    status: row.status,
    filter: {
      categories: row.filter.categories,
      from: row.filter.from,
      to: row.filter.to,
      models: row.filter.models,
      min_app_age_days: row.filter.min_app_age_days,
    },
    records: row.records,
    bytes: row.bytes,
    units: row.units,
    price_usd: microToUsd(row.price_micro),
    price_micro: row.price_micro,
    terms_version: row.terms_version,
    requested_at: row.requested_at.toISOString(),
    starts_at: iso(row.starts_at),
    expires_at: iso(row.expires_at),
    rejection_reason: row.rejection_reason,
    unacknowledged_deletion_notices: row.unacknowledged_deletion_notices,
  };
}

/**
 * One page of a data buyer's licenses (`page`, already filtered and cut by the operation, with
 * its `pagination`), and their funds, exactly, in micro-dollars (public.buyer_funds). Each amount
 * is rounded once, here. A user who is not a data buyer has no licenses and funds of 0.
 */
export function licensesView(
  funds: BuyerFundsRow,
  page: readonly LicenseRow[],
  pagination: z.input<typeof licensesBody.shape.pagination>,
): z.infer<typeof licensesBody> {
  return licensesBody.parse({
    currency: 'USD',
    balance_usd: microToUsd(funds.balance_micro),
    balance_micro: funds.balance_micro,
    reserved_usd: microToUsd(funds.reserved_micro),
    reserved_micro: funds.reserved_micro,
    available_usd: microToUsd(funds.available_micro),
    available_micro: funds.available_micro,
    licenses: page.map(licenseView),
    pagination,
    note: LICENSES_NOTE,
  });
}
