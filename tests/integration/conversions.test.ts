import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { clickIdKey, signClickId } from '@/lib/ads/conversions/click-id';
import { conversionTag, createConversionKey, listConversionKeys, revokeConversionKey, MAX_ACTIVE_CONVERSION_KEYS } from '@/lib/ads/conversions/keys';
import { tagEventId } from '@/lib/ads/conversions/record';
import { sha256Hex } from '@/lib/platform/crypto';
import { conversionBody } from '@/lib/schemas/conversions';
import { adBody } from '@/lib/schemas/sdk';
import { micro } from '@/lib/platform/kit/micro';
import type { Engine } from '@/lib/platform/db/engine';
import { createApiKey } from '@/lib/publisher/writes';
import { advertiserReport, costPerConversion, reportCsv } from '@/lib/ads/advertisers/reports';
import { rollUp } from '@/lib/ads/serving/rollup';
import { campaignsBody } from '@/lib/schemas/account';
import { get } from '../helpers/account';
import { suiteDatabase, testEngines } from '../helpers/db';
import { handlersOf } from '../helpers/routes';
import { accessToken } from '../helpers/tokens';
import { invalidShare } from '@/lib/money/figures';
import { trafficQuality } from '@/lib/ops/traffic';
import { newSdkApp, sdk, servedSecondsAgo, type SdkApp } from '../helpers/sdk';
import { rawAsService, rawAsUser } from '../helpers/roles';

/**
 * Conversions (issue 44, migration 20261221000000_conversions), on both engines: a click lands with
 * its signed click id; the advertiser reports a conversion with it from its server (a conversions
 * key) or its page (the conversion tag); each is counted once whatever the retries and races, and
 * only for its own counted click within the campaign's window. Forged, unknown, foreign, uncounted
 * and stale click ids, and revoked keys, are kept as invalid with their reason and never counted.
 */

const VIEWABLE = { visible_share: 0.8, visible_seconds: 1.2 };

interface Click {
  /** The ad's decision token, as its events carry it. */
  token: string;
  clickId: string;
  decisionId: string;
  campaignId: string;
  advertiserId: string;
  clickedAt: Date;
}

/** The campaign's counted conversions and their value, from its daily figures. */
async function counted(db: Engine, campaignId: string): Promise<{ conversions: number; value_micro: number }> {
  const [row] = await db.query<{ conversions: number; value_micro: number }>(
    'select coalesce(sum(conversions), 0)::int as conversions, coalesce(sum(conversion_value_micro), 0)::bigint as value_micro from public.campaign_daily_stats where campaign_id = $1',
    [campaignId],
  );
  return row!;
}

async function kept(db: Engine, advertiserId: string, eventId: string) {
  const [row] = await rawAsService(db, (q) =>
    q.query<{ valid: boolean; invalid_reason: string | null; campaign_id: string | null; source: string; value_micro: number }>(
      'select valid, invalid_reason, campaign_id, source, value_micro from public.conversions where advertiser_id = $1 and event_id = $2',
      [advertiserId, eventId],
    ),
  );
  return row;
}

