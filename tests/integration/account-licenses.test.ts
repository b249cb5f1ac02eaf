import { createHash } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { SANDBOX_BUYER_FUNDS, SANDBOX_LICENSES } from '@/lib/account/sandbox';
import { createApp } from '@/lib/publisher/writes';
import { acknowledgeNotice, buyerFunds, buyerLicenses, deletionNotices, saveBuyerProfile } from '@/lib/data/buyers/account';
import { buyLicense } from '@/lib/data/buyers/catalog';
import { catalogFilter, DATA_TERMS_VERSION } from '@/lib/data/buyers/schemas';
import { DEFAULT_SCOPES, SCOPE_DESCRIPTIONS, SCOPES } from '@/lib/identity/oauth/scopes';
import type { Queryable } from '@/lib/platform/db/engine';
import { campaignsBody, licensesBody } from '@/lib/schemas/account';
import { LICENSE_STATUSES } from '@/lib/schemas/data-buyers';
import { pagesBody } from '@/lib/schemas/pages';
import { recordedConsentBody } from '@/lib/schemas/sdk';
import { get, postBatch } from '../helpers/account';
import { readyToSell } from '../helpers/data-market';
import { suiteDatabase, testEngines } from '../helpers/db';
import { approve, authorizeParams, codeGrant, exchange, openAuthorize, publicClient, sessionCookie } from '../helpers/oauth';
import { rawAsService, runAs } from '../helpers/roles';
import { handlersOf } from '../helpers/routes';
import { newKey, sdk } from '../helpers/sdk';
import { accessToken } from '../helpers/tokens';
import { requestTopUp } from '@/lib/money/funds';
import { usdToMicro } from '@/lib/platform/kit/micro';

/**
 * `GET /api/v1/me/licenses` (scope `licenses:read`, content/docs/account-api.md), on every
 * engine: a data buyer reads their own licenses, newest first, exactly as the database keeps them
 * (the filter they bought, records, bytes, units, the price to the micro-dollar and rounded once,
 * the terms, the dates, why one was rejected), how many deletion notices naming each they have not
 * acknowledged, and their funds as public.buyer_funds answers them; a user who is not a data buyer
 * reads an empty list and zero funds; nobody reads another buyer's licenses or notices; the status
 * filter and the cursor pages (a license bought during a walk shifts none of its pages); the
 * sandbox answers its demo buyer; and the scope is granted only to a client that asks for it (an
 * authorization without `scope` gets the original four).
 */

const PATH = '/api/v1/me/licenses';
const route = handlersOf(PATH);
const METADATA = 'http://localhost:3000/.well-known/oauth-protected-resource/api/v1';
/** An AI-interaction row's price, and an exclusive license's multiplier, at the demo pricing. */
const ROW_MICRO = 2_000;
const EXCLUSIVE = 3;

type Body = ReturnType<typeof licensesBody.parse>;
type License = Body['licenses'][number];

async function one<T>(q: Queryable, sql: string, params: unknown[] = []): Promise<T> {
  const [row] = await q.query<{ v: T }>(sql, params);
  return row!.v;
}

/** The answer of the route, parsed strictly: no field beyond the documented ones. */
async function licenses(token: string, query = ''): Promise<Body> {
  const { res, body } = await get(route.GET, `${PATH}${query}`, token);
  expect(res.status, JSON.stringify(body)).toBe(200);
  expect(res.headers.get('cache-control')).toBe('no-store');
  return licensesBody.strict().parse(body);
}

/** Every license of a walk through the pages at `limit`, following each next_cursor; `between` runs after each page. */
async function walk(token: string, limit: number, status?: string, between?: () => Promise<void>): Promise<{ ids: string[]; pages: Body[] }> {
  const pages: Body[] = [];
  let cursor: string | null = null;
  do {
    const params = new URLSearchParams({ limit: String(limit), ...(status ? { status } : {}), ...(cursor ? { cursor } : {}) });
    const page = await licenses(token, `?${params}`);
    pages.push(page);
    expect(page.pagination.limit).toBe(limit);
    expect(page.licenses.length).toBeLessThanOrEqual(limit);
    if (page.pagination.has_more) expect(page.licenses.length, 'a page before the last is full').toBe(limit);
    expect(page.pagination.next_cursor === null).toBe(!page.pagination.has_more);
    cursor = page.pagination.next_cursor;
    expect(pages.length, 'the walk ends').toBeLessThanOrEqual(50);
    await between?.();
  } while (cursor);
  return { ids: pages.flatMap((p) => p.licenses.map((l) => l.id)), pages };
}

