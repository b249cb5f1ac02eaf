import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine, Transaction } from '../../lib/platform/db/engine';
import { viewabilityRule } from '../../lib/ads/serving/ads';
import { DECISION_TOKEN_TTL_SECONDS } from '../../lib/ads/serving/tokens';
import { parseEnv } from '../../lib/platform/env';
import { PLACEMENT_FORMATS } from '../../lib/schemas/account';
import { adsQuery } from '../../lib/schemas/sdk';
import { testEngines } from '../helpers/db';
import { reasonOf } from '../helpers/event-facts';

/**
 * The SDK path's numbers that live on two sides, held together. TypeScript tells the SDK when to
 * send an impression (the viewability rule of each ad, lib/ads/serving/ads.ts `viewabilityRule`
 * from VIEWABILITY_RULES, lib/schemas/sdk.ts) and SQL judges it by its own rule
 * (public.sdk_viewable, public.sdk_view_seconds, through public.sdk_event_reason): the two must
 * agree for every format, or impressions an SDK sends in good faith are never billed (or ones it
 * should not send are). The windows SQL applies (too late, one click per address and ad, the
 * frequency cap) and the hourly caps TypeScript applies are the ones content/docs/sdk-integration.md
 * states. Each SQL value is read from the migrated database, by calling its function just inside
 * and just outside the value the other side holds.
 */

const DOCS = readFileSync(path.join(process.cwd(), 'content', 'docs', 'sdk-integration.md'), 'utf8');

/** The one number a sentence of the documentation holds where `pattern` has its group; fails when the sentence is gone. */
function documented(pattern: RegExp): number {
  const match = DOCS.match(pattern);
  expect(match, `content/docs/sdk-integration.md: ${pattern}`).not.toBeNull();
  return Number(match![1]!.replaceAll(',', ''));
}

/** Just below a threshold, as evidence can be (the SDK sends what the browser measured). */
const EPSILON = 0.000001;

