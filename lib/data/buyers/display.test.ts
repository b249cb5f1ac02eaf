import { describe, expect, it } from 'vitest';
import {
  canDownload,
  contentText,
  describeFilter,
  exportNote,
  filterFromSearch,
  filterSearch,
  formatUnits,
  licenseStatusNote,
  page,
  pageStart,
  priceBreakdown,
  sampleRefusal,
  sampleSize,
  unitPrice,
  usd,
  usdToMicro,
} from './display';
import { LISTINGS } from './schemas';

/** How the data buyer's console writes money, units, filters and statuses, and reads its filter from a page's address. */

describe('money and units', () => {
  it('rounds an amount once to the cent, and writes a unit price below a cent to its own precision', () => {
    expect(usd(6_000_000)).toBe('$6.00');
    expect(usd(1_234_565)).toBe('$1.23');
    expect(usd(1_235_000)).toBe('$1.24');
    expect(unitPrice(2_000)).toBe('$0.002');
    expect(unitPrice(50_000)).toBe('$0.05');
    expect(unitPrice(40_000_000)).toBe('$40.00');
    expect(unitPrice(1)).toBe('$0.000001');
    expect(usdToMicro(0.002)).toBe(2_000);
    expect(usdToMicro(40)).toBe(40_000_000);
  });

  it('names each listing’s unit, singular and plural, and GB to the MB', () => {
    expect(formatUnits('ai_interactions', 1)).toBe('1 row');
    expect(formatUnits('ai_interactions', 12_500)).toBe('12,500 rows');
    expect(formatUnits('ux_sessions', 3)).toBe('3 recordings');
    expect(formatUnits('gb_bundles', 0.5)).toBe('0.5 GB');
    expect(formatUnits('gb_bundles', 1.2345)).toBe('1.235 GB');
  });

  it('shows how a price is made: units × unit price, × the multiplier when exclusive', () => {
    expect(priceBreakdown('ai_interactions', { units: 1000, unit_price_micro: 2_000, multiplier: 1, price_micro: 2_000_000 })).toBe(
      '1,000 rows × $0.002 = $2.00',
    );
    expect(priceBreakdown('ai_interactions', { units: 1000, unit_price_micro: 2_000, multiplier: 3, price_micro: 6_000_000 })).toBe(
      '1,000 rows × $0.002 × 3 (exclusive) = $6.00',
    );
    expect(priceBreakdown('gb_bundles', { units: 2.5, unit_price_micro: 40_000_000, multiplier: 1.5, price_micro: 150_000_000 })).toBe(
      '2.5 GB × $40.00 × 1.5 (exclusive) = $150.00',
    );
  });
});

describe('filters', () => {
  it('describes a filter in a line, leaving out the models of a listing without them', () => {
    expect(describeFilter({ categories: [], from: null, to: null, models: [] })).toBe('Every category · any day · any model');
    expect(describeFilter({ categories: [], from: null, to: null, models: [] }, LISTINGS.ux_sessions)).toBe('Every category · any day');
    expect(describeFilter({ categories: ['notes', 'travel'], from: '2026-11-01', to: '2026-11-30', models: ['demo-1'] })).toBe(
      'Categories: notes, travel · from Nov 1, 2026 to Nov 30, 2026 UTC · models: demo-1',
    );
    expect(describeFilter({ from: '2026-11-01' })).toBe('Every category · from Nov 1, 2026 UTC · any model');
    expect(describeFilter({ to: '2026-11-30' })).toBe('Every category · up to Nov 30, 2026 UTC · any model');
    expect(describeFilter(null)).toBe('Every category · any day · any model');
    expect(describeFilter({ min_app_age_days: 90 }, LISTINGS.ux_sessions)).toBe('Every category · any day · apps at least 90 days old');
  });

  it('reads the filter from the search parameters, repeated or single, and writes it back the same', () => {
    const read = filterFromSearch({ categories: ['Notes', 'travel', 'notes'], from: '2026-11-01', to: '', models: 'demo-1' });
    expect(read.error).toBeNull();
    expect(read.filter).toEqual({ categories: ['notes', 'travel'], from: '2026-11-01', to: null, models: ['demo-1'], min_app_age_days: null });
    expect(filterSearch(read.filter)).toBe('?categories=notes&categories=travel&from=2026-11-01&models=demo-1');
    expect(filterFromSearch(Object.fromEntries(new URLSearchParams(filterSearch(read.filter).slice(1)))).filter.from).toBe('2026-11-01');
    expect(filterSearch(read.filter, { sample: '100' })).toContain('&sample=100');
    expect(filterFromSearch({}).filter).toEqual({ categories: [], from: null, to: null, models: [], min_app_age_days: null });
    expect(filterSearch(filterFromSearch({}).filter)).toBe('');
    // The apps' age: a whole number of days, written back; empty or 0 is any age.
    const aged = filterFromSearch({ min_app_age_days: ' 90 ' });
    expect(aged.filter.min_app_age_days).toBe(90);
    expect(filterSearch(aged.filter)).toBe('?min_app_age_days=90');
    expect(filterFromSearch({ min_app_age_days: '0' }).filter.min_app_age_days).toBeNull();
  });

  it('refuses a filter it cannot apply, says why, applies none, and keeps what was given for the form', () => {
    const backwards = filterFromSearch({ from: '2026-11-30', to: '2026-11-01' });
    expect(backwards.error).toBe('The first day comes before the last.');
    expect(backwards.filter).toEqual({ categories: [], from: null, to: null, models: [], min_app_age_days: null });
    expect(backwards.values).toEqual({ categories: [], from: '2026-11-30', to: '2026-11-01', models: [], min_app_age_days: '' });
    expect(filterFromSearch({ min_app_age_days: 'a month' }).error).toBe('Give the apps’ age as a whole number of days.');
    expect(filterFromSearch({ min_app_age_days: '4000' }).error).toBe('At most 3,650 days.');
    expect(filterFromSearch({ from: 'yesterday' }).error).toBe('Give dates as YYYY-MM-DD.');
    expect(filterFromSearch({ categories: Array.from({ length: 21 }, (_, i) => `c${i}`) }).error).toBe('Choose at most 20 values.');
  });

  it('shows a sample of 20, or of 100 when asked', () => {
    expect(sampleSize({})).toBe(20);
    expect(sampleSize({ sample: '100' })).toBe(100);
    expect(sampleSize({ sample: '5000' })).toBe(20);
    expect(sampleSize({ sample: ['100', '20'] })).toBe(100);
  });
});

