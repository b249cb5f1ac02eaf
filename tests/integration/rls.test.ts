import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACCOUNT_READS, accountStatement, readAccount, type AccountRead } from '@/lib/account/reads';
import type { Engine, Queryable } from '@/lib/platform/db/engine';
import { as as asRole } from '@/lib/platform/db/roles';
import { toBound, type Sql } from '@/lib/platform/db/sql';
import { SCOPES } from '@/lib/schemas/account';
import { demoUsers, derivedEngine, testEngines } from '../helpers/db';
import { rawAsAnon, rawAsService, rawAsUser } from '../helpers/roles';

/**
 * Row-level security, on every engine the run has: for every table that holds a user's data,
 * a user sees and changes only their own rows. Nothing else keeps tenants apart: the account
 * reads name no user in their SQL, so what they return is exactly what RLS lets through.
 */

interface UserTable {
  table: string;
  /** The owner column. */
  owner: string;
  /** Columns `authenticated` may read (some tables grant only some). */
  columns: string;
  /** A row for `userId`, as column → value, using `ref` for ids of related rows. */
  insert?: (userId: string, ref: Refs) => Record<string, unknown>;
  /** A column a user may update on their own rows. */
  update?: { column: string; value: unknown };
  /** The user may delete their own rows. */
  deletable?: boolean;
}

interface Refs {
  appId: string;
  placementId: string;
}

const RLS_ID = '00000000-0000-4000-8000-000000000001';
/** A license awaiting review, as the buyer's own row (nothing charged). */
const RLS_LICENSE = {
  listing: 'ai_interactions',
  exclusive: true,
  filter: {},
  quantity: 1,
  records: 1,
  bytes: 100,
  units: 1,
  unit_price_micro: 2000,
  multiplier: 3,
  price_micro: 6000,
  terms_version: 'x',
  term_days: 365,
  status: 'pending_review',
};

