import type {
  ApiKeyRow,
  AppRow,
  BuyerFundsRow,
  CampaignRow,
  DailyRow,
  LicenseRow,
  MoneyRow,
  PayoutMethodRow,
  PayoutRow,
  PlacementRow,
  ProfileRow,
} from '../schemas/account';
import { micro, microAsUsd, sumMicro, usdToMicro } from '../platform/kit/micro';
import { addDays } from './views';

/**
 * The sandbox account: fixed demo data, the same in every REST route, in batch
 * and in the MCP tools, never read from or written to the database. Totals are not written down
 * here: the views compute them from these rows, so they always agree.
 */

const at = (iso: string) => new Date(iso);

export const SANDBOX_PROFILE: ProfileRow = {
  id: '00000000-0000-4000-8000-000000000001',
  email: 'sandbox@example.com',
  name: 'Sam Sandbox',
  company: 'Sandbox Apps Inc.',
  role: 'Publisher',
  created_at: at('2025-09-01T09:00:00.000Z'),
};

export const SANDBOX_APPS: AppRow[] = [
  {
    id: '00000000-0000-4000-8000-00000000a001',
    name: 'Sandbox Writer',
    slug: 'sandbox-writer',
    description: 'A demo AI writing assistant.',
    category: ['writing', 'productivity'],
    allowed_origins: ['https://writer.sandbox.example'],
    excluded_topics: ['crypto', 'day trading'],
    blocked_advertisers: [],
    blocked_categories: ['gambling', 'dating'],
    created_at: at('2025-09-03T09:00:00.000Z'),
  },
  {
    id: '00000000-0000-4000-8000-00000000a002',
    name: 'Sandbox Tutor',
    slug: 'sandbox-tutor',
    description: 'A demo study companion for students.',
    category: ['education'],
    allowed_origins: [],
    excluded_topics: [],
    blocked_advertisers: [],
    blocked_categories: ['alcohol', 'gambling', 'dating'],
    created_at: at('2025-10-14T09:00:00.000Z'),
  },
];

const [WRITER, TUTOR] = SANDBOX_APPS.map((a) => a.id) as [string, string];

export const SANDBOX_PLACEMENTS: PlacementRow[] = [
  {
    id: '00000000-0000-4000-8000-00000000b001',
    app_id: WRITER,
    name: 'Editor sidebar video',
    format: 'floating_video',
    status: 'active',
    impressions: 182_400,
    clicks: 2_190,
    revenue_micro: usdToMicro(1_493.61),
    click_revenue_micro: micro(0),
    fills: 182_400,
    invalid_events: 3_412,
    ad_requests: 197_300,
    min_relevance: 0.3,
    created_at: at('2025-09-03T10:00:00.000Z'),
  },
  {
    id: '00000000-0000-4000-8000-00000000b002',
    app_id: WRITER,
    name: 'Prompt tips',
    format: 'tooltip',
    status: 'active',
    impressions: 401_250,
    clicks: 7_622,
    revenue_micro: usdToMicro(1_131.53),
    click_revenue_micro: micro(0),
    fills: 401_250,
    invalid_events: 7_020,
    ad_requests: 428_900,
    min_relevance: 0.45,
    created_at: at('2025-09-04T10:00:00.000Z'),
  },
  {
    id: '00000000-0000-4000-8000-00000000b003',
    app_id: WRITER,
    name: 'Inline mention',
    format: 'inline_text',
    status: 'paused',
    impressions: 55_010,
    clicks: 660,
    revenue_micro: usdToMicro(190.33),
    click_revenue_micro: micro(0),
    fills: 55_010,
    invalid_events: 1_288,
    ad_requests: 61_200,
    min_relevance: 0.3,
    created_at: at('2025-09-05T10:00:00.000Z'),
  },
  {
    id: '00000000-0000-4000-8000-00000000b004',
    app_id: TUTOR,
    name: 'Lesson sponsor card',
    format: 'sponsored_card',
    status: 'active',
    impressions: 97_800,
    clicks: 1_565,
    revenue_micro: usdToMicro(552.08),
    click_revenue_micro: micro(0),
    fills: 97_800,
    invalid_events: 2_115,
    ad_requests: 104_100,
    min_relevance: 0.3,
    created_at: at('2025-10-14T10:00:00.000Z'),
  },
  {
    id: '00000000-0000-4000-8000-00000000b005',
    app_id: TUTOR,
    name: 'Hint tooltip',
    format: 'tooltip',
    status: 'paused',
    impressions: 23_400,
    clicks: 351,
    revenue_micro: usdToMicro(64.82),
    click_revenue_micro: micro(0),
    fills: 23_400,
    invalid_events: 640,
    ad_requests: 26_000,
    min_relevance: 0.3,
    created_at: at('2025-10-15T10:00:00.000Z'),
  },
  {
    id: '00000000-0000-4000-8000-00000000b006',
    app_id: TUTOR,
    name: 'Retired intro video',
    format: 'floating_video',
    status: 'archived',
    impressions: 8_100,
    clicks: 90,
    revenue_micro: usdToMicro(66.42),
    click_revenue_micro: micro(0),
    fills: 8_100,
    invalid_events: 212,
    ad_requests: 9_050,
    min_relevance: 0.3,
    created_at: at('2025-10-16T10:00:00.000Z'),
  },
];

