import { beforeAll, describe, expect, it } from 'vitest';
import { changePlacement } from '@/lib/publisher/writes';
import type { Engine } from '@/lib/platform/db/engine';
import { rollUp } from '@/lib/ads/serving/rollup';
import { adBody, CONTEXT_LIMITS } from '@/lib/schemas/sdk';
import { DRAW_RELEVANCE_POWER } from '@/lib/ads/relevance/decide';
import { suiteDatabase, testEngines } from '../helpers/db';
import { newSdkApp, sdk, type SdkApp } from '../helpers/sdk';
import { rawAsService } from '../helpers/roles';

/**
 * `POST /functions/v1/ads` with a conversation, on every engine: the answer and the 204s with
 * their `No-Fill-Reason`, the placement's `min_relevance`, the app's excluded topics and blocks,
 * the market kept in memory and read again when it moves, and what the decision keeps (the
 * relevance and the advertiser's hints, never the conversation).
 */

type App = SdkApp;

const user = (content: string) => ({ role: 'user' as const, content });
const assistant = (content: string) => ({ role: 'assistant' as const, content });

/** The demo campaigns' hints (lib/demo/seed.ts): notes, hosting and courses. */
const NOTES = [user('which app should I use to keep my meeting notes in one place?')];
const SYMPTOM = [user('my left knee swells up after long runs, what should I do?')];
const OFF_TOPIC = [user('what is the capital of Peru?')];