describe('sample content', () => {
  it('is text: a string as it is, anything else as indented JSON, markup never interpreted', () => {
    expect(contentText('<script>alert(1)</script>')).toBe('<script>alert(1)</script>');
    expect(contentText({ prompt: '<b>hi</b>', n: 1 })).toBe('{\n  "prompt": "<b>hi</b>",\n  "n": 1\n}');
    expect(contentText(null)).toBe('null');
    expect(contentText(undefined)).toBe('');
  });
});

describe('statuses', () => {
  const base = { price_micro: 6_000_000, expires_at: new Date('2027-11-27T10:00:00Z'), rejection_reason: null };

  it('says what each license status means', () => {
    expect(licenseStatusNote({ ...base, status: 'pending_review' })).toContain('$6.00, is reserved');
    expect(licenseStatusNote({ ...base, status: 'active' })).toBe('In force until Nov 27, 2027 UTC.');
    expect(licenseStatusNote({ ...base, status: 'rejected', rejection_reason: 'Intended use unclear' })).toBe(
      'Rejected: Intended use unclear. Nothing was charged, and its records are released.',
    );
    expect(licenseStatusNote({ ...base, status: 'expired' })).toBe('Expired on Nov 27, 2027 UTC: its files are no longer yours to download.');
  });

  it('says where the files are, with progress and sizes', () => {
    const e = { rows_total: null, rows_done: 0, parquet_bytes: null, jsonl_bytes: null, error: null };
    expect(exportNote({ ...e, status: 'queued' })).toBe('Queued: the files are written in a moment.');
    expect(exportNote({ ...e, status: 'running', rows_total: 12_000, rows_done: 3_500 })).toBe('Writing the files: 3,500 of 12,000 records.');
    expect(exportNote({ ...e, status: 'running', rows_done: 10 })).toBe('Writing the files: 10 records so far.');
    expect(exportNote({ ...e, status: 'done', parquet_bytes: 1_500_000, jsonl_bytes: 4_200 })).toBe('Ready: Parquet 1.5 MB, JSONL 4.2 kB.');
    expect(exportNote({ ...e, status: 'failed', error: 'storage unavailable' })).toContain('storage unavailable');
  });

  it('offers downloads only for a license in force whose files are written', () => {
    const now = Date.parse('2026-12-01T00:00:00Z');
    const active = { status: 'active' as const, expires_at: new Date('2027-12-01T00:00:00Z') };
    expect(canDownload(active, { status: 'done' }, now)).toBe(true);
    expect(canDownload(active, { status: 'running' }, now)).toBe(false);
    expect(canDownload(active, null, now)).toBe(false);
    expect(canDownload({ status: 'active', expires_at: new Date('2026-11-30T00:00:00Z') }, { status: 'done' }, now)).toBe(false);
    expect(canDownload({ status: 'expired', expires_at: new Date('2027-12-01T00:00:00Z') }, { status: 'done' }, now)).toBe(false);
    expect(canDownload({ status: 'pending_review', expires_at: null }, { status: 'done' }, now)).toBe(false);
  });
});

describe('pages of licenses', () => {
  const rows = (n: number) => Array.from({ length: n }, (_, i) => ({ id: String(i), requested_at: new Date(Date.UTC(2026, 10, 30) - i * 60_000) }));

  it('shows a page and says where the next starts, only when there is one', () => {
    const first = page(rows(51), 50);
    expect(first.rows).toHaveLength(50);
    expect(first.next).toBe(rows(50)[49]!.requested_at.toISOString());
    expect(page(rows(50), 50)).toEqual({ rows: rows(50), next: null });
    expect(page([], 50)).toEqual({ rows: [], next: null });
  });

  it('reads where a page starts, and ignores anything but a time', () => {
    expect(pageStart({ before: '2026-11-30T10:00:00.123Z' })?.toISOString()).toBe('2026-11-30T10:00:00.123Z');
    expect(pageStart({})).toBeUndefined();
    expect(pageStart({ before: 'tomorrow' })).toBeUndefined();
    expect(pageStart({ before: '2026-13-45T99:00:00Z' })).toBeUndefined();
  });

  it('says why there is no sample', () => {
    expect(sampleRefusal({ ok: false, error: 'not_funded' })).toMatch(/^Samples are for buyers who have put money in their balance/);
    expect(sampleRefusal({ ok: false, error: 'rate_limited', retryAt: new Date('2026-12-01T14:05:00Z') })).toContain('after 14:05 UTC');
  });
});