/** What the sandbox's placements earned, exactly, in micro-dollars (the database answers it from the ledger). */
export const SANDBOX_AD_REVENUE_MICRO = sumMicro(SANDBOX_PLACEMENTS.map((p) => p.revenue_micro));

const payoutId = (n: number) => `00000000-0000-4000-8000-00000000d${String(n).padStart(3, '0')}`;
const DESTINATION = 'Sandbox Writer Ltd · •••• 4242';
const paid = (n: number, period: string, amount: number, requested: string, paidAt: string): PayoutRow => ({
  id: payoutId(n),
  period,
  amount_micro: usdToMicro(amount),
  status: 'paid',
  paid_at: at(paidAt),
  requested_at: at(requested),
  failure_reason: null,
  rail: 'manual',
  destination: DESTINATION,
});

/**
 * Newest first, as the database orders them: a history as the rules make it (content/docs/payouts.md):
 * one payout a month after its close on the 5th, one failed and sent again, one canceled and
 * requested again, the latest being sent.
 */
export const SANDBOX_PAYOUTS: PayoutRow[] = [
  { ...paid(12, '2026-10', 388.9, '2026-11-06T09:00:00.000Z', '2026-11-06T09:00:00.000Z'), status: 'processing', paid_at: null },
  paid(11, '2026-09', 371.45, '2026-10-06T09:00:00.000Z', '2026-10-10T12:00:00.000Z'),
  paid(10, '2026-08', 356.02, '2026-09-09T09:00:00.000Z', '2026-09-11T12:00:00.000Z'),
  {
    ...paid(9, '2026-08', 356.02, '2026-09-06T09:00:00.000Z', '2026-09-06T09:00:00.000Z'),
    status: 'failed',
    paid_at: null,
    failure_reason: 'The bank returned the transfer: the account number does not match the holder.',
  },
  paid(8, '2026-07', 340.6, '2026-08-06T09:00:00.000Z', '2026-08-10T12:00:00.000Z'),
  paid(7, '2026-06', 322.75, '2026-07-06T09:00:00.000Z', '2026-07-10T12:00:00.000Z'),
  paid(6, '2026-05', 298.3, '2026-06-06T09:00:00.000Z', '2026-06-10T12:00:00.000Z'),
  paid(5, '2026-04', 265.12, '2026-05-06T09:00:00.000Z', '2026-05-11T12:00:00.000Z'),
  paid(4, '2026-03', 231.84, '2026-04-07T09:00:00.000Z', '2026-04-10T12:00:00.000Z'),
  { ...paid(3, '2026-03', 231.84, '2026-04-06T09:00:00.000Z', '2026-04-06T09:00:00.000Z'), status: 'canceled', paid_at: null },
  paid(2, '2025-12/2026-02', 449.51, '2026-03-06T09:00:00.000Z', '2026-03-10T12:00:00.000Z'),
];