for (const engine of testEngines()) {
  describe(`conversions on ${engine.name}`, () => {
    const suite = suiteDatabase(engine, { unlimited: true });
    let app: SdkApp;
    let ip = 10;
    let n = 0;
    const eventId = () => `order-${++n}-${Math.random().toString(36).slice(2, 8)}`;
    const keys = new Map<string, string>();

    beforeAll(async () => {
      app = await newSdkApp(suite.db, suite.users.demo);
    });

    /** An ad served, seen and clicked through its click URL from a new address: the click id it landed with. */
    async function click(): Promise<Click> {
      const from = `192.0.2.${++ip}`;
      const served = await sdk(`/functions/v1/ads?placement_id=${app.placement}`, { headers: { 'x-api-key': app.key }, ip: from });
      expect(served.status, served.text).toBe(200);
      const ad = adBody.parse(served.body);
      await servedSecondsAgo(suite.db, 5);
      const seen = await sdk('/functions/v1/events', {
        body: { events: [{ id: `imp-${ip}`, type: 'impression', token: ad.token, viewability: VIEWABLE }] },
        headers: { 'x-api-key': app.key },
        ip: from,
      });
      expect(seen.body.recorded, seen.text).toBe(1);
      const url = new URL(ad.click_url);
      const landed = await sdk(`${url.pathname}${url.search}`, { ip: from });
      expect(landed.status).toBe(302);
      const clickId = new URL(landed.headers.get('location')!).searchParams.get('mclid')!;
      const decisionId = clickId.split('.')[0]!;
      const [row] = await rawAsService(suite.db, (q) =>
        q.query<{ campaign_id: string; advertiser_id: string; clicked_at: Date }>(
          'select d.campaign_id, c.advertiser_id, d.clicked_at from public.ad_decisions d join public.campaigns c on c.id = d.campaign_id where d.id = $1',
          [decisionId],
        ),
      );
      expect(row?.clicked_at, 'the click counted').toBeTruthy();
      return { token: ad.token, clickId, decisionId, campaignId: row!.campaign_id, advertiserId: row!.advertiser_id, clickedAt: new Date(row!.clicked_at) };
    }

    /** A conversions key of the advertiser's, made once per advertiser. */
    async function keyOf(advertiserId: string): Promise<string> {
      if (!keys.has(advertiserId)) {
        const made = await createConversionKey(suite.db, advertiserId, 'Checkout server');
        if (!made.ok) throw new Error(made.error);
        keys.set(advertiserId, made.value.key);
      }
      return keys.get(advertiserId)!;
    }

    const report = (key: string, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
      sdk('/functions/v1/conversions', { body, headers: { authorization: `Bearer ${key}`, ...headers } });

    const now = () => new Date().toISOString();

    /** Another advertiser with an advertiser account. */
    async function otherAdvertiser(than: string): Promise<string> {
      const [row] = await suite.db.query<{ user_id: string }>('select user_id from public.advertiser_profiles where user_id <> $1 order by user_id limit 1', [
        than,
      ]);
      return row!.user_id;
    }

    it("lands with a click id that names the click's decision, the same each time the link is opened", async () => {
      const c = await click();
      expect(c.clickId).toBe(signClickId(clickIdKey(await suite.services.sdkSecret()), c.decisionId));
    });

    it('counts a conversion from the API once, whatever the retries, with its value to the micro-dollar', async () => {
      const c = await click();
      const key = await keyOf(c.advertiserId);
      const before = await counted(suite.db, c.campaignId);
      const body = { event_id: eventId(), click_id: c.clickId, name: 'purchase', value_usd: 49.990001, occurred_at: now() };
      const first = await report(key, body);
      expect(first.status, first.text).toBe(200);
      expect(conversionBody.strict().parse(first.body).conversion).toMatchObject({ event_id: body.event_id, status: 'recorded', reason: null });
      for (let i = 0; i < 3; i++) {
        const again = await report(key, { ...body, value_usd: 1000 });
        expect(again.body.conversion).toEqual({ ...first.body.conversion, status: 'duplicate' });
      }
      expect(await counted(suite.db, c.campaignId)).toEqual({ conversions: before.conversions + 1, value_micro: before.value_micro + 49_990_001 });
      expect(await kept(suite.db, c.advertiserId, body.event_id)).toMatchObject({
        valid: true,
        source: 'api',
        campaign_id: c.campaignId,
        value_micro: 49_990_001,
      });
    });

    it('counts one of many concurrent reports of one event, and one of one click and name', async () => {
      const c = await click();
      const key = await keyOf(c.advertiserId);
      const before = await counted(suite.db, c.campaignId);
      const same = { event_id: eventId(), click_id: c.clickId, name: 'signup', occurred_at: now() };
      const answers = await Promise.all(Array.from({ length: 6 }, () => report(key, same)));
      expect(answers.map((a) => a.body.conversion.status).sort()).toEqual(['duplicate', 'duplicate', 'duplicate', 'duplicate', 'duplicate', 'recorded']);
      // Other event ids for the same click and name: kept, never counted.
      const others = await Promise.all(Array.from({ length: 4 }, () => report(key, { ...same, event_id: eventId() })));
      expect(others.map((a) => [a.body.conversion.status, a.body.conversion.reason])).toEqual(Array(4).fill(['invalid', 'already_converted']));
      // Another name of the same click counts.
      expect((await report(key, { ...same, event_id: eventId(), name: 'purchase' })).body.conversion.status).toBe('recorded');
      expect((await counted(suite.db, c.campaignId)).conversions).toBe(before.conversions + 2);
    });

    it('refuses forged, altered, unknown, foreign, uncounted and stale click ids, each with its reason, counting none', async () => {
      const c = await click();
      const key = await keyOf(c.advertiserId);
      const clickKey = clickIdKey(await suite.services.sdkSecret());
      const before = await counted(suite.db, c.campaignId);
      const expectInvalid = async (k: string, clickId: string, reason: string, occurredAt = now(), advertiser = c.advertiserId) => {
        const body = { event_id: eventId(), click_id: clickId, name: 'signup', occurred_at: occurredAt };
        const res = await report(k, body);
        expect(res.status, res.text).toBe(200);
        expect(res.body.conversion, reason).toMatchObject({ status: 'invalid', reason });
        return kept(suite.db, advertiser, body.event_id);
      };
      // Forged: signed with another key; altered: the signature of another decision; not a click id at all.
      expect(await expectInvalid(key, signClickId(clickIdKey(Buffer.alloc(32, 7)), c.decisionId), 'invalid_click_id')).toMatchObject({
        valid: false,
        campaign_id: null,
      });
      expect(await expectInvalid(key, `${randomUUID()}.${c.clickId.split('.')[1]}`, 'invalid_click_id')).toMatchObject({ valid: false });
      await expectInvalid(key, 'not-a-click-id', 'invalid_click_id');
      // Signed by us, but no ad was ever served under it (or it was swept).
      await expectInvalid(key, signClickId(clickKey, randomUUID()), 'unknown_click');
      // Another advertiser's key with this click: foreign, and this campaign is not named in its record.
      const other = await otherAdvertiser(c.advertiserId);
      expect(await expectInvalid(await keyOf(other), c.clickId, 'foreign_click', now(), other)).toMatchObject({ valid: false, campaign_id: null });
      // Before the click (by more than the 5 minutes clocks may differ), after the campaign's window (7 days by default), or in the future.
      await expectInvalid(key, c.clickId, 'outside_window', new Date(c.clickedAt.getTime() - 10 * 60_000).toISOString());
      await expectInvalid(key, c.clickId, 'outside_window', new Date(c.clickedAt.getTime() + 7 * 86_400_000 + 60_000).toISOString());
      await expectInvalid(key, c.clickId, 'outside_window', new Date(Date.now() + 3_600_000).toISOString());
      expect(await counted(suite.db, c.campaignId)).toEqual(before);

      // An ad that was served and seen but never clicked: its click id (which only we could sign) counts nothing.
      const from = `192.0.2.${++ip}`;
      const served = adBody.parse((await sdk(`/functions/v1/ads?placement_id=${app.placement}`, { headers: { 'x-api-key': app.key }, ip: from })).body);
      const unclicked = served.click_url ? new URL(served.click_url).searchParams.get('token')!.split('.')[0]! : '';
      const [owner] = await rawAsService(suite.db, (q) =>
        q.query<{ advertiser_id: string }>(
          'select c.advertiser_id from public.ad_decisions d join public.campaigns c on c.id = d.campaign_id where d.id = $1',
          [unclicked],
        ),
      );
      await expectInvalid(await keyOf(owner!.advertiser_id), signClickId(clickKey, unclicked), 'click_not_counted', now(), owner!.advertiser_id);
    });

    it("counts at most five conversions of one click, keeps the tag's ids apart from the server's, and names no foreign campaign even for a revoked key", async () => {
      const c = await click();
      const key = await keyOf(c.advertiserId);
      for (const name of ['a', 'b', 'c', 'd', 'e']) {
        expect((await report(key, { event_id: eventId(), click_id: c.clickId, name, occurred_at: now() })).body.conversion.status).toBe('recorded');
      }
      expect((await report(key, { event_id: eventId(), click_id: c.clickId, name: 'f', occurred_at: now() })).body.conversion).toMatchObject({
        status: 'invalid',
        reason: 'too_many_for_click',
      });

      // A stranger with the public tag id sends the id the advertiser's server will send: the server's still counts.
      const d = await click();
      const tag = (await conversionTag(suite.db, d.advertiserId))!;
      const order = eventId();
      const stranger = await sdk('/functions/v1/conversions/tag', { body: { tag, click_id: 'made-up', name: 'purchase', event_id: order } });
      expect(stranger.body.conversion).toMatchObject({ status: 'invalid', reason: 'invalid_click_id', event_id: `tag:${order}` });
      expect(
        (await report(await keyOf(d.advertiserId), { event_id: order, click_id: d.clickId, name: 'purchase', occurred_at: now() })).body.conversion.status,
      ).toBe('recorded');

      // Another advertiser's revoked key with this click: revoked_key, and nothing of this campaign kept in their row.
      const other = await otherAdvertiser(d.advertiserId);
      const made = await createConversionKey(suite.db, other, 'Revoked elsewhere');
      if (!made.ok) throw new Error(made.error);
      await revokeConversionKey(suite.db, other, made.value.id);
      const late = { event_id: eventId(), click_id: d.clickId, name: 'signup', occurred_at: now() };
      expect((await report(made.value.key, late)).status).toBe(403);
      expect(await kept(suite.db, other, late.event_id)).toMatchObject({ valid: false, invalid_reason: 'revoked_key', campaign_id: null });
    });

    it("follows the campaign's attribution window", async () => {
      const c = await click();
      const key = await keyOf(c.advertiserId);
      // The click three days ago: within the default 7 days, outside a window of 1.
      await rawAsService(suite.db, (q) =>
        q.query("update public.ad_decisions set clicked_at = now() - interval '3 days', impressed_at = now() - interval '3 days' where id = $1", [
          c.decisionId,
        ]),
      );
      expect((await report(key, { event_id: eventId(), click_id: c.clickId, name: 'trial', occurred_at: now() })).body.conversion.status).toBe('recorded');
      await rawAsService(suite.db, (q) => q.query('update public.campaigns set attribution_window_days = 1 where id = $1', [c.campaignId]));
      try {
        const late = await report(key, { event_id: eventId(), click_id: c.clickId, name: 'purchase', occurred_at: now() });
        expect(late.body.conversion).toMatchObject({ status: 'invalid', reason: 'outside_window' });
      } finally {
        await rawAsService(suite.db, (q) => q.query('update public.campaigns set attribution_window_days = 7 where id = $1', [c.campaignId]));
      }
      await expect(
        rawAsService(suite.db, (q) => q.query('update public.campaigns set attribution_window_days = 31 where id = $1', [c.campaignId])),
      ).rejects.toThrow(/attribution_window_days/);
    });

    it("counts a conversion from the tag once per click and name, by script or image, and refuses another advertiser's click", async () => {
      const c = await click();
      const tag = (await conversionTag(suite.db, c.advertiserId))!;
      expect(tag).toMatch(/^ct_[A-Za-z0-9]{24}$/);
      expect(await conversionTag(suite.db, c.advertiserId)).toBe(tag);
      const before = await counted(suite.db, c.campaignId);
      // As navigator.sendBeacon sends it: text/plain, from the advertiser's page.
      const beacon = await sdk('/functions/v1/conversions/tag', {
        body: JSON.stringify({ tag, click_id: c.clickId, name: 'signup', value_usd: 12.5 }),
        headers: { 'content-type': 'text/plain;charset=UTF-8', origin: 'https://shop.example' },
      });
      expect(beacon.status, beacon.text).toBe(200);
      expect(beacon.body.conversion).toMatchObject({ status: 'recorded', event_id: tagEventId(c.clickId, 'signup') });
      expect(tagEventId(c.clickId, 'signup')).toMatch(/^tag:[0-9a-f]{32}$/);
      expect(beacon.headers.get('access-control-allow-origin')).toBe('*');
      // The thank-you page opened again, by script or by image: nothing more.
      const again = await sdk('/functions/v1/conversions/tag', { body: { tag, click_id: c.clickId, name: 'signup' } });
      expect(again.body.conversion.status).toBe('duplicate');
      const image = await sdk(`/functions/v1/conversions/tag?tag=${tag}&click_id=${encodeURIComponent(c.clickId)}&name=signup`);
      expect(image.status).toBe(200);
      expect(image.headers.get('content-type')).toBe('image/gif');
      // The image tag with another name counts.
      const purchase = await sdk(`/functions/v1/conversions/tag?tag=${tag}&click_id=${encodeURIComponent(c.clickId)}&name=purchase&value_usd=30.25`);
      expect(purchase.status).toBe(200);
      expect(await kept(suite.db, c.advertiserId, tagEventId(c.clickId, 'purchase'))).toMatchObject({ valid: true, source: 'tag', value_micro: 30_250_000 });
      expect(await counted(suite.db, c.campaignId)).toEqual({ conversions: before.conversions + 2, value_micro: before.value_micro + 42_750_000 });

      // Another advertiser's tag with this click: foreign. An unknown tag: 404, nothing kept.
      const other = await otherAdvertiser(c.advertiserId);
      const foreign = await sdk('/functions/v1/conversions/tag', {
        body: { tag: (await conversionTag(suite.db, other))!, click_id: c.clickId, name: 'signup' },
      });
      expect(foreign.body.conversion).toMatchObject({ status: 'invalid', reason: 'foreign_click' });
      const unknown = await sdk('/functions/v1/conversions/tag', { body: { tag: `ct_${'x'.repeat(24)}`, click_id: c.clickId, name: 'signup' } });
      expect(unknown.status).toBe(404);
      expect(unknown.body.error.code).toBe('not_found');
      for (const bad of [
        { click_id: c.clickId, name: 'signup' },
        { tag, click_id: c.clickId, name: '' },
        { tag, click_id: c.clickId, name: 'x', value_usd: -1 },
        { tag, click_id: c.clickId, name: 'x', extra: 1 },
      ]) {
        const res = await sdk('/functions/v1/conversions/tag', { body: bad });
        expect(res.status, JSON.stringify(bad)).toBe(400);
        expect(res.body.error.code).toBe('invalid_request');
      }
      expect((await counted(suite.db, c.campaignId)).conversions).toBe(before.conversions + 2);
    });

    it('authenticates by conversions key only, from a server: a bad credential is a 401, a page or a revoked key a 403', async () => {
      const c = await click();
      const key = await keyOf(c.advertiserId);
      const publisherKey = await createApiKey(suite.db, suite.users.demo, { app_id: app.appId, name: 'Server', environment: 'production', kind: 'server' });
      if (!publisherKey.ok) throw new Error(publisherKey.error);
      const body = () => ({ event_id: eventId(), click_id: c.clickId, name: 'signup', occurred_at: now() });
      const bad: [string, Record<string, string>, number][] = [
        ['no credential', {}, 401],
        ['an empty bearer', { authorization: 'Bearer ' }, 401],
        ['another scheme', { authorization: `Basic ${key}` }, 401],
        ['a malformed key', { authorization: `Bearer ${key.slice(0, -1)}` }, 401],
        ['an unknown key', { authorization: `Bearer ck_live_${'A'.repeat(32)}` }, 401],
        ["a publisher's server key", { authorization: `Bearer ${publisherKey.value.key}` }, 401],
        ["a publisher's publishable key", { 'x-api-key': app.key }, 401],
        ['the key from a web page', { authorization: `Bearer ${key}`, origin: 'https://shop.example' }, 403],
      ];
      for (const [label, headers, status] of bad) {
        const res = await sdk('/functions/v1/conversions', { body: body(), headers });
        expect(res.status, label).toBe(status);
        expect(res.body.error.code, label).toBe(status === 401 ? 'invalid_token' : 'forbidden');
      }

      // A revoked key: 403, its conversion kept as invalid, never counted.
      const made = await createConversionKey(suite.db, c.advertiserId, 'Old server');
      if (!made.ok) throw new Error(made.error);
      expect((await revokeConversionKey(suite.db, c.advertiserId, made.value.id)).ok).toBe(true);
      const before = await counted(suite.db, c.campaignId);
      const late = body();
      const refused = await report(made.value.key, late);
      expect(refused.status).toBe(403);
      expect(refused.body.error.code).toBe('forbidden');
      expect(await kept(suite.db, c.advertiserId, late.event_id)).toMatchObject({ valid: false, invalid_reason: 'revoked_key' });
      expect(await counted(suite.db, c.campaignId)).toEqual(before);
    });

    it('reports conversions, their value, the cost per conversion and the return on spend, alike in the console, its CSV and the account API', async () => {
      const c = await click();
      const key = await keyOf(c.advertiserId);
      expect(
        (await report(key, { event_id: eventId(), click_id: c.clickId, name: 'purchase', value_usd: 120.5, occurred_at: now() })).body.conversion.status,
      ).toBe('recorded');
      await rollUp(suite.db);
      const [stats] = await suite.db.query<{ spent: number; conversions: number; value: number }>(
        'select sum(spent_micro)::bigint as spent, sum(conversions)::int as conversions, sum(conversion_value_micro)::bigint as value from public.campaign_daily_stats where campaign_id = $1',
        [c.campaignId],
      );
      expect(stats!.conversions).toBeGreaterThan(0);

      // The console's report (and its CSV): the campaign's rows carry the conversions, to the micro-dollar.
      const rows = (await advertiserReport(suite.db, c.advertiserId, 7, c.campaignId)).filter((r) => r.campaign_id === c.campaignId);
      expect(rows.reduce((n, r) => n + r.conversions, 0)).toBe(stats!.conversions);
      expect(rows.reduce((n, r) => n + r.conversion_value_micro, 0)).toBe(Number(stats!.value));
      const csv = reportCsv(rows).split('\r\n');
      expect(csv[0]).toContain('conversions,conversion_value_usd,cost_per_conversion_usd,return_on_spend');

      // The account API: the same totals, and the cost per conversion as the console computes it.
      const token = await accessToken(c.advertiserId, { scopes: ['campaigns:read'], resources: ['api'] });
      const { res, body } = await get(handlersOf('/api/v1/me/campaigns').GET, '/api/v1/me/campaigns?limit=100&status=all', token);
      expect(res.status, JSON.stringify(body)).toBe(200);
      const campaign = campaignsBody
        .strict()
        .parse(body)
        .campaigns.find((x) => x.id === c.campaignId)!;
      expect(campaign).toMatchObject({
        attribution_window_days: 7,
        conversions: stats!.conversions,
        conversion_value_micro: Number(stats!.value),
        cost_per_conversion_micro: costPerConversion(micro(Number(stats!.spent)), stats!.conversions),
      });
      expect(campaign.return_on_spend).toBe(Number(stats!.spent) > 0 ? Math.round((Number(stats!.value) / Number(stats!.spent)) * 10_000) / 10_000 : null);
    });

    it("shows the operator each campaign's refused clicks and invalid conversions, with why, and only to staff", async () => {
      const c = await click();
      const key = await keyOf(c.advertiserId);
      // One counted conversion, two invalid ones, and a refused click (the same ad clicked again from another address: already counted).
      await report(key, { event_id: eventId(), click_id: c.clickId, name: 'signup', occurred_at: now() });
      await report(key, { event_id: eventId(), click_id: c.clickId, name: 'signup', occurred_at: now() });
      await report(key, { event_id: eventId(), click_id: c.clickId, name: 'trial', occurred_at: new Date(Date.now() + 3_600_000).toISOString() });
      const again = await sdk('/functions/v1/events', {
        body: { events: [{ id: `click-again-${ip}`, type: 'click', token: c.token }] },
        headers: { 'x-api-key': app.key },
      });
      expect(again.body.results[0]).toMatchObject({ status: 'invalid', reason: 'already_counted' });
      await rollUp(suite.db);
      const [operatorRow] = await suite.db.query<{ id: string }>("select id from public.users where email = 'operator@example.com'");
      const staff = { id: operatorRow!.id, email: 'operator@example.com', name: null };
      const rows = await trafficQuality(suite.db, staff);
      const row = rows.find((r) => r.id === c.campaignId)!;
      const [figures] = await rawAsService(suite.db, (q) =>
        q.query<{ valid: number; invalid: number }>(
          'select count(*) filter (where valid)::int as valid, count(*) filter (where not valid)::int as invalid from public.conversions where campaign_id = $1',
          [c.campaignId],
        ),
      );
      expect(row).toMatchObject({ conversions: figures!.valid, invalid_conversions: figures!.invalid });
      expect(row.conversion_reasons.already_converted).toBeGreaterThanOrEqual(1);
      expect(row.conversion_reasons.outside_window).toBeGreaterThanOrEqual(1);
      expect(invalidShare(row.invalid_conversions, row.conversions)).toBe(
        Math.round((figures!.invalid / (figures!.valid + figures!.invalid)) * 10_000) / 10_000,
      );
      expect(row.clicks).toBeGreaterThan(0);
      expect(row.invalid_clicks).toBeGreaterThanOrEqual(1);
      expect(row.click_reasons.already_counted).toBeGreaterThanOrEqual(1);
      // An advertiser, even this campaign's own, is no staff.
      await expect(trafficQuality(suite.db, { id: c.advertiserId, email: 'x@example.com', name: null })).rejects.toThrow();
    });

    it('keeps keys hashed, shows each once, caps the active ones, and lets only their advertiser see or revoke them', async () => {
      const c = await click();
      const advertiser = c.advertiserId;
      const made = await createConversionKey(suite.db, advertiser, 'Reporting');
      if (!made.ok) throw new Error(made.error);
      expect(made.value.key).toMatch(/^ck_live_[A-Za-z0-9]{32}$/);
      const [row] = await rawAsService(suite.db, (q) =>
        q.query<Record<string, unknown>>('select * from public.conversion_keys where id = $1', [made.value.id]),
      );
      expect(row!.key_hash).toBe(sha256Hex(made.value.key));
      expect(JSON.stringify(row)).not.toContain(made.value.key);
      const listed = await listConversionKeys(suite.db, advertiser);
      expect(listed.find((k) => k.id === made.value.id)).toEqual({
        id: made.value.id,
        name: 'Reporting',
        masked_key: `${made.value.key.slice(0, 16)}…${made.value.key.slice(-4)}`,
        created_at: made.value.created_at,
        last_used_at: null,
        revoked_at: null,
      });
      expect(JSON.stringify(listed)).not.toContain(made.value.key);

      // Another advertiser neither sees nor revokes it; a revoked key stays revoked.
      const other = await otherAdvertiser(advertiser);
      expect((await listConversionKeys(suite.db, other)).map((k) => k.id)).not.toContain(made.value.id);
      expect((await revokeConversionKey(suite.db, other, made.value.id)).ok).toBe(false);
      expect((await revokeConversionKey(suite.db, advertiser, made.value.id)).ok).toBe(true);
      await expect(
        rawAsUser(suite.db, { sub: advertiser }, (q) => q.query('update public.conversion_keys set revoked_at = null where id = $1', [made.value.id])),
      ).rejects.toThrow(/stays revoked/);

      // At most MAX_ACTIVE_CONVERSION_KEYS active at once.
      const active = (await listConversionKeys(suite.db, advertiser)).filter((k) => !k.revoked_at).length;
      for (let i = active; i < MAX_ACTIVE_CONVERSION_KEYS; i++) expect((await createConversionKey(suite.db, advertiser, `Key ${i}`)).ok).toBe(true);
      expect((await createConversionKey(suite.db, advertiser, 'One too many')).ok).toBe(false);

      // A publisher who is no advertiser gets neither a key nor a tag.
      expect((await createConversionKey(suite.db, suite.users.demo, 'Mine')).ok).toBe(false);
      expect(await conversionTag(suite.db, suite.users.demo)).toBeNull();
    });
  });
}