for (const engine of testEngines()) {
  describe(`ads for a conversation on ${engine.name}`, () => {
    const suite = suiteDatabase(engine, { unlimited: true });
    let a: App;

    const app = (db: Engine): Promise<App> => newSdkApp(db, suite.users.demo);

    const ask = (p: App, body: Record<string, unknown>, ip?: string) =>
      sdk('/functions/v1/ads', { body: { placement_id: p.placement, ...body }, headers: { 'x-api-key': p.key }, ip, services: suite.services });
    const withContext = (p: App, messages: unknown[], ip?: string) => ask(p, { context: { messages } }, ip);

    const asService = <T>(text: string, params: unknown[] = []) => rawAsService(suite.db, (q) => q.query<T & Record<string, unknown>>(text, params));

    beforeAll(async () => {
      a = await app(suite.db);
    });

    it('answers a fitting campaign with its relevance and the hints that matched, and keeps only those', async () => {
      const res = await withContext(a, NOTES);
      expect(res.status, res.text).toBe(200);
      const body = adBody.parse(res.body);
      expect(body.ad.advertiser).toBe('Lumen Notes');
      expect(body.relevance).toBeGreaterThanOrEqual(0.3);
      expect(body.why!.matched).toContain('meeting notes');
      const [decision] = await asService<{ relevance: string; matched_hints: string[]; no_fill_reason: string | null }>(
        'select relevance, matched_hints, no_fill_reason from public.ad_decisions where id = $1',
        [body.decision_id],
      );
      expect({ ...decision, relevance: Number(decision!.relevance) }).toEqual({
        relevance: body.relevance,
        matched_hints: body.why!.matched,
        no_fill_reason: null,
      });
    });

    it('answers 204 with why: sensitive, below_relevance, placement_inactive', async () => {
      const sensitive = await withContext(a, SYMPTOM);
      expect(sensitive.status).toBe(204);
      expect(sensitive.headers.get('no-fill-reason')).toBe('sensitive');
      const offTopic = await withContext(a, OFF_TOPIC);
      expect(offTopic.status).toBe(204);
      expect(offTopic.headers.get('no-fill-reason')).toBe('below_relevance');
      // A sensitive message of the user's earlier in the conversation keeps ads away too.
      const earlier = await withContext(a, [...SYMPTOM, assistant('Rest it and see a doctor.'), ...NOTES]);
      expect(earlier.headers.get('no-fill-reason')).toBe('sensitive');

      const paused = await app(suite.db);
      expect((await changePlacement(suite.db, suite.users.demo, paused.placement, 'pause')).ok).toBe(true);
      for (const res of [await withContext(paused, NOTES), await withContext(paused, SYMPTOM), await ask(paused, {})]) {
        expect(res.status).toBe(204);
        expect(res.headers.get('no-fill-reason')).toBe('placement_inactive');
      }
      const get = await sdk(`/functions/v1/ads?placement_id=${paused.placement}`, { headers: { 'x-api-key': paused.key }, services: suite.services });
      expect(get.headers.get('no-fill-reason')).toBe('placement_inactive');
    });

    it('serves without a conversation as the GET does, with no relevance', async () => {
      const res = await ask(a, { keywords: ['notes'] });
      expect(res.status, res.text).toBe(200);
      const body = adBody.parse(res.body);
      expect(body.relevance).toBeUndefined();
      expect(body.why).toBeUndefined();
    });

    it('weighs relevance in the draw as the labelled sets are measured with (DRAW_RELEVANCE_POWER)', async () => {
      for (const relevance of [0.21, 0.45, 0.7, 0.91, 1]) {
        // As the database's owner: the rule is the SDK role's alone to call.
        const [row] = await suite.db.query<{ w: string }>('select public.sdk_relevant_weight(1000000, $1::numeric)::text as w', [relevance]);
        expect(Number(row!.w)).toBeCloseTo(1_000_000 * relevance ** DRAW_RELEVANCE_POWER, 6);
      }
    });

    it("keeps a campaign at or above the placement's min_relevance only", async () => {
      const p = await app(suite.db);
      // "notes" alone in the latest message: 0.45 for Lumen Notes.
      const word = [user('where do my notes go?')];
      await asService('update public.placements set min_relevance = 0.45 where id = $1', [p.placement]);
      const at = await withContext(p, word);
      expect(at.status, at.text).toBe(200);
      expect(adBody.parse(at.body).relevance).toBe(0.45);
      await asService('update public.placements set min_relevance = 0.46 where id = $1', [p.placement]);
      const above = await withContext(p, word);
      expect(above.status).toBe(204);
      expect(above.headers.get('no-fill-reason')).toBe('below_relevance');
    });

    it("honours the app's excluded topics, blocked advertisers (by name, any case) and blocked categories, with or without a conversation", async () => {
      const p = await app(suite.db);
      await asService("update public.apps set excluded_topics = '{crypto}' where id = $1", [p.appId]);
      const topic = await withContext(p, [user('a notes app for my crypto research?')]);
      expect(topic.status).toBe(204);
      expect(topic.headers.get('no-fill-reason')).toBe('blocked');
      // Another app has no such topic.
      expect((await withContext(a, [user('a notes app for my crypto research?')])).status).toBe(200);

      await asService("update public.apps set excluded_topics = '{}', blocked_advertisers = '{lumen notes}' where id = $1", [p.appId]);
      const blocked = await withContext(p, NOTES);
      expect(blocked.status).toBe(204);
      expect(blocked.headers.get('no-fill-reason')).toBe('blocked');
      for (let i = 0; i < 20; i++) {
        const res = await ask(p, {}, `203.0.113.${i + 1}`);
        if (res.status === 200) expect(adBody.parse(res.body).ad.advertiser).not.toBe('Lumen Notes');
      }

      const [{ category }] = (await asService<{ category: string }>(
        "select advertiser_category as category from public.campaigns where advertiser = 'Lumen Notes' and status = 'active' limit 1",
      )) as [{ category: string }];
      await asService('update public.apps set blocked_advertisers = $2, blocked_categories = $3 where id = $1', [p.appId, [], [category]]);
      expect((await withContext(p, NOTES)).headers.get('no-fill-reason')).toBe('blocked');
      await asService("update public.apps set blocked_categories = '{}' where id = $1", [p.appId]);
      expect((await withContext(p, NOTES)).status).toBe(200);
    });

    it('serves a campaign that starts after the market was read on the first request it fits, and drops one that stops', async () => {
      const p = await app(suite.db);
      // The market is read and kept.
      expect((await withContext(p, [user('which telescope should I buy for the planets?')])).headers.get('no-fill-reason')).toBe('below_relevance');
      const [campaign] = await asService<{ id: string }>(
        `insert into public.campaigns (advertiser, name, daily_budget_micro, frequency_cap, context_hints)
         values ('Orbit Optics', 'Telescopes', 50000000, 10, '{telescope,planets}') returning id`,
      );
      await asService(
        `insert into public.creatives (campaign_id, format, headline, body, cta, landing_url)
         values ($1, 'sponsored_card', 'See the rings of Saturn', 'Telescopes for beginners', 'Shop', 'https://orbit.example/')`,
        [campaign!.id],
      );
      const served = await withContext(p, [user('which telescope should I buy for the planets?')]);
      expect(served.status, served.text).toBe(200);
      expect(adBody.parse(served.body)).toMatchObject({ ad: { advertiser: 'Orbit Optics' }, relevance: 0.698, why: { matched: ['telescope', 'planets'] } }); // two single words: 1 − 0.55²
      await asService("update public.campaigns set status = 'paused' where id = $1", [campaign!.id]);
      expect((await withContext(p, [user('which telescope should I buy for the planets?')])).headers.get('no-fill-reason')).toBe('below_relevance');
      await asService('delete from public.creatives where campaign_id = $1', [campaign!.id]);
      await asService('delete from public.campaigns where id = $1', [campaign!.id]);
    });

    it('says no_eligible_campaign when what fits runs only in other formats, and keeps no client or session on a decision that filled nothing', async () => {
      const p = await app(suite.db);
      const [campaign] = await asService<{ id: string }>(
        `insert into public.campaigns (advertiser, name, daily_budget_micro, frequency_cap, context_hints, formats)
         values ('Tide Charts', 'Tides', 50000000, 10, '{tide tables}', '{tooltip}') returning id`,
      );
      await asService(
        `insert into public.creatives (campaign_id, format, headline, body, cta, landing_url)
         values ($1, 'tooltip', 'Tides', 'Every port', 'See', 'https://tides.example/')`,
        [campaign!.id],
      );
      const res = await ask(p, { session_id: 'session-canary-01', context: { messages: [user('where do I find tide tables for Brest?')] } });
      expect(res.headers.get('no-fill-reason')).toBe('no_eligible_campaign');
      const [decision] = await asService<Record<string, unknown>>(
        `select session_id, client_hash, network_hash, no_fill_reason from public.ad_decisions where placement_id = $1 order by created_at desc limit 1`,
        [p.placement],
      );
      expect(decision).toEqual({ session_id: null, client_hash: null, network_hash: null, no_fill_reason: 'no_eligible_campaign' });
      await asService('delete from public.creatives where campaign_id = $1', [campaign!.id]);
      await asService('delete from public.campaigns where id = $1', [campaign!.id]);
    });

    it("moves the market's version for what the market holds, and not for what it does not", async () => {
      const version = async () => Number((await asService<{ v: string }>('select version as v from public.ad_market'))[0]!.v);
      const p = await app(suite.db);
      let before = await version();
      const [plain] = await asService<{ id: string }>(
        `insert into public.campaigns (advertiser, name, daily_budget_micro, frequency_cap) values ('Plain', 'No hints', 50000000, 10) returning id`,
      );
      await asService("update public.campaigns set status = 'paused' where id = $1", [plain!.id]);
      await asService("update public.campaigns set name = 'Renamed', daily_budget_micro = 60000000 where advertiser = 'Lumen Notes'");
      expect(await version()).toBe(before);
      await asService("update public.campaigns set context_hints = '{hint}' where id = $1", [plain!.id]);
      expect(await version()).toBe(before); // paused: not in the market
      await asService("update public.campaigns set status = 'active' where id = $1", [plain!.id]);
      expect(await version()).toBe(++before);
      await asService("update public.apps set excluded_topics = '{crypto}' where id = $1", [p.appId]);
      expect(await version()).toBe(++before);
      await asService('update public.apps set archived_at = now() where id = $1', [p.appId]);
      expect(await version()).toBe(++before);
      await asService('delete from public.campaigns where id = $1', [plain!.id]);
      expect(await version()).toBe(++before);
    });

    it('counts unfilled requests by reason in the daily stats', async () => {
      const p = await app(suite.db);
      await withContext(p, SYMPTOM);
      await withContext(p, SYMPTOM);
      await withContext(p, OFF_TOPIC);
      await withContext(p, NOTES);
      await rollUp(suite.db);
      const [stats] = await asService<Record<string, string>>(
        `select ad_requests, fills, unfilled_sensitive, unfilled_below_relevance, unfilled_blocked, unfilled_no_eligible_campaign, unfilled_placement_inactive
         from public.daily_stats where placement_id = $1`,
        [p.placement],
      );
      expect(Object.fromEntries(Object.entries(stats!).map(([k, v]) => [k, Number(v)]))).toEqual({
        ad_requests: 4,
        fills: 1,
        unfilled_sensitive: 2,
        unfilled_below_relevance: 1,
        unfilled_blocked: 0,
        unfilled_no_eligible_campaign: 0,
        unfilled_placement_inactive: 0,
      });
    });

    it('refuses a conversation over its limits, or malformed, with 400 and a message that repeats none of it', async () => {
      const secret = 'zebra-canary-in-a-400';
      const long = 'x'.repeat(CONTEXT_LIMITS.characters - secret.length) + secret + 'y';
      const cases: [unknown, RegExp][] = [
        [{ messages: Array.from({ length: 7 }, () => user(secret)) }, /at most 6 messages/],
        [{ messages: [user(long)] }, /at most 4,000 characters/],
        [{ messages: [user(long.slice(0, 2000)), assistant(long.slice(2000))] }, /at most 4,000 characters/],
        [{ messages: [{ role: 'system', content: secret }] }, /role/],
        [{ messages: [user('')] }, /some text/],
        [{ messages: [] }, /at least one message/],
        [{ messages: user(secret) }, /messages/],
      ];
      for (const [context, message] of cases) {
        const res = await ask(a, { context });
        expect(res.status, JSON.stringify(context).slice(0, 80)).toBe(400);
        expect(res.body.error.code).toBe('invalid_request');
        expect(res.body.error.message).toMatch(message);
        expect(res.text).not.toContain(secret);
      }
      const exactly = await ask(a, { context: { messages: [user('x'.repeat(CONTEXT_LIMITS.characters))] } });
      expect(exactly.status).toBe(204);
      const notJson = await sdk('/functions/v1/ads', { body: `{"placement_id": "${a.placement}", "context": ${secret}`, headers: { 'x-api-key': a.key } });
      expect(notJson.status).toBe(400);
      expect(notJson.text).not.toContain(secret);
    });
  });
}