export const SANDBOX_PAYOUT_METHOD: PayoutMethodRow = {
  rail: 'manual',
  masked: DESTINATION,
  ready: true,
  status_note: null,
  updated_at: at('2025-12-02T10:00:00.000Z'),
};

/** Final and not paid out: under the minimum payout, waiting for the next month. */
const SANDBOX_AVAILABLE_MICRO = micro(21_370_000);

/**
 * The sandbox's money, as the database answers it: what was earned is in exactly one place, so
 * the balance not final yet (November so far) is the rest of it.
 */
export const SANDBOX_MONEY: MoneyRow = {
  ad_revenue_micro: SANDBOX_AD_REVENUE_MICRO,
  data_revenue_micro: micro(0),
  available_micro: SANDBOX_AVAILABLE_MICRO,
  pending_micro: micro(
    SANDBOX_AD_REVENUE_MICRO -
      SANDBOX_AVAILABLE_MICRO -
      sumMicro(SANDBOX_PAYOUTS.filter((p) => ['paid', 'pending', 'processing'].includes(p.status)).map((p) => p.amount_micro)),
  ),
};

export const SANDBOX_API_KEYS: ApiKeyRow[] = [
  {
    id: '00000000-0000-4000-8000-00000000c001',
    app_id: WRITER,
    name: 'Writer production',
    kind: 'publishable',
    environment: 'production',
    status: 'active',
    key_prefix: 'pk_live_SANDBOX1',
    key_last4: 'W1x9',
    created_at: at('2025-09-03T11:00:00.000Z'),
    last_used_at: at('2026-11-20T18:42:00.000Z'),
  },
  {
    id: '00000000-0000-4000-8000-00000000c002',
    app_id: WRITER,
    name: 'Writer development',
    kind: 'publishable',
    environment: 'development',
    status: 'active',
    key_prefix: 'pk_test_SANDBOX2',
    key_last4: 'D2k4',
    created_at: at('2025-09-03T11:05:00.000Z'),
    last_used_at: at('2026-11-18T09:10:00.000Z'),
  },
  {
    id: '00000000-0000-4000-8000-00000000c003',
    app_id: TUTOR,
    name: 'Tutor production (retired)',
    kind: 'publishable',
    environment: 'production',
    status: 'revoked',
    key_prefix: 'pk_live_SANDBOX3',
    key_last4: 'T3q7',
    created_at: at('2025-10-14T11:00:00.000Z'),
    last_used_at: at('2026-03-02T14:00:00.000Z'),
  },
  {
    id: '00000000-0000-4000-8000-00000000c004',
    app_id: WRITER,
    name: 'Writer staging server',
    kind: 'server',
    environment: 'development',
    status: 'active',
    key_prefix: 'sk_test_SANDBOX4',
    key_last4: 'S4m2',
    created_at: at('2026-11-02T10:00:00.000Z'),
    last_used_at: at('2026-11-20T18:40:00.000Z'),
  },
];

/**
 * The sandbox's daily figures for the 90 days before `today`: each active or paused placement's
 * traffic spread over the days, quieter at weekends, paused ones silent for the last three weeks.
 * Made from the date alone, so the same day always answers the same figures.
 */
export function sandboxDaily(today: string): DailyRow[] {
  const rows: DailyRow[] = [];
  for (const p of SANDBOX_PLACEMENTS) {
    if (p.status === 'archived') continue;
    for (let back = 90; back >= 1; back--) {
      if (p.status === 'paused' && back < 21) continue;
      const day = addDays(today, -back);
      const weight = [0, 6].includes(new Date(`${day}T00:00:00Z`).getUTCDay()) ? 0.7 : 1 + ((back * 7) % 5) / 20;
      const impressions = Math.round((p.impressions / 90) * weight);
      rows.push({
        placement_id: p.id,
        app_id: p.app_id,
        day,
        impressions,
        clicks: Math.round(impressions * (p.clicks / p.impressions)),
        revenue_micro: usdToMicro((impressions / 1000) * (microAsUsd(p.revenue_micro) / p.impressions) * 1000),
      });
    }
  }
  return rows;
}

