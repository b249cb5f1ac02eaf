import { beforeAll, describe, expect, it } from 'vitest';
import { SANDBOX_ADVERTISER_BALANCE_MICRO, SANDBOX_CAMPAIGNS } from '@/lib/account/sandbox';
import { createApp, createPlacement } from '@/lib/publisher/writes';
import { DEFAULT_SCOPES, SCOPE_DESCRIPTIONS, SCOPES } from '@/lib/identity/oauth/scopes';
import type { Queryable } from '@/lib/platform/db/engine';
import { campaignsBody } from '@/lib/schemas/account';
import { CAMPAIGN_STATUSES } from '@/lib/schemas/advertising';
import { pagesBody } from '@/lib/schemas/pages';
import { adBody } from '@/lib/schemas/sdk';
import { rollUp } from '@/lib/ads/serving/rollup';
import { get, postBatch } from '../helpers/account';
import { suiteDatabase, testEngines } from '../helpers/db';
import { approve, authorizeParams, codeGrant, exchange, openAuthorize, publicClient, sessionCookie } from '../helpers/oauth';
import { rawAsService, rawAsUser, runAs } from '../helpers/roles';
import { handlersOf } from '../helpers/routes';
import { newKey, sdk, servedSecondsAgo } from '../helpers/sdk';
import { accessToken } from '../helpers/tokens';

/**
 * `GET /api/v1/me/campaigns` (scope `campaigns:read`, content/docs/account-api.md), on every
 * engine: an advertiser reads their own campaigns, creatives, figures and balance, exactly as the
 * roll-up and the ledger keep them, rounded once; a user who is not an advertiser reads an empty
 * list and a zero balance; nobody reads another advertiser's campaigns; the status filter and the
 * cursor pages; the sandbox answers its demo advertiser; and the scope is granted only to a client
 * that asks for it (an authorization without `scope` gets the original four).
 */

const PATH = '/api/v1/me/campaigns';
const route = handlersOf(PATH);
const METADATA = 'http://localhost:3000/.well-known/oauth-protected-resource/api/v1';
const VIEWABLE = { visible_share: 0.8, visible_seconds: 1.2 };

type Body = ReturnType<typeof campaignsBody.parse>;

async function one<T>(q: Queryable, sql: string, params: unknown[] = []): Promise<T> {
  const [row] = await q.query<{ v: T }>(sql, params);
  return row!.v;
}

/** The answer of the route, parsed strictly: no field beyond the documented ones. */
async function campaigns(token: string, query = ''): Promise<Body> {
  const { res, body } = await get(route.GET, `${PATH}${query}`, token);
  expect(res.status, JSON.stringify(body)).toBe(200);
  expect(res.headers.get('cache-control')).toBe('no-store');
  return campaignsBody.strict().parse(body);
}

/** Every campaign of a walk through the pages at `limit`, following each next_cursor. */
async function walk(token: string, limit: number, status?: string): Promise<{ ids: string[]; pages: Body[] }> {
  const pages: Body[] = [];
  let cursor: string | null = null;
  do {
    const params = new URLSearchParams({ limit: String(limit), ...(status ? { status } : {}), ...(cursor ? { cursor } : {}) });
    const page = await campaigns(token, `?${params}`);
    pages.push(page);
    expect(page.pagination.limit).toBe(limit);
    expect(page.campaigns.length).toBeLessThanOrEqual(limit);
    if (page.pagination.has_more) expect(page.campaigns.length, 'a page before the last is full').toBe(limit);
    expect(page.pagination.next_cursor === null).toBe(!page.pagination.has_more);
    cursor = page.pagination.next_cursor;
    expect(pages.length, 'the walk ends').toBeLessThanOrEqual(50);
  } while (cursor);
  return { ids: pages.flatMap((p) => p.campaigns.map((c) => c.id)), pages };
}

