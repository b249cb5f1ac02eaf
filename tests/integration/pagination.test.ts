import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SANDBOX_CAMPAIGNS, SANDBOX_LICENSES } from '@/lib/account/sandbox';
import { allPages } from '@/lib/docs/content/pages';
import type { Engine } from '@/lib/platform/db/engine';
import { env } from '@/lib/platform/env';
import { MemoryRateLimiter } from '@/lib/platform/http/rate-limit';
import { campaignsBody, licensesBody } from '@/lib/schemas/account';
import { pagesBody } from '@/lib/schemas/pages';
import { searchBody } from '@/lib/schemas/search';
import { searchPages } from '@/lib/docs/search/engine';
import type { Services } from '@/lib/services';
import { openPgliteCopy } from '../helpers/db';
import { handlersOf } from '../helpers/routes';
import { makeServices, setTestServices } from '../helpers/services';

/**
 * Cursor pagination (content/docs/rest-api.md): following
 * `next_cursor` visits every item exactly once, and a cursor that was edited, forged or issued
 * for another query, limit or endpoint is a 400.
 */

type Get = (req: Request, ctx: { params: Promise<Record<string, never>> }) => Promise<Response>;
const searchGet: Get = handlersOf('/api/v1/search').GET;
const pagesGet: Get = handlersOf('/api/v1/pages').GET;
const campaignsGet: Get = handlersOf('/api/v1/me/campaigns').GET;
const licensesGet: Get = handlersOf('/api/v1/me/licenses').GET;

const CURSOR_KEY = Buffer.alloc(32, 7);
const base = () => env().PUBLIC_BASE_URL;

function get(handler: Get, path: string, params: Record<string, string | number>, headers: Record<string, string> = {}) {
  const qs = new URLSearchParams(Object.entries(params).map(([k, v]) => [k, String(v)]));
  return handler(new Request(`http://localhost${path}?${qs}`, { headers: { 'x-forwarded-for': '192.0.2.55', ...headers } }), {
    params: Promise.resolve({}),
  });
}

const search = (params: Record<string, string | number>) => get(searchGet, '/api/v1/search', params);
const pages = (params: Record<string, string | number>) => get(pagesGet, '/api/v1/pages', params);
/** The account's list, as the sandbox token reads it (a real account's walk: tests/integration/account-campaigns.test.ts). */
const campaigns = (params: Record<string, string | number>) => get(campaignsGet, '/api/v1/me/campaigns', params, { authorization: 'Bearer svc_sandbox' });
/** The data buyer's list, as the sandbox token reads it (a real buyer's walk: tests/integration/account-licenses.test.ts). */
const licenses = (params: Record<string, string | number>) => get(licensesGet, '/api/v1/me/licenses', params, { authorization: 'Bearer svc_sandbox' });

async function json200(res: Response): Promise<unknown> {
  const body = await res.json();
  expect(res.status, JSON.stringify(body)).toBe(200);
  return body;
}

async function expectInvalidCursor(res: Response) {
  expect(res.status).toBe(400);
  expect(await res.json()).toEqual({ error: { status: 400, code: 'invalid_request', message: expect.stringContaining('`cursor`') } });
}

let db: Engine;
/** The suite's services: its database, a rate limit no walk reaches, cursors signed with the stored key. */
let services: Services;
/** The suite's services, with cursors signed with `key` instead of the stored one. */
const signingWith = (key: Buffer): Services => ({ ...services, cursorKey: () => Promise.resolve(key) });
beforeAll(async () => {
  db = await openPgliteCopy();
  services = makeServices({ database: db, rateLimiter: new MemoryRateLimiter({ max: 100_000, windowSeconds: 60 }) });
  setTestServices(signingWith(CURSOR_KEY));
});
afterAll(async () => {
  setTestServices(undefined);
  await db?.close();
});