const campaignId = (n: number) => `00000000-0000-4000-8000-00000000e${String(n).padStart(3, '0')}`;
const creativeId = (n: number) => `00000000-0000-4000-8000-00000000f${String(n).padStart(3, '0')}`;
const creative = (n: number, format: CampaignRow['formats'][number], status: CampaignRow['creatives'][number]['status'], headline: string) => ({
  id: creativeId(n),
  format,
  status,
  rejection_reason: null,
  headline,
});

/**
 * The sandbox account as an advertiser: a small fixed set of campaigns, oldest first as the
 * database orders them, one in most statuses (a running one with an approved and a rejected
 * creative, one completed by its spent budget, one its advertiser paused, one in review, one
 * rejected), each with the totals the daily figures would give (spend exact in micro-dollars).
 */
export const SANDBOX_CAMPAIGNS: CampaignRow[] = [
  {
    id: campaignId(1),
    name: 'Back to school',
    status: 'completed',
    pause_reason: null,
    rejection_reason: null,
    starts_at: at('2026-08-15T04:00:00.000Z'),
    ends_at: at('2026-09-16T03:59:59.999Z'),
    hard_stop: true,
    formats: ['tooltip'],
    context_hints: ['homework help', 'study tips', 'exam revision', 'flashcards'],
    excluded_phrases: ['cheating'],
    advertiser_category: 'education',
    lifetime_budget_micro: usdToMicro(500),
    daily_cap_micro: null,
    created_at: at('2026-08-10T14:00:00.000Z'),
    impressions: 198_000,
    clicks: 2_376,
    hides: 59,
    spend_micro: micro(499_998_600),
    max_cpc_micro: null,
    attribution_window_days: 7,
    conversions: 1_188,
    conversion_value_micro: usdToMicro(41_580),
    creatives: [creative(1, 'tooltip', 'active', 'Study smarter with Sandbox Tutor')],
  },
  {
    id: campaignId(2),
    name: 'Writer Pro launch',
    status: 'active',
    pause_reason: null,
    rejection_reason: null,
    starts_at: at('2026-10-01T04:00:00.000Z'),
    ends_at: null,
    hard_stop: false,
    formats: ['sponsored_card', 'inline_text'],
    context_hints: ['writing assistant', 'grammar check', 'write faster', 'blog post', 'cover letter'],
    excluded_phrases: [],
    advertiser_category: 'software',
    lifetime_budget_micro: usdToMicro(2_000),
    daily_cap_micro: usdToMicro(100),
    created_at: at('2026-09-25T10:00:00.000Z'),
    impressions: 412_300,
    clicks: 6_184,
    hides: 154,
    spend_micro: micro(1_236_904_500),
    max_cpc_micro: null,
    attribution_window_days: 14,
    conversions: 3_021,
    conversion_value_micro: usdToMicro(87_609),
    creatives: [
      creative(2, 'sponsored_card', 'active', 'Write faster with Sandbox Writer Pro'),
      creative(3, 'inline_text', 'active', 'Try Sandbox Writer Pro free for 14 days'),
      {
        ...creative(4, 'inline_text', 'rejected', 'Never write a bad sentence again'),
        rejection_reason: 'The headline promises a result the landing page does not show.',
      },
    ],
  },
  {
    id: campaignId(3),
    name: 'Holiday video',
    status: 'paused',
    pause_reason: 'advertiser',
    rejection_reason: null,
    starts_at: at('2026-11-01T04:00:00.000Z'),
    ends_at: at('2027-01-01T04:59:59.999Z'),
    hard_stop: false,
    formats: ['floating_video'],
    context_hints: ['gift ideas', 'holiday season', 'christmas gifts'],
    excluded_phrases: ['black friday'],
    advertiser_category: 'retail',
    lifetime_budget_micro: usdToMicro(1_500),
    daily_cap_micro: usdToMicro(75),
    created_at: at('2026-10-20T16:30:00.000Z'),
    impressions: 35_600,
    clicks: 420,
    hides: 10,
    spend_micro: micro(213_600_000),
    max_cpc_micro: null,
    attribution_window_days: 7,
    conversions: 402,
    conversion_value_micro: usdToMicro(9_648),
    creatives: [creative(5, 'floating_video', 'paused', 'Gift a year of Sandbox Writer')],
  },
  {
    id: campaignId(4),
    name: 'Spring preview',
    status: 'in_review',
    pause_reason: null,
    rejection_reason: null,
    starts_at: at('2027-03-01T05:00:00.000Z'),
    ends_at: at('2027-05-01T03:59:59.999Z'),
    hard_stop: false,
    formats: ['sponsored_card'],
    context_hints: ['spring cleaning', 'plan my week'],
    excluded_phrases: [],
    advertiser_category: 'software',
    lifetime_budget_micro: usdToMicro(800),
    daily_cap_micro: usdToMicro(40),
    created_at: at('2026-11-18T09:15:00.000Z'),
    impressions: 0,
    clicks: 0,
    hides: 0,
    spend_micro: micro(0),
    max_cpc_micro: null,
    attribution_window_days: 7,
    conversions: 0,
    conversion_value_micro: micro(0),
    creatives: [creative(6, 'sponsored_card', 'in_review', 'New in Sandbox Tutor: spaced repetition')],
  },
  {
    id: campaignId(5),
    name: 'Guaranteed grades',
    status: 'rejected',
    pause_reason: null,
    rejection_reason: 'Ads may not promise results such as grades.',
    starts_at: at('2026-12-01T05:00:00.000Z'),
    ends_at: null,
    hard_stop: false,
    formats: ['inline_text'],
    context_hints: ['essay writing', 'homework help'],
    excluded_phrases: [],
    advertiser_category: 'education',
    lifetime_budget_micro: usdToMicro(300),
    daily_cap_micro: null,
    created_at: at('2026-11-20T11:00:00.000Z'),
    impressions: 0,
    clicks: 0,
    hides: 0,
    spend_micro: micro(0),
    max_cpc_micro: null,
    attribution_window_days: 7,
    conversions: 0,
    conversion_value_micro: micro(0),
    creatives: [{ ...creative(7, 'inline_text', 'rejected', 'Straight As, guaranteed'), rejection_reason: 'Ads may not promise results such as grades.' }],
  },
];