const USER_TABLES: UserTable[] = [
  { table: 'users', owner: 'id', columns: 'id, email, name', update: { column: 'company', value: 'Hijacked Inc' } },
  {
    table: 'apps',
    owner: 'user_id',
    columns: 'id, user_id, name',
    insert: (userId) => ({ user_id: userId, name: 'Intruder app', slug: 'intruder-app' }),
    update: { column: 'name', value: 'Renamed by someone else' },
    deletable: true,
  },
  {
    table: 'placements',
    owner: 'user_id',
    columns: 'id, user_id, name',
    insert: (userId, ref) => ({ app_id: ref.appId, user_id: userId, name: 'Intruder placement', format: 'tooltip' }),
    update: { column: 'status', value: 'paused' },
    deletable: true,
  },
  {
    table: 'api_keys',
    owner: 'user_id',
    columns: 'id, user_id, name',
    insert: (userId, ref) => ({
      app_id: ref.appId,
      user_id: userId,
      name: 'Intruder key',
      environment: 'production',
      key_prefix: 'pk_live_intruder',
      key_last4: 'abcd',
      key_hash: 'f'.repeat(64),
    }),
    update: { column: 'name', value: 'Renamed key' },
    deletable: true,
  },
  {
    table: 'payouts',
    owner: 'user_id',
    columns: 'id, user_id, amount_micro',
    insert: (userId) => ({ user_id: userId, period: '2001-01', amount_micro: 1e12, status: 'pending' }),
    update: { column: 'status', value: 'paid' },
    deletable: true,
  },
  {
    table: 'payout_methods',
    owner: 'user_id',
    // Not details_ciphertext: no user reads it, not even on their own row (below).
    columns: 'user_id, rail, masked',
    insert: (userId) => ({ user_id: userId, rail: 'manual', details_ciphertext: 'v1.x', masked: 'Intruder · •••• 0000', ready: true }),
    update: { column: 'ready', value: true },
    deletable: true,
  },
  {
    table: 'ledger_accounts',
    owner: 'user_id',
    columns: 'id, user_id, kind',
    insert: (userId) => ({ user_id: userId, kind: 'advertiser' }),
    update: { column: 'kind', value: 'buyer' },
    deletable: true,
  },
  {
    table: 'ledger_transactions',
    // A transaction is a user's when it moved their money: one of its postings is on their account.
    owner: `(select a.user_id from public.ledger_postings p join public.ledger_accounts a on a.id = p.account_id
             where p.transaction_id = ledger_transactions.id and a.user_id is not null limit 1)`,
    columns: 'id, kind, reference',
    insert: () => ({ kind: 'adjustment', reference: 'intruder', occurred_at: new Date(), memo: 'Intruder' }),
    update: { column: 'memo', value: 'Rewritten' },
    deletable: true,
  },
  {
    table: 'ledger_postings',
    owner: '(select a.user_id from public.ledger_accounts a where a.id = account_id)',
    columns: 'id, account_id, amount_micro',
    update: { column: 'amount_micro', value: 1_000_000_000 },
    deletable: true,
  },
  {
    table: 'daily_stats',
    owner: 'user_id',
    columns: 'placement_id, user_id, revenue_micro',
    insert: (userId, ref) => ({ placement_id: ref.placementId, user_id: userId, day: '2001-01-01', impressions: 1 }),
    update: { column: 'revenue_micro', value: 1e12 },
    deletable: true,
  },
  {
    table: 'ad_events',
    owner: 'user_id',
    columns: 'id, user_id, kind',
    insert: (userId, ref) => ({ event_id: 'intruder-1', placement_id: ref.placementId, user_id: userId, kind: 'click' }),
    update: { column: 'revenue_micro', value: 1e12 },
    deletable: true,
  },
  {
    table: 'user_credentials',
    owner: 'user_id',
    columns: 'user_id',
    insert: (userId) => ({ user_id: userId, password_hash: 'x' }),
    update: { column: 'password_hash', value: 'x' },
    deletable: true,
  },
  {
    table: 'user_identities',
    owner: 'user_id',
    columns: 'user_id',
    insert: (userId) => ({ provider: 'github', provider_user_id: 'intruder', user_id: userId }),
    deletable: true,
  },
  { table: 'oauth_authorization_codes', owner: 'user_id', columns: 'user_id', deletable: true },
  {
    table: 'oauth_consents',
    owner: 'user_id',
    columns: 'user_id, client_id, scopes',
    insert: (userId) => ({ user_id: userId, client_id: 'https://intruder.example/client.json', client_name: 'Intruder', scopes: ['profile:read'] }),
    update: { column: 'scopes', value: ['profile:read', 'apps:read', 'earnings:read', 'api_keys:read'] },
    deletable: true,
  },
  {
    table: 'data_consents',
    owner: 'user_id',
    columns: 'id, user_id, subject_hash, purposes',
    insert: (userId, ref) => ({
      app_id: ref.appId,
      user_id: userId,
      subject_hash: 'e'.repeat(64),
      purposes: ['ai_interactions'],
      policy_version: 'intruder',
      consented_at: new Date(),
    }),
    update: { column: 'purposes', value: ['ux_sessions'] },
    deletable: true,
  },
  // Publishers do not read the consented data itself (their apps submit it): the SDK role does.
  { table: 'data_records', owner: 'user_id', columns: 'user_id', deletable: true },
  // The advertiser's side (migration 20261207000000_advertisers): both demo users are made advertisers below.
  {
    table: 'advertiser_profiles',
    owner: 'user_id',
    columns: 'user_id, company, billing_email',
    insert: (userId) => ({
      user_id: userId,
      company: 'Intruder',
      billing_name: 'Intruder',
      billing_email: 'x@intruder.example',
      billing_address: 'x',
      country: 'GB',
    }),
    update: { column: 'billing_email', value: 'invoices@intruder.example' },
    deletable: true,
  },
  {
    table: 'top_ups',
    owner: 'user_id',
    columns: 'id, user_id, amount_micro',
    insert: (userId) => ({ user_id: userId, amount_micro: 1_000_000_000, rail: 'manual', status: 'paid' }),
    update: { column: 'status', value: 'canceled' },
    deletable: true,
  },
  // Conversions (migration 20261221000000_conversions): keys and the tag made by their advertiser, conversions written only by the service.
  {
    table: 'conversion_keys',
    owner: 'advertiser_id',
    columns: 'id, advertiser_id, name, key_prefix, revoked_at',
    insert: (userId) => ({ advertiser_id: userId, name: 'Intruder key', key_prefix: 'ck_live_intruder', key_last4: 'abcd', key_hash: 'e'.repeat(64) }),
    update: { column: 'revoked_at', value: new Date() },
  },
  {
    table: 'conversion_tags',
    owner: 'advertiser_id',
    columns: 'advertiser_id, tag',
    insert: (userId) => ({ advertiser_id: userId, tag: `ct_${'I'.repeat(24)}` }),
  },
  { table: 'conversions', owner: 'advertiser_id', columns: 'id, advertiser_id, event_id, valid' },
  // Money taken back and the holds it puts on accounts (migration 20261213000500_reversals): read only, written by public.top_up_reverse.
  { table: 'payment_reversals', owner: 'user_id', columns: 'id, user_id, cause, reversed_micro' },
  { table: 'account_holds', owner: 'user_id', columns: 'id, user_id, cause, released_at' },
  // The data buyer's side (migration 20261209000000_data_buyers): both demo users are made buyers below.
  {
    table: 'buyer_profiles',
    owner: 'user_id',
    columns: 'user_id, company, intended_use',
    insert: (userId) => ({
      user_id: userId,
      company: 'Intruder',
      intended_use: 'Reading what is not mine',
      billing_email: 'x@intruder.example',
      country: 'GB',
      terms_version: 'x',
    }),
    update: { column: 'intended_use', value: 'Something else entirely' },
    deletable: true,
  },
  {
    table: 'data_licenses',
    owner: 'buyer_id',
    columns: 'id, buyer_id, price_micro',
    insert: (userId) => ({ ...RLS_LICENSE, buyer_id: userId }),
    update: { column: 'status', value: 'rejected' },
    deletable: true,
  },
  {
    table: 'data_exports',
    owner: '(select l.buyer_id from public.data_licenses l where l.id = license_id)',
    columns: 'id, license_id, status',
    update: { column: 'status', value: 'done' },
    deletable: true,
  },
  {
    table: 'data_deletion_notices',
    owner: 'buyer_id',
    columns: 'id, buyer_id, record_ids',
    insert: (userId) => ({ buyer_id: userId, reason: 'consent_withdrawn', record_ids: [RLS_ID], license_ids: [RLS_ID] }),
    update: { column: 'acknowledged_at', value: new Date() },
    deletable: true,
  },
  // Deletion notices by webhook (migration 20261211000000_deletion_webhooks): written only through functions, read by their buyer.
  {
    table: 'data_buyer_webhooks',
    owner: 'buyer_id',
    columns: 'id, buyer_id, url, secret_hint',
    insert: (userId) => ({ buyer_id: userId, url: 'https://intruder.example/hook', secret_ciphertext: 'v1.x.y.z', secret_hint: 'whsec_…abcd' }),
    update: { column: 'url', value: 'https://intruder.example/hook' },
    deletable: true,
  },
  {
    table: 'data_deletion_deliveries',
    owner: 'buyer_id',
    columns: 'id, notice_id, buyer_id, status, last_error',
    update: { column: 'status', value: 'delivered' },
    deletable: true,
  },
  {
    table: 'campaigns',
    owner: 'advertiser_id',
    columns: 'id, advertiser_id, name, lifetime_budget_micro',
    insert: (userId) => ({ advertiser_id: userId, name: 'Intruder campaign', lifetime_budget_micro: 10_000_000 }),
    update: { column: 'lifetime_budget_micro', value: 1_000_000 },
    deletable: true,
  },
  {
    table: 'creatives',
    owner: '(select c.advertiser_id from public.campaigns c where c.id = campaign_id)',
    columns: 'id, campaign_id, headline',
    update: { column: 'headline', value: 'Rewritten by someone else' },
    deletable: true,
  },
  {
    table: 'campaign_daily_stats',
    owner: '(select c.advertiser_id from public.campaigns c where c.id = campaign_id)',
    columns: 'campaign_id, creative_id, app_id, day, spent_micro',
    update: { column: 'spent_micro', value: 0 },
    deletable: true,
  },
  {
    table: 'campaign_daily_spend',
    owner: '(select c.advertiser_id from public.campaigns c where c.id = campaign_id)',
    columns: 'campaign_id, day, spent_micro',
    update: { column: 'spent_micro', value: 0 },
    deletable: true,
  },
];