describe('walking every cursor of /api/v1/search', () => {
  const rows = ['api', 'payout', 'token'].flatMap((q) => [1, 2, 3, 20].map((limit) => ({ q, limit })));

  it.each(rows)('q=$q limit=$limit visits every match exactly once, in order', async ({ q, limit }) => {
    const expected = searchPages(q).map((h) => `${base()}${h.path}`);
    expect(expected.length, `"${q}" should match several pages`).toBeGreaterThan(3);

    const seen: string[] = [];
    let cursor: string | null = null;
    let calls = 0;
    for (;;) {
      const body = searchBody.parse(await json200(await search({ q, limit, ...(cursor ? { cursor } : {}) })));
      calls += 1;
      expect(body.query).toBe(q);
      expect(body.count).toBe(expected.length);
      expect(body.pagination.limit).toBe(limit);
      expect(body.results.length).toBeLessThanOrEqual(limit);
      expect(body.results.length).toBeGreaterThan(0);
      seen.push(...body.results.map((r) => r.url));
      if (!body.pagination.has_more) {
        expect(body.pagination.next_cursor).toBeNull();
        break;
      }
      expect(body.results.length, 'a page before the last is full').toBe(limit);
      expect(body.pagination.next_cursor).toEqual(expect.any(String));
      cursor = body.pagination.next_cursor;
      expect(calls, 'the walk ends').toBeLessThanOrEqual(expected.length);
    }
    expect(new Set(seen).size, 'no URL twice').toBe(seen.length);
    expect(seen).toEqual(expected);
    expect(calls).toBe(Math.ceil(expected.length / limit));
  });

  it('a query without matches is one empty last page', async () => {
    const body = searchBody.parse(await json200(await search({ q: 'zzzqqqxxyy', limit: 3 })));
    expect(body).toEqual({ query: 'zzzqqqxxyy', count: 0, results: [], pagination: { next_cursor: null, has_more: false, limit: 3 } });
  });
});

describe('walking every cursor of /api/v1/pages', () => {
  it.each([1, 7, 50, 100])('limit=%i lists allPages() exactly once, in order, with a constant total', async (limit) => {
    const expected = allPages().map((p) => p.path);
    const seen: string[] = [];
    let cursor: string | null = null;
    let calls = 0;
    for (;;) {
      const body = pagesBody.parse(await json200(await pages({ limit, ...(cursor ? { cursor } : {}) })));
      calls += 1;
      expect(body.total).toBe(expected.length);
      expect(body.count).toBe(body.pages.length);
      expect(body.pagination.limit).toBe(limit);
      expect(body.pages.length).toBeLessThanOrEqual(limit);
      for (const p of body.pages) {
        expect(p.url).toBe(`${base()}${p.path}`);
      }
      seen.push(...body.pages.map((p) => p.path));
      if (!body.pagination.has_more) {
        expect(body.pagination.next_cursor).toBeNull();
        break;
      }
      expect(body.pages.length, 'a page before the last is full').toBe(limit);
      cursor = body.pagination.next_cursor;
      expect(calls, 'the walk ends').toBeLessThanOrEqual(expected.length);
    }
    expect(new Set(seen).size, 'no page twice').toBe(seen.length);
    expect(seen).toEqual(expected);
    expect(calls).toBe(Math.max(1, Math.ceil(expected.length / limit)));
  });
});