/** What the sandbox advertiser's top-ups put in. */
const SANDBOX_TOP_UPS_MICRO = micro(3_000_000_000);

/** The sandbox advertiser's balance, as the ledger answers it: what the top-ups put in less what the campaigns spent. */
export const SANDBOX_ADVERTISER_BALANCE_MICRO = micro(SANDBOX_TOP_UPS_MICRO - sumMicro(SANDBOX_CAMPAIGNS.map((c) => c.spend_micro)));

const licenseId = (n: number) => `00000000-0000-4000-8000-00000000d${String(n).padStart(3, '0')}`;
/** The data license terms the demo licenses were bought under: those in force now (DATA_TERMS_VERSION, lib/data/buyers/schemas.ts), and earlier ones. */
const TERMS = '2026-11-27';
const EARLIER_TERMS = '2025-06-01';

/**
 * The sandbox account as a data buyer: a small fixed set of licenses, newest first as the database
 * orders them, one in each status and each listing (an exclusive one waiting for review, its price
 * reserved; a GB bundle priced by the bytes it took, to the micro-dollar; an exclusive one
 * rejected with its reason; a standard one with a deletion notice not acknowledged yet; one
 * expired, bought under earlier terms), each priced as public.data_license_buy prices it: units ×
 * the listing's price × 3 when exclusive, rounded once to the micro-dollar.
 */
