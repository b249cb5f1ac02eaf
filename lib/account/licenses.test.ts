import { describe, expect, it } from 'vitest';
import { LISTING_IDS } from '../data/buyers/schemas';
import type { LicenseStatus as BuyerLicenseStatus } from '../data/buyers/account';
import { micro } from '../platform/kit/micro';
import { licensesBody, type LicenseRow } from '../schemas/account';
import { LICENSE_LISTINGS, LICENSE_STATUSES, type LicenseStatus } from '../schemas/data-buyers';
import { listLicenses, sandboxAccount, type AccountSource } from './operations';
import { SANDBOX_BUYER_FUNDS, SANDBOX_LICENSES } from './sandbox';
import { licenseView, licensesView, matchesLicenseFilter } from './views';

const KEY = () => Promise.resolve(Buffer.alloc(32, 7));

const row = (n: number, over: Partial<LicenseRow> = {}): LicenseRow => ({
  id: `00000000-0000-4000-8000-0000000${String(n).padStart(5, '0')}`,
  listing: 'ai_interactions',
  exclusive: false,
  status: 'active',
  filter: { categories: [], from: null, to: null, models: [], min_app_age_days: null },
  records: 1,
  bytes: 100,
  units: 1,
  price_micro: micro(2_000),
  terms_version: '2026-11-27',
  requested_at: new Date(Date.UTC(2026, 11, 1, 0, n)),
  starts_at: new Date(Date.UTC(2026, 11, 1, 0, n)),
  expires_at: new Date(Date.UTC(2027, 11, 1, 0, n)),
  rejection_reason: null,
  unacknowledged_deletion_notices: 0,
  ...over,
});

/** A buyer's account whose licenses (newest first) the test changes between reads. */
function account(licenses: LicenseRow[]): AccountSource {
  const funds = { balance_micro: micro(0), reserved_micro: micro(0), available_micro: micro(0) };
  return { sandbox: false, read: async () => ({ id: 'u', funds, licenses: [...licenses] }) as never };
}

describe('the data licenses’ enumerations', () => {
  it('are those of the data buyers’ own module', () => {
    expect([...LICENSE_LISTINGS]).toEqual([...LISTING_IDS]);
    // The statuses are one union on both sides: each assigns to the other (checked by the compiler).
    const toBuyers = (s: LicenseStatus): BuyerLicenseStatus => s;
    const fromBuyers = (s: BuyerLicenseStatus): LicenseStatus => s;
    expect(LICENSE_STATUSES.map(toBuyers).map(fromBuyers)).toEqual([...LICENSE_STATUSES]);
  });
});

describe('a license’s view', () => {
  it('rounds the price once from the exact micro-dollars, and keeps the filter, units and dates as stored', () => {
    // 1.234567891 GB at $40: $49.38271564, kept to the micro-dollar as 49,382,716 and shown $49.38.
    const view = licenseView(
      row(1, {
        listing: 'gb_bundles',
        units: 1.234567891,
        bytes: 1_234_567_891,
        price_micro: micro(49_382_716),
        filter: { categories: ['writing'], from: '2026-09-01', to: null, models: ['m-1'], min_app_age_days: null },
      }),
    );
    expect(view).toMatchObject({
      listing: 'gb_bundles',
      units: 1.234567891,
      bytes: 1_234_567_891,
      price_micro: 49_382_716,
      price_usd: 49.38,
      filter: { categories: ['writing'], from: '2026-09-01', to: null, models: ['m-1'], min_app_age_days: null },
      requested_at: '2026-12-01T00:01:00.000Z',
      expires_at: '2027-12-01T00:01:00.000Z',
    });
    // Half a cent rounds away from zero; less than half a cent is 0.
    expect(licenseView(row(2, { price_micro: micro(5_000) })).price_usd).toBe(0.01);
    expect(licenseView(row(3, { price_micro: micro(4_999) })).price_usd).toBe(0);
    expect(licenseView(row(4, { status: 'pending_review', starts_at: null, expires_at: null }))).toMatchObject({ starts_at: null, expires_at: null });
  });

  it('gives the funds in dollars and exactly, and no field beyond the documented ones', () => {
    const body = licensesView({ balance_micro: micro(740_617_284), reserved_micro: micro(300_000_000), available_micro: micro(440_617_284) }, [row(1)], {
      next_cursor: null,
      has_more: false,
      limit: 50,
    });
    expect(licensesBody.strict().parse(body)).toEqual(body);
    expect(body).toMatchObject({ balance_usd: 740.62, reserved_usd: 300, available_usd: 440.62, available_micro: 440_617_284 });
  });

  it('filters by status, or lets every status through', () => {
    for (const status of LICENSE_STATUSES) {
      expect(matchesLicenseFilter(status, 'all')).toBe(true);
      expect(LICENSE_STATUSES.filter((s) => matchesLicenseFilter(s, status))).toEqual([status]);
    }
  });
});

describe('listLicenses', () => {
  it('pages newest first, and a license added at the head during a walk shifts none of the pages still to come', async () => {
    const licenses = [row(5), row(4), row(3), row(2), row(1)];
    const source = account(licenses);
    const first = await listLicenses(source, { status: 'all', limit: 2 }, KEY);
    expect(first.licenses.map((l) => l.id)).toEqual([row(5).id, row(4).id]);
    expect(first.pagination.has_more).toBe(true);
    // Two licenses bought since the first page: the next pages are the older ones all the same.
    licenses.unshift(row(7), row(6));
    const second = await listLicenses(source, { status: 'all', limit: 2, cursor: first.pagination.next_cursor! }, KEY);
    expect(second.licenses.map((l) => l.id)).toEqual([row(3).id, row(2).id]);
    const third = await listLicenses(source, { status: 'all', limit: 2, cursor: second.pagination.next_cursor! }, KEY);
    expect(third.licenses.map((l) => l.id)).toEqual([row(1).id]);
    expect(third.pagination).toEqual({ next_cursor: null, has_more: false, limit: 2 });
  });

  it('refuses a cursor of another filter or limit before reading the account', async () => {
    let reads = 0;
    const source: AccountSource = { sandbox: false, read: async () => (reads++, { id: 'u', funds: SANDBOX_BUYER_FUNDS, licenses: [row(2), row(1)] }) as never };
    const first = await listLicenses(source, { status: 'all', limit: 1 }, KEY);
    expect(reads).toBe(1);
    for (const query of [
      { status: 'active' as const, limit: 1 },
      { status: 'all' as const, limit: 2 },
    ]) {
      await expect(listLicenses(source, { ...query, cursor: first.pagination.next_cursor! }, KEY)).rejects.toMatchObject({ code: 'invalid_request' });
    }
    expect(reads).toBe(1);
  });

  it('answers the sandbox’s demo buyer, marked, without asking for the cursor key on a single page', async () => {
    const body = await listLicenses(sandboxAccount(Date.now), { status: 'all', limit: 50 }, () => Promise.reject(new Error('no key needed')));
    expect(body.sandbox).toBe(true);
    expect(body.licenses.map((l) => l.id)).toEqual(SANDBOX_LICENSES.map((l) => l.id));
    expect(body.balance_micro).toBe(SANDBOX_BUYER_FUNDS.balance_micro);
  });
});