for (const engine of testEngines()) {
  describe(`the SDK path's numbers on both sides, on ${engine.name}`, () => {
    let db: Engine;

    beforeAll(async () => {
      db = await engine.open();
    });
    afterAll(async () => {
      await db?.close();
    });

    const viewable = (format: string, share: number, seconds: number, area: number | null) =>
      db.query<{ v: boolean }>('select public.sdk_viewable($1, $2, $3, $4::bigint) as v', [format, share, seconds, area]).then((rows) => rows[0]!.v);

    it('viewability: for every format, the rule the API gives the SDK is the one SQL judges impressions by, share, seconds and size', async () => {
      const judged: Record<string, unknown> = {};
      const given: Record<string, unknown> = {};
      for (const format of PLACEMENT_FORMATS) {
        const rule = viewabilityRule(format);
        const { min_visible_share: share, min_seconds: seconds } = rule;
        const large = rule.large_ad;
        given[format] = {
          atTheRule: true,
          lessInView: false,
          fewerSeconds: false,
          tooSoon: 'too_soon',
          inTime: null,
          large: large ? { atTheRule: true, lessInView: false, fewerSeconds: false, smaller: false } : { noneForAnySize: false },
        };
        judged[format] = {
          atTheRule: await viewable(format, share, seconds, null),
          lessInView: await viewable(format, share - EPSILON, seconds, null),
          fewerSeconds: await viewable(format, share, seconds - EPSILON, null),
          // Sooner after its ad was served than the rule's seconds, an impression is too soon (public.sdk_view_seconds).
          tooSoon: await reasonOf(db, { format, share, seconds: seconds - 2 * EPSILON, age: seconds - EPSILON }),
          inTime: await reasonOf(db, { format, share, seconds, age: seconds }),
          large: large
            ? {
                atTheRule: await viewable(format, large.min_visible_share, large.min_seconds, large.min_area_px),
                lessInView: await viewable(format, large.min_visible_share - EPSILON, large.min_seconds, large.min_area_px),
                fewerSeconds: await viewable(format, large.min_visible_share, large.min_seconds - EPSILON, large.min_area_px),
                smaller: await viewable(format, large.min_visible_share, large.min_seconds, large.min_area_px - 1),
              }
            : // No rule for large ads: below the rule, not even the largest ad the API accepts (area_px) is viewable.
              { noneForAnySize: await viewable(format, share - EPSILON, seconds, 100_000_000) },
        };
      }
      expect(judged).toEqual(given);
      // Every rule the SDK can be given was compared: video's, the others', a sponsored card's with its large ads', and a follow-up's whole question.
      expect(new Set(PLACEMENT_FORMATS.map((f) => JSON.stringify(viewabilityRule(f)))).size).toBe(4);
    });

    it('viewability: the table of content/docs/sdk-integration.md states the rule of every format the API gives', () => {
      const rows = [
        ...DOCS.matchAll(
          /^\| ((?:`[a-z_]+`(?:, )?)+)(, when `area_px` is ([\d,]+) or more)? \| (?:At least (\d+)%|All) of the ad was in view for (\d+) continuous seconds?/gm,
        ),
      ];
      const documentedRules: Record<string, { share: number; seconds: number; area?: number }[]> = {};
      for (const row of rows) {
        for (const format of row[1]!.match(/[a-z_]+/g)!) {
          const rule = {
            share: row[4] === undefined ? 1 : Number(row[4]) / 100,
            seconds: Number(row[5]),
            ...(row[3] ? { area: Number(row[3].replaceAll(',', '')) } : {}),
          };
          (documentedRules[format] ??= []).push(rule);
        }
      }
      const given = Object.fromEntries(
        PLACEMENT_FORMATS.map((format) => {
          const rule = viewabilityRule(format);
          const rules: { share: number; seconds: number; area?: number }[] = [{ share: rule.min_visible_share, seconds: rule.min_seconds }];
          if (rule.large_ad) rules.push({ share: rule.large_ad.min_visible_share, seconds: rule.large_ad.min_seconds, area: rule.large_ad.min_area_px });
          return [format, rules];
        }),
      );
      expect(documentedRules).toEqual(given);
    });

    it("too late: SQL's window for an impression is the documentation's, and shorter than a token's life, which the documentation states too", async () => {
      const minutes = documented(/Within (\d+) minutes of the ad being served/);
      const window = minutes * 60;
      expect({ at: await reasonOf(db, { age: window }), past: await reasonOf(db, { age: window + 0.001 }) }).toEqual({ at: null, past: 'too_late' });
      // A token that expired first would make `too_late` an answer no event ever gets.
      expect(DECISION_TOKEN_TTL_SECONDS).toBeGreaterThan(window);
      expect(documented(/`expired_token` \| The token is more than (\d+) hours? old/) * 3600).toBe(DECISION_TOKEN_TTL_SECONDS);
      // Serving counts an ad as a promise on its campaign's budget for as long as it may still be billed (public.sdk_campaign_creative).
      const [creative] = await db.query<{ definition: string }>("select pg_get_functiondef('public.sdk_campaign_creative'::regproc) as definition");
      const promised = [...creative!.definition.matchAll(/interval '(\d+) minutes'/g)].map((m) => Number(m[1]) * 60);
      expect(promised.length).toBeGreaterThan(0);
      for (const seconds of promised) expect(seconds).toBeGreaterThanOrEqual(window);
    });

    /** A decision of a seeded placement, as the owner, in the transaction of `fn` (rolled back). */
    async function withDecisions<T>(fn: (q: Transaction, add: (d: Record<string, unknown>) => Promise<void>, at: string) => Promise<T>): Promise<T> {
      let result: T | undefined;
      const rollback = new Error('rolled back');
      await db
        .transaction(async (tx) => {
          const [placement] = await tx.query<{ id: string; app_id: string }>('select id, app_id from public.placements order by id limit 1');
          const at = '2026-12-01T12:00:00Z';
          const add = async (d: Record<string, unknown>) => {
            await tx.query(
              `insert into public.ad_decisions (app_id, placement_id, campaign_id, creative_id, network_hash, created_at, impression_event_id, impressed_at,
                                                click_event_id, clicked_at, click_ip_hash)
               values ($1, $2, $3, $4, $5, $6::timestamptz, $7, $8::timestamptz, $9, $8::timestamptz, $10)`,
              [
                placement!.app_id,
                placement!.id,
                d.campaign ?? null,
                d.creative ?? null,
                d.network ?? null,
                d.createdAt ?? at,
                d.clickedAt ? randomUUID() : null,
                d.clickedAt ?? null,
                d.clickedAt ? randomUUID() : null,
                d.ip ?? null,
              ],
            );
          };
          result = await fn(tx, add, at);
          throw rollback;
        })
        .catch((err: unknown) => {
          if (err !== rollback) throw err;
        });
      return result as T;
    }

    it("one click per address and ad: SQL's window is the documentation's", async () => {
      const hours = documented(/One click per client address and ad \(creative\) in (\d+) hours/);
      const creative = randomUUID();
      const found = await withDecisions(async (q, add, at) => {
        const ago = (seconds: number) => new Date(Date.parse(at) - seconds * 1000).toISOString();
        await add({ creative, ip: 'parity-inside', clickedAt: ago(hours * 3600 - 0.001) });
        await add({ creative, ip: 'parity-at', clickedAt: ago(hours * 3600) });
        const rows = await q.query<{ ip: string }>(
          `select d.click_ip_hash as ip from public.ad_decisions d
           where d.id in (select public.sdk_recent_clicks($1, 'parity-inside', $2)) or d.id in (select public.sdk_recent_clicks($1, 'parity-at', $2))`,
          [creative, at],
        );
        return rows.map((r) => r.ip);
      });
      expect(found).toEqual(['parity-inside']);
    });

    it("frequency cap: SQL's window is the documentation's, and the allowance of a network the server's default", async () => {
      const hours = documented(/frequency cap of requests from this network to your app in the last (\d+) hours/);
      const campaign = randomUUID();
      const found = await withDecisions(async (q, add, at) => {
        const ago = (seconds: number) => new Date(Date.parse(at) - seconds * 1000).toISOString();
        await add({ campaign, creative: randomUUID(), network: 'parity-network', createdAt: ago(hours * 3600 - 0.001) });
        await add({ campaign, creative: randomUUID(), network: 'parity-network', createdAt: ago(hours * 3600) });
        const [placement] = await q.query<{ app_id: string }>('select app_id from public.placements order by id limit 1');
        const rows = await q.query<{ n: number }>("select count(*)::int as n from public.sdk_network_fills($1, 'parity-network', $2, $3)", [
          placement!.app_id,
          campaign,
          at,
        ]);
        return rows[0]!.n;
      });
      expect(found).toBe(1);
      const words: Record<string, number> = { two: 2, three: 3, four: 4, five: 5, six: 6 };
      const factor = DOCS.match(/left out once it has filled (\w+) times its frequency cap/)?.[1];
      expect(parseEnv({}).SDK_NETWORK_FREQUENCY_FACTOR).toBe(words[factor ?? '']);
    });

    it("a session id: the longest the API accepts is the longest SQL keeps, and the documentation's", async () => {
      const longest = adsQuery.shape.session_id.unwrap().maxLength!;
      const stored = await withDecisions(async (q) => {
        const [placement] = await q.query<{ id: string; app_id: string }>('select id, app_id from public.placements order by id limit 1');
        const store = async (length: number) => {
          await q.exec('savepoint session');
          try {
            await q.query('insert into public.ad_decisions (app_id, placement_id, session_id) values ($1, $2, $3)', [
              placement!.app_id,
              placement!.id,
              's'.repeat(length),
            ]);
            return true;
          } catch {
            return false;
          } finally {
            await q.exec('rollback to savepoint session');
          }
        };
        return { longest: await store(longest), longer: await store(longest + 1) };
      });
      expect(stored).toEqual({ longest: true, longer: false });
      expect(documented(/`sessionId`: a random id of yours for the visit, \d+ to (\d+) letters/)).toBe(longest);
    });
  });
}

describe("the SDK path's hourly caps", () => {
  it("the server's defaults are the documentation's", () => {
    const defaults = parseEnv({});
    expect(defaults.SDK_NETWORK_IMPRESSIONS_PER_HOUR).toBe(documented(/At most ([\d,]+) billable impressions per hour from one network/));
    expect(defaults.SDK_PUBLISHER_IMPRESSIONS_PER_HOUR).toBe(documented(/at most ([\d,]+) per hour to one publisher's apps/));
  });
});