describe('walking every cursor of /api/v1/me/campaigns', () => {
  it.each([1, 2, 4, 5, 100])('limit=%i lists the campaigns exactly once, in order, each page with the whole balance', async (limit) => {
    const expected = SANDBOX_CAMPAIGNS.map((c) => c.id);
    const seen: string[] = [];
    let cursor: string | null = null;
    let calls = 0;
    for (;;) {
      const body = campaignsBody.parse(await json200(await campaigns({ limit, ...(cursor ? { cursor } : {}) })));
      calls += 1;
      expect(body.pagination.limit).toBe(limit);
      expect(body.campaigns.length).toBeLessThanOrEqual(limit);
      seen.push(...body.campaigns.map((c) => c.id));
      if (!body.pagination.has_more) {
        expect(body.pagination.next_cursor).toBeNull();
        break;
      }
      expect(body.campaigns.length, 'a page before the last is full').toBe(limit);
      cursor = body.pagination.next_cursor;
      expect(calls, 'the walk ends').toBeLessThanOrEqual(expected.length);
    }
    expect(seen).toEqual(expected);
    expect(calls).toBe(Math.ceil(expected.length / limit));
  });

  it('a filter that matches nothing is one empty last page', async () => {
    const body = campaignsBody.parse(await json200(await campaigns({ status: 'scheduled', limit: 3 })));
    expect(body.campaigns).toEqual([]);
    expect(body.pagination).toEqual({ next_cursor: null, has_more: false, limit: 3 });
  });

  it.each([0, 101])('limit=%i is out of bounds: a 400', async (limit) => {
    const res = await campaigns({ limit });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: { status: 400, code: 'invalid_request', message: expect.stringContaining('limit') } });
  });

  it('a pages cursor is refused by the campaigns, and a campaigns cursor by the pages', async () => {
    const pagesCursor = pagesBody.parse(await json200(await pages({ limit: 2 }))).pagination.next_cursor!;
    await expectInvalidCursor(await campaigns({ limit: 2, cursor: pagesCursor }));
    const campaignsCursor = campaignsBody.parse(await json200(await campaigns({ limit: 2 }))).pagination.next_cursor!;
    await expectInvalidCursor(await pages({ limit: 2, cursor: campaignsCursor }));
    await expectInvalidCursor(await campaigns({ limit: 2, status: 'active', cursor: campaignsCursor }));
  });
});

describe('walking every cursor of /api/v1/me/licenses', () => {
  it.each([1, 2, 3, 5, 100])('limit=%i lists the licenses exactly once, newest first, each page with the whole funds', async (limit) => {
    const expected = SANDBOX_LICENSES.map((l) => l.id);
    const seen: string[] = [];
    const funds = new Set<string>();
    let cursor: string | null = null;
    let calls = 0;
    for (;;) {
      const body = licensesBody.parse(await json200(await licenses({ limit, ...(cursor ? { cursor } : {}) })));
      calls += 1;
      expect(body.pagination.limit).toBe(limit);
      expect(body.licenses.length).toBeLessThanOrEqual(limit);
      seen.push(...body.licenses.map((l) => l.id));
      funds.add(`${body.balance_micro} ${body.reserved_micro} ${body.available_micro}`);
      if (!body.pagination.has_more) {
        expect(body.pagination.next_cursor).toBeNull();
        break;
      }
      expect(body.licenses.length, 'a page before the last is full').toBe(limit);
      cursor = body.pagination.next_cursor;
      expect(calls, 'the walk ends').toBeLessThanOrEqual(expected.length);
    }
    expect(seen).toEqual(expected);
    expect(calls).toBe(Math.ceil(expected.length / limit));
    expect(funds.size).toBe(1);
  });

  it('a status filter pages the licenses of that status alone, by its own cursors', async () => {
    const expired = licensesBody.parse(await json200(await licenses({ status: 'expired', limit: 3 })));
    expect(expired.licenses.map((l) => l.status)).toEqual(['expired']);
    expect(expired.pagination).toEqual({ next_cursor: null, has_more: false, limit: 3 });
    const active = licensesBody.parse(await json200(await licenses({ status: 'active', limit: 1 })));
    expect(active.licenses.map((l) => l.status)).toEqual(['active']);
    const next = licensesBody.parse(await json200(await licenses({ status: 'active', limit: 1, cursor: active.pagination.next_cursor! })));
    expect(next.licenses.map((l) => l.status)).toEqual(['active']);
    expect(next.pagination).toEqual({ next_cursor: null, has_more: false, limit: 1 });
    expect(next.licenses[0]!.id).not.toBe(active.licenses[0]!.id);
  });

  it.each([0, 101])('limit=%i is out of bounds: a 400', async (limit) => {
    const res = await licenses({ limit });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: { status: 400, code: 'invalid_request', message: expect.stringContaining('limit') } });
  });

  it('a cursor of the campaigns or the pages is refused by the licenses, and a licenses cursor by both', async () => {
    const pagesCursor = pagesBody.parse(await json200(await pages({ limit: 2 }))).pagination.next_cursor!;
    const campaignsCursor = campaignsBody.parse(await json200(await campaigns({ limit: 2 }))).pagination.next_cursor!;
    await expectInvalidCursor(await licenses({ limit: 2, cursor: pagesCursor }));
    await expectInvalidCursor(await licenses({ limit: 2, cursor: campaignsCursor }));
    const licensesCursor = licensesBody.parse(await json200(await licenses({ limit: 2 }))).pagination.next_cursor!;
    await expectInvalidCursor(await pages({ limit: 2, cursor: licensesCursor }));
    await expectInvalidCursor(await campaigns({ limit: 2, cursor: licensesCursor }));
    await expectInvalidCursor(await licenses({ limit: 2, status: 'active', cursor: licensesCursor }));
    await expectInvalidCursor(await licenses({ limit: 3, cursor: licensesCursor }));
  });
});