for (const engine of testEngines()) {
  describe(`GET /api/v1/me/licenses on ${engine.name}`, () => {
    const suite = suiteDatabase(engine, { unlimited: true });
    const tag = `lic${Math.random().toString(36).slice(2, 8)}`;
    /** The categories of this suite's apps: the licenses below take only their records. */
    const HERE = [`${tag}-notes`];
    const ELSEWHERE = [`${tag}-travel`];
    let n = 0;
    const apps = {} as Record<'here' | 'elsewhere', { appId: string; key: string }>;
    /** Each subject's consent proof, by app and name. */
    const proofs = new Map<string, string>();
    const subject = (name: string) => createHash('sha256').update(`${tag}-${name}`).digest('hex');

    const asStaff = async <T>(fn: (q: Queryable) => Promise<T>) =>
      runAs(
        suite.db,
        'authenticated',
        { sub: await one<string>(suite.db, "select id as v from public.users where email = 'operator@example.com'"), aal: 'aal2' },
        fn,
      );

    /** A new data buyer who accepted the terms, with `fundsUsd` credited by a top-up the operator recorded. */
    const buyer = async (company: string, fundsUsd: number) => {
      const id = await rawAsService(suite.db, (q) =>
        one<string>(q, 'insert into public.users (email, name) values ($1, $2) returning id as v', [`${tag}-${++n}@licenses.test`, company]),
      );
      const saved = await saveBuyerProfile(suite.db, id, {
        company,
        intended_use: 'Evaluating a support assistant on real questions.',
        billing_email: 'billing@licenses.test',
        country: 'DE',
        accept_terms: true,
      });
      expect(saved.ok).toBe(true);
      if (fundsUsd > 0) {
        const asked = await requestTopUp(suite.db, id, usdToMicro(fundsUsd), 'buyer');
        if (!asked.ok) throw new Error(asked.error);
        const paid = await asStaff((q) => one<{ ok: boolean }>(q, "select public.staff_top_up_record($1, true, 'BANK-LIC') as v", [asked.value.id]));
        expect(paid.ok).toBe(true);
      }
      return id;
    };

    /** `count` AI interactions of subject `name` in `app`, through the SDK as an app sends them. */
    const interactions = async (app: 'here' | 'elsewhere', name: string, count: number) => {
      let proof = proofs.get(`${app}:${name}`);
      if (!proof) {
        const res = await sdk('/functions/v1/consents', {
          body: { subject_id: subject(name), purposes: ['ai_interactions'], policy_version: 'v1' },
          headers: { 'x-api-key': apps[app].key },
        });
        expect(res.status, res.text).toBe(200);
        proof = recordedConsentBody.parse(res.body).consent_proof;
        proofs.set(`${app}:${name}`, proof);
      }
      const records = Array.from({ length: count }, (_, i) => ({
        id: `${name}-${++n}-${i}`,
        data: { prompt: `How do I share a note? (${name} ${i})`, response: 'Use the share menu.', model: 'demo-1' },
      }));
      const res = await sdk('/functions/v1/data', {
        body: { subject_id: subject(name), kind: 'ai_interaction', records },
        headers: { 'x-api-key': apps[app].key, 'x-consent-proof': proof },
      });
      expect(res.status, res.text).toBe(200);
    };

    const withdraw = async (name: string) => {
      const res = await sdk(`/functions/v1/consents?subject_id=${subject(name)}`, {
        method: 'DELETE',
        headers: { 'x-api-key': apps.here.key, 'x-consent-proof': proofs.get(`here:${name}`)! },
      });
      expect(res.status, res.text).toBe(200);
    };

    /** Buys `quantity` rows of AI interactions in `categories`, at their price, or fails the test. */
    const buy = async (who: string, categories: string[], quantity: number, exclusive = false) => {
      const bought = await buyLicense(suite.db, who, {
        listing: 'ai_interactions',
        filter: catalogFilter.parse({ categories }),
        quantity,
        exclusive,
        maxPriceMicro: quantity * ROW_MICRO * (exclusive ? EXCLUSIVE : 1),
      });
      if (!bought.ok) throw new Error(bought.error);
      return bought.value.license_id;
    };
    const review = (license: string, approved: boolean, reason: string | null = null) =>
      asStaff((q) => q.query('select public.staff_data_license_review($1, $2, $3)', [license, approved, reason]));

    /** The buyer with a license in every status, and the other buyer with one of their own. */
    const world = {} as {
      owner: string;
      other: string;
      /** The owner's licenses, newest first. */
      ids: string[];
      expired: string;
      standard: string;
      approved: string;
      rejected: string;
      pending: string;
      theirs: string;
    };

    beforeAll(async () => {
      const made = async (name: string, category: string[]) => {
        const app = await createApp(suite.db, suite.users.demo, { name, slug: `${tag}-${name}`, description: '', category, allowed_origins: [] });
        if (!app.ok) throw new Error(app.error);
        // Old enough, with real use: its records are for sale (public.data_apps_for_sale).
        await readyToSell(suite.db, app.value.id);
        return { appId: app.value.id, key: (await newKey(suite.db, suite.users.demo, { appId: app.value.id })).key };
      };
      apps.here = await made('notes', HERE);
      apps.elsewhere = await made('trips', ELSEWHERE);
      // Here: three people, two interactions each, the oldest first; elsewhere: four interactions, for exclusive licenses.
      for (const name of ['ann', 'bob', 'cy']) await interactions('here', name, 2);
      await interactions('elsewhere', 'eve', 4);

      const owner = await buyer('Licenses Co', 100);
      const other = await buyer('Other Data Co', 50);
      // Oldest first: one that expires, one standard, an exclusive one approved, one rejected, one waiting for review.
      const expired = await buy(owner, HERE, 1);
      const standard = await buy(owner, HERE, 6);
      const approved = await buy(owner, ELSEWHERE, 1, true);
      await review(approved, true);
      const rejected = await buy(owner, ELSEWHERE, 1, true);
      await review(rejected, false, 'Not for this use');
      const pending = await buy(owner, ELSEWHERE, 1, true);
      const theirs = await buy(other, HERE, 6);
      // The first license's term ends a second after it started (set as the owner of the tables: only the money's functions write
      // licenses), and time moves on past it, not past anything else's.
      await suite.db.query("update public.data_licenses set expires_at = starts_at + interval '1 second' where id = $1", [expired]);
      await rawAsService(suite.db, (q) => q.query("select public.data_licenses_advance(now() + interval '1 minute')"));
      // Two withdrawals after the sales: each gives each buyer one notice naming the licenses that hold the subject's records.
      await withdraw('ann');
      await withdraw('bob');
      Object.assign(world, { owner, other, ids: [pending, rejected, approved, standard, expired], expired, standard, approved, rejected, pending, theirs });
    });

    describe('a data buyer', () => {
      it('reads their licenses, newest first, as the database keeps them, with their funds from public.buyer_funds', async () => {
        const body = await licenses(await accessToken(world.owner, { scopes: ['licenses:read'], resources: ['api'] }));
        expect(body).not.toHaveProperty('sandbox');
        expect(body.pagination).toEqual({ next_cursor: null, has_more: false, limit: 50 });
        expect(body.licenses.map((l) => l.id)).toEqual(world.ids);
        expect(body.licenses.map((l) => [l.status, l.exclusive])).toEqual([
          ['pending_review', true],
          ['rejected', true],
          ['active', true],
          ['active', false],
          ['expired', false],
        ]);

        // Funds: $100 in; charged 1 + 6 rows and one exclusive row approved; one exclusive row reserved; the rejected one nothing;
        // refunded the 4 rows of the standard license withdrawn within 30 days of its sale.
        const charged = 7 * ROW_MICRO + EXCLUSIVE * ROW_MICRO - 4 * ROW_MICRO;
        const reserved = EXCLUSIVE * ROW_MICRO;
        expect(body).toMatchObject({
          currency: 'USD',
          balance_micro: 100_000_000 - charged,
          reserved_micro: reserved,
          available_micro: 100_000_000 - charged - reserved,
          balance_usd: 99.99,
          reserved_usd: 0.01,
          available_usd: 99.98,
          note: expect.stringMatching(/micro-dollars/),
        });
        expect(await buyerFunds(suite.db, world.owner)).toEqual({
          balance_micro: body.balance_micro,
          reserved_micro: body.reserved_micro,
          available_micro: body.available_micro,
        });

        // Each license as the buyer's own console reads it (lib/data/buyers/account.ts), field by field.
        const stored = await buyerLicenses(suite.db, world.owner);
        expect(stored.map((l) => l.id)).toEqual(world.ids);
        for (const [i, l] of body.licenses.entries()) {
          const s = stored[i]!;
          expect(l).toEqual({
            id: s.id,
            listing: 'ai_interactions',
            exclusive: s.exclusive,
            status: s.status,
            filter: { categories: s.filter.categories, from: null, to: null, models: [], min_app_age_days: null },
            records: s.records,
            bytes: s.bytes,
            units: s.units,
            price_usd: Math.round(s.price_micro / 10_000) / 100,
            price_micro: s.price_micro,
            terms_version: DATA_TERMS_VERSION,
            requested_at: s.requested_at.toISOString(),
            starts_at: s.starts_at?.toISOString() ?? null,
            expires_at: s.expires_at?.toISOString() ?? null,
            rejection_reason: s.rejection_reason,
            unacknowledged_deletion_notices: expect.any(Number),
          });
        }
        const byId = new Map(body.licenses.map((l) => [l.id, l]));
        expect(byId.get(world.standard)).toMatchObject({ filter: { categories: HERE }, records: 6, units: 6, price_micro: 12_000, price_usd: 0.01 });
        expect(byId.get(world.pending)).toMatchObject({ filter: { categories: ELSEWHERE }, records: 1, price_micro: 6_000, starts_at: null, expires_at: null });
        expect(byId.get(world.rejected)).toMatchObject({ rejection_reason: 'Not for this use', starts_at: null, expires_at: null });
        const expired = byId.get(world.expired)!;
        expect(Date.parse(expired.expires_at!) - Date.parse(expired.starts_at!)).toBe(1000);
        for (const l of body.licenses) {
          expect(l.rejection_reason !== null).toBe(l.status === 'rejected');
          expect(l.requested_at).toMatch(/Z$/);
        }
      });

      it('counts on each license the deletion notices naming it that they have not acknowledged, and only theirs', async () => {
        const token = await accessToken(world.owner);
        const counts = (body: Body) => Object.fromEntries(body.licenses.map((l) => [l.id, l.unacknowledged_deletion_notices]));
        // Both withdrawals erased records of the standard license (it holds everyone's here), none of the others'.
        const notices = await deletionNotices(suite.db, world.owner);
        expect(notices).toHaveLength(2);
        for (const notice of notices) expect(notice.license_ids).toEqual([world.standard]);
        expect(counts(await licenses(token))).toEqual({
          [world.pending]: 0,
          [world.rejected]: 0,
          [world.approved]: 0,
          [world.standard]: 2,
          [world.expired]: 0,
        });
        // One acknowledged: one left. The other buyer's notices about the same people are theirs, and count only for them.
        const acked = await acknowledgeNotice(suite.db, world.owner, notices[0]!.id);
        expect(acked.ok).toBe(true);
        expect(counts(await licenses(token))[world.standard]).toBe(1);
        expect((await licenses(await accessToken(world.other))).licenses.map((l) => [l.id, l.unacknowledged_deletion_notices])).toEqual([[world.theirs, 2]]);
      });

      it('sees none of another buyer’s licenses or notices, nor they any of theirs', async () => {
        const mine = await licenses(await accessToken(world.owner));
        const theirs = await licenses(await accessToken(world.other));
        expect(theirs.licenses.map((l) => l.id)).toEqual([world.theirs]);
        // Their 6-row license lost 4 rows to the two withdrawals, refunded.
        expect(theirs).toMatchObject({ balance_micro: 50_000_000 - 2 * ROW_MICRO, reserved_micro: 0, available_micro: 50_000_000 - 2 * ROW_MICRO });
        expect(JSON.stringify(mine)).not.toContain(world.theirs);
        const theirText = JSON.stringify(theirs);
        for (const id of world.ids) expect(theirText).not.toContain(id);
      });
    });

    it('a user who is not a data buyer reads no licenses and funds of 0, not an error; nor does a new buyer without any', async () => {
      const newcomer = await buyer('Newcomer Data', 0);
      for (const user of [suite.users.demo, suite.users.demo2, newcomer]) {
        const body = await licenses(await accessToken(user));
        expect(body).toEqual({
          currency: 'USD',
          balance_usd: 0,
          balance_micro: 0,
          reserved_usd: 0,
          reserved_micro: 0,
          available_usd: 0,
          available_micro: 0,
          licenses: [],
          pagination: { next_cursor: null, has_more: false, limit: 50 },
          note: expect.any(String),
        });
      }
    });

    describe('the status filter', () => {
      it.each(['all', ...LICENSE_STATUSES])('status=%s lists exactly the licenses of that status, and the funds of all of them', async (status) => {
        const token = await accessToken(world.owner);
        const all = await licenses(token);
        const body = await licenses(token, `?status=${status}`);
        expect(body.licenses).toEqual(all.licenses.filter((l) => status === 'all' || l.status === status));
        expect([body.balance_micro, body.reserved_micro, body.available_micro]).toEqual([all.balance_micro, all.reserved_micro, all.available_micro]);
      });

      it('lists as many licenses of each status as the buyer has', async () => {
        const token = await accessToken(world.owner);
        const counts = Object.fromEntries(await Promise.all(LICENSE_STATUSES.map(async (s) => [s, (await licenses(token, `?status=${s}`)).licenses.length])));
        expect(counts).toEqual({ pending_review: 1, active: 2, rejected: 1, expired: 1 });
      });

      it.each(['bogus', '', 'ACTIVE', 'granted', 'active&status=expired'])('status=%j is a 400 naming the parameter', async (value) => {
        const { res, body } = await get(route.GET, `${PATH}?status=${value}`, await accessToken(world.owner));
        expect(res.status).toBe(400);
        expect(body).toEqual({ error: { status: 400, code: 'invalid_request', message: expect.stringContaining('status') } });
      });
    });

    describe('pagination', () => {
      it.each([1, 2, 3, 5, 100])('limit=%i visits every license exactly once, newest first', async (limit) => {
        const { ids, pages } = await walk(await accessToken(world.owner), limit);
        expect(ids).toEqual(world.ids);
        expect(pages).toHaveLength(Math.max(1, Math.ceil(world.ids.length / limit)));
        for (const p of pages) expect(p.available_micro).toBe(pages[0]!.available_micro);
      });

      it('pages a filtered list by its own cursors', async () => {
        const token = await accessToken(world.owner);
        expect((await walk(token, 1, 'active')).ids).toEqual([world.approved, world.standard]);
        expect((await walk(token, 1, 'expired')).pages).toEqual([
          expect.objectContaining({ licenses: [expect.objectContaining({ id: world.expired })], pagination: { next_cursor: null, has_more: false, limit: 1 } }),
        ]);
      });

      it('a license bought during a walk shifts none of the pages still to come', async () => {
        const walker = await buyer('Walker Data', 50);
        const first = [await buy(walker, HERE, 1), await buy(walker, HERE, 1), await buy(walker, HERE, 1)].reverse();
        const token = await accessToken(walker);
        let bought: string | undefined;
        const { ids } = await walk(token, 1, undefined, async () => {
          bought ??= await buy(walker, HERE, 1);
        });
        expect(ids).toEqual(first);
        expect((await licenses(token)).licenses.map((l) => l.id)).toEqual([bought, ...first]);
      });

      it('a user with no licenses gets one empty last page at any limit', async () => {
        const token = await accessToken(suite.users.demo2);
        for (const limit of [1, 100]) expect((await walk(token, limit)).pages).toHaveLength(1);
      });

      it.each(['0', '101', '-1', '1.5', 'abc', '', '1e1', '2&limit=3'])('limit=%j is a 400 naming the parameter', async (value) => {
        const { res, body } = await get(route.GET, `${PATH}?limit=${value}`, await accessToken(world.owner));
        expect(res.status).toBe(400);
        expect(body).toEqual({ error: { status: 400, code: 'invalid_request', message: expect.stringContaining('limit') } });
      });

      describe('a cursor not issued for the query is a 400', () => {
        const firstCursor = async (query: string) => (await licenses(await accessToken(world.owner), query)).pagination.next_cursor!;
        const flip = (s: string, i: number) => `${s.slice(0, i)}${s[i] === 'A' ? 'B' : 'A'}${s.slice(i + 1)}`;
        const refused = async (query: string) => {
          const { res, body } = await get(route.GET, `${PATH}${query}`, await accessToken(world.owner));
          expect(res.status, query).toBe(400);
          expect(body).toEqual({ error: { status: 400, code: 'invalid_request', message: expect.stringContaining('`cursor`') } });
        };

        it('the cursors below work untouched', async () => {
          const c = await firstCursor('?limit=2');
          expect((await licenses(await accessToken(world.owner), `?limit=2&cursor=${encodeURIComponent(c)}`)).licenses.map((x) => x.id)).toEqual(
            world.ids.slice(2, 4),
          );
        });
        it('a flipped character', async () => refused(`?limit=2&cursor=${encodeURIComponent(flip(await firstCursor('?limit=2'), 3))}`));
        it('another limit', async () => refused(`?limit=3&cursor=${encodeURIComponent(await firstCursor('?limit=2'))}`));
        it('another status', async () => refused(`?limit=2&status=active&cursor=${encodeURIComponent(await firstCursor('?limit=2'))}`));
        it('a cursor of /api/v1/pages, and one of /api/v1/me/campaigns', async () => {
          const { body } = await get(handlersOf('/api/v1/pages').GET, '/api/v1/pages?limit=2');
          await refused(`?limit=2&cursor=${encodeURIComponent(pagesBody.parse(body).pagination.next_cursor!)}`);
          const campaigns = await get(handlersOf('/api/v1/me/campaigns').GET, '/api/v1/me/campaigns?limit=2', 'svc_sandbox');
          await refused(`?limit=2&cursor=${encodeURIComponent(campaignsBody.parse(campaigns.body).pagination.next_cursor!)}`);
        });
        it('garbage, and an empty or over-long cursor', async () => {
          await refused('?cursor=forged.cursor');
          await refused('?cursor=');
          await refused(`?cursor=${'a'.repeat(513)}`);
        });
      });
    });

    describe('credentials and scope', () => {
      it('a token with the four scopes an authorization without `scope` gives is a 403 insufficient_scope naming licenses:read', async () => {
        const { res, body } = await get(route.GET, PATH, await accessToken(world.owner, { scopes: DEFAULT_SCOPES }));
        expect(res.status).toBe(403);
        expect(res.headers.get('www-authenticate')).toBe(
          `Bearer error="insufficient_scope", error_description="The licenses:read scope is required", scope="licenses:read", resource_metadata="${METADATA}"`,
        );
        expect(body).toEqual({ error: { status: 403, code: 'insufficient_scope', message: expect.stringContaining('licenses:read') } });
      });

      it('campaigns:read reads no licenses, nor licenses:read campaigns', async () => {
        expect((await get(route.GET, PATH, await accessToken(world.owner, { scopes: ['campaigns:read'] }))).res.status).toBe(403);
        const token = await accessToken(world.owner, { scopes: ['licenses:read'] });
        expect((await get(handlersOf('/api/v1/me/campaigns').GET, '/api/v1/me/campaigns', token)).res.status).toBe(403);
        expect((await get(handlersOf('/api/v1/me').GET, '/api/v1/me', token)).res.status).toBe(403);
        expect((await licenses(token)).licenses).toHaveLength(world.ids.length);
      });

      it('the scope is checked before the parameters, and the token before the scope', async () => {
        expect((await get(route.GET, `${PATH}?status=nope&limit=0`, await accessToken(world.owner, { scopes: DEFAULT_SCOPES }))).res.status).toBe(403);
        expect((await get(route.GET, `${PATH}?status=nope&limit=0`)).res.status).toBe(401);
      });
    });

    describe('the OAuth flow grants licenses:read only when asked', () => {
      const flow = async (scope?: string) => {
        const clientId = await publicClient();
        const code = (await approve(clientId, world.owner, scope === undefined ? {} : { scope })).searchParams.get('code')!;
        const { res, body } = await exchange(codeGrant(clientId, code));
        expect(res.status).toBe(200);
        return body as { access_token: string; scope: string };
      };

      it('without `scope`, or with an empty one: the original four, and the licenses route answers 403', async () => {
        for (const scope of [undefined, '']) {
          const token = await flow(scope);
          expect(token.scope).toBe(DEFAULT_SCOPES.join(' '));
          expect(token.scope).not.toContain('licenses:read');
          expect((await get(route.GET, PATH, token.access_token)).res.status).toBe(403);
        }
      });

      it('asking for licenses:read: the consent page names it, the token carries it, and the route answers', async () => {
        const cookie = await sessionCookie(world.owner);
        const page = await (await openAuthorize(authorizeParams(await publicClient(), { scope: 'licenses:read profile:read' }).toString(), cookie)).text();
        expect(page).toContain(SCOPE_DESCRIPTIONS['licenses:read']);
        const withoutScope = await (await openAuthorize(authorizeParams(await publicClient()).toString(), cookie)).text();
        expect(withoutScope).not.toContain('licenses:read');

        const token = await flow('licenses:read profile:read');
        expect(token.scope).toBe('profile:read licenses:read');
        expect((await licenses(token.access_token)).licenses.map((l) => l.id)).toEqual(world.ids);
        expect((await flow(SCOPES.join(' '))).scope).toBe(SCOPES.join(' '));
      });
    });

    it('runs in a batch exactly as alone, filter and cursor included', async () => {
      const token = await accessToken(world.owner);
      const cursor = (await licenses(token, '?limit=2')).pagination.next_cursor!;
      const paths = [PATH, `${PATH}?status=active`, `${PATH}?limit=2&cursor=${encodeURIComponent(cursor)}`, `${PATH}?status=nope`];
      const { res, body } = await postBatch({ requests: paths.map((path) => ({ path })) }, { token });
      expect(res.status).toBe(200);
      for (const [i, path] of paths.entries()) {
        const alone = await get(route.GET, path, token);
        expect(body.responses[i]).toEqual({ id: i, status: alone.res.status, body: alone.body });
      }
      expect(body.responses.map((r) => r.status)).toEqual([200, 200, 200, 400]);
      // A token without the scope gets a 403 for that sub-request alone.
      const four = await postBatch(
        { requests: [{ path: PATH }, { path: '/api/v1/me' }] },
        { token: await accessToken(world.owner, { scopes: DEFAULT_SCOPES }) },
      );
      expect(four.body.responses.map((r) => r.status)).toEqual([403, 200]);
    });

    describe('the sandbox token', () => {
      it('answers the demo buyer, marked as sandbox', async () => {
        const { res, body } = await get(route.GET, PATH, 'svc_sandbox');
        expect(res.status).toBe(200);
        expect(res.headers.get('service-sandbox')).toBe('true');
        const parsed = licensesBody.strict().parse(body);
        expect(parsed.sandbox).toBe(true);
        expect(parsed.licenses.map((l) => l.id)).toEqual(SANDBOX_LICENSES.map((l) => l.id));
        expect([parsed.balance_micro, parsed.reserved_micro, parsed.available_micro]).toEqual([
          SANDBOX_BUYER_FUNDS.balance_micro,
          SANDBOX_BUYER_FUNDS.reserved_micro,
          SANDBOX_BUYER_FUNDS.available_micro,
        ]);
        // As public.buyer_funds counts: what the top-ups put in is the balance plus what the granted licenses cost; the reserve is
        // what those waiting for review would cost.
        const priced = (statuses: string[]) => parsed.licenses.filter((l) => statuses.includes(l.status)).reduce((n, l) => n + l.price_micro, 0);
        expect(parsed.balance_micro + priced(['active', 'expired'])).toBe(1_000_000_000);
        expect(parsed.reserved_micro).toBe(priced(['pending_review']));
        expect(parsed.available_micro).toBe(parsed.balance_micro - parsed.reserved_micro);
        const newestFirst = parsed.licenses.map((l) => Date.parse(l.requested_at));
        expect(newestFirst).toEqual([...newestFirst].sort((a, b) => b - a));
        for (const l of parsed.licenses) {
          expect(l.price_usd).toBe(Math.round(l.price_micro / 10_000) / 100);
          expect(l.rejection_reason !== null).toBe(l.status === 'rejected');
          expect(l.starts_at !== null).toBe(l.status === 'active' || l.status === 'expired');
        }
        expect(new Set(parsed.licenses.map((l) => l.status))).toEqual(new Set(LICENSE_STATUSES));
        expect(new Set(parsed.licenses.map((l) => l.listing)).size).toBe(3);
      });

      it('filters and pages the demo licenses as a real account', async () => {
        expect((await walk('svc_sandbox', 2)).ids).toEqual(SANDBOX_LICENSES.map((l) => l.id));
        const pending = await licenses('svc_sandbox', '?status=pending_review');
        expect(pending.licenses.map((l: License) => l.status)).toEqual(['pending_review']);
        expect(pending.sandbox).toBe(true);
      });
    });
  });
}
