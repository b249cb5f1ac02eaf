import { beforeAll, describe, expect, it } from 'vitest';
import { changePlacement, createApp, createPlacement, revokeApiKey, updateApp } from '@/lib/publisher/writes';
import { clickIdKey, signClickId, withClickId } from '@/lib/ads/conversions/click-id';
import type { Engine } from '@/lib/platform/db/engine';
import { MemoryRateLimiter } from '@/lib/platform/http/rate-limit';
import type { PlacementFormat } from '@/lib/schemas/account';
import { adBody, eventsBody } from '@/lib/schemas/sdk';
import { rollUp } from '@/lib/ads/serving/rollup';
import { DECISION_TOKEN_TTL_SECONDS, signDecisionToken, verifyDecisionToken } from '@/lib/ads/serving/tokens';
import { microToUsd, usdToMicro } from '@/lib/platform/kit/micro';
import { get } from '../helpers/account';
import { suiteDatabase, testEngines, UNLIMITED } from '../helpers/db';
import { handlersOf } from '../helpers/routes';
import { newKey, sdk, servedSecondsAgo } from '../helpers/sdk';
import { makeServices } from '../helpers/services';
import { accessToken } from '../helpers/tokens';
import { rawAsService } from '../helpers/roles';

/**
 * The money path of the SDK surface on every engine (content/docs/sdk-integration.md): ads
 * served for a key's own placements only, impressions and clicks counted by the documented rules
 * and never twice, revocation and origins enforced, per-key budgets, consented data, and the
 * roll-up that turns what was recorded into the figures the account API reports.
 */

const VIEWABLE = { visible_share: 0.8, visible_seconds: 1.2 };

interface Publisher {
  userId: string;
  appId: string;
  key: string;
  keyId: string;
  placements: Record<PlacementFormat, string>;
}

/** A fresh app of the publisher's, with one active placement per format and a key. */
async function publisher(db: Engine, userId: string, origins: string[] = []): Promise<Publisher> {
  const slug = `money-${Math.random().toString(36).slice(2, 10)}`;
  const app = await createApp(db, userId, { name: `Money ${slug}`, slug, description: '', category: [], allowed_origins: origins });
  if (!app.ok) throw new Error(app.error);
  const placements = {} as Record<PlacementFormat, string>;
  for (const format of ['floating_video', 'tooltip', 'sponsored_card', 'inline_text'] as const) {
    const made = await createPlacement(db, userId, { app_id: app.value.id, name: `${format} slot`, format });
    if (!made.ok) throw new Error(made.error);
    placements[format] = made.value.id;
  }
  const key = await newKey(db, userId, { appId: app.value.id });
  return { userId, appId: app.value.id, key: key.key, keyId: key.id, placements };
}

async function placementRow(db: Engine, id: string) {
  const [row] = await db.query<{ impressions: number; clicks: number; revenue_micro: number; ad_requests: number; fills: number }>(
    'select impressions, clicks, revenue_micro, ad_requests, fills from public.placements where id = $1',
    [id],
  );
  return row!;
}

/** Dollars to the millionth, rounded once to the cent, as the account API shows them. */
const roundUsd = (usd: number) => microToUsd(usdToMicro(usd));

async function pricing(db: Engine) {
  const [row] = await db.query<Record<string, number>>('select * from public.pricing_settings');
  return row!;
}

