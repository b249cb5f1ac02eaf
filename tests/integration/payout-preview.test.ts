import { describe, expect, it } from 'vitest';
import { payoutPreview, requestPayout } from '../../lib/money/payouts/publisher';
import type { Queryable } from '../../lib/platform/db/engine';
import { suiteDatabase, testEngines } from '../helpers/db';
import { giveFinalEarnings } from '../helpers/payouts';
import { rawAsAnon, rawAsService, rawAsUser } from '../helpers/roles';

/**
 * Payout eligibility has one home (migration 20261214000100_payout_preview): public.payout_eligibility
 * decides, public.payout_request applies it, and public.payout_preview tells the console, as the
 * signed-in user, what the request would answer now. On every engine, for each case the rule
 * knows (no method, a method not ready, under the minimum, whole cents, enough), the preview
 * answers what the request then answers, word for word through the console's code too.
 */

async function one<T>(q: Queryable, sql: string, params: unknown[] = []): Promise<T> {
  const [row] = await q.query<{ v: T }>(sql, params);
  return row!.v;
}

type Answer = { ok: boolean; reason?: string; payout_id?: string; amount_micro?: number; available_micro?: number; minimum_micro?: number };

for (const engine of testEngines()) {
  describe(`payout preview on ${engine.name}`, () => {
    const suite = suiteDatabase(engine, { unlimited: true });

    /** A new publisher with `availableMicro` of final earnings and, unless told otherwise, a ready manual method. */
    const publisher = async (name: string, availableMicro: number, method: 'ready' | 'not ready' | 'none' = 'ready') =>
      rawAsService(suite.db, async (q) => {
        const id = await one<string>(q, 'insert into public.users (email, name) values ($1, $2) returning id as v', [`${name}@preview.test`, name]);
        if (availableMicro > 0) expect(await giveFinalEarnings(q, id, availableMicro)).toBe(1);
        if (method !== 'none') {
          await q.query(
            `insert into public.payout_methods (user_id, rail, details_ciphertext, masked, ready) values ($1, 'manual', 'v1.sealed', 'Test · •••• 1234', $2)`,
            [id, method === 'ready'],
          );
        }
        return id;
      });

    const preview = (user: string) => rawAsUser(suite.db, { sub: user }, (q) => one<Answer>(q, 'select public.payout_preview() as v'));
    const request = (user: string) => rawAsUser(suite.db, { sub: user }, (q) => one<Answer>(q, 'select public.request_payout() as v'));
    const payouts = (user: string) => one<number>(suite.db, 'select count(*)::int as v from public.payouts where user_id = $1', [user]);

    /** The preview, then the request: a refusal the same in every key, a payout of the amount the preview said. */
    async function agree(user: string): Promise<Answer> {
      const seen = await preview(user);
      const done = await request(user);
      if (seen.ok) {
        expect(done).toMatchObject({ ok: true, amount_micro: seen.amount_micro });
        expect(seen.amount_micro).toBe(seen.available_micro! - (seen.available_micro! % 10_000));
      } else {
        expect(done).toEqual(seen);
      }
      return seen;
    }

    it('answers what the request answers, in every case the rule knows', async () => {
      const minimum = 50_000_000;
      expect(await agree(await publisher('none', 80_000_000, 'none'))).toEqual({
        ok: false,
        reason: 'no_method',
        available_micro: 80_000_000,
        minimum_micro: minimum,
      });
      expect(await agree(await publisher('waiting', 80_000_000, 'not ready'))).toEqual({
        ok: false,
        reason: 'method_not_ready',
        available_micro: 80_000_000,
        minimum_micro: minimum,
      });
      // $50.009999 is $50.00 in whole cents: enough, and the payout leaves the $0.009999.
      expect(await agree(await publisher('rounded', 50_009_999))).toEqual({
        ok: true,
        amount_micro: 50_000_000,
        available_micro: 50_009_999,
        minimum_micro: minimum,
      });
      // $49.999999 is $49.99 in whole cents: one cent short.
      expect(await agree(await publisher('short', 49_999_999))).toEqual({
        ok: false,
        reason: 'below_minimum',
        available_micro: 49_999_999,
        minimum_micro: minimum,
      });
      expect(await agree(await publisher('nothing', 0))).toEqual({ ok: false, reason: 'below_minimum', available_micro: 0, minimum_micro: minimum });
      const rich = await publisher('rich', 123_456_789);
      expect(await agree(rich)).toEqual({ ok: true, amount_micro: 123_450_000, available_micro: 123_456_789, minimum_micro: minimum });
      // After the payout, what is left: both say so.
      expect(await agree(rich)).toEqual({ ok: false, reason: 'below_minimum', available_micro: 6_789, minimum_micro: minimum });
    });

    it('gives the console the request’s own words, and requests nothing', async () => {
      const cases = [
        await publisher('words-none', 80_000_000, 'none'),
        await publisher('words-waiting', 80_000_000, 'not ready'),
        await publisher('words-short', 12_340_000),
        await publisher('words-nothing', 0),
      ];
      for (const user of cases) {
        const seen = await payoutPreview(suite.db, user);
        expect(seen.ok).toBe(false);
        expect(await payouts(user)).toBe(0);
        expect(await requestPayout(suite.db, user)).toEqual(seen);
      }
      expect(await payoutPreview(suite.db, cases[2]!)).toEqual({
        ok: false,
        error: 'Your available balance is $12.34; the minimum payout is $50.00: $37.66 to go.',
      });
      const enough = await publisher('words-enough', 70_000_000);
      expect(await payoutPreview(suite.db, enough)).toEqual({ ok: true, value: { amount_micro: 70_000_000 } });
      expect(await payouts(enough)).toBe(0);
      expect(await requestPayout(suite.db, enough)).toMatchObject({ ok: true, value: { amount: 70_000_000 } });
    });

    it('judges by the minimum in force in the database', async () => {
      const user = await publisher('minimum', 20_000_000);
      expect(await preview(user)).toMatchObject({ ok: false, reason: 'below_minimum', minimum_micro: 50_000_000 });
      await rawAsService(suite.db, (q) => q.query('update public.pricing_settings set min_payout_micro = 20000000'));
      try {
        expect(await agree(user)).toEqual({ ok: true, amount_micro: 20_000_000, available_micro: 20_000_000, minimum_micro: 20_000_000 });
      } finally {
        await rawAsService(suite.db, (q) => q.query('update public.pricing_settings set min_payout_micro = 50000000'));
      }
    });

    it('tells a publisher about their own payouts only, and nobody who is not signed in', async () => {
      const rich = await publisher('own', 90_000_000);
      const other = await publisher('other', 0, 'none');
      // Asked about another publisher, the rule finds nothing of theirs: row-level security shows the caller their own rows.
      expect(await rawAsUser(suite.db, { sub: other }, (q) => one<Answer>(q, 'select public.payout_eligibility($1::uuid) as v', [rich]))).toEqual({
        ok: false,
        reason: 'no_method',
        available_micro: 0,
        minimum_micro: 50_000_000,
      });
      await expect(rawAsAnon(suite.db, (q) => q.query('select public.payout_preview()'))).rejects.toThrow(/permission denied/);
      await expect(rawAsAnon(suite.db, (q) => q.query('select public.payout_eligibility($1::uuid)', [rich]))).rejects.toThrow(/permission denied/);
      await expect(rawAsUser(suite.db, { sub: rich }, (q) => q.query('select public.payout_request($1::uuid)', [rich]))).rejects.toThrow(/permission denied/);
    });
  });
}
