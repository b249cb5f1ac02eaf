import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Engine } from '@/lib/platform/db/engine';
import { MemoryRateLimiter } from '@/lib/platform/http/rate-limit';
import { DEFAULT_PRICING } from '@/lib/money/pricing/defaults';
import { derivedEngine, testEngines } from '../helpers/db';
import { handlersOf } from '../helpers/routes';
import { makeServices, setTestServices } from '../helpers/services';
import { rawAsService } from '../helpers/roles';

const { GET } = handlersOf('/api/v1/pricing');
const ctx = { params: Promise.resolve({}) };
/** A request as our platform forwards it: whatever the client sent, then the peer address. */
const request = (query = '', peer = '192.0.2.10', sentByClient?: string) =>
  new Request(`http://localhost/api/v1/pricing${query}`, {
    headers: { 'x-forwarded-for': sentByClient ? `${sentByClient}, ${peer}` : peer },
  });

for (const engine of testEngines()) {
  describe(`GET /api/v1/pricing on ${engine.name}`, () => {
    let db: Engine;
    beforeAll(async () => {
      db = await engine.open();
    });
    afterAll(async () => {
      setTestServices(undefined);
      await db?.close();
    });
    // Fresh services for each test: no pricing read reused from another test, a fresh rate limit.
    const freshServices = () => setTestServices(makeServices({ database: db }));
    beforeEach(freshServices);
    afterEach(() => setTestServices(undefined));

    it('answers the live values from the pricing settings table', async () => {
      await rawAsService(db, (q) => q.query('update public.pricing_settings set min_payout_micro = 75000000'));
      const res = await GET(request(), ctx);
      expect(res.status).toBe(200);
      const body = await res.json();
      expect(body).toMatchObject({ currency: 'USD', live: true, min_payout_usd: 75, markdown: expect.stringMatching(/\/pricing\.md$/) });
      await rawAsService(db, (q) => q.query('update public.pricing_settings set min_payout_micro = $1', [DEFAULT_PRICING.min_payout_usd * 1_000_000]));
    });

    it.each([
      ['publisher', ['min_payout_usd'], ['advertiser_cpm_usd', 'dataset_prices_usd', 'exclusive_license_multiplier', 'min_top_up_usd']],
      ['advertiser', ['advertiser_cpm_usd', 'min_top_up_usd'], ['dataset_prices_usd', 'min_payout_usd', 'exclusive_license_multiplier']],
      ['data_buyer', ['dataset_prices_usd', 'exclusive_license_multiplier', 'min_top_up_usd'], ['advertiser_cpm_usd', 'min_payout_usd']],
      ['all', ['advertiser_cpm_usd', 'dataset_prices_usd', 'exclusive_license_multiplier', 'min_payout_usd', 'min_top_up_usd'], []],
    ])('narrows the optional fields for audience=%s', async (audience, present, absent) => {
      const body = await (await GET(request(`?audience=${audience}`), ctx)).json();
      for (const f of ['currency', 'live', 'publisher_ad_revenue_share', 'platform_ad_fee', 'publisher_data_revenue_share', 'markdown', ...present]) {
        expect(body).toHaveProperty(f);
      }
      for (const f of absent) expect(body).not.toHaveProperty(f);
    });

    it('reuses a read of the settings for 15 seconds, then reads again', async () => {
      let now = Date.now();
      const services = makeServices({ database: db, now: () => now });
      setTestServices(services);
      const first = services.pricing.values();
      now += 14_000;
      expect(services.pricing.values()).toBe(first);
      const values = await first;
      now += 1_000;
      expect(services.pricing.values()).not.toBe(first); // stale: read again
      // The route answers the same either way.
      const fresh = await (await GET(request(), ctx)).json();
      const reused = await (await GET(request(), ctx)).json();
      expect(reused).toEqual(fresh);
      expect(fresh).toMatchObject({ live: true, min_payout_usd: values?.min_payout_usd });
    });

    it('refuses an unknown audience with 400 in the envelope', async () => {
      const res = await GET(request('?audience=everyone'), ctx);
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({ error: { status: 400, code: 'invalid_request', message: expect.stringMatching(/audience/) } });
    });

    const expectDefaults = async () => {
      const res = await GET(request(), ctx);
      expect(res.status).toBe(200);
      const body = await res.json();
      expect(body).toMatchObject({
        live: false,
        publisher_ad_revenue_share: DEFAULT_PRICING.publisher_ad_revenue_share,
        advertiser_cpm_usd: DEFAULT_PRICING.advertiser_cpm_usd,
        min_payout_usd: DEFAULT_PRICING.min_payout_usd,
      });
    };

    it('answers the defaults with live: false when the table cannot be read', async () => {
      await db.query('revoke select on public.pricing_settings from anon');
      try {
        await expectDefaults();
      } finally {
        await db.query('grant select on public.pricing_settings to anon');
      }
      freshServices(); // nothing kept from the failed read
      expect((await (await GET(request(), ctx)).json()).live).toBe(true);
    });

    it('reuses a read for a few seconds, then reads the table again', async () => {
      const t0 = Date.now();
      let now = t0;
      const { pricing } = makeServices({ database: db, now: () => now });
      const first = await pricing.values();
      await rawAsService(db, (q) => q.query('update public.pricing_settings set min_payout_micro = 99000000'));
      now = t0 + 1_000;
      expect((await pricing.values())?.min_payout_usd).toBe(first?.min_payout_usd);
      now = t0 + 16_000;
      expect((await pricing.values())?.min_payout_usd).toBe(99);
      await rawAsService(db, (q) => q.query('update public.pricing_settings set min_payout_micro = $1', [DEFAULT_PRICING.min_payout_usd * 1_000_000]));
    });

    it('answers the defaults with live: false when the database is down, and live values after recovery', async () => {
      const down = new Error('connection refused');
      setTestServices(
        makeServices({
          database: derivedEngine(db, { transaction: () => Promise.reject(down), query: () => Promise.reject(down), script: () => Promise.reject(down) }),
        }),
      );
      try {
        await expectDefaults();
      } finally {
        freshServices(); // the database is back; nothing kept from the failed read
      }
      expect((await (await GET(request(), ctx)).json()).live).toBe(true);
    });

    it('the 121st request in the window is refused, and a client-sent X-Forwarded-For does not reset it', async () => {
      setTestServices(makeServices({ database: db, rateLimiter: new MemoryRateLimiter({ max: 120, windowSeconds: 60 }) }));
      for (let i = 0; i < 120; i++) {
        // Each request claims another address; the platform's entry (the peer) stays the same.
        const res = await GET(request('', '192.0.2.77', `10.0.${i >> 8}.${i & 255}`), ctx);
        expect(res.status, `request ${i + 1}`).toBe(200);
        expect(res.headers.get('X-RateLimit-Remaining')).toBe(String(119 - i));
      }
      const refused = await GET(request('', '192.0.2.77', '10.9.9.9'), ctx);
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get('Retry-After'))).toBeGreaterThan(0);
      expect(refused.headers.get('RateLimit-Policy')).toBe('"default";q=120;w=60');
      expect(await refused.json()).toEqual({ error: { status: 429, code: 'rate_limited', message: expect.any(String) } });
    });
  });
}