for (const engine of testEngines()) {
  describe(`the SDK money path on ${engine.name}`, () => {
    const suite = suiteDatabase(engine, { unlimited: true });
    let a: Publisher;
    let b: Publisher;

    beforeAll(async () => {
      a = await publisher(suite.db, suite.users.demo);
      b = await publisher(suite.db, suite.users.demo2);
    });

    /** An ad request, from the suite's address unless `ip` is given (an impression counts only from the client its ad was served to). */
    const ad = async (p: Publisher, format: PlacementFormat, extra = '', ip?: string) => {
      const res = await sdk(`/functions/v1/ads?placement_id=${p.placements[format]}${extra}`, { headers: { 'x-api-key': p.key }, ip });
      return res;
    };
    const filled = async (p: Publisher, format: PlacementFormat, extra = '', ip?: string) => {
      const res = await ad(p, format, extra, ip);
      expect(res.status, res.text).toBe(200);
      return adBody.parse(res.body);
    };
    /**
     * The events, sent as the SDK sends them: seconds after their ads were served (no impression
     * is billable sooner than its rule's seconds on the server's clock), unless `justServed`.
     */
    const send = async (p: Publisher | null, events: unknown[], init: { ip?: string; headers?: Record<string, string>; justServed?: boolean } = {}) => {
      if (!init.justServed) await servedSecondsAgo(suite.db, 5);
      return sdk('/functions/v1/events', {
        body: { events },
        ip: init.ip,
        headers: { ...(p ? { 'x-api-key': p.key } : {}), ...init.headers },
      });
    };
    let n = 0;
    const id = () => `evt-${++n}-${Math.random().toString(36).slice(2, 8)}`;

    describe('GET /functions/v1/ads', () => {
      it("answers an ad of the placement's format with its token, click URL and viewability rule", async () => {
        for (const format of ['floating_video', 'tooltip', 'sponsored_card', 'inline_text'] as const) {
          const res = await ad(a, format, '&session_id=session-0001&keywords=writing,notes');
          expect(res.status, res.text).toBe(200);
          const body = adBody.strict().parse(res.body);
          expect(body.format).toBe(format);
          expect(body.placement_id).toBe(a.placements[format]);
          expect(body.ad.label).toBe('Sponsored');
          expect(body.click_url).toBe(`http://localhost:3000/functions/v1/click?token=${encodeURIComponent(body.token)}`);
          expect(body.viewability.min_seconds).toBe(format === 'floating_video' ? 2 : 1);
          expect(body.viewability.min_visible_share).toBe(0.5);
          expect(Date.parse(body.expires_at) - Date.now()).toBeGreaterThan((DECISION_TOKEN_TTL_SECONDS - 60) * 1000);
          expect(res.headers.get('cache-control')).toBe('no-store');
          // The token names this decision and this app.
          const check = verifyDecisionToken(await suite.services.sdkSecret(), body.token, Date.now());
          expect(check).toEqual({ ok: true, claims: { decisionId: body.decision_id, appId: a.appId, expiresAt: expect.any(Number) } });
        }
      });

      it('names decisions by time-ordered ids (UUID version 7 layout), so new ones go to the end of the index', async () => {
        const first = await filled(a, 'sponsored_card');
        await new Promise((r) => setTimeout(r, 3));
        const second = await filled(a, 'sponsored_card');
        expect(first.decision_id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
        const millis = (id: string) => parseInt(id.replaceAll('-', '').slice(0, 12), 16);
        expect(Math.abs(millis(first.decision_id) - Date.now())).toBeLessThan(60_000);
        expect(millis(second.decision_id)).toBeGreaterThan(millis(first.decision_id));
      });

      it('answers 404 for a placement of another app, and for one that does not exist, and counts neither', async () => {
        const before = await placementRow(suite.db, b.placements.tooltip);
        const theirs = await sdk(`/functions/v1/ads?placement_id=${b.placements.tooltip}`, { headers: { 'x-api-key': a.key } });
        expect(theirs.status).toBe(404);
        expect(theirs.body).toEqual({ error: { status: 404, code: 'not_found', message: expect.any(String) } });
        const none = await sdk('/functions/v1/ads?placement_id=00000000-0000-4000-8000-000000000000', { headers: { 'x-api-key': a.key } });
        expect(none.status).toBe(404);
        await rollUp(suite.db);
        expect(await placementRow(suite.db, b.placements.tooltip)).toEqual(before);
        const [{ count }] = (await suite.db.query<{ count: number }>('select count(*)::int as count from public.ad_decisions where app_id = $1', [
          b.appId,
        ])) as [{ count: number }];
        expect(count).toBe(0);
      });

      it('refuses a missing or malformed placement id, a bad session id and bad keywords with 400', async () => {
        for (const query of [
          '',
          '?placement_id=nope',
          `?placement_id=${a.placements.tooltip}&session_id=short`,
          `?placement_id=${a.placements.tooltip}&keywords=Caps!`,
        ]) {
          const res = await sdk(`/functions/v1/ads${query}`, { headers: { 'x-api-key': a.key } });
          expect(res.status, query).toBe(400);
          expect(res.body.error.code).toBe('invalid_request');
        }
      });

      it('never fills a paused or archived placement, and counts those requests as unfilled', async () => {
        const p = await publisher(suite.db, suite.users.demo);
        expect((await changePlacement(suite.db, p.userId, p.placements.tooltip, 'pause')).ok).toBe(true);
        expect((await changePlacement(suite.db, p.userId, p.placements.inline_text, 'archive')).ok).toBe(true);
        for (let i = 0; i < 3; i++) {
          expect((await ad(p, 'tooltip')).status).toBe(204);
          expect((await ad(p, 'inline_text')).status).toBe(204);
        }
        expect((await ad(p, 'sponsored_card')).status).toBe(200);
        await rollUp(suite.db);
        expect(await placementRow(suite.db, p.placements.tooltip)).toMatchObject({ ad_requests: 3, fills: 0 });
        expect(await placementRow(suite.db, p.placements.inline_text)).toMatchObject({ ad_requests: 3, fills: 0 });
        expect(await placementRow(suite.db, p.placements.sponsored_card)).toMatchObject({ ad_requests: 1, fills: 1 });
      });

      it("caps how many ads of one campaign a network sees (its /24, whatever browser or session asks), at the campaign's cap times the network's allowance, and answers 204 when nothing is left", async () => {
        const p = await publisher(suite.db, suite.users.demo);
        const [{ campaigns, cap }] = (await suite.db.query<{ campaigns: number; cap: number }>(
          "select count(distinct c.id)::int as campaigns, sum(c.frequency_cap)::int as cap from public.campaigns c join public.creatives cr on cr.campaign_id = c.id where cr.format = 'tooltip' and c.status = 'active'",
        )) as [{ campaigns: number; cap: number }];
        expect(campaigns).toBeGreaterThan(0);
        // The documented allowance of a network: four times each campaign's cap (SDK_NETWORK_FREQUENCY_FACTOR).
        const allowance = cap * 4;
        const fetchAd = (extra: string, ip: string, browser: string) =>
          sdk(`/functions/v1/ads?placement_id=${p.placements.tooltip}${extra}`, { headers: { 'x-api-key': p.key, 'user-agent': browser }, ip });
        for (let i = 0; i < allowance; i++) {
          // A new browser every time, half with a session id, from two addresses of one network: one network.
          const res = await fetchAd(i % 2 ? `&session_id=capped-session-${i}` : '', `198.51.100.${10 + (i % 2)}`, `Mozilla/5.0 (browser ${i})`);
          expect(res.status, res.text).toBe(200);
        }
        expect((await fetchAd('', '198.51.100.10', 'Mozilla/5.0 (one more browser)')).status).toBe(204);
        expect((await fetchAd('&session_id=a-new-session-id', '198.51.100.99', 'Mozilla/5.0 (browser 0)')).status).toBe(204);
        // Another network still gets ads.
        expect((await fetchAd('', '203.0.113.10', 'Mozilla/5.0 (browser 0)')).status).toBe(200);
        await rollUp(suite.db);
        expect(await placementRow(suite.db, p.placements.tooltip)).toMatchObject({ ad_requests: allowance + 3, fills: allowance + 1 });
      });

      it('serves only campaigns with paced budget left today, counting what they were billed and what the ads they served may still bill', async () => {
        const p = await publisher(suite.db, suite.users.demo);
        const sponsoredCard = `select c.id, c.daily_budget_micro from public.campaigns c
                               where exists (select 1 from public.creatives cr where cr.campaign_id = c.id and cr.format = 'sponsored_card')`;
        // Every sponsored_card campaign has been billed its whole day: nothing is eligible.
        await rawAsService(suite.db, (q) =>
          q.query(
            `insert into public.sdk_counters (name, period, used)
             select 'budget:' || c.id, date_trunc('day', now(), 'UTC'), c.daily_budget_micro from (${sponsoredCard}) c
             on conflict (name, period) do update set used = excluded.used`,
          ),
        );
        try {
          expect((await ad(p, 'sponsored_card')).status).toBe(204);
        } finally {
          await rawAsService(suite.db, (q) => q.query(`delete from public.sdk_counters where name in (select 'budget:' || c.id from (${sponsoredCard}) c)`));
        }
        expect((await ad(p, 'sponsored_card')).status).toBe(200);
        // Or has served, in the last quarter of an hour, ads that would bill its whole day (the roll-up counts them).
        // Twice the day's budget: what earlier tests billed in the window comes off what is served,
        // and in the day's last hour the paced budget is the whole day's, so the day alone may not be over it.
        await rawAsService(suite.db, (q) =>
          q.query(
            `insert into public.sdk_counters (name, period, used)
             select 'served:' || c.id, date_bin('5 minutes', now(), timestamptz '2000-01-01 00:00:00+00'), 2 * c.daily_budget_micro from (${sponsoredCard}) c
             on conflict (name, period) do update set used = excluded.used`,
          ),
        );
        try {
          expect((await ad(p, 'sponsored_card')).status).toBe(204);
        } finally {
          await rawAsService(suite.db, (q) => q.query(`delete from public.sdk_counters where name in (select 'served:' || c.id from (${sponsoredCard}) c)`));
        }
        expect((await ad(p, 'sponsored_card')).status).toBe(200);
      });
    });

    describe('POST /functions/v1/events', () => {
      it('counts a viewable impression and a click after it, once each, and credits CPM / 1000 times the share', async () => {
        const p = await publisher(suite.db, suite.users.demo);
        const body = await filled(p, 'floating_video');
        const impression = { id: id(), type: 'impression', token: body.token, viewability: { visible_share: 0.6, visible_seconds: 2.1 } };
        const click = { id: id(), type: 'click', token: body.token };
        const res = await send(p, [impression, click]);
        expect(res.status, res.text).toBe(200);
        expect(eventsBody.strict().parse(res.body)).toEqual({
          received: 2,
          recorded: 2,
          duplicates: 0,
          invalid: 0,
          rejected: 0,
          results: [
            { id: impression.id, status: 'recorded' },
            { id: click.id, status: 'recorded' },
          ],
        });
        // The same batch again changes nothing.
        const again = await send(p, [impression, click]);
        expect(again.body).toMatchObject({ recorded: 0, duplicates: 2 });
        await rollUp(suite.db);
        const price = await pricing(suite.db);
        expect(await placementRow(suite.db, p.placements.floating_video)).toEqual({
          impressions: 1,
          clicks: 1,
          revenue_micro: Math.round((price.cpm_floating_video_micro! / 1000) * price.publisher_ad_revenue_share!),
          ad_requests: 1,
          fills: 1,
        });
      });

      it("never bills an impression twice, one without viewability evidence, or one below the format's rule", async () => {
        const p = await publisher(suite.db, suite.users.demo);
        const card = await filled(p, 'sponsored_card');
        const video = await filled(p, 'floating_video');
        const second = await filled(p, 'sponsored_card');
        const third = await filled(p, 'sponsored_card');
        const events = [
          { id: id(), type: 'impression', token: card.token, viewability: VIEWABLE },
          { id: id(), type: 'impression', token: card.token, viewability: VIEWABLE },
          { id: id(), type: 'impression', token: second.token },
          { id: id(), type: 'impression', token: third.token, viewability: { visible_share: 0.45, visible_seconds: 5 } },
          { id: id(), type: 'impression', token: video.token, viewability: { visible_share: 1, visible_seconds: 1.5 } },
        ];
        const res = await send(p, events);
        expect(res.body.results.map((r: { status: string; reason?: string }) => r.reason ?? r.status)).toEqual([
          'recorded',
          'already_counted',
          'not_viewable',
          'not_viewable',
          'not_viewable',
        ]);
        expect(res.body).toMatchObject({ recorded: 1, invalid: 4 });
        // A large ad needs 30% in view only.
        const large = await send(p, [
          { id: id(), type: 'impression', token: third.token, viewability: { visible_share: 0.31, visible_seconds: 1, area_px: 300_000 } },
        ]);
        expect(large.body.results[0]).toEqual({ id: expect.any(String), status: 'recorded' });
        await rollUp(suite.db);
        expect(await placementRow(suite.db, p.placements.sponsored_card)).toMatchObject({ impressions: 2 });
        expect(await placementRow(suite.db, p.placements.floating_video)).toMatchObject({ impressions: 0 });
        const [{ invalid }] = (await suite.db.query<{ invalid: number }>(
          'select count(*)::int as invalid from public.ad_events where app_id = $1 and not billable',
          [p.appId],
        )) as [{ invalid: number }];
        expect(invalid).toBe(4);
      });

      it('bills a click only after its impression, once per decision, and once per address and ad in 3 hours', async () => {
        const p = await publisher(suite.db, suite.users.demo);
        const first = await filled(p, 'inline_text', '&session_id=clicks-session', '198.51.100.7');
        const early = await send(p, [{ id: id(), type: 'click', token: first.token }], { ip: '198.51.100.7' });
        expect(early.body.results[0]).toMatchObject({ status: 'invalid', reason: 'no_impression' });
        await send(p, [{ id: id(), type: 'impression', token: first.token, viewability: VIEWABLE }], { ip: '198.51.100.7' });
        const click = await send(p, [{ id: id(), type: 'click', token: first.token }], { ip: '198.51.100.7' });
        expect(click.body.results[0]).toMatchObject({ status: 'recorded' });
        const twice = await send(p, [{ id: id(), type: 'click', token: first.token }], { ip: '198.51.100.7' });
        expect(twice.body.results[0]).toMatchObject({ status: 'invalid', reason: 'already_counted' });

        // The same ad again, from the same address: its impression counts, its click does not.
        let same = await filled(p, 'inline_text', '', '198.51.100.7');
        while (same.ad.id !== first.ad.id) same = await filled(p, 'inline_text', '', '198.51.100.7');
        await send(p, [{ id: id(), type: 'impression', token: same.token, viewability: VIEWABLE }], { ip: '198.51.100.7' });
        const repeat = await send(p, [{ id: id(), type: 'click', token: same.token }], { ip: '198.51.100.7' });
        expect(repeat.body.results[0]).toMatchObject({ status: 'invalid', reason: 'repeat_click' });
        // From another address it counts.
        let other = await filled(p, 'inline_text', '', '203.0.113.8');
        while (other.ad.id !== first.ad.id) other = await filled(p, 'inline_text', '', '203.0.113.8');
        await send(p, [{ id: id(), type: 'impression', token: other.token, viewability: VIEWABLE }], { ip: '203.0.113.8' });
        const elsewhere = await send(p, [{ id: id(), type: 'click', token: other.token }], { ip: '203.0.113.8' });
        expect(elsewhere.body.results[0]).toMatchObject({ status: 'recorded' });
        await rollUp(suite.db);
        expect(await placementRow(suite.db, p.placements.inline_text)).toMatchObject({ impressions: 3, clicks: 2 });
      });

      it('rejects forged, expired and foreign tokens without recording them, and records bots as invalid', async () => {
        const p = await publisher(suite.db, suite.users.demo);
        const mine = await filled(p, 'tooltip');
        const theirs = await filled(b, 'tooltip');
        const claims = verifyDecisionToken(await suite.services.sdkSecret(), mine.token, Date.now());
        if (!claims.ok) throw new Error('own token does not verify');
        const forged = signDecisionToken(Buffer.alloc(32, 7), claims.claims);
        const key = await suite.services.sdkSecret();
        const expired = signDecisionToken(key, { ...claims.claims, expiresAt: Math.floor(Date.now() / 1000) - 1 });
        const tampered = mine.token.replace(/.$/, (c) => (c === 'A' ? 'B' : 'A'));
        const res = await send(p, [
          { id: id(), type: 'impression', token: forged, viewability: VIEWABLE },
          { id: id(), type: 'impression', token: expired, viewability: VIEWABLE },
          { id: id(), type: 'impression', token: theirs.token, viewability: VIEWABLE },
          { id: id(), type: 'impression', token: tampered, viewability: VIEWABLE },
          { id: id(), type: 'impression', token: 'not-a-token', viewability: VIEWABLE },
        ]);
        expect(res.status).toBe(200);
        expect(res.body.results.map((r: { reason?: string }) => r.reason)).toEqual([
          'invalid_token',
          'expired_token',
          'wrong_app',
          'invalid_token',
          'invalid_token',
        ]);
        expect(res.body).toMatchObject({ recorded: 0, rejected: 5 });

        const bot = await send(p, [{ id: id(), type: 'impression', token: mine.token, viewability: VIEWABLE }], {
          headers: { 'user-agent': 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)' },
        });
        expect(bot.body.results[0]).toMatchObject({ status: 'invalid', reason: 'bot' });
        await rollUp(suite.db);
        expect(await placementRow(suite.db, p.placements.tooltip)).toMatchObject({ impressions: 0, revenue_micro: 0 });
        expect(await placementRow(suite.db, b.placements.tooltip)).toMatchObject({ impressions: 0 });
      });

      it('takes a beacon: text/plain without a key, authenticated by its tokens', async () => {
        const p = await publisher(suite.db, suite.users.demo, ['https://app.example']);
        const body = await filled(p, 'tooltip');
        const event = { id: id(), type: 'impression', token: body.token, viewability: VIEWABLE };
        const beacon = () =>
          sdk('/functions/v1/events', {
            method: 'POST',
            body: JSON.stringify({ events: [event] }),
            headers: { 'content-type': 'text/plain;charset=UTF-8', origin: 'https://app.example' },
          });
        await servedSecondsAgo(suite.db, 5);
        const res = await beacon();
        expect(res.status, res.text).toBe(200);
        expect(res.body.results[0]).toEqual({ id: event.id, status: 'recorded' });
        expect(res.headers.get('access-control-allow-origin')).toBe('https://app.example');
        expect((await beacon()).body.results[0]).toEqual({ id: event.id, status: 'duplicate' });
        // From an origin the app does not allow, it is refused and recorded nowhere; the page may
        // read why (the envelope), and no other header.
        const elsewhere = await sdk('/functions/v1/events', {
          body: JSON.stringify({ events: [{ ...event, id: id() }] }),
          headers: { 'content-type': 'text/plain', origin: 'https://evil.example' },
        });
        expect(elsewhere.status).toBe(403);
        expect(elsewhere.body).toEqual({ error: { status: 403, code: 'forbidden', message: expect.stringContaining('https://evil.example') } });
        expect(elsewhere.headers.get('access-control-allow-origin')).toBe('https://evil.example');
        expect(elsewhere.headers.get('access-control-expose-headers')).toBeNull();
        await rollUp(suite.db);
        expect(await placementRow(suite.db, p.placements.tooltip)).toMatchObject({ impressions: 1 });
      });

      it('keeps an event refused once refused: the same id sent again is a duplicate, never billed', async () => {
        const p = await publisher(suite.db, suite.users.demo);
        const first = await filled(p, 'sponsored_card');
        const second = await filled(p, 'sponsored_card');
        const third = await filled(p, 'sponsored_card');
        const bot = { 'user-agent': 'Mozilla/5.0 (compatible; Googlebot/2.1)' };
        expect(
          (await send(p, [{ id: 'once-bot', type: 'impression', token: first.token, viewability: VIEWABLE }], { headers: bot })).body.results[0].reason,
        ).toBe('bot');
        expect(
          (await send(p, [{ id: 'once-glimpse', type: 'impression', token: second.token, viewability: { visible_share: 0.1, visible_seconds: 2 } }])).body
            .results[0].reason,
        ).toBe('not_viewable');
        expect((await send(p, [{ id: 'once-early', type: 'click', token: third.token }])).body.results[0].reason).toBe('no_impression');
        const again = await send(p, [
          { id: 'once-bot', type: 'impression', token: first.token, viewability: VIEWABLE },
          { id: 'once-glimpse', type: 'impression', token: second.token, viewability: VIEWABLE },
          { id: 'once-early', type: 'impression', token: third.token, viewability: VIEWABLE },
        ]);
        expect(again.body.results.map((r: { status: string }) => r.status)).toEqual(['duplicate', 'duplicate', 'duplicate']);
        // One id is one event: an ad's impression id sent as its click is the same event again.
        const fresh = await filled(p, 'sponsored_card');
        const both = await send(p, [
          { id: 'one-id', type: 'impression', token: fresh.token, viewability: VIEWABLE },
          { id: 'one-id', type: 'click', token: fresh.token },
        ]);
        expect(both.body.results.map((r: { status: string }) => r.status)).toEqual(['recorded', 'duplicate']);
        await rollUp(suite.db);
        expect(await placementRow(suite.db, p.placements.sponsored_card)).toMatchObject({ impressions: 1, clicks: 0 });
      });

      it('does not let HEAD record anything: an ad request or a click is a GET', async () => {
        const p = await publisher(suite.db, suite.users.demo);
        const head = await sdk(`/functions/v1/ads?placement_id=${p.placements.tooltip}`, { method: 'HEAD', headers: { 'x-api-key': p.key } });
        expect(head.status).toBe(405);
        expect(head.headers.get('allow')).toBe('GET, POST, OPTIONS');
        const ad = await filled(p, 'tooltip');
        await send(p, [{ id: id(), type: 'impression', token: ad.token, viewability: VIEWABLE }]);
        const url = new URL(ad.click_url);
        expect((await sdk(`${url.pathname}${url.search}`, { method: 'HEAD' })).status).toBe(405);
        await rollUp(suite.db);
        expect(await placementRow(suite.db, p.placements.tooltip)).toMatchObject({ ad_requests: 1, clicks: 0 });
      });

      it('a campaign deleted after its ad was served does not stop the roll-up', async () => {
        const p = await publisher(suite.db, suite.users.demo);
        const [campaign] = await suite.db.query<{ id: string }>(
          "insert into public.campaigns (advertiser, name, daily_budget_micro) values ('Gone Soon', 'Short-lived', 1000000000) returning id",
        );
        await suite.db.query(
          "insert into public.creatives (campaign_id, format, headline, landing_url) values ($1, 'inline_text', 'Here today', 'https://gone.example/')",
          [campaign!.id],
        );
        let ad = await filled(p, 'inline_text');
        while (ad.ad.advertiser !== 'Gone Soon') ad = await filled(p, 'inline_text');
        expect((await send(p, [{ id: id(), type: 'impression', token: ad.token, viewability: VIEWABLE }])).body.recorded).toBe(1);
        await suite.db.query('delete from public.campaigns where id = $1', [campaign!.id]);
        const run = await rollUp(suite.db);
        expect(run.events).toBeGreaterThanOrEqual(1);
        expect(await placementRow(suite.db, p.placements.inline_text)).toMatchObject({ impressions: 1 });
        const [{ left }] = (await suite.db.query<{ left: number }>('select count(*)::int as left from public.ad_traffic_counts')) as [{ left: number }];
        expect(left).toBe(0);
      });

      it('counts concurrent duplicate batches once', async () => {
        const p = await publisher(suite.db, suite.users.demo);
        const ads = await Promise.all(Array.from({ length: 5 }, () => filled(p, 'sponsored_card')));
        // Five impressions and one click: five clicks from one address would meet the 3-hour rule.
        const batch = [
          ...ads.map((x) => ({ id: `imp-${x.decision_id}`, type: 'impression', token: x.token, viewability: VIEWABLE })),
          { id: `clk-${ads[0]!.decision_id}`, type: 'click', token: ads[0]!.token },
        ];
        // The same events under other ids as well: they conflict on the decision, not the id.
        const renamed = batch.map((e) => ({ ...e, id: `again-${e.id}` }));
        const answers = await Promise.all([
          send(p, batch, { ip: '192.0.2.1' }),
          send(p, batch, { ip: '192.0.2.2' }),
          send(p, renamed, { ip: '192.0.2.3' }),
          send(p, batch, { ip: '192.0.2.4' }),
        ]);
        for (const a_ of answers) expect(a_.status).toBe(200);
        const recorded = answers.reduce((sum, r) => sum + (r.body.recorded as number), 0);
        expect(recorded).toBe(6);
        await rollUp(suite.db);
        expect(await placementRow(suite.db, p.placements.sponsored_card)).toMatchObject({ impressions: 5, clicks: 1 });
        const [{ billable }] = (await suite.db.query<{ billable: number }>(
          'select (count(impression_event_id) + count(click_event_id))::int as billable from public.ad_decisions where app_id = $1',
          [p.appId],
        )) as [{ billable: number }];
        expect(billable).toBe(6);
      });

      it('refuses a body that is not events with 400, and other media types with 415', async () => {
        for (const body of [
          {},
          { events: [] },
          { events: [{ id: 'x', type: 'view', token: 't' }] },
          { events: Array.from({ length: 101 }, (_, i) => ({ id: `e${i}`, type: 'click', token: 't' })) },
        ]) {
          const res = await send(a, (body as { events?: unknown[] }).events ?? (undefined as never));
          expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(400);
        }
        const form = await sdk('/functions/v1/events', {
          body: 'events=1',
          headers: { 'x-api-key': a.key, 'content-type': 'application/x-www-form-urlencoded' },
        });
        expect(form.status).toBe(415);
      });
    });

    describe('GET /functions/v1/click', () => {
      it("records the click after the impression and redirects to the creative's landing page only", async () => {
        const p = await publisher(suite.db, suite.users.demo);
        const body = await filled(p, 'sponsored_card');
        await send(p, [{ id: id(), type: 'impression', token: body.token, viewability: VIEWABLE }], { ip: '192.0.2.90' });
        const url = new URL(body.click_url);
        const res = await sdk(`${url.pathname}${url.search}&redirect=https://evil.example/`, { ip: '192.0.2.90' });
        expect(res.status).toBe(302);
        const [{ landing_url }] = (await suite.db.query<{ landing_url: string }>('select landing_url from public.creatives where id = $1', [body.ad.id])) as [
          { landing_url: string },
        ];
        // The landing page, with the click's id for the advertiser's conversions, and nothing the request said.
        const claims = verifyDecisionToken(await suite.services.sdkSecret(), body.token, Date.now());
        if (!claims.ok) throw new Error('own token does not verify');
        const clickId = signClickId(clickIdKey(await suite.services.sdkSecret()), claims.claims.decisionId);
        expect(res.headers.get('location')).toBe(withClickId(landing_url, clickId));
        expect(new URL(res.headers.get('location')!).searchParams.get('mclid')).toBe(clickId);
        // Opening it again redirects, with the same click id, and counts nothing more.
        const again = await sdk(`${url.pathname}${url.search}`, { ip: '192.0.2.90' });
        expect(again.status).toBe(302);
        expect(again.headers.get('location')).toBe(res.headers.get('location'));
        await rollUp(suite.db);
        expect(await placementRow(suite.db, p.placements.sponsored_card)).toMatchObject({ impressions: 1, clicks: 1 });
      });

      it('answers 404 for a token it did not sign, and redirects an expired one without counting', async () => {
        const p = await publisher(suite.db, suite.users.demo);
        const body = await filled(p, 'tooltip');
        const claims = verifyDecisionToken(await suite.services.sdkSecret(), body.token, Date.now());
        if (!claims.ok) throw new Error('own token does not verify');
        const forged = signDecisionToken(Buffer.alloc(32, 1), claims.claims);
        const res = await sdk(`/functions/v1/click?token=${encodeURIComponent(forged)}`);
        expect(res.status).toBe(404);
        expect(res.body.error.code).toBe('not_found');
        await send(p, [{ id: id(), type: 'impression', token: body.token, viewability: VIEWABLE }]);
        const expired = signDecisionToken(await suite.services.sdkSecret(), { ...claims.claims, expiresAt: Math.floor(Date.now() / 1000) - 5 });
        const late = await sdk(`/functions/v1/click?token=${encodeURIComponent(expired)}`);
        expect(late.status).toBe(302);
        await rollUp(suite.db);
        expect(await placementRow(suite.db, p.placements.tooltip)).toMatchObject({ impressions: 1, clicks: 0 });
      });
    });

    describe('keys and origins', () => {
      it('refuses a revoked key on every instance within 5 seconds', async () => {
        const p = await publisher(suite.db, suite.users.demo);
        let clock = Date.now();
        // Another instance: its own directory and clock, the same database.
        const other = makeServices({ database: suite.db, rateLimiter: UNLIMITED(), now: () => clock });
        const call = () => sdk(`/functions/v1/ads?placement_id=${p.placements.tooltip}`, { headers: { 'x-api-key': p.key }, services: other });
        expect((await call()).status).toBe(200);
        expect((await revokeApiKey(suite.db, p.userId, p.keyId)).ok).toBe(true);
        clock += 5_000;
        const refused = await call();
        expect(refused.status).toBe(403);
        expect(refused.body.error.code).toBe('forbidden');
      });

      it('refuses a browser whose origin the app does not list, allows listed ones and requests without Origin', async () => {
        const p = await publisher(suite.db, suite.users.demo, ['https://app.example']);
        const call = (headers: Record<string, string>) =>
          sdk(`/functions/v1/ads?placement_id=${p.placements.tooltip}`, { headers: { 'x-api-key': p.key, ...headers } });
        const allowed = await call({ origin: 'https://app.example' });
        expect(allowed.status).toBe(200);
        expect(allowed.headers.get('access-control-allow-origin')).toBe('https://app.example');
        expect(allowed.headers.get('vary')).toContain('Origin');
        const refused = await call({ origin: 'https://other.example' });
        expect(refused.status).toBe(403);
        expect(refused.body).toEqual({ error: { status: 403, code: 'forbidden', message: expect.stringContaining('allowed origins') } });
        expect(refused.body.error.message).toContain('https://other.example');
        // The page reads its refusal (the SDK shows it in the console), and nothing more: no ad,
        // no header beyond the safelisted ones, no credentials.
        expect(refused.headers.get('access-control-allow-origin')).toBe('https://other.example');
        expect(refused.headers.get('vary')).toContain('Origin');
        expect(refused.headers.get('access-control-expose-headers')).toBeNull();
        expect(refused.headers.get('access-control-allow-credentials')).toBeNull();
        expect((await call({})).status).toBe(200);
        // The console edits the list; the change holds within seconds.
        const other = makeServices({ database: suite.db, rateLimiter: UNLIMITED() });
        const edited = await updateApp(suite.db, p.userId, p.appId, {
          name: 'Money edited',
          slug: `edited-${p.appId.slice(0, 8)}`,
          description: '',
          category: [],
          allowed_origins: ['https://other.example'],
        });
        expect(edited.ok).toBe(true);
        const now = await sdk(`/functions/v1/ads?placement_id=${p.placements.tooltip}`, {
          headers: { 'x-api-key': p.key, origin: 'https://other.example' },
          services: other,
        });
        expect(now.status).toBe(200);
      });

      it("gives a publisher's keys one budget together, on top of the address's, and says so in the headers", async () => {
        const p = await publisher(suite.db, suite.users.demo);
        const q = await newKey(suite.db, p.userId, { appId: p.appId });
        const limited = makeServices({
          database: suite.db,
          rateLimiter: new MemoryRateLimiter({ max: 100, windowSeconds: 60 }),
          keyRateLimiter: new MemoryRateLimiter({ max: 2, windowSeconds: 60 }),
        });
        const call = (key: string) => sdk(`/functions/v1/ads?placement_id=${p.placements.tooltip}`, { headers: { 'x-api-key': key }, services: limited });
        const first = await call(p.key);
        expect(first.status).toBe(200);
        expect(first.headers.get('ratelimit-policy')).toBe('"default";q=100;w=60, "key";q=2;w=60');
        expect(first.headers.get('ratelimit')).toMatch(/^"default";r=99;t=\d+, "key";r=1;t=\d+$/);
        expect(first.headers.get('x-ratelimit-limit')).toBe('2');
        expect(first.headers.get('x-ratelimit-remaining')).toBe('1');
        expect((await call(p.key)).status).toBe(200);
        const over = await call(p.key);
        expect(over.status).toBe(429);
        expect(over.body.error.code).toBe('rate_limited');
        expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(0);
        // Another key of the same publisher shares it: minting keys buys no requests.
        expect((await call(q.key)).status).toBe(429);
      });
    });

    describe('the figures the account API reports', () => {
      it('rise by exactly what was recorded, in /api/v1/me/apps and /api/v1/me/earnings, after the roll-up', async () => {
        const p = await publisher(suite.db, suite.users.demo2);
        const token = await accessToken(p.userId);
        const apps = handlersOf('/api/v1/me/apps');
        const earnings = handlersOf('/api/v1/me/earnings');
        const before = await get(earnings.GET, '/api/v1/me/earnings', token);
        const body = await filled(p, 'floating_video');
        await send(p, [
          { id: id(), type: 'impression', token: body.token, viewability: { visible_share: 0.9, visible_seconds: 2 } },
          { id: id(), type: 'click', token: body.token },
        ]);
        await rollUp(suite.db);
        const price = await pricing(suite.db);
        const worth = (price.cpm_floating_video_micro! / 1000 / 1_000_000) * price.publisher_ad_revenue_share!;
        const listed = await get(apps.GET, '/api/v1/me/apps', token);
        const placement = (listed.body.placements as Record<string, unknown>[]).find((x) => x.id === p.placements.floating_video);
        expect(placement).toMatchObject({ impressions: 1, clicks: 1, revenue_usd: roundUsd(worth), fill_rate: 1, rpm_usd: roundUsd(worth * 1000) });
        const after = await get(earnings.GET, '/api/v1/me/earnings', token);
        const totals = (x: typeof after) => x.body as { ad_revenue_tracked_micro: number; impressions: number; clicks: number };
        expect(totals(after).impressions - totals(before).impressions).toBe(1);
        expect(totals(after).clicks - totals(before).clicks).toBe(1);
        // In micro-dollars: two totals each rounded to the cent differ by 0 or 1 cent for 0.84 of a cent.
        expect(totals(after).ad_revenue_tracked_micro - totals(before).ad_revenue_tracked_micro).toBe(Math.round(worth * 1_000_000));
      });

      it("keep the daily stats equal to the placements' totals", async () => {
        const [row] = await suite.db.query<{ mismatched: number }>(
          `select count(*)::int as mismatched from public.placements p
           left join (select placement_id, sum(impressions) i, sum(clicks) c, sum(revenue_micro) r, sum(ad_requests) q, sum(fills) f
                      from public.daily_stats group by placement_id) d on d.placement_id = p.id
           where (p.impressions, p.clicks, p.revenue_micro, p.ad_requests, p.fills)
                 is distinct from (coalesce(d.i, 0), coalesce(d.c, 0), coalesce(d.r, 0), coalesce(d.q, 0), coalesce(d.f, 0))`,
        );
        expect(row!.mismatched).toBe(0);
      });
    });
  });
}