for (const engine of testEngines()) {
  describe(`GET /api/v1/me/campaigns on ${engine.name}`, () => {
    const suite = suiteDatabase(engine, { unlimited: true });
    let n = 0;
    const unique = () => `${Date.now().toString(36)}-${++n}`;

    const asStaff = async <T>(fn: (q: Queryable) => Promise<T>) =>
      runAs(
        suite.db,
        'authenticated',
        { sub: await one<string>(suite.db, "select id as v from public.users where email = 'operator@example.com'"), aal: 'aal2' },
        fn,
      );

    /** A new advertiser account (profile included), with `fundsUsd` credited by a manual top-up the operator recorded. */
    const advertiser = async (company: string, fundsUsd: number) => {
      const id = await rawAsService(suite.db, (q) =>
        one<string>(q, 'insert into public.users (email, name) values ($1, $2) returning id as v', [`${unique()}@campaigns.test`, company]),
      );
      await rawAsUser(suite.db, { sub: id }, (q) =>
        q.query(
          `insert into public.advertiser_profiles (user_id, company, billing_name, billing_email, billing_address, country)
           values ($1, $2, $2, 'billing@campaigns.test', '1 Test Street', 'GB')`,
          [id, company],
        ),
      );
      const asked = await rawAsUser(suite.db, { sub: id }, (q) =>
        one<{ ok: boolean; top_up_id: string }>(q, 'select public.top_up_request($1) as v', [fundsUsd * 1_000_000]),
      );
      expect(asked.ok).toBe(true);
      expect((await asStaff((q) => one<{ ok: boolean }>(q, "select public.staff_top_up_record($1, true, 'BANK-REF') as v", [asked.top_up_id]))).ok).toBe(true);
      return id;
    };

    /** A campaign of `owner`'s with one inline-text creative, made as the advertiser, and taken to `to` the way it gets there. */
    const campaign = async (owner: string, name: string, to: 'draft' | 'in_review' | 'active' | 'paused' | 'rejected', budgetUsd = 50) => {
      const headline = `${name} ${unique()}`;
      const id = await rawAsUser(suite.db, { sub: owner }, async (q) => {
        const id = await one<string>(
          q,
          `insert into public.campaigns (advertiser_id, name, lifetime_budget_micro, daily_cap_micro, frequency_cap, formats, starts_at)
           values ($1, $2, $3, 20000000, 100, '{inline_text}', now() - interval '1 minute') returning id as v`,
          [owner, headline, budgetUsd * 1_000_000],
        );
        await q.query(
          "insert into public.creatives (campaign_id, format, headline, landing_url) values ($1, 'inline_text', $2, 'https://advertiser.example/')",
          [id, headline],
        );
        if (to !== 'draft') await q.query("update public.campaigns set status = 'in_review' where id = $1", [id]);
        return id;
      });
      const creative = await rawAsService(suite.db, (q) => one<string>(q, 'select id as v from public.creatives where campaign_id = $1', [id]));
      if (to === 'active' || to === 'paused' || to === 'rejected') {
        const ok = to !== 'rejected';
        await asStaff(async (q) => {
          expect((await one<{ ok: boolean }>(q, 'select public.staff_campaign_review($1, $2, $3) as v', [id, ok, 'Not for this network'])).ok).toBe(true);
          expect((await one<{ ok: boolean }>(q, 'select public.staff_creative_review($1, $2, $3) as v', [creative, ok, 'Not for this network'])).ok).toBe(true);
        });
      }
      if (to === 'paused') await rawAsUser(suite.db, { sub: owner }, (q) => q.query("update public.campaigns set status = 'paused' where id = $1", [id]));
      return { id, creative, headline };
    };

    /** The advertiser with campaigns in five statuses, the one who has one, and the publisher's placement their ads run on. */
    const world = {} as {
      owner: string;
      other: string;
      running: { id: string; creative: string; headline: string; rejectedCreative: string };
      paused: { id: string; creative: string };
      ids: string[];
      otherIds: string[];
      costMicro: number;
    };

    beforeAll(async () => {
      // The demo advertisers' campaigns paused (in this suite's database only): what serves is this suite's.
      await rawAsService(suite.db, (q) => q.query("update public.campaigns set status = 'paused' where status = 'active'"));
      const slug = `campaigns-${Math.random().toString(36).slice(2, 10)}`;
      const app = await createApp(suite.db, suite.users.demo, {
        name: `Advertised ${slug}`,
        slug,
        description: '',
        category: ['education'],
        allowed_origins: [],
      });
      if (!app.ok) throw new Error(app.error);
      const placement = await createPlacement(suite.db, suite.users.demo, { app_id: app.value.id, name: 'inline slot', format: 'inline_text' });
      if (!placement.ok) throw new Error(placement.error);
      const key = (await newKey(suite.db, suite.users.demo, { appId: app.value.id })).key;

      const owner = await advertiser('Campaigns Co', 250);
      const other = await advertiser('Other Co', 60);
      // Oldest first: running, paused, draft, in review, rejected.
      const running = await campaign(owner, 'Running', 'active');
      const paused = await campaign(owner, 'Paused', 'paused');
      const draft = await campaign(owner, 'Draft', 'draft');
      const inReview = await campaign(owner, 'In review', 'in_review');
      const rejected = await campaign(owner, 'Rejected', 'rejected');
      const theirs = await campaign(other, 'Theirs', 'draft');
      // A second creative of the running campaign, rejected in review.
      const rejectedCreative = await rawAsUser(suite.db, { sub: owner }, (q) =>
        one<string>(
          q,
          "insert into public.creatives (campaign_id, format, headline, landing_url) values ($1, 'inline_text', 'Too good to be true', 'https://advertiser.example/') returning id as v",
          [running.id],
        ),
      );
      await asStaff((q) => q.query("select public.staff_creative_review($1, false, 'The headline promises too much.')", [rejectedCreative]));

      // One real impression of the running campaign, billed by the roll-up: its figures and the advertiser's balance.
      let served = false;
      for (let i = 0; i < 30 && !served; i++) {
        const res = await sdk(`/functions/v1/ads?placement_id=${placement.value.id}&session_id=s-${unique()}`, {
          headers: { 'x-api-key': key },
          ip: '203.0.113.9',
        });
        if (res.status !== 200) continue;
        const ad = adBody.parse(res.body);
        if (ad.ad.headline !== running.headline) continue;
        await servedSecondsAgo(suite.db, 5);
        const sent = await sdk('/functions/v1/events', {
          body: { events: [{ id: `imp-${unique()}`, type: 'impression', token: ad.token, viewability: VIEWABLE }] },
          ip: '203.0.113.9',
          headers: { 'x-api-key': key },
        });
        expect(sent.body.recorded, sent.text).toBe(1);
        served = true;
      }
      expect(served, 'the running campaign was served').toBe(true);
      await rollUp(suite.db);
      const cpm = await rawAsService(suite.db, (q) => one<string>(q, 'select cpm_inline_text_micro::text as v from public.pricing_settings'));

      // The paused campaign's figures of two earlier days, as the roll-up keeps them, to the millionth of a dollar.
      await rawAsService(suite.db, (q) =>
        q.query(
          `insert into public.campaign_daily_stats (campaign_id, creative_id, app_id, day, fills, impressions, clicks, spent_micro)
           values ($1, $2, $3, current_date - 3, 1100, 1000, 12, 2800000), ($1, $2, $3, current_date - 2, 2500, 2345, 30, 6566001)`,
          [paused.id, paused.creative, app.value.id],
        ),
      );
      Object.assign(world, {
        owner,
        other,
        running: { ...running, rejectedCreative },
        paused,
        ids: [running.id, paused.id, draft.id, inReview.id, rejected.id],
        otherIds: [theirs.id, theirs.creative],
        costMicro: Math.round(Number(cpm) / 1000),
      });
    });

    describe('an advertiser', () => {
      it('reads their campaigns, oldest first, with their statuses, creatives, figures rounded once, and their balance from the ledger', async () => {
        const body = await campaigns(await accessToken(world.owner, { scopes: ['campaigns:read'], resources: ['api'] }));
        const balance = await rawAsService(suite.db, (q) => one<string>(q, "select public.ledger_balance_micro('advertiser', $1)::text as v", [world.owner]));
        expect(body).toMatchObject({ currency: 'USD', balance_micro: 250_000_000 - world.costMicro, note: expect.stringMatching(/micro-dollars/) });
        expect(body.balance_micro).toBe(Number(balance));
        expect(body.balance_usd).toBe(Math.round(body.balance_micro / 10_000) / 100);
        expect(body).not.toHaveProperty('sandbox');
        expect(body.pagination).toEqual({ next_cursor: null, has_more: false, limit: 50 });
        expect(body.campaigns.map((c) => c.id)).toEqual(world.ids);
        expect(body.campaigns.map((c) => [c.status, c.pause_reason, c.rejection_reason])).toEqual([
          ['active', null, null],
          ['paused', 'advertiser', null],
          ['draft', null, null],
          ['in_review', null, null],
          ['rejected', null, 'Not for this network'],
        ]);

        const [running, paused, draft] = body.campaigns as [Body['campaigns'][number], Body['campaigns'][number], Body['campaigns'][number]];
        // The running campaign: the impression the roll-up billed, at the format's price.
        expect(running).toMatchObject({
          formats: ['inline_text'],
          hard_stop: false,
          ends_at: null,
          lifetime_budget_usd: 50,
          daily_cap_usd: 20,
          impressions: 1,
          clicks: 0,
          ctr: 0,
          spend_micro: world.costMicro,
          spend_usd: Math.round(world.costMicro / 10_000) / 100,
          ecpm_usd: Math.round(world.costMicro / 10) / 100,
          budget_left_usd: Math.round((50_000_000 - world.costMicro) / 10_000) / 100,
        });
        expect(running.creatives).toEqual([
          { id: world.running.creative, format: 'inline_text', status: 'active', rejection_reason: null, headline: world.running.headline },
          {
            id: world.running.rejectedCreative,
            format: 'inline_text',
            status: 'rejected',
            rejection_reason: 'The headline promises too much.',
            headline: 'Too good to be true',
          },
        ]);
        // The paused one: 3,345 impressions and 42 clicks for $9.366001, exact in micro-dollars and rounded once.
        expect(paused).toMatchObject({
          impressions: 3345,
          clicks: 42,
          ctr: 0.0126,
          spend_micro: 9_366_001,
          spend_usd: 9.37,
          ecpm_usd: 2.8,
          budget_left_usd: 40.63,
        });
        // Never served: zeros, not nulls, and the whole budget left.
        expect(draft).toMatchObject({ impressions: 0, clicks: 0, ctr: 0, spend_micro: 0, spend_usd: 0, ecpm_usd: 0, budget_left_usd: 50 });
        expect(draft.creatives).toEqual([expect.objectContaining({ status: 'in_review', rejection_reason: null })]);
        for (const c of body.campaigns) {
          expect(Date.parse(c.starts_at)).toBeLessThan(Date.now());
          expect(c.created_at).toMatch(/Z$/);
        }
      });

      it('sees none of another advertiser’s campaigns or creatives, nor they any of theirs', async () => {
        const mine = JSON.stringify(await campaigns(await accessToken(world.owner)));
        const theirs = await campaigns(await accessToken(world.other));
        expect(theirs.campaigns.map((c) => c.id)).toEqual([world.otherIds[0]]);
        expect(theirs.balance_micro).toBe(60_000_000);
        for (const id of world.otherIds) expect(mine).not.toContain(id);
        const theirText = JSON.stringify(theirs);
        for (const id of [...world.ids, world.running.creative, world.running.rejectedCreative, world.paused.creative]) expect(theirText).not.toContain(id);
      });
    });

    it('a user who is not an advertiser reads no campaigns and a balance of 0, not an error', async () => {
      for (const user of [suite.users.demo, suite.users.demo2]) {
        const body = await campaigns(await accessToken(user));
        expect(body).toEqual({
          currency: 'USD',
          balance_usd: 0,
          balance_micro: 0,
          campaigns: [],
          pagination: { next_cursor: null, has_more: false, limit: 50 },
          note: expect.any(String),
        });
      }
    });

    describe('the status filter', () => {
      it.each(['all', ...CAMPAIGN_STATUSES])('status=%s lists exactly the campaigns of that status, and the balance of all of them', async (status) => {
        const token = await accessToken(world.owner);
        const all = await campaigns(token);
        const body = await campaigns(token, `?status=${status}`);
        expect(body.campaigns).toEqual(all.campaigns.filter((c) => status === 'all' || c.status === status));
        expect(body.balance_micro).toBe(all.balance_micro);
      });

      it('lists one campaign for each status the advertiser has, none for the others', async () => {
        const token = await accessToken(world.owner);
        const counts = Object.fromEntries(
          await Promise.all(CAMPAIGN_STATUSES.map(async (s) => [s, (await campaigns(token, `?status=${s}`)).campaigns.length])),
        );
        expect(counts).toEqual({ draft: 1, in_review: 1, scheduled: 0, active: 1, paused: 1, completed: 0, rejected: 1 });
      });

      it.each(['bogus', '', 'ACTIVE', 'ended', 'active&status=paused'])('status=%j is a 400 naming the parameter', async (value) => {
        const { res, body } = await get(route.GET, `${PATH}?status=${value}`, await accessToken(world.owner));
        expect(res.status).toBe(400);
        expect(body).toEqual({ error: { status: 400, code: 'invalid_request', message: expect.stringContaining('status') } });
      });
    });

    describe('pagination', () => {
      it.each([1, 2, 3, 5, 100])('limit=%i visits every campaign exactly once, in order', async (limit) => {
        const token = await accessToken(world.owner);
        const { ids, pages } = await walk(token, limit);
        expect(ids).toEqual(world.ids);
        expect(pages).toHaveLength(Math.max(1, Math.ceil(world.ids.length / limit)));
        for (const p of pages) expect(p.balance_micro).toBe(pages[0]!.balance_micro);
      });

      it('pages a filtered list by its own cursors', async () => {
        const token = await accessToken(world.owner);
        expect((await walk(token, 1, 'active')).ids).toEqual([world.running.id]);
        expect((await walk(token, 1, 'completed')).pages).toEqual([
          expect.objectContaining({ campaigns: [], pagination: { next_cursor: null, has_more: false, limit: 1 } }),
        ]);
      });

      it('a user with no campaigns gets one empty last page at any limit', async () => {
        const token = await accessToken(suite.users.demo2);
        for (const limit of [1, 100]) expect((await walk(token, limit)).pages).toHaveLength(1);
      });

      it.each(['0', '101', '-1', '1.5', 'abc', '', '1e1', '2&limit=3'])('limit=%j is a 400 naming the parameter', async (value) => {
        const { res, body } = await get(route.GET, `${PATH}?limit=${value}`, await accessToken(world.owner));
        expect(res.status).toBe(400);
        expect(body).toEqual({ error: { status: 400, code: 'invalid_request', message: expect.stringContaining('limit') } });
      });

      describe('a cursor not issued for the query is a 400', () => {
        const firstCursor = async (query: string) => (await campaigns(await accessToken(world.owner), query)).pagination.next_cursor!;
        const flip = (s: string, i: number) => `${s.slice(0, i)}${s[i] === 'A' ? 'B' : 'A'}${s.slice(i + 1)}`;
        const refused = async (query: string) => {
          const { res, body } = await get(route.GET, `${PATH}${query}`, await accessToken(world.owner));
          expect(res.status, query).toBe(400);
          expect(body).toEqual({ error: { status: 400, code: 'invalid_request', message: expect.stringContaining('`cursor`') } });
        };

        it('the cursors below work untouched', async () => {
          const c = await firstCursor('?limit=2');
          expect((await campaigns(await accessToken(world.owner), `?limit=2&cursor=${encodeURIComponent(c)}`)).campaigns.map((x) => x.id)).toEqual(
            world.ids.slice(2, 4),
          );
        });
        it('a flipped character', async () => refused(`?limit=2&cursor=${encodeURIComponent(flip(await firstCursor('?limit=2'), 3))}`));
        it('another limit', async () => refused(`?limit=3&cursor=${encodeURIComponent(await firstCursor('?limit=2'))}`));
        it('another status', async () => refused(`?limit=2&status=draft&cursor=${encodeURIComponent(await firstCursor('?limit=2'))}`));
        it('a cursor of /api/v1/pages', async () => {
          const pages = handlersOf('/api/v1/pages');
          const { body } = await get(pages.GET, '/api/v1/pages?limit=2');
          await refused(`?limit=2&cursor=${encodeURIComponent(pagesBody.parse(body).pagination.next_cursor!)}`);
        });
        it('garbage, and an empty or over-long cursor', async () => {
          await refused('?cursor=forged.cursor');
          await refused('?cursor=');
          await refused(`?cursor=${'a'.repeat(513)}`);
        });
      });
    });

    describe('credentials and scope', () => {
      it('a token with the four scopes an authorization without `scope` gives is a 403 insufficient_scope naming campaigns:read', async () => {
        const { res, body } = await get(route.GET, PATH, await accessToken(world.owner, { scopes: DEFAULT_SCOPES }));
        expect(res.status).toBe(403);
        expect(res.headers.get('www-authenticate')).toBe(
          `Bearer error="insufficient_scope", error_description="The campaigns:read scope is required", scope="campaigns:read", resource_metadata="${METADATA}"`,
        );
        expect(body).toEqual({ error: { status: 403, code: 'insufficient_scope', message: expect.stringContaining('campaigns:read') } });
      });

      it('the scope is checked before the parameters, and the token before the scope', async () => {
        expect((await get(route.GET, `${PATH}?status=nope&limit=0`, await accessToken(world.owner, { scopes: DEFAULT_SCOPES }))).res.status).toBe(403);
        expect((await get(route.GET, `${PATH}?status=nope&limit=0`)).res.status).toBe(401);
      });

      it('only campaigns:read reads campaigns: every other scope reads nothing of them', async () => {
        const token = await accessToken(world.owner, { scopes: ['campaigns:read'] });
        expect((await get(handlersOf('/api/v1/me').GET, '/api/v1/me', token)).res.status).toBe(403);
        expect((await campaigns(token)).campaigns).toHaveLength(world.ids.length);
      });
    });

    describe('the OAuth flow grants campaigns:read only when asked', () => {
      const flow = async (scope?: string) => {
        const clientId = await publicClient();
        const code = (await approve(clientId, world.owner, scope === undefined ? {} : { scope })).searchParams.get('code')!;
        const { res, body } = await exchange(codeGrant(clientId, code));
        expect(res.status).toBe(200);
        return body as { access_token: string; scope: string };
      };

      it('without `scope`: the original four, and the campaigns route answers 403', async () => {
        const token = await flow();
        expect(token.scope).toBe(DEFAULT_SCOPES.join(' '));
        expect(token.scope).not.toContain('campaigns:read');
        expect((await get(route.GET, PATH, token.access_token)).res.status).toBe(403);
        expect((await get(handlersOf('/api/v1/me/apps').GET, '/api/v1/me/apps', token.access_token)).res.status).toBe(200);
      });

      it('with an empty `scope`: the original four too', async () => {
        expect((await flow('')).scope).toBe(DEFAULT_SCOPES.join(' '));
      });

      it('asking for campaigns:read: the consent page names it, the token carries it, and the route answers', async () => {
        const cookie = await sessionCookie(world.owner);
        const page = await (await openAuthorize(authorizeParams(await publicClient(), { scope: 'campaigns:read apps:read' }).toString(), cookie)).text();
        expect(page).toContain(SCOPE_DESCRIPTIONS['campaigns:read']);
        const withoutScope = await (await openAuthorize(authorizeParams(await publicClient()).toString(), cookie)).text();
        expect(withoutScope).not.toContain('campaigns:read');

        const token = await flow('campaigns:read apps:read');
        expect(token.scope).toBe('apps:read campaigns:read');
        expect((await campaigns(token.access_token)).campaigns.map((c) => c.id)).toEqual(world.ids);
        const all = await flow(SCOPES.join(' '));
        expect(all.scope).toBe(SCOPES.join(' '));
      });
    });

    it('runs in a batch exactly as alone, filter and cursor included', async () => {
      const token = await accessToken(world.owner);
      const cursor = (await campaigns(token, '?limit=2')).pagination.next_cursor!;
      const paths = [PATH, `${PATH}?status=paused`, `${PATH}?limit=2&cursor=${encodeURIComponent(cursor)}`, `${PATH}?status=nope`];
      const { res, body } = await postBatch({ requests: paths.map((path) => ({ path })) }, { token });
      expect(res.status).toBe(200);
      for (const [i, path] of paths.entries()) {
        const alone = await get(route.GET, path, token);
        expect(body.responses[i]).toEqual({ id: i, status: alone.res.status, body: alone.body });
      }
      expect(body.responses.map((r) => r.status)).toEqual([200, 200, 200, 400]);
    });

    describe('the sandbox token', () => {
      it('answers the demo advertiser, marked as sandbox', async () => {
        const { res, body } = await get(route.GET, PATH, 'svc_sandbox');
        expect(res.status).toBe(200);
        expect(res.headers.get('service-sandbox')).toBe('true');
        const parsed = campaignsBody.strict().parse(body);
        expect(parsed.sandbox).toBe(true);
        expect(parsed.campaigns.map((c) => c.id)).toEqual(SANDBOX_CAMPAIGNS.map((c) => c.id));
        expect(parsed.balance_micro).toBe(SANDBOX_ADVERTISER_BALANCE_MICRO);
        // What the top-ups put in is the balance plus every campaign's exact spend.
        expect(parsed.balance_micro + parsed.campaigns.reduce((n, c) => n + c.spend_micro, 0)).toBe(3_000_000_000);
        for (const c of parsed.campaigns) {
          expect(c.spend_usd).toBe(Math.round(c.spend_micro / 10_000) / 100);
          if (c.lifetime_budget_usd !== null) expect(c.budget_left_usd).toBeGreaterThanOrEqual(0);
          expect(c.pause_reason !== null).toBe(c.status === 'paused');
          expect(c.rejection_reason !== null).toBe(c.status === 'rejected');
          for (const cr of c.creatives) expect(cr.rejection_reason !== null).toBe(cr.status === 'rejected');
        }
        expect(new Set(parsed.campaigns.map((c) => c.status)).size).toBeGreaterThanOrEqual(4);
      });

      it('filters and pages the demo campaigns as a real account', async () => {
        expect((await walk('svc_sandbox', 2)).ids).toEqual(SANDBOX_CAMPAIGNS.map((c) => c.id));
        const active = await campaigns('svc_sandbox', '?status=active');
        expect(active.campaigns.map((c) => c.status)).toEqual(['active']);
        expect(active.sandbox).toBe(true);
      });
    });
  });
}