describe('tampered, forged and foreign cursors are a 400', () => {
  /** The second-page cursor of a search or page listing, as issued. */
  const searchCursor = async (q: string, limit: number) => {
    const body = searchBody.parse(await json200(await search({ q, limit })));
    return body.pagination.next_cursor!;
  };
  const pagesCursor = async (limit: number) => pagesBody.parse(await json200(await pages({ limit }))).pagination.next_cursor!;

  /** Replaces the character at `i` by another one of the base64url alphabet. */
  const flip = (s: string, i: number) => `${s.slice(0, i)}${s[i] === 'A' ? 'B' : 'A'}${s.slice(i + 1)}`;

  it('the cursors used below are accepted untouched (the refusals are not a side effect)', async () => {
    const a = await searchCursor('api', 2);
    expect((await search({ q: 'api', limit: 2, cursor: a })).status).toBe(200);
    expect((await pages({ limit: 3, cursor: await pagesCursor(3) })).status).toBe(200);
  });

  type Row = { name: string; endpoint: 'search' | 'pages'; params: () => Promise<Record<string, string | number>> };
  const rows: Row[] = [
    {
      name: 'a flipped character in the payload',
      endpoint: 'search',
      params: async () => ({ q: 'api', limit: 2, cursor: flip(await searchCursor('api', 2), 3) }),
    },
    {
      name: 'a flipped character in the signature',
      endpoint: 'search',
      params: async () => {
        const c = await searchCursor('api', 2);
        return { q: 'api', limit: 2, cursor: flip(c, c.indexOf('.') + 5) };
      },
    },
    {
      name: 'the last character of the signature changed',
      endpoint: 'pages',
      params: async () => {
        const c = await pagesCursor(3);
        return { limit: 3, cursor: flip(c, c.length - 1) };
      },
    },
    {
      name: 'the payload of one valid cursor with the signature of another',
      endpoint: 'search',
      params: async () => {
        const [payloadA] = (await searchCursor('api', 2)).split('.');
        const [, macB] = (await searchCursor('payout', 2)).split('.');
        return { q: 'api', limit: 2, cursor: `${payloadA}.${macB}` };
      },
    },
    {
      name: 'a cursor of query "api" used with query "payout"',
      endpoint: 'search',
      params: async () => ({ q: 'payout', limit: 2, cursor: await searchCursor('api', 2) }),
    },
    {
      name: 'a search cursor used with another limit',
      endpoint: 'search',
      params: async () => ({ q: 'api', limit: 3, cursor: await searchCursor('api', 2) }),
    },
    {
      name: 'a search cursor used with the default limit',
      endpoint: 'search',
      params: async () => ({ q: 'api', cursor: await searchCursor('api', 2) }),
    },
    {
      name: 'a pages cursor used with another limit',
      endpoint: 'pages',
      params: async () => ({ limit: 4, cursor: await pagesCursor(3) }),
    },
    {
      name: 'a search cursor used on /api/v1/pages',
      endpoint: 'pages',
      params: async () => ({ limit: 2, cursor: await searchCursor('api', 2) }),
    },
    {
      name: 'a pages cursor used on /api/v1/search',
      endpoint: 'search',
      params: async () => ({ q: 'api', limit: 2, cursor: await pagesCursor(2) }),
    },
    { name: 'random garbage', endpoint: 'search', params: async () => ({ q: 'api', cursor: randomBytes(24).toString('base64url') }) },
    { name: 'random garbage with a dot', endpoint: 'pages', params: async () => ({ cursor: `${randomBytes(12).toString('base64url')}.x` }) },
    {
      name: 'a valid cursor with an extra "." segment',
      endpoint: 'search',
      params: async () => ({ q: 'api', limit: 2, cursor: `${await searchCursor('api', 2)}.x` }),
    },
    {
      name: 'a valid cursor with a trailing "."',
      endpoint: 'pages',
      params: async () => ({ limit: 3, cursor: `${await pagesCursor(3)}.` }),
    },
    {
      name: 'a forged payload (offset 999999) with the original signature',
      endpoint: 'search',
      params: async () => {
        const [payload, mac] = (await searchCursor('api', 2)).split('.');
        const data = JSON.parse(Buffer.from(payload!, 'base64url').toString('utf8'));
        const forged = Buffer.from(JSON.stringify({ ...data, o: 999999 })).toString('base64url');
        return { q: 'api', limit: 2, cursor: `${forged}.${mac}` };
      },
    },
    {
      name: 'a forged payload (offset 999999) with a made-up signature',
      endpoint: 'pages',
      params: async () => {
        const [payload] = (await pagesCursor(3)).split('.');
        const data = JSON.parse(Buffer.from(payload!, 'base64url').toString('utf8'));
        const forged = Buffer.from(JSON.stringify({ ...data, o: 999999 })).toString('base64url');
        return { limit: 3, cursor: `${forged}.${randomBytes(32).toString('base64url')}` };
      },
    },
    {
      name: 'a payload without a signature',
      endpoint: 'pages',
      params: async () => ({ limit: 3, cursor: (await pagesCursor(3)).split('.')[0]! }),
    },
  ];

  it.each(rows)('$name', async ({ endpoint, params }) => {
    const p = await params();
    await expectInvalidCursor(await (endpoint === 'search' ? search(p) : pages(p)));
  });

  it('a cursor signed with another key (another deployment) is refused', async () => {
    setTestServices(signingWith(Buffer.alloc(32, 9)));
    let foreign: string;
    try {
      foreign = await searchCursor('api', 2);
    } finally {
      setTestServices(signingWith(CURSOR_KEY));
    }
    await expectInvalidCursor(await search({ q: 'api', limit: 2, cursor: foreign }));
  });

  it('with the stored key (service_secrets), a cursor issued by one call is accepted by the next', async () => {
    setTestServices(services);
    try {
      const c = await searchCursor('token', 2);
      const body = searchBody.parse(await json200(await search({ q: 'token', limit: 2, cursor: c })));
      expect(body.results.map((r) => r.url)).toEqual(
        searchPages('token')
          .slice(2, 4)
          .map((h) => `${base()}${h.path}`),
      );
      const rows = await db.query<{ count: number }>("select count(*)::int as count from public.service_secrets where name = 'cursor_key'");
      expect(rows[0]?.count).toBe(1);
    } finally {
      setTestServices(signingWith(CURSOR_KEY));
    }
  });
});
