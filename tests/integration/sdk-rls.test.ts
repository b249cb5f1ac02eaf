import { beforeAll, describe, expect, it } from 'vitest';
import type { Engine, Queryable } from '@/lib/platform/db/engine';
import { rollUp } from '@/lib/ads/serving/rollup';
import { suiteDatabase, testEngines } from '../helpers/db';
import { rawScriptAs, sdkClaims } from '../helpers/roles';

/**
 * Row-level security of the SDK role, on every engine: a request that runs as one app (its
 * claims name the app and its owner) sees and writes that app's rows and nothing of any other,
 * whatever the SQL asks for, and reads no publisher data at all. The application's own filters
 * are left out here on purpose: the policies alone decide.
 */

interface App {
  appId: string;
  userId: string;
  placementId: string;
}

/** Runs one statement as the app's SDK role, in one message with the claims as the SDK surface sends it; its rows, or the error's message. */
async function asApp(
  db: Engine,
  app: { appId: string; userId?: string },
  sql: string,
): Promise<{ ok: true; rows: Record<string, unknown>[] } | { ok: false; error: string }> {
  try {
    const results = await rawScriptAs(db, 'sdk', sdkClaims(app), [sql]);
    return { ok: true, rows: results[0] ?? [] };
  } catch (err) {
    return { ok: false, error: err instanceof Error ? err.message : String(err) };
  }
}

const DENIED = /permission denied|row-level security|violates/;