export const SANDBOX_LICENSES: LicenseRow[] = [
  {
    id: licenseId(5),
    listing: 'ux_sessions',
    exclusive: true,
    status: 'pending_review',
    filter: { categories: ['productivity'], from: '2026-09-01', to: '2026-11-30', models: [], min_app_age_days: null },
    records: 2_000,
    bytes: 96_512_000,
    units: 2_000,
    // 2,000 recordings at $0.05, × 3 for an exclusive license.
    price_micro: micro(300_000_000),
    terms_version: TERMS,
    requested_at: at('2026-12-08T15:20:00.000Z'),
    starts_at: null,
    expires_at: null,
    rejection_reason: null,
    unacknowledged_deletion_notices: 0,
  },
  {
    id: licenseId(4),
    listing: 'gb_bundles',
    exclusive: false,
    status: 'active',
    filter: { categories: ['writing', 'education'], from: null, to: null, models: [], min_app_age_days: null },
    records: 18_305,
    bytes: 1_234_567_891,
    units: 1.234567891,
    // 1.234567891 GB at $40: $49.38271564, rounded once to the micro-dollar.
    price_micro: micro(49_382_716),
    terms_version: TERMS,
    requested_at: at('2026-12-03T10:05:00.000Z'),
    starts_at: at('2026-12-03T10:05:00.000Z'),
    expires_at: at('2027-12-03T10:05:00.000Z'),
    rejection_reason: null,
    unacknowledged_deletion_notices: 0,
  },
  {
    id: licenseId(3),
    listing: 'ai_interactions',
    exclusive: true,
    status: 'rejected',
    filter: { categories: ['education'], from: '2026-10-01', to: null, models: ['sandbox-model-2'], min_app_age_days: null },
    records: 40_000,
    bytes: 47_480_000,
    units: 40_000,
    // 40,000 rows at $0.002, × 3 for an exclusive license: never charged, review rejected it.
    price_micro: micro(240_000_000),
    terms_version: TERMS,
    requested_at: at('2026-12-01T09:00:00.000Z'),
    starts_at: null,
    expires_at: null,
    rejection_reason: 'The intended use on your profile does not cover an exclusive license of tutoring conversations.',
    unacknowledged_deletion_notices: 0,
  },
  {
    id: licenseId(2),
    listing: 'ai_interactions',
    exclusive: false,
    status: 'active',
    filter: { categories: ['writing', 'productivity'], from: null, to: null, models: ['sandbox-model-1'], min_app_age_days: null },
    records: 100_000,
    bytes: 118_734_562,
    units: 100_000,
    // 100,000 rows at $0.002.
    price_micro: micro(200_000_000),
    terms_version: TERMS,
    requested_at: at('2026-11-28T14:30:00.000Z'),
    starts_at: at('2026-11-28T14:30:00.000Z'),
    expires_at: at('2027-11-28T14:30:00.000Z'),
    rejection_reason: null,
    unacknowledged_deletion_notices: 1,
  },
  {
    id: licenseId(1),
    listing: 'ai_interactions',
    exclusive: false,
    status: 'expired',
    filter: { categories: [], from: '2025-07-01', to: '2025-09-30', models: [], min_app_age_days: null },
    records: 5_000,
    bytes: 5_912_400,
    units: 5_000,
    // 5,000 rows at $0.002.
    price_micro: micro(10_000_000),
    terms_version: EARLIER_TERMS,
    requested_at: at('2025-10-01T08:00:00.000Z'),
    starts_at: at('2025-10-01T08:00:00.000Z'),
    expires_at: at('2026-10-01T08:00:00.000Z'),
    rejection_reason: null,
    unacknowledged_deletion_notices: 1,
  },
];

/** What the sandbox buyer's top-ups put in. */
const SANDBOX_BUYER_TOP_UPS_MICRO = micro(1_000_000_000);

/**
 * The sandbox buyer's funds, as public.buyer_funds answers them: the balance is what the top-ups
 * put in less what the granted licenses (active or expired) cost, the reserve what the licenses
 * waiting for review would cost, and what is available the difference.
 */
export const SANDBOX_BUYER_FUNDS: BuyerFundsRow = (() => {
  const charged = sumMicro(SANDBOX_LICENSES.filter((l) => l.status === 'active' || l.status === 'expired').map((l) => l.price_micro));
  const reserved = sumMicro(SANDBOX_LICENSES.filter((l) => l.status === 'pending_review').map((l) => l.price_micro));
  const balance = micro(SANDBOX_BUYER_TOP_UPS_MICRO - charged);
  return { balance_micro: balance, reserved_micro: reserved, available_micro: micro(balance - reserved) };
})();