/**
 * Tables with no user in them: only the service may read them (pricing is public). The ad
 * tables are read by the SDK role as well (tests/integration/sdk-rls.test.ts), never by a user.
 */
const SERVICE_ONLY_TABLES = [
  'oauth_clients',
  'idempotency_records',
  'service_secrets',
  // What a roll-up billed, on its way to the ledger in the same transaction.
  'ad_spend_pending',
  'ad_decisions',
  'ad_traffic_counts',
  // Consented data's proofs and counts: the SDK role's, never a user's (tests/integration/sdk-rls.test.ts).
  'data_subjects',
  'data_daily_usage',
  'data_subject_arrivals',
  // Staff and what they did: read by the service (sign-in) and through public.staff_overview (tests/integration/payouts.test.ts).
  'staff_members',
  'staff_audit_log',
  // The second factor's wrong codes and the staff sessions: only their security-definer functions reach them (lib/identity/auth/staff.ts).
  'staff_factor_attempts',
  'staff_sessions',
  // Scheduled pricing changes: staff read them through public.staff_pricing (tests/integration/pricing-in-production.test.ts).
  'pricing_changes',
  // Creatives' stored files: advertisers reach them through public.creative_files_reserve (tests/integration/advertiser-limits.test.ts).
  'creative_files',
];

function insertSql(table: string, row: Record<string, unknown>): [string, unknown[]] {
  const cols = Object.keys(row);
  return [`insert into public.${table} (${cols.join(', ')}) values (${cols.map((_, i) => `$${i + 1}`).join(', ')})`, Object.values(row)];
}

/** Runs `fn` and reports how it ended: rows, or the SQLSTATE-ish message of the failure. */
async function attempt(fn: () => Promise<unknown[]>): Promise<{ ok: true; rows: unknown[] } | { ok: false; error: string }> {
  try {
    return { ok: true, rows: await fn() };
  } catch (err) {
    return { ok: false, error: (err as Error).message };
  }
}

const DENIED = /row-level security|permission denied/;

/** What each account read sends: the call of one read function, and nothing else. */
const READ_CALL = /^select public\.(account_[a-z_]+)\(\) as account$/;

/** A statement's SQL text, its values as `$1`, `$2`…. */
const textOf = (statement: Sql) => toBound(statement).text;

/** The read functions, named by the statements. */
/** Each read's statement, as sent without a kept answer. */
const READ_STATEMENTS = (Object.keys(ACCOUNT_READS) as AccountRead[]).map((read) => accountStatement(read));
const READ_FUNCTIONS = READ_STATEMENTS.map((sql) => READ_CALL.exec(textOf(sql))?.[1] ?? textOf(sql));

