import { z } from 'zod';
import { intParam } from './common';

/** The account API (spec: Resources and their fields; DESIGN.md for what the spec leaves open). */

export const SCOPES = ['profile:read', 'apps:read', 'earnings:read', 'api_keys:read'] as const;
export type Scope = (typeof SCOPES)[number];

const sandbox = z.literal(true).optional().describe('Present, and true, on answers to the sandbox token.');
const dateTime = z.string().datetime({ offset: true });

export const profileBody = z.object({
  user_id: z.string(),
  email: z.string().nullable(),
  name: z.string().nullable(),
  company: z.string().nullable(),
  role: z.string().nullable(),
  member_since: dateTime.nullable(),
  sandbox,
});

export const PLACEMENT_FORMATS = ['floating_video', 'tooltip', 'sponsored_card', 'inline_text'] as const;
export const PLACEMENT_STATUSES = ['active', 'paused', 'archived'] as const;

export const appsQuery = z.object({
  placement_status: z
    .enum(['all', 'active', 'paused'], { message: 'must be one of all, active, paused' })
    .default('all')
    .describe('Which placements to return.'),
});

export const app = z.object({
  id: z.string(),
  name: z.string(),
  slug: z.string(),
  description: z.string(),
  category: z.array(z.string()),
  created_at: dateTime,
});

export const placement = z.object({
  id: z.string(),
  app_id: z.string().describe('The app the placement belongs to.'),
  name: z.string(),
  format: z.enum(PLACEMENT_FORMATS),
  status: z.enum(PLACEMENT_STATUSES),
  impressions: z.number().int(),
  clicks: z.number().int(),
  revenue_usd: z.number(),
  fill_rate: z.number().min(0).max(1).describe('A fraction from 0 to 1.'),
  rpm_usd: z.number().describe('Revenue per 1,000 impressions.'),
  created_at: dateTime,
});

export const appsBody = z.object({ apps: z.array(app), placements: z.array(placement), sandbox });

export const earningsQuery = z.object({
  payout_limit: intParam(0, 50, 10).describe('How many of the most recent payouts to return, 0 to 50.'),
});

export const PAYOUT_STATUSES = ['pending', 'processing', 'paid', 'failed'] as const;

export const payout = z.object({
  period: z.string().describe('The month paid for, YYYY-MM.'),
  amount_usd: z.number(),
  status: z.enum(PAYOUT_STATUSES),
  paid_at: dateTime.nullable().describe('Set only when the status is paid.'),
  requested_at: dateTime,
});

export const earningsBody = z.object({
  currency: z.literal('USD'),
  ad_revenue_tracked_usd: z.number(),
  impressions: z.number().int(),
  clicks: z.number().int(),
  payouts_paid_usd: z.number(),
  payouts_pending_usd: z.number(),
  payouts: z.array(payout),
  note: z.string(),
  sandbox,
});

export const apiKeysQuery = z.object({
  environment: z
    .enum(['all', 'development', 'production'], { message: 'must be one of all, development, production' })
    .default('all')
    .describe('Which keys to return, by environment label.'),
});

export const apiKey = z.object({
  id: z.string(),
  name: z.string(),
  environment: z.enum(['development', 'production']),
  status: z.enum(['active', 'revoked']),
  masked_key: z.string().describe('The prefix and the last 4 characters only.'),
  created_at: dateTime,
  last_used_at: dateTime.nullable(),
});

export const apiKeysBody = z.object({ api_keys: z.array(apiKey), sandbox });