for (const engine of testEngines()) {
  describe(`the SDK role's row-level security on ${engine.name}`, () => {
    const suite = suiteDatabase(engine, { unlimited: true });
    let a: App;
    let b: App;

    beforeAll(async () => {
      const first = async (q: Queryable, userId: string): Promise<App> => {
        const [row] = await q.query<{ app_id: string; id: string }>(
          "select app_id, id from public.placements where user_id = $1 and status = 'active' order by created_at limit 1",
          [userId],
        );
        return { appId: row!.app_id, userId, placementId: row!.id };
      };
      a = await first(suite.db, suite.users.demo);
      b = await first(suite.db, suite.users.demo2);
      // Traffic of both apps, recorded the way the SDK records it (the seed's, with its invalid
      // glimpses), plus a decision each.
      for (const app of [a, b]) {
        const served = await asApp(
          suite.db,
          app,
          `select * from public.sdk_serve_ad('${app.placementId}', 'rls-session', '{}', null, 'rls-client', 'rls-network', 4)`,
        );
        expect(served.ok).toBe(true);
      }
    });

    it('sees its own app, placements, decisions, events, consents and data, and none of another app', async () => {
      const tables: [string, string][] = [
        ['apps', 'id'],
        ['placements', 'app_id'],
        ['ad_decisions', 'app_id'],
        ['ad_events', 'app_id'],
        ['data_consents', 'app_id'],
        ['data_records', 'app_id'],
      ];
      for (const [table, column] of tables) {
        const result = await asApp(suite.db, a, `select distinct ${column}::text as app from public.${table}`);
        expect(result, table).toEqual({ ok: true, rows: [{ app: a.appId }] });
      }
    });

    it('reads no publisher data: users, keys, stats, payouts, approvals and credentials are closed', async () => {
      for (const table of [
        'users',
        'api_keys',
        'daily_stats',
        'payouts',
        'oauth_consents',
        'user_credentials',
        'service_secrets',
        'idempotency_records',
        'oauth_clients',
      ]) {
        const result = await asApp(suite.db, a, `select * from public.${table}`);
        expect(result.ok, table).toBe(false);
        if (!result.ok) expect(result.error).toMatch(DENIED);
      }
      // Of its own app, only what serving needs.
      expect((await asApp(suite.db, a, 'select description from public.apps')).ok).toBe(false);
      expect((await asApp(suite.db, a, 'select revenue_micro from public.placements')).ok).toBe(false);
    });

    it('cannot write a decision or an event for another app, or under another owner', async () => {
      const attempts = [
        `insert into public.ad_decisions (app_id, placement_id) values ('${b.appId}', '${b.placementId}') returning 1`,
        // Its own app id on another app's placement: the foreign key (placement, app) refuses it.
        `insert into public.ad_decisions (app_id, placement_id) values ('${a.appId}', '${b.placementId}') returning 1`,
        `insert into public.ad_events (event_id, placement_id, user_id, app_id, kind) values ('x', '${b.placementId}', '${b.userId}', '${b.appId}', 'impression') returning 1`,
        `insert into public.ad_events (event_id, placement_id, user_id, app_id, kind) values ('x', '${a.placementId}', '${b.userId}', '${a.appId}', 'impression') returning 1`,
        `insert into public.data_consents (app_id, user_id, subject_hash, purposes, policy_version, consented_at) values ('${b.appId}', '${b.userId}', '${'a'.repeat(64)}', '{ai_interactions}', 'v1', now()) returning 1`,
      ];
      for (const sql of attempts) {
        const result = await asApp(suite.db, a, sql);
        expect(result.ok, sql).toBe(false);
      }
    });

    it('cannot change or delete recorded traffic, change campaigns, or run the roll-up', async () => {
      for (const sql of [
        'update public.ad_events set revenue_micro = 1000000000 returning 1',
        'update public.ad_decisions set placement_id = placement_id returning 1',
        'update public.ad_decisions set app_id = app_id returning 1',
        'delete from public.ad_events returning 1',
        'update public.ad_decisions set session_id = null returning 1',
        'select * from public.ad_traffic_counts',
        'delete from public.ad_traffic_counts returning 1',
        'delete from public.ad_decisions returning 1',
        "update public.campaigns set status = 'paused' returning 1",
        'update public.campaign_daily_spend set spent_micro = 0 returning 1',
        'update public.placements set impressions = 1000000 returning 1',
        "update public.data_records set status = 'sold' returning 1",
        'select * from public.roll_up_ad_traffic()',
      ]) {
        const result = await asApp(suite.db, a, sql);
        expect(result.ok, sql).toBe(false);
        if (!result.ok) expect(result.error, sql).toMatch(DENIED);
      }
    });

    it('cannot rewrite or erase the consent history, nor read or change proofs and counts of another app', async () => {
      // A consent of each app, recorded as the SDK records one, so that there are rows to aim at.
      for (const app of [a, b]) {
        const made = await asApp(
          suite.db,
          app,
          `insert into public.data_consents (app_id, user_id, subject_hash, purposes, policy_version, consented_at)
           values ('${app.appId}', '${app.userId}', '${'c'.repeat(64)}', '{ai_interactions}', 'v1', now()) returning 1`,
        );
        expect(made.ok, JSON.stringify(made)).toBe(true);
      }
      for (const sql of [
        "update public.data_consents set purposes = '{ux_sessions}' returning 1",
        "update public.data_consents set policy_version = 'rewritten' returning 1",
        'update public.data_consents set withdrawn_at = now() returning 1',
        'update public.data_consents set consented_at = now() returning 1',
        'delete from public.data_consents returning 1',
        "update public.data_subjects set proof_hash = repeat('0', 64) returning 1",
        'delete from public.data_subjects returning 1',
      ]) {
        const result = await asApp(suite.db, a, sql);
        expect(result.ok, sql).toBe(false);
        if (!result.ok) expect(result.error, sql).toMatch(DENIED);
      }
      const consents = await suite.db.query<{ n: number }>(
        "select count(*)::int as n from public.data_consents where subject_hash = $1 and policy_version = 'v1'",
        ['c'.repeat(64)],
      );
      expect(consents).toEqual([{ n: 2 }]);
      const rowsOf: Record<string, string> = {
        data_subjects: `(app_id, subject_hash, proof_hash) values ('${b.appId}', '${'d'.repeat(64)}', '${'e'.repeat(64)}')`,
        data_daily_usage: `(app_id, day, subject_hash, records, bytes) values ('${b.appId}', current_date, '', 1, 1)`,
        data_subject_arrivals: `(app_id, address_hash) values ('${b.appId}', 'address')`,
      };
      for (const [table, row] of Object.entries(rowsOf)) {
        const theirs = await asApp(suite.db, a, `select app_id from public.${table} where app_id = '${b.appId}'`);
        expect(theirs, table).toEqual({ ok: true, rows: [] });
        const written = await asApp(suite.db, a, `insert into public.${table} ${row} returning 1`);
        expect(written.ok, table).toBe(false);
        if (!written.ok) expect(written.error, table).toMatch(/row-level security/);
      }
    });

    it("records what became of its own decisions only: another app's are out of reach", async () => {
      const theirs = await asApp(suite.db, a, `update public.ad_decisions set click_ip_hash = 'x' where app_id = '${b.appId}' returning id`);
      expect(theirs).toEqual({ ok: true, rows: [] });
      const [{ touched }] = (await suite.db.query<{ touched: number }>(
        "select count(*)::int as touched from public.ad_decisions where click_ip_hash = 'x'",
      )) as [{ touched: number }];
      expect(touched).toBe(0);
    });

    it('without claims, the role sees nothing of any app', async () => {
      // A transaction that set the role but no app: sdk_app_id() is null.
      const rows = await suite.db.transaction(async (tx) => {
        await tx.query("select set_config('role', 'sdk', true)");
        return tx.query('select id from public.placements union all select id from public.ad_decisions');
      });
      expect(rows).toEqual([]);
    });

    it('the roll-up, as the service, counts what the SDK recorded, once', async () => {
      const first = await rollUp(suite.db);
      expect(first.decisions).toBeGreaterThan(0);
      expect(await rollUp(suite.db)).toEqual({ decisions: 0, events: 0 });
    });
  });
}