type ReadFunction = {
  proname: string;
  pronargs: number;
  prosrc: string;
  prosecdef: boolean;
  proconfig: string[] | null;
  anon: boolean;
  authenticated: boolean;
};

for (const engine of testEngines()) {
  describe(`row-level security on ${engine.name}`, () => {
    let db: Engine;
    let users: { demo: string; demo2: string };
    const refs: Record<string, Refs> = {};
    const as = <T>(userId: string, fn: (q: Queryable) => Promise<T>) => rawAsUser(db, { sub: userId }, fn);
    /** The read functions as the catalog has them, with who may execute them. */
    const readFunctions = () =>
      db.query<ReadFunction>(
        `select p.proname, p.pronargs::int as pronargs, p.prosrc, p.prosecdef, p.proconfig,
                has_function_privilege('anon', p.oid, 'execute') as anon,
                has_function_privilege('authenticated', p.oid, 'execute') as authenticated
         from pg_proc p join pg_namespace n on n.oid = p.pronamespace
         where n.nspname = 'public' and p.proname = any($1::text[])`,
        [READ_FUNCTIONS],
      );

    beforeAll(async () => {
      db = await engine.open();
      users = await demoUsers(db);
      await rawAsService(db, async (q) => {
        for (const id of [users.demo, users.demo2]) {
          const [p] = await q.query<{ app_id: string; id: string }>('select app_id, id from public.placements where user_id = $1 order by created_at limit 1', [
            id,
          ]);
          refs[id] = { appId: p!.app_id, placementId: p!.id };
        }
        // Each user an advertiser too, with a top-up, a campaign, its creative and a day of its spend, so those tables have rows to hide.
        for (const id of [users.demo, users.demo2]) {
          await q.query(
            `insert into public.advertiser_profiles (user_id, company, billing_name, billing_email, billing_address, country)
             values ($1, 'RLS Co', 'RLS Co', 'billing@rls.example', '1 Street', 'GB')`,
            [id],
          );
          await q.query("insert into public.top_ups (user_id, amount_micro, rail) values ($1, 100000000, 'manual')", [id]);
          const [c] = await q.query<{ id: string }>(
            "insert into public.campaigns (advertiser_id, advertiser, name, status, lifetime_budget_micro) values ($1, 'RLS Co', 'RLS campaign', 'draft', 100000000) returning id",
            [id],
          );
          await q.query(
            "insert into public.creatives (campaign_id, format, status, headline, landing_url) values ($1, 'inline_text', 'in_review', 'RLS', 'https://rls.example/')",
            [c!.id],
          );
          await q.query("insert into public.campaign_daily_spend (campaign_id, day, impressions, spent_micro) values ($1, '2001-01-01', 1, 10000)", [c!.id]);
          await q.query(
            `insert into public.campaign_daily_stats (campaign_id, creative_id, app_id, day, impressions, spent_micro)
             select $1, cr.id, $2, '2001-01-01', 1, 10000 from public.creatives cr where cr.campaign_id = $1`,
            [c!.id, refs[id]!.appId],
          );
        }
        // An identity and a pending authorization code for each user, so those tables have rows to hide.
        for (const id of [users.demo, users.demo2]) {
          await q.query("insert into public.user_identities (provider, provider_user_id, user_id) values ('google', $1, $2)", [`g-${id}`, id]);
          await q.query(
            `insert into public.oauth_authorization_codes (code_hash, client_id, user_id, redirect_uri, code_challenge, scopes, resources, expires_at)
             values ($1, 'client', $2, 'https://example.com/cb', 'challenge', '{profile:read}', '{}', now() + interval '60 seconds')`,
            [`hash-${id}`, id],
          );
        }
      });
      // Each user a data buyer too, with a license awaiting review and a deletion notice, so those tables have rows to hide
      // (as the owner: only the money's functions write licenses and notices).
      for (const id of [users.demo, users.demo2]) {
        await db.query(
          `insert into public.buyer_profiles (user_id, company, intended_use, billing_email, country, terms_version)
           values ($1, 'RLS Data', 'Testing row-level security', 'data@rls.example', 'GB', 'x')`,
          [id],
        );
        const [license] = await db.query<{ id: string }>(
          `insert into public.data_licenses (buyer_id, listing, exclusive, filter, quantity, records, bytes, units, unit_price_micro, multiplier,
                                             price_micro, terms_version, term_days, status)
           values ($1, 'ai_interactions', true, '{}', 1, 1, 100, 1, 2000, 3, 6000, 'x', 365, 'pending_review') returning id`,
          [id],
        );
        // A webhook first, so the notice's trigger queues its delivery.
        await db.query(
          "insert into public.data_buyer_webhooks (buyer_id, url, secret_ciphertext, secret_hint) values ($1, 'https://hooks.rls.example/deletions', 'v1.a.b.c', 'whsec_…abcd')",
          [id],
        );
        await db.query(
          "insert into public.data_deletion_notices (buyer_id, reason, record_ids, license_ids) values ($1, 'consent_withdrawn', array[$2::uuid], array[$3::uuid])",
          [id, RLS_ID, license!.id],
        );
        await db.query('insert into public.data_exports (license_id) values ($1)', [license!.id]);
        // A refund recorded and a hold, as the owner (public.top_up_reverse writes them).
        await db.query(
          `insert into public.payment_reversals (reference, cause, event_id, top_up_id, user_id, account_kind, amount_micro, reversed_micro)
           select 'rls:' || t.id, 'refund', 'evt_rls', t.id, t.user_id, 'advertiser', 1000000, 0 from public.top_ups t where t.user_id = $1 limit 1`,
          [id],
        );
        await db.query("insert into public.account_holds (user_id, cause) values ($1, 'refund')", [id]);
        // A conversions key, the tag and a conversion (kept as invalid), as the service keeps them.
        await db.query("insert into public.conversion_keys (advertiser_id, name, key_prefix, key_last4, key_hash) values ($1::uuid, 'RLS', $2, 'abcd', $3)", [
          id,
          `ck_live_${id.slice(0, 8)}`,
          id.replaceAll('-', '').repeat(2),
        ]);
        await db.query('insert into public.conversion_tags (advertiser_id, tag) values ($1, $2)', [id, `ct_${id.replaceAll('-', '').slice(0, 24)}`]);
        await db.query(
          "insert into public.conversions (advertiser_id, event_id, source, name, occurred_at, valid, invalid_reason) values ($1, 'rls', 'tag', 'signup', now(), false, 'invalid_click_id')",
          [id],
        );
      }
    });

    afterAll(async () => {
      await db?.close();
    });

    it('the demo data has rows for both users in every user table', async () => {
      await rawAsService(db, async (q) => {
        for (const t of USER_TABLES) {
          const rows = await q.query<{ owner: string }>(`select distinct ${t.owner} as owner from public.${t.table}`);
          const owners = rows.map((r) => r.owner);
          expect(owners, t.table).toEqual(expect.arrayContaining([users.demo, users.demo2]));
        }
      });
    });

    for (const t of USER_TABLES) {
      describe(t.table, () => {
        it("another user's rows are invisible, even without the application's filter", async () => {
          for (const [me, other] of [
            [users.demo, users.demo2],
            [users.demo2, users.demo],
          ] as const) {
            // The application's filter dropped: RLS alone decides.
            const all = await attempt(() => as(me, (q) => q.query<Record<string, string>>(`select ${t.owner} as owner from public.${t.table}`)));
            if (!all.ok) {
              // Tables the user may not read at all (credentials, identities, codes).
              expect(all.error).toMatch(DENIED);
              continue;
            }
            const owners = new Set(all.rows.map((r) => (r as { owner: string }).owner));
            expect(
              [...owners].every((o) => o === me),
              `${t.table} leaks rows of another user`,
            ).toBe(true);
            // Asking for the other user's rows by name finds nothing either.
            const theirs = await as(me, (q) => q.query(`select ${t.columns} from public.${t.table} where ${t.owner} = $1`, [other]));
            expect(theirs).toHaveLength(0);
          }
        });

        if (t.insert) {
          it('a row cannot be inserted for another user', async () => {
            const [sql, params] = insertSql(t.table, t.insert!(users.demo2, refs[users.demo2]!));
            const result = await attempt(() => as(users.demo, (q) => q.query(sql, params)));
            expect(result.ok).toBe(false);
            if (!result.ok) expect(result.error).toMatch(DENIED);
          });
        }

        if (t.update) {
          it("another user's rows cannot be updated", async () => {
            const { column, value } = t.update!;
            const result = await attempt(() =>
              as(users.demo, (q) => q.query(`update public.${t.table} set ${column} = $1 where ${t.owner} = $2 returning ${t.owner}`, [value, users.demo2])),
            );
            // Either the column is not writable at all, or RLS leaves nothing to update.
            if (result.ok) expect(result.rows).toHaveLength(0);
            else expect(result.error).toMatch(DENIED);
          });
        }

        if (t.deletable) {
          it("another user's rows cannot be deleted", async () => {
            const result = await attempt(() =>
              as(users.demo, (q) => q.query(`delete from public.${t.table} where ${t.owner} = $1 returning ${t.owner}`, [users.demo2])),
            );
            if (result.ok) expect(result.rows).toHaveLength(0);
            else expect(result.error).toMatch(DENIED);
          });
        }
      });
    }

    describe('the account reads', () => {
      const readAs = <R extends AccountRead>(userId: string, read: R) => readAccount(db, { userId, clientId: 'rls-test', scopes: [...SCOPES] }, read);
      const sorted = (values: string[]) => [...values].sort();

      /** A user's rows as the service sees them (RLS bypassed, filtered by owner): ids, and payout periods. */
      const owned = (userId: string) =>
        rawAsService(db, async (q) => {
          const column = async (sql: string) => sorted((await q.query<{ v: string }>(sql, [userId])).map((r) => r.v));
          return {
            apps: await column('select id::text as v from public.apps where user_id = $1'),
            placements: await column('select id::text as v from public.placements where user_id = $1'),
            payouts: await column('select period as v from public.payouts where user_id = $1'),
            api_keys: await column('select id::text as v from public.api_keys where user_id = $1'),
            campaigns: await column('select id::text as v from public.campaigns where advertiser_id = $1'),
            creatives: await column(
              'select cr.id::text as v from public.creatives cr join public.campaigns c on c.id = cr.campaign_id where c.advertiser_id = $1',
            ),
            licenses: await column('select id::text as v from public.data_licenses where buyer_id = $1'),
          };
        });

      it('name no user: no parameter, no user id, no auth.uid(), no condition on the owner in their SQL', async () => {
        // The statements the application sends: a bare call of one read function each, or, with a
        // kept answer, the same call behind a comparison of the snapshot, whose one value is the snapshot.
        for (const read of Object.keys(ACCOUNT_READS) as AccountRead[]) {
          const kept = accountStatement(read, '10:12:11');
          expect(kept.values).toEqual(['10:12:11']);
          expect(textOf(kept)).not.toMatch(/user_id|auth\.uid|\bwhere\b/i);
        }
        for (const sql of READ_STATEMENTS) {
          expect(sql.values).toEqual([]);
          expect(textOf(sql)).not.toMatch(/\$\d|user_id|auth\.uid|\bwhere\b/i);
          expect(textOf(sql)).toMatch(READ_CALL);
        }
        // The functions, as the database has them: no argument, and a body that names no user
        // either (nor reads the claims, which would be naming one).
        const functions = await readFunctions();
        expect(functions.map((f) => f.proname).sort()).toEqual([...READ_FUNCTIONS].sort());
        for (const f of functions) {
          expect(f.pronargs, f.proname).toBe(0);
          expect(f.prosrc, f.proname).toMatch(/\bfrom public\.users\b/);
          expect(f.prosrc, f.proname).not.toMatch(/\$\d|user_id|auth\.uid|current_setting|request\.jwt/i);
          // The only condition a read may have is about the rows themselves (archived apps, recent days, which kinds of ledger
          // entries, whether the ledger has posted a day), never who owns them.
          for (const condition of f.prosrc.match(/\bwhere\b[^)]*/gi) ?? [])
            expect(condition.trim().replace(/\s+/g, ' '), f.proname).toMatch(
              new RegExp(
                '^where (' +
                  [
                    '(a\\.)?archived_at is null',
                    'd\\.day > current_date - 90',
                    "a\\.kind in \\('publisher', 'publisher_available'",
                    "account = 'publisher'( and kind in \\('(ad_spend', 'ad_revenue', 'adjustment|data_sale', 'data_clawback)')?",
                    's\\.revenue_micro <> s\\.posted_micro',
                    "account = 'publisher_available'",
                    "\\(pl\\.app_id \\|\\| ':' \\|\\| s\\.day",
                    "t\\.kind = 'ad_revenue'",
                    // The advertiser's own ledger account among theirs (account_campaigns): which kind, never whose.
                    "a\\.kind = 'advertiser'",
                    // Which deletion notices are still to acknowledge (account_licenses): a notice's own state, never whose.
                    'n\\.acknowledged_at is null',
                  ].join('|') +
                  ')$',
                'i',
              ),
            );
        }
      });

      it('are functions that run as their caller, for signed-in callers only', async () => {
        const functions = await readFunctions();
        expect(functions).toHaveLength(READ_FUNCTIONS.length);
        for (const f of functions) {
          // security invoker: row-level security applies to the caller, not to the function's owner.
          expect(f.prosecdef, f.proname).toBe(false);
          // No setting of the function's own changes who runs it (only its search_path is fixed).
          for (const setting of f.proconfig ?? []) expect(setting, f.proname).toMatch(/^search_path=/);
          expect({ name: f.proname, anon: f.anon, authenticated: f.authenticated }).toEqual({ name: f.proname, anon: false, authenticated: true });
        }
        // And the refusal holds when an anonymous caller tries.
        for (const sql of READ_STATEMENTS) {
          const result = await attempt(() => asRole(db, 'anon').query(sql));
          expect(result, textOf(sql)).toEqual({ ok: false, error: expect.stringMatching(/permission denied for function account_/) });
        }
      });

      it("return the caller's rows, all of them and nothing else", async () => {
        for (const [me, other] of [
          [users.demo, users.demo2],
          [users.demo2, users.demo],
        ] as const) {
          const [mine, theirs] = [await owned(me), await owned(other)];
          const profile = await readAs(me, 'profile');
          const apps = await readAs(me, 'apps');
          const earnings = await readAs(me, 'earnings');
          const keys = await readAs(me, 'apiKeys');
          const campaigns = await readAs(me, 'campaigns');
          const licenses = await readAs(me, 'licenses');
          expect([profile.id, apps.id, earnings.id, keys.id, campaigns.id, licenses.id]).toEqual([me, me, me, me, me, me]);
          const seen = {
            apps: sorted(apps.apps.map((a) => a.id)),
            placements: sorted(apps.placements.map((p) => p.id)),
            payouts: sorted(earnings.payouts.map((p) => p.period)),
            api_keys: sorted(keys.api_keys.map((k) => k.id)),
            campaigns: sorted(campaigns.campaigns.map((c) => c.id)),
            creatives: sorted(campaigns.campaigns.flatMap((c) => c.creatives.map((cr) => cr.id))),
            licenses: sorted(licenses.licenses.map((l) => l.id)),
          };
          expect(seen).toEqual(mine);
          expect(mine.campaigns.length).toBeGreaterThan(0);
          expect(mine.licenses.length).toBeGreaterThan(0);
          // Each license counts the caller's own notice naming it, not acknowledged; the reserve is its price.
          expect(licenses.licenses.map((l) => l.unacknowledged_deletion_notices)).toEqual(mine.licenses.map(() => 1));
          expect(licenses.funds).toEqual({ balance_micro: 0, reserved_micro: 6000 * mine.licenses.length, available_micro: -6000 * mine.licenses.length });
          expect(sorted(earnings.placements.map((p) => p.id))).toEqual(mine.placements);
          for (const kind of ['apps', 'placements', 'api_keys', 'campaigns', 'creatives', 'licenses'] as const) {
            expect(
              seen[kind].filter((id) => theirs[kind].includes(id)),
              kind,
            ).toEqual([]);
          }
        }
      });

      it('are statements that, with RLS bypassed, would see every publisher', async () => {
        // The service role bypasses RLS: run as the service, the same statements filter nothing, so
        // each function finds every profile and fails rather than pick one (cardinality_violation).
        // The service role may not execute them: the grant is made in the same transaction, which
        // the failure rolls back.
        const serviceMayExecute = () =>
          db.query<{ f: string; granted: boolean }>(
            `select f, has_function_privilege('service_role', 'public.' || f || '()', 'execute') as granted from unnest($1::text[]) f order by f`,
            [READ_FUNCTIONS],
          );
        const before = await serviceMayExecute();
        for (const sql of READ_STATEMENTS) {
          const fn = READ_CALL.exec(textOf(sql))![1]!;
          const granting: Engine = derivedEngine(db, {
            transaction: (run) =>
              db.transaction(async (tx) => {
                await tx.exec(`grant execute on function public.${fn}() to service_role`);
                return run(tx);
              }),
          });
          const failure = await rawAsService(granting, (q) => q.query(textOf(sql))).then(
            () => undefined,
            (err: unknown) => err,
          );
          expect(failure, textOf(sql)).toMatchObject({ code: '21000' });
          expect((failure as Error).message, textOf(sql)).toMatch(/more than one row/);
        }
        // Nothing of the grants outlived their transactions.
        expect(await serviceMayExecute()).toEqual(before);
        // And the profiles they found were those of both publishers.
        const profiles = await rawAsService(db, (q) => q.query<{ id: string }>('select id from public.users'));
        expect(profiles.map((r) => r.id)).toEqual(expect.arrayContaining([users.demo, users.demo2]));
      });
    });

    it("the other user's rows are all still there after the attempts", async () => {
      const counts = await rawAsService(db, (q) =>
        q.query<{ n: number }>("select count(*)::int as n from public.apps where user_id = $1 and name <> 'Intruder app'", [users.demo2]),
      );
      const apps = await as(users.demo2, (q) => q.query('select id from public.apps'));
      expect(apps).toHaveLength(counts[0]!.n);
      expect(apps.length).toBeGreaterThan(0);
    });

    it('a user can still manage their own rows (the policies are not simply deny-all)', async () => {
      const done = await as(users.demo, async (q) => {
        const [sql, params] = insertSql('apps', { user_id: users.demo, name: 'Own new app', slug: 'own-new-app', allowed_origins: ['https://own.example'] });
        await q.query(sql, params);
        const [app] = await q.query<{ id: string }>("select id from public.apps where slug = 'own-new-app'");
        const renamed = await q.query("update public.apps set name = 'Own renamed app', archived_at = now() where id = $1 returning id", [app!.id]);
        const [keySql, keyParams] = insertSql('api_keys', {
          app_id: app!.id,
          user_id: users.demo,
          name: 'Own key',
          environment: 'development',
          key_prefix: 'pk_test_ownkey00',
          key_last4: 'wxyz',
          key_hash: 'e'.repeat(64),
        });
        await q.query(keySql, keyParams);
        const revoked = await q.query("update public.api_keys set status = 'revoked', revoked_at = now() where key_prefix = 'pk_test_ownkey00' returning id");
        const [consentSql, consentParams] = insertSql('oauth_consents', {
          user_id: users.demo,
          client_id: 'https://own.example/client.json',
          client_name: 'Own',
          scopes: ['profile:read'],
        });
        await q.query(consentSql, consentParams);
        const renewed = await q.query(
          "update public.oauth_consents set scopes = '{apps:read}' where client_id = 'https://own.example/client.json' returning client_id",
        );
        const withdrawn = await q.query("delete from public.oauth_consents where client_id = 'https://own.example/client.json' returning client_id");
        const deleted = await q.query('delete from public.apps where id = $1 returning id', [app!.id]);
        return { renamed: renamed.length, revoked: revoked.length, renewed: renewed.length, withdrawn: withdrawn.length, deleted: deleted.length };
      });
      expect(done).toEqual({ renamed: 1, revoked: 1, renewed: 1, withdrawn: 1, deleted: 1 });
    });

    it('a key cannot be created for another user’s app, even with the own user id', async () => {
      const [sql, params] = insertSql('api_keys', {
        app_id: refs[users.demo2]!.appId,
        user_id: users.demo,
        name: 'Borrowed app',
        environment: 'production',
        key_prefix: 'pk_live_borrowed',
        key_last4: 'abcd',
        key_hash: 'd'.repeat(64),
      });
      const result = await attempt(() => as(users.demo, (q) => q.query(sql, params)));
      expect(result.ok).toBe(false);
    });

    it('every table with a policy for signed-in users is in this suite', async () => {
      const rows = await db.query<{ tablename: string }>(
        "select distinct tablename from pg_policies where schemaname = 'public' and 'authenticated' = any(roles)",
      );
      // Pricing and which months are closed are the same for everyone.
      const covered = new Set([...USER_TABLES.map((t) => t.table), 'pricing_settings', 'ledger_month_closes']);
      for (const r of rows) expect(covered.has(r.tablename), `${r.tablename} has policies the suite does not exercise`).toBe(true);
    });

    it('secrets are not readable even on the own row: no hash columns for authenticated', async () => {
      const keyHash = await attempt(() => as(users.demo, (q) => q.query('select key_hash from public.api_keys')));
      expect(keyHash.ok).toBe(false);
      const credentials = await attempt(() => as(users.demo, (q) => q.query('select password_hash from public.user_credentials')));
      expect(credentials.ok).toBe(false);
      const details = await attempt(() => as(users.demo, (q) => q.query('select details_ciphertext from public.payout_methods')));
      expect(details.ok).toBe(false);
      const webhookSecret = await attempt(() => as(users.demo, (q) => q.query('select secret_ciphertext from public.data_buyer_webhooks')));
      expect(webhookSecret.ok).toBe(false);
    });

    it('an anonymous caller sees no user data, and reads pricing', async () => {
      for (const t of USER_TABLES) {
        const result = await attempt(() => rawAsAnon(db, (q) => q.query(`select ${t.owner} from public.${t.table}`)));
        if (result.ok) expect(result.rows, t.table).toHaveLength(0);
        else expect(result.error).toMatch(DENIED);
      }
      const pricing = await rawAsAnon(db, (q) => q.query('select publisher_ad_revenue_share from public.pricing_settings'));
      expect(pricing).toHaveLength(1);
    });

    it('service-only tables are closed to users and anonymous callers', async () => {
      for (const table of SERVICE_ONLY_TABLES) {
        for (const run of [(fn: (q: Queryable) => Promise<unknown[]>) => as(users.demo, fn), (fn: (q: Queryable) => Promise<unknown[]>) => rawAsAnon(db, fn)]) {
          const result = await attempt(() => run((q) => q.query(`select * from public.${table}`)));
          if (result.ok) expect(result.rows, table).toHaveLength(0);
          else expect(result.error).toMatch(DENIED);
        }
      }
    });

    it('RLS is enabled and forced on every table in public', async () => {
      const rows = await db.query<{ relname: string; relrowsecurity: boolean; relforcerowsecurity: boolean }>(
        `select c.relname, c.relrowsecurity, c.relforcerowsecurity from pg_class c
         join pg_namespace n on n.oid = c.relnamespace where n.nspname = 'public' and c.relkind = 'r'`,
      );
      expect(rows.length).toBeGreaterThanOrEqual(USER_TABLES.length + SERVICE_ONLY_TABLES.length);
      for (const r of rows)
        expect({ table: r.relname, enabled: r.relrowsecurity, forced: r.relforcerowsecurity }).toEqual({
          table: r.relname,
          enabled: true,
          forced: true,
        });
    });

    it('policies are named as sentences', async () => {
      const rows = await db.query<{ policyname: string }>("select policyname from pg_policies where schemaname = 'public'");
      expect(rows.length).toBeGreaterThan(10);
      for (const r of rows) expect(r.policyname).toMatch(/^[A-Z][a-z]+( [a-zA-Z]+)+$/);
    });

    it('the claims end with the transaction', async () => {
      await as(users.demo, (q) => q.query('select 1'));
      const [after] = await db.query<{ uid: string | null; role: string }>('select auth.uid() as uid, current_user as role');
      expect(after).toEqual({ uid: null, role: expect.not.stringMatching(/^authenticated$/) });
    });

    it('concurrent transactions for two users never see each other’s claims', async () => {
      const rounds = 25;
      const seen = await Promise.all(
        Array.from({ length: rounds * 2 }, (_, i) => {
          const me = i % 2 === 0 ? users.demo : users.demo2;
          return as(me, async (q) => {
            const before = await q.query<{ uid: string }>('select auth.uid() as uid');
            // Yield to the event loop so other transactions get a chance to interleave.
            await new Promise((r) => setTimeout(r, i % 3));
            const apps = await q.query<{ user_id: string }>('select user_id from public.apps');
            const after = await q.query<{ uid: string }>('select auth.uid() as uid');
            return { me, uids: [before[0]!.uid, after[0]!.uid], owners: [...new Set(apps.map((a) => a.user_id))] };
          });
        }),
      );
      for (const s of seen) {
        expect(s.uids).toEqual([s.me, s.me]);
        expect(s.owners).toEqual([s.me]);
      }
    });
  });
}
